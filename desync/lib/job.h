// job.h - the job description: the desync_* hints of desynch_Run, parsed and checked
// (NOTES.md 2.1: an unknown or malformed hint is an error, never ignored).
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

namespace desync {

struct FileShape {
    int id = 0;
    int versions = 0;        // versions 0 .. versions - 1
    std::vector<int> extent; // blocks along each coordinate
    long long blocks_per_version() const;
};

struct LayoutSpec {
    enum Kind { Bisect, Grid } kind = Bisect;
    std::vector<int> grid;       // Grid: parts along each coordinate, product = processes
    std::vector<double> weights; // Bisect: one per process (empty: equal)
};

struct Job {
    std::vector<FileShape> files;
    LayoutSpec layout;
    int window = 4; // versions a process may run ahead of its own oldest unfinished one
    int rebalance = 0; // versions per lease period, each laid out anew (0: one period)
    enum Balance { Misses, Throughput } balance = Misses; // what the new layouts weigh
    int replicate = 0;          // versions between replicas to the buddy (0: none; NOTES.md 2.6)
    double loss_timeout = 10.0; // seconds without a report before the map declares a process lost
    // A test's logical crash (desync_test_stop=RANK:VERSION[:SECONDS]): once its leases
    // reach VERSION, the process drops its blocks and goes silent; with SECONDS, it only
    // pauses that long and comes back (a process wrongly declared lost). rank -1: none.
    struct Stop {
        int rank = -1, version = 0;
        double pause = -1; // < 0: for good
    } stop;
    std::string checkpoint;         // desync_checkpoint: the file ("" none; NOTES.md 2.6)
    long long checkpoint_block = 0; // desync_checkpoint_block: the largest block's bytes
    // A test's crash of the whole job (desync_test_abort=RANK:VERSION): MPI_Abort once
    // one of that rank's chunks reaches VERSION. rank -1: none.
    struct Abort {
        int rank = -1, version = 0;
    } abort;
    // A test's late messages (desync_test_late_records=RANK): the map's checkpoint
    // records never reach that process while the job runs, as if its messages were
    // always late, so its blocks past the first two written versions wait; it learns
    // the records at the end (record_the_end). -1: none.
    int late_records = -1;

    const FileShape *file(int id) const;
    std::string canonical() const; // the same text on every rank that passed the same job
    // What a checkpoint's bytes depend on: the files, desync_replicate and the block
    // size (a restart may change everything else).
    std::string checkpoint_identity() const;
};

// DESYNC_SUCCESS, or DESYNC_ERR_HINT with *why naming the hint and the fault.
int parse_job(MPI_Info info, int processes, Job *job, std::string *why);

} // namespace desync
