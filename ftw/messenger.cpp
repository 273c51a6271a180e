// messenger.cpp - sends kept alive until complete, and their accounting.
#include "messenger.h"

namespace pftw {

Messenger::Messenger(MPI_Comm comm, int size) : comm_(comm), messages_to_(size), bytes_to_(size) {}

bool Messenger::send(int to, int tag, std::string payload, bool synchronous)
{
    pending_.push_back(PendingSend{MPI_REQUEST_NULL, std::move(payload), synchronous});
    PendingSend &send = pending_.back();
    int count = static_cast<int>(send.payload.size());
    int rc = synchronous ? MPI_Issend(send.payload.data(), count, MPI_BYTE, to, tag, comm_, &send.request)
                         : MPI_Isend(send.payload.data(), count, MPI_BYTE, to, tag, comm_, &send.request);
    if (rc != MPI_SUCCESS) {
        pending_.pop_back();
        failed_ = true;
        return false;
    }
    messages_to_[to]++;
    bytes_to_[to] += send.payload.size();
    return true;
}

bool Messenger::probe(MPI_Status *status)
{
    int flag = 0;
    if (MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &flag, status) != MPI_SUCCESS) {
        failed_ = true;
        return false;
    }
    return flag != 0;
}

bool Messenger::receive(const MPI_Status &status, std::string *payload)
{
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    payload->resize(static_cast<size_t>(count));
    if (MPI_Recv(payload->data(), count, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, comm_, MPI_STATUS_IGNORE) !=
        MPI_SUCCESS) {
        failed_ = true;
        return false;
    }
    return true;
}

bool Messenger::sends_completed(bool synchronous_only)
{
    bool all_done = true;
    for (auto it = pending_.begin(); it != pending_.end();) {
        int done = 0;
        if (MPI_Test(&it->request, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
            failed_ = true;
            done = 1;
        }
        if (done) {
            it = pending_.erase(it);
            continue;
        }
        if (it->synchronous || !synchronous_only)
            all_done = false;
        ++it;
    }
    return all_done;
}

bool Messenger::complete_all_sends()
{
    for (PendingSend &send : pending_)
        if (MPI_Wait(&send.request, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            failed_ = true;
    pending_.clear();
    return !failed_;
}

}  // namespace pftw
