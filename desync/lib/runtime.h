// runtime.h - one process of a running DesyncFS job: a block processor and a block
// server in one event loop (NOTES.md 2.2), and on rank 0 also the map. The work is
// split by concern: runtime.cpp (the loop, the start and the end), compute.cpp
// (which block next, run-ahead), serve.cpp (requests, pushes, replies), collect.cpp
// (garbage collection), map_role.cpp (frontiers and the end, on rank 0),
// recover.cpp (replicas, lost processes, a test's logical crash), checkpoint_role.cpp
// (desync_checkpoint: writing versions, resuming from one), routines.cpp
// (the desynchBlock* routines' bodies).
#pragma once

#include "address.h"
#include "channel.h"
#include "checkpoint.h"
#include "desync.h"
#include "job.h"
#include "layout.h"
#include "store.h"

#include <deque>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace desync {

// Ints before the (lease, frontier) pairs of a report to the map (send_report), and
// before the frontiers in the map's table (map_progress).
const size_t REPORT_HEADER = 7, FRONTIER_HEADER = 3;

// A period's leases as a message, and back (false when malformed).
std::vector<char> lease_bytes(const std::vector<Lease> &leases);
bool read_leases(const std::vector<char> &bytes, std::vector<Lease> *leases);

class Runtime {
public:
    Runtime(const desynch_app *app, const Job &job);
    Runtime(const Runtime &) = delete;
    Runtime &operator=(const Runtime &) = delete;

    // Collective over comm. The code to return on this process; *message the text.
    int run(MPI_Comm comm, desynch_stats *stats, std::string *message);

    // The routines (routines.cpp), on this job.
    void *make(size_t size);
    bool exists(const Address &a);
    int read(const Address &a, const void **bufp, size_t *lenp, rd_handle *handle);
    int write(const Address &a, void *data, size_t len);
    bool most_recent(const Address &a, Address *found);
    int free_handle(rd_handle handle);
    int check(const Address &a) const; // DESYNC_SUCCESS or DESYNC_ERR_ADDRESS (with message)

    // Records this process's first failure; the loop then ends the job everywhere.
    int fail(int code, const std::string &message);
    const std::string &last_message() const { return last_message_; }
    void note(const std::string &message) { last_message_ = message; }

private:
    // One version of one of this process's leases: its blocks, in the iterator's order.
    struct Slot {
        int version = 0;
        std::vector<Address> blocks;
        std::vector<char> done;
        std::vector<std::vector<Address>> backward; // asked when first needed
        std::vector<char> backward_known;
        long long remaining = 0;
    };
    struct OwnLease {
        int lease = 0;
        std::deque<Slot> slots; // versions frontier + 1 .. frontier + window
    };

    // runtime.cpp
    int loop();
    int handle(const Message &m);
    void end_everywhere(); // TAG_ABORT to the others after a local failure
    void report_results();
    const chunkdesc *file_desc(int file);
    bool mine(const Address &a) const;
    int owner(const Address &a) const; // the process that makes it now (lost ones resolved)
    bool made(const Address &a) const; // made somewhere, as far as this process knows

    // compute.cpp
    int fill_slots(OwnLease &own);
    int compute_one(bool *computed);
    int ready(std::vector<Address> &deps, char &known, const Address &a, bool request_missing,
              bool *is_ready);
    int dependencies(const Address &a, int dir, std::vector<Address> *deps, bool *known);
    int compute(const Address &a);
    int make_slot(const Lease &lease, int version, Slot *slot);
    void block_made(Block *b, bool by_this_process);
    void make_again(const Address &a);
    void advance(OwnLease &own);
    bool all_done() const;

    // serve.cpp
    int on_request(int source, const Address &a);
    int on_block(const Message &m);
    int on_freed(const Address &a);
    int send_block(int dest, Block *b);
    int request(const Address &a);
    int push(Block *b);
    std::vector<int> answer_waiting(const Address &a); // who waited for it, charged
    int pump_until_present(const Address &a); // a read's remote wait: no computing

    // leases.cpp
    int add_leases(const std::vector<Lease> &leases);
    bool leased_to_the_end() const;

    // collect.cpp
    void collect();
    bool collectable(Block *b);

    // recover.cpp
    int resolve(int node) const;       // node, or who took its chunks over when it was lost
    bool alive(int node) const { return successor_[static_cast<size_t>(node)] < 0; }
    int next_alive(int node) const;     // the buddy of node: it holds node's replicas
    int previous_alive(int node) const; // the one whose replicas node holds
    bool replicating() const;
    void add_replica_target(const Block *b, std::vector<int> *to);
    void on_replica(int source, Block *b);
    int on_lost(int lost, int taker, int restart, int lost_saved);
    int take_over(const std::vector<int> &leases);
    void maybe_stop();
    void drop_everything();
    int silent_loop();
    int map_check_losses();
    int map_declare_lost(int lost);

    // checkpoint_role.cpp
    int resume(MPI_Comm comm, int *version);    // opens the file; *version: -1 or where to resume
    int read_resumed(int version);              // this process's blocks of it, into the store
    void save_later(Block *b);                  // this process's block of a checkpointed version
    int save_progress();                        // starts writes, completes them, reports
    void finish_saving();                       // the end: in-flight writes waited for
    void record_the_end(MPI_Comm comm);         // collective: the last whole version recorded
    void block_saved(Block *b);                 // its write is done
    void advance_saved_through();               // the versions whole here
    bool saved_whole(int version) const;        // every block this process owns of it is written
    int map_commit();
    void maybe_abort();

    // map_role.cpp
    int map_report(int source, const std::vector<int> &report);
    int map_grant();
    std::vector<double> map_weights();
    std::vector<double> throughput_weights();
    bool charge_window_full() const;
    int map_done(int source, int generation);
    int map_progress();
    int send_report();

    const desynch_app *app_;
    const Job &job_;
    Channel channel_;
    LeaseTable *leases_ = nullptr;
    Store store_;
    std::vector<int> frontier_; // per lease: every block up to this version exists (-1: none)
    std::vector<OwnLease> own_;
    // Blocks this process must make though it does not own them (freed where they
    // were made, and needed here), with their backward dependencies once known.
    struct Foreign {
        Address addr;
        std::vector<Address> backward;
        char known = 0;
    };
    std::vector<Foreign> foreign_;
    std::vector<Address> recompute_; // found by a scan, added to foreign_ after it
    // Misses to answer when their blocks are made: who asked, and this process's busy_
    // when the request came (the misses rule's charge, NOTES.md 2.7).
    struct Waiter {
        int rank;
        double busy;
    };
    std::unordered_map<Address, std::vector<Waiter>, AddressHash> waiting_;
    // The misses rule's charge in the map's current charge window, per asker: busy_ up
    // to which its waits are charged (a wait that overlaps another of the same asker's
    // counts once), the seconds charged, and the most any one asker was charged.
    std::vector<double> charged_through_, charged_;
    double charged_most_ = 0;
    int charge_window_ = 0; // the map's windows begun so far (its frontier table says)
    // Only the misses rule with rechunking reads the charge.
    bool charging() const { return job_.balance == Job::Misses && job_.rebalance > 0; }
    void begin_charge_window(int window);
    void charge(const Waiter &w);
    void charge_waiting();
    std::unordered_set<Address, AddressHash> requested_;
    std::unordered_set<Address, AddressHash> freed_elsewhere_; // answered: freed there
    std::unordered_map<int, std::pair<std::vector<desynch_range>, chunkdesc>> file_descs_;

    Address computing_;        // the block appCompute is making (n == 0: none)
    double idle_since_ = -1;   // when the loop last found nothing to compute
    // Something that can make a block ready has happened since the last scan found
    // none (a block made or received, a slot added, a block to make again): an idle
    // loop then costs a probe and a sleep, not a scan of every waiting block.
    bool scan_due_ = true;
    bool collect_due_ = false, report_due_ = false, done_sent_ = false, ended_ = false;
    double last_report_ = 0;
    int error_ = DESYNC_SUCCESS;      // this process's own failure
    bool other_failed_ = false;       // a TAG_ABORT came
    std::string error_message_, last_message_;
    desynch_stats stats_ = {};

    // Crash recovery (NOTES.md 2.6).
    std::vector<int> successor_;      // per process: -1 alive, else who took its chunks over
    int generation_ = 0;              // losses this process has heard of
    int pinned_from_ = -1;            // own blocks of this version and later are kept (the map's)
    int replica_complete_ = -1;       // the latest version of which this process holds the
                                      // predecessor's every block
    std::unordered_map<long long, long long> replica_count_; // (source, version): replica blocks here
    bool stopped_ = false;            // desync_test_stop happened here (paused or silent)

    // The checkpoint (NOTES.md 2.6).
    Checkpoint checkpoint_;
    int saved_complete_ = -1;         // the last version the file holds whole (the map's)
    int saved_through_ = -1;          // this process has written all its blocks up to here
    std::vector<Address> save_due_;   // blocks to write once their slot may be overwritten
    std::vector<MPI_Request> save_requests_;
    std::vector<Block *> save_blocks_; // parallel to save_requests_
    std::unordered_map<int, long long> saved_count_; // version: blocks this process wrote
    bool silent_ = false;             // dropped its blocks; only waits for the end

    std::vector<int> leased_through_; // per file (index in job_.files): the last version leased
    double busy_ = 0;                 // seconds inside appCompute
    long long reported_computed_ = 0;
    double reported_busy_ = 0;

    // The map (rank 0).
    std::vector<int> map_frontier_;
    int map_next_v0_ = 0;             // the first version of the period not yet granted
    std::vector<double> map_weights_; // the current layout's, one per process
    std::vector<double> map_computed_, map_busy_; // per process, this period
    std::vector<double> map_charged_;  // per process: its latest charge this window, seconds
    double map_charge_began_ = 0;      // when the charge window began
    double map_charge_blocks_ = 0;     // blocks computed by all in the charge window
    std::vector<double> map_rate_; // per process, its last measured blocks per second (0: none yet)
    bool map_dirty_ = false;
    double map_last_broadcast_ = 0;
    std::vector<char> map_done_;      // per process: done in the current generation
    std::vector<double> map_heard_;   // per process: when its last report came
    std::vector<int> map_replica_;    // per process: the replica version it last reported
    std::vector<int> map_saved_;      // per process: the version it last said it wrote whole
    int map_generation_ = 0;          // losses declared
    double map_drained_at_ = 0;       // when the map last found no message waiting
};

} // namespace desync
