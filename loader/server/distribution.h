// How items reach the servers, over MPI (the paper's broadcast network, with MPI as
// the network: no overlay of our own).
//
// The servers are split into `readers` groups of consecutive ranks (the paper's
// forest, §3.4.2); the first rank of each group is its reader, the only process of
// the group that touches the shared file system. A server that lacks an item sends
// its path to its reader. Push (the default): the reader broadcasts every item it
// reads to its whole group, once, on first request. Pull: it sends the item to the
// servers that asked only.
//
// The end: every server posts an MPI_Ibarrier at start that rank 0 joins only when
// asked to stop (request_stop). When it completes, each server tells its reader it
// will ask for nothing more (a kDone message after its requests: MPI keeps their
// order), and the reader, once every member has said so, broadcasts the end to its
// group. So no message is left unmatched when the servers finalise.
#pragma once

#include <mpi.h>

#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "file_reader.h"
#include "item.h"

namespace piox_load {

class Distribution {
  public:
    Distribution(MPI_Comm world, int readers, bool push);
    ~Distribution();
    Distribution(const Distribution&) = delete;
    Distribution& operator=(const Distribution&) = delete;

    // Posts what the end needs (collective: every server calls it, once set up).
    void start();
    bool is_reader() const { return group_rank_ == 0; }
    // Asks for the item of `path` (a reader reads it at once). It arrives through
    // progress(), once however often it is asked for; the shared file system is
    // read once per reader, in push and pull alike.
    void want(const std::string& path);
    // Moves messages on; returns the items that arrived since the last call.
    std::vector<Item> progress();
    // Items are ready for the next progress() (a reader's own reads): no need to wait
    // for messages before taking them.
    bool has_arrivals() const { return !arrived_.empty(); }
    // Replies or pushes are on their way, which only calls to progress() move.
    bool sending() const { return !sends_.empty() || !pushes_.empty(); }

    // Readiness: every server posts it once set up (a reader after its preload);
    // ready() is true on every server once all have.
    void post_ready();
    bool ready();

    void request_stop();            // rank 0 only: start the end
    bool stop_requested();          // the end has begun: accept no more work
    bool finished() const { return finished_; }  // the group's end was broadcast

  private:
    struct Outgoing;
    struct Pushing;
    void serve(const std::string& path, int requester);
    void broadcast(const std::string& encoded, uint64_t kind);
    void post_header();
    void receive_broadcasts();
    void receive_requests();
    void receive_replies();
    void finish_sends();
    void finish_pushes();
    void end_when_all_done();

    MPI_Comm group_ = MPI_COMM_NULL;      // requests and pull replies
    MPI_Comm broadcasts_ = MPI_COMM_NULL;  // the group's pushes, in the reader's order
    MPI_Comm stop_ = MPI_COMM_NULL;        // the Ibarrier that starts the end
    MPI_Comm ready_ = MPI_COMM_NULL;       // the Ibarrier of readiness
    int group_rank_ = 0, group_size_ = 1;
    bool push_;
    std::unordered_set<std::string> asked_;  // a member: the paths it asked its reader for
    std::unordered_map<std::string, std::string> read_;  // a reader: what it read, encoded
    FileReader reader_;
    std::vector<Item> arrived_;
    std::deque<std::unique_ptr<Outgoing>> sends_;
    std::deque<std::unique_ptr<Pushing>> pushes_;  // a reader's broadcasts, in order
    uint64_t header_[2] = {0, 0};           // kind, encoded size of the next broadcast
    MPI_Request header_request_ = MPI_REQUEST_NULL;
    MPI_Request stop_request_ = MPI_REQUEST_NULL;
    MPI_Request ready_request_ = MPI_REQUEST_NULL;
    bool ready_posted_ = false, all_ready_ = false;
    bool stop_joined_ = false, stopping_ = false, finished_ = false;
    int members_done_ = 0;
};

}  // namespace piox_load
