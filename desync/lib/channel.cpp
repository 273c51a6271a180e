// channel.cpp - sends, receives and the end of the runtime's messages.
#include "channel.h"

#include <cstring>
#include <ctime>

namespace desync {

Channel::~Channel()
{
    // On the error paths requests may still be live: a process that failed has told
    // the others (TAG_ABORT) and drained; anything left is cancelled, not leaked.
    for (MPI_Request &r : requests_)
        if (r != MPI_REQUEST_NULL) {
            MPI_Cancel(&r);
            MPI_Request_free(&r);
        }
    if (comm_ != MPI_COMM_NULL)
        MPI_Comm_free(&comm_);
}

int Channel::open(MPI_Comm comm)
{
    int rc = MPI_Comm_dup(comm, &comm_);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
    sent_to_.assign(static_cast<size_t>(size_), 0);
    received_from_.assign(static_cast<size_t>(size_), 0);
    return MPI_SUCCESS;
}

int Channel::send(int dest, int tag, std::vector<char> bytes)
{
    outgoing_.push_back({std::move(bytes)});
    requests_.push_back(MPI_REQUEST_NULL);
    std::vector<char> &b = outgoing_.back().bytes;
    sent_to_[static_cast<size_t>(dest)]++;
    return MPI_Isend(b.data(), static_cast<int>(b.size()), MPI_BYTE, dest, tag, comm_, &requests_.back());
}

int Channel::send_block(int dest, const char *message, size_t size, int *pin)
{
    outgoing_.push_back({{}, pin});
    requests_.push_back(MPI_REQUEST_NULL);
    ++*pin;
    sent_to_[static_cast<size_t>(dest)]++;
    return MPI_Isend(message, static_cast<int>(size), MPI_BYTE, dest, TAG_BLOCK, comm_, &requests_.back());
}

int Channel::poll(Message *m, bool *got)
{
    *got = false;
    int flag = 0;
    MPI_Status status;
    int rc = MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &flag, &status);
    if (rc != MPI_SUCCESS || !flag)
        return rc;
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    m->source = status.MPI_SOURCE;
    m->tag = status.MPI_TAG;
    char *into;
    if (m->tag == TAG_BLOCK) {
        m->block = allocate_(static_cast<size_t>(count));
        m->block_size = static_cast<size_t>(count);
        if (!m->block)
            return MPI_ERR_NO_MEM;
        into = m->block;
    } else {
        m->bytes.resize(static_cast<size_t>(count));
        into = m->bytes.data();
    }
    rc = MPI_Recv(into, count, MPI_BYTE, m->source, m->tag, comm_, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS) {
        received_from_[static_cast<size_t>(m->source)]++;
        *got = true;
    }
    return rc;
}

int Channel::progress()
{
    if (requests_.empty())
        return MPI_SUCCESS;
    int done = 0;
    int rc = MPI_Testall(static_cast<int>(requests_.size()), requests_.data(), &done, MPI_STATUSES_IGNORE);
    if (rc == MPI_SUCCESS && done) {
        for (Outgoing &o : outgoing_)
            finished(o);
        requests_.clear();
        outgoing_.clear();
        return rc;
    }
    // Drop the finished ones from the front (sends mostly finish in order).
    size_t done_count = 0;
    while (done_count < requests_.size()) {
        int one = 0;
        rc = MPI_Test(&requests_[done_count], &one, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || !one)
            break;
        finished(outgoing_[done_count]);
        done_count++;
    }
    requests_.erase(requests_.begin(), requests_.begin() + static_cast<long>(done_count));
    outgoing_.erase(outgoing_.begin(), outgoing_.begin() + static_cast<long>(done_count));
    return rc;
}

void Channel::pause()
{
    struct timespec t = {0, 50000};
    nanosleep(&t, nullptr);
}

int Channel::drain(const std::function<void(const Message &)> &on_message)
{
    std::vector<long long> expected(static_cast<size_t>(size_), 0);
    MPI_Request exchange;
    int rc = MPI_Ialltoall(sent_to_.data(), 1, MPI_LONG_LONG, expected.data(), 1, MPI_LONG_LONG, comm_, &exchange);
    if (rc != MPI_SUCCESS)
        return rc;
    bool counted = false;
    for (;;) {
        bool idle = true;
        if (!counted) {
            int flag = 0;
            rc = MPI_Test(&exchange, &flag, MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS)
                return rc;
            counted = flag != 0;
        }
        Message m;
        bool got = false;
        rc = poll(&m, &got);
        if (rc != MPI_SUCCESS)
            return rc;
        if (got) {
            on_message(m);
            idle = false;
        }
        if ((rc = progress()) != MPI_SUCCESS)
            return rc;
        if (counted && requests_.empty() && received_from_ == expected)
            return MPI_SUCCESS;
        if (idle)
            pause();
    }
}

void put_ints(std::vector<char> *bytes, const int *values, size_t count)
{
    size_t at = bytes->size();
    bytes->resize(at + count * sizeof(int));
    std::memcpy(bytes->data() + at, values, count * sizeof(int));
}

bool get_ints(const std::vector<char> &bytes, size_t *offset, int *values, size_t count)
{
    if (bytes.size() < *offset + count * sizeof(int))
        return false;
    std::memcpy(values, bytes.data() + *offset, count * sizeof(int));
    *offset += count * sizeof(int);
    return true;
}

} // namespace desync
