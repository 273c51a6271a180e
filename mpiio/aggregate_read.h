// Collective reads that piox carries out itself as a two-phase read whose readers sit
// where the data is (piox_locality=aggregate): every chunk a call touches is read once,
// by the rank the plan names for it, a rank on a host that stores the chunk, and the
// pieces then travel to the ranks that asked, with MPI_Alltoallw. The program's bytes
// are those of a plain read; only where the file-system reads happen changes.
//
// Why not ROMIO's own two-phase read: its file domains are the call's byte range cut
// into equal parts and its aggregators are chosen by host list, not by where each
// chunk is stored (cb_config_list takes one entry per host), so on HDFS or Ceph its
// aggregators read mostly remote chunks.
//
// Every collective read at an explicit offset or the individual pointer: blocking,
// split (MPI lets a split begin do all the work) and nonblocking. A nonblocking read
// must not wait for the other processes, so it is a request that MPI_Wait and MPI_Test
// advance, step by step, through nonblocking collectives (MPICH's extended generalized
// requests, as ROMIO's own nonblocking collective I/O; Open MPI 4.1 has none, and
// there nonblocking collective reads stay with the library). Reads through a view
// whose data representation is not "native", or whose file bytes piox cannot map
// exactly in bounded memory, are the library's: the blocking ones go to its
// collective routine, a nonblocking one becomes that process's own independent read
// while the others still exchange theirs.
//
// The exchange, per call on a private communicator: MPI_Alltoall of how many pieces
// each process asks of each reader (or that it declines), MPI_Alltoallw of the pieces
// asked, then MPI_Alltoallw of the bytes with, beside it, MPI_Allgather of each
// reader's errno. A reply travels as one block of memory, from the reader's staging
// buffer and into the program's buffer where the pieces lie in one block there, else
// through a copy (MPI moves one block with one copy; derived types of scattered blocks
// far slower: MPICH packs them through its shared-memory cells).
#ifndef PIOX_MPIIO_AGGREGATE_READ_H
#define PIOX_MPIIO_AGGREGATE_READ_H

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace piox::mpiio {

struct OpenFile;
struct ReadInFlight;  // aggregate_read.cpp

// Who reads what, decided at open (the shim asks libdli): the file's chunks.
struct AggregatePlan {
    std::vector<MPI_Offset> chunk_end;  // ascending; chunk i ends at chunk_end[i]
    std::vector<int> reader;            // per chunk, the rank of the communicator that reads it
    std::vector<char> local;            // per chunk, this rank's host stores it (statistics)
};

struct AggregateFile {
    MPI_Comm comm = MPI_COMM_NULL;  // private duplicate of the opening communicator
    AggregatePlan plan;
    int fd = -1;  // piox's own read-only descriptor: readers read with pread
    // Bytes this rank read as a reader: from chunks its host stores and from others,
    // and of them the bytes other ranks asked for (PIOX_STATS).
    std::atomic<uint64_t> local_bytes{0}, remote_bytes{0}, for_others{0};
    // The file's collective reads not yet finished, in call order, which MPI makes the
    // same on every process. Only the oldest has collectives posted on comm, so that
    // every process posts them in one order.
    std::deque<std::shared_ptr<ReadInFlight>> in_flight;
    bool told_declined = false;  // PIOX_DEBUG said a read went to the library

    AggregateFile();
    ~AggregateFile();
};

// True when this MPI library lets piox carry nonblocking collective reads too.
#ifdef MPICH_VERSION
constexpr bool kNonblockingAggregates = true;
#else
constexpr bool kNonblockingAggregates = false;
#endif

// Collective over comm, after the library opened the file: the aggregate state, or an
// error code on every process.
int attach(MPI_Comm comm, const std::string &filename, AggregatePlan plan,
           std::unique_ptr<AggregateFile> *out);

// Collective (MPI_File_close): finishes the reads still in flight first.
int detach(AggregateFile &file);

// aggregate_read's answer when the read is left to the library (on every process alike).
constexpr int kNotAggregated = -2;

// Collective: count items of datatype at `offset` (etypes of the current view) into
// buf, read as the plan says, after the file's reads in flight. Every process of the
// file takes part; kNotAggregated on all of them when any cannot (then each hands its
// read to the library).
int aggregate_read(OpenFile &file, MPI_Offset offset, void *buf, MPI_Count count,
                   MPI_Datatype datatype, MPI_Status *status);

// The same, nonblocking (kNonblockingAggregates): *request completes when the bytes
// are in buf. Errors found on the way are the request's: MPI_Wait or MPI_Test returns
// them, as MPI says of generalized requests. An error in the arguments is returned at
// once, by the library's independent read, and the process still takes its part in
// the others' exchange (until MPI_File_close at the latest).
int aggregate_iread(OpenFile &file, MPI_Offset offset, void *buf, MPI_Count count,
                    MPI_Datatype datatype, MPI_Request *request);

}  // namespace piox::mpiio

#endif
