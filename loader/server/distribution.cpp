#include "distribution.h"

#include <cerrno>
#include <climits>

namespace piox_load {

namespace {

enum Tag { kRequest = 1, kReply = 2 };
enum Kind : uint64_t { kItem = 1, kEnd = 2 };
const std::string kDone;  // the empty path: "I will ask for nothing more"
const std::string kNoBody;  // the end's broadcast body

}  // namespace

// A send in flight and the bytes it sends.
struct Distribution::Outgoing {
    std::string bytes;
    MPI_Request request = MPI_REQUEST_NULL;
};

// A reader's broadcast in flight: its header's buffer and the requests of header and
// body (the body is read_'s encoded item, whose node outlives it, or kNoBody).
struct Distribution::Pushing {
    uint64_t header[2] = {0, 0};
    MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
};

Distribution::Distribution(MPI_Comm world, int readers, bool push) : push_(push)
{
    int rank = 0, size = 1;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    int groups = readers < 1 ? 1 : (readers > size ? size : readers);
    int color = static_cast<int>(static_cast<long>(rank) * groups / size);
    MPI_Comm_split(world, color, rank, &group_);
    MPI_Comm_dup(group_, &broadcasts_);
    MPI_Comm_dup(world, &stop_);
    MPI_Comm_dup(world, &ready_);
    MPI_Comm_rank(group_, &group_rank_);
    MPI_Comm_size(group_, &group_size_);
}

void Distribution::start()
{
    int rank = 0;
    MPI_Comm_rank(stop_, &rank);
    if (rank != 0) {
        MPI_Ibarrier(stop_, &stop_request_);
        stop_joined_ = true;
    }
    if (!is_reader() && push_)
        post_header();
}

Distribution::~Distribution()
{
    for (auto& send : sends_)
        MPI_Wait(&send->request, MPI_STATUS_IGNORE);
    for (auto& push : pushes_)
        MPI_Waitall(2, push->requests, MPI_STATUSES_IGNORE);
    if (ready_posted_ && !all_ready_)
        MPI_Wait(&ready_request_, MPI_STATUS_IGNORE);
    for (MPI_Comm* comm : {&group_, &broadcasts_, &stop_, &ready_})
        if (*comm != MPI_COMM_NULL)
            MPI_Comm_free(comm);
}

void Distribution::want(const std::string& path)
{
    if (path.empty())
        return;
    if (is_reader()) {
        serve(path, MPI_PROC_NULL);
        return;
    }
    if (!asked_.insert(path).second)
        return;
    auto send = std::make_unique<Outgoing>();
    send->bytes = path;
    MPI_Isend(send->bytes.data(), static_cast<int>(send->bytes.size()), MPI_CHAR, 0, kRequest,
              group_, &send->request);
    sends_.push_back(std::move(send));
}

// The reader: reads `path` once; pushes it to the group, or replies to `requester`.
void Distribution::serve(const std::string& path, int requester)
{
    auto read = read_.find(path);
    if (read == read_.end()) {
        Item item = reader_.read(path);
        if (item.bytes.size() > INT_MAX / 2) {  // past one MPI message: let the loader read it
            item.bytes.clear();
            item.error = EFBIG;
        }
        read = read_.emplace(path, encode(item)).first;
        if (push_)
            broadcast(read->second, kItem);
        arrived_.push_back(std::move(item));
    }
    if (!push_ && requester != MPI_PROC_NULL) {
        auto send = std::make_unique<Outgoing>();
        send->bytes = read->second;
        MPI_Isend(send->bytes.data(), static_cast<int>(send->bytes.size()), MPI_CHAR, requester,
                  kReply, group_, &send->request);
        sends_.push_back(std::move(send));
    }
}

// Header then body, as two broadcasts the members post in the same order. The reader
// does not wait for them: it goes on reading and serving while the members, which
// share the node's cores with the job's processes, take their turn (finish_pushes).
// `encoded` must outlive the broadcast.
void Distribution::broadcast(const std::string& encoded, uint64_t kind)
{
    if (group_size_ == 1)
        return;
    auto push = std::make_unique<Pushing>();
    push->header[0] = kind;
    push->header[1] = encoded.size();
    MPI_Ibcast(push->header, 2, MPI_UINT64_T, 0, broadcasts_, &push->requests[0]);
    MPI_Ibcast(const_cast<char*>(encoded.data()), static_cast<int>(encoded.size()), MPI_CHAR, 0,
               broadcasts_, &push->requests[1]);
    pushes_.push_back(std::move(push));
}

void Distribution::finish_pushes()
{
    while (!pushes_.empty()) {
        int done = 0;
        MPI_Testall(2, pushes_.front()->requests, &done, MPI_STATUSES_IGNORE);
        if (!done)
            return;
        pushes_.pop_front();
    }
}

void Distribution::post_header()
{
    MPI_Ibcast(header_, 2, MPI_UINT64_T, 0, broadcasts_, &header_request_);
}

void Distribution::receive_broadcasts()
{
    while (header_request_ != MPI_REQUEST_NULL) {
        int done = 0;
        MPI_Test(&header_request_, &done, MPI_STATUS_IGNORE);
        if (!done)
            return;
        std::string body(header_[1], '\0');
        MPI_Request request;
        MPI_Ibcast(&body[0], static_cast<int>(body.size()), MPI_CHAR, 0, broadcasts_, &request);
        MPI_Wait(&request, MPI_STATUS_IGNORE);  // the reader posted it with the header
        if (header_[0] == kEnd) {
            finished_ = true;
            return;
        }
        Item item;
        if (decode(body.data(), body.size(), item))
            arrived_.push_back(std::move(item));
        post_header();
    }
}

void Distribution::receive_requests()
{
    while (true) {
        int ready = 0;
        MPI_Status status;
        MPI_Iprobe(MPI_ANY_SOURCE, kRequest, group_, &ready, &status);
        if (!ready)
            return;
        int count = 0;
        MPI_Get_count(&status, MPI_CHAR, &count);
        std::string path(static_cast<size_t>(count), '\0');
        MPI_Recv(&path[0], count, MPI_CHAR, status.MPI_SOURCE, kRequest, group_, MPI_STATUS_IGNORE);
        if (path == kDone) {
            members_done_++;
        } else {
            serve(path, status.MPI_SOURCE);
        }
    }
}

void Distribution::receive_replies()
{
    while (true) {
        int ready = 0;
        MPI_Status status;
        MPI_Iprobe(0, kReply, group_, &ready, &status);
        if (!ready)
            return;
        int count = 0;
        MPI_Get_count(&status, MPI_CHAR, &count);
        std::string body(static_cast<size_t>(count), '\0');
        MPI_Recv(&body[0], count, MPI_CHAR, 0, kReply, group_, MPI_STATUS_IGNORE);
        Item item;
        if (decode(body.data(), body.size(), item))
            arrived_.push_back(std::move(item));
    }
}

void Distribution::finish_sends()
{
    while (!sends_.empty()) {
        int done = 0;
        MPI_Test(&sends_.front()->request, &done, MPI_STATUS_IGNORE);
        if (!done)
            return;
        sends_.pop_front();
    }
}

void Distribution::post_ready()
{
    if (!ready_posted_) {
        MPI_Ibarrier(ready_, &ready_request_);
        ready_posted_ = true;
    }
}

bool Distribution::ready()
{
    if (ready_posted_ && !all_ready_) {
        int done = 0;
        MPI_Test(&ready_request_, &done, MPI_STATUS_IGNORE);
        all_ready_ = done != 0;
    }
    return all_ready_;
}

void Distribution::request_stop()
{
    if (!stop_joined_) {
        MPI_Ibarrier(stop_, &stop_request_);
        stop_joined_ = true;
    }
}

bool Distribution::stop_requested()
{
    if (!stopping_ && stop_joined_) {
        int done = 0;
        MPI_Test(&stop_request_, &done, MPI_STATUS_IGNORE);
        if (done) {
            stopping_ = true;
            if (!is_reader()) {
                auto send = std::make_unique<Outgoing>();
                MPI_Isend(nullptr, 0, MPI_CHAR, 0, kRequest, group_, &send->request);
                sends_.push_back(std::move(send));
            }
        }
    }
    return stopping_;
}

// The reader ends its group once every member has asked its last.
void Distribution::end_when_all_done()
{
    if (!is_reader() || !stopping_ || finished_ || members_done_ < group_size_ - 1)
        return;
    for (auto& send : sends_)  // pull replies reach their askers before the end
        MPI_Wait(&send->request, MPI_STATUS_IGNORE);
    sends_.clear();
    broadcast(kNoBody, kEnd);  // the destructor waits for it and every push before it
    finished_ = true;
}

std::vector<Item> Distribution::progress()
{
    stop_requested();
    if (is_reader()) {
        receive_requests();
        end_when_all_done();
    } else {
        if (push_)
            receive_broadcasts();
        else
            receive_replies();
        if (!push_ && stopping_ && sends_.empty()) {
            // pull: no broadcast pipeline; the end comes as the group's last broadcast
            if (header_request_ == MPI_REQUEST_NULL && !finished_)
                post_header();
            receive_broadcasts();
        }
    }
    finish_sends();
    finish_pushes();
    std::vector<Item> items;
    items.swap(arrived_);
    return items;
}

}  // namespace piox_load
