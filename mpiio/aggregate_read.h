// Collective reads that piox carries out itself as a two-phase read whose readers sit
// where the data is (piox_locality=aggregate): every chunk a call touches is read once,
// by the rank the plan names for it, a rank on a host that stores the chunk, and the
// pieces then travel to the ranks that asked, with MPI_Alltoallv. The program's bytes
// are those of a plain read; only where the file-system reads happen changes.
//
// Why not ROMIO's own two-phase read: its file domains are the call's byte range cut
// into equal parts and its aggregators are chosen by host list, not by where each
// chunk is stored (cb_config_list takes one entry per host), so on HDFS or Ceph its
// aggregators read mostly remote chunks.
//
// Blocking and split collective reads (MPI lets a split begin do all the work) at an
// explicit offset or the individual pointer. Nonblocking collective reads stay with
// the library: a nonblocking call must not wait for the other processes, and this
// read does. So does every read through a view whose data representation is not
// "native", and one whose file bytes piox cannot map exactly in bounded memory.
#ifndef PIOX_MPIIO_AGGREGATE_READ_H
#define PIOX_MPIIO_AGGREGATE_READ_H

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace piox::mpiio {

struct OpenFile;

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
};

// Collective over comm, after the library opened the file: the aggregate state, or an
// error code on every process.
int attach(MPI_Comm comm, const std::string &filename, AggregatePlan plan,
           std::unique_ptr<AggregateFile> *out);

// Collective (MPI_File_close).
int detach(AggregateFile &file);

// aggregate_read's answer when the read is left to the library (on every process alike).
constexpr int kNotAggregated = -2;

// Collective: count items of datatype at `offset` (etypes of the current view) into
// buf, read as the plan says. Every process of the file takes part; kNotAggregated on
// all of them when any cannot (then each hands its read to the library).
int aggregate_read(OpenFile &file, MPI_Offset offset, void *buf, MPI_Count count,
                   MPI_Datatype datatype, MPI_Status *status);

}  // namespace piox::mpiio

#endif
