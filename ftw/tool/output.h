// output.h - getting what ranks collected during a walk to rank 0's stdout.
//
// Why funnel: visit runs on any rank and thread and may not call MPI, and mpiexec
// forwards each rank's stdout separately, so records printed by several ranks can
// interleave mid-record. Instead every thread buffers its records, and after the walk
// every rank sends its buffers to rank 0 in bounded chunks, point to point; rank 0
// alone writes them, one rank's stream after another.
#ifndef PFTW_TOOL_OUTPUT_H
#define PFTW_TOOL_OUTPUT_H

#include <mpi.h>

#include <cstddef>
#include <functional>
#include <string_view>
#include <vector>

namespace pftw_tool {

// Chunks stay small enough for MPI's int counts and for rank 0's memory.
constexpr size_t funnel_chunk_bytes = size_t(4) << 20;

// Called on rank 0 with the next bytes of sender's stream (sender 0 is rank 0's own
// pieces, not sent through MPI); end of stream is reported as size 0.
using ChunkSink = std::function<void(int sender, const char *data, size_t size)>;

// Collective over comm. Each rank's pieces, concatenated in order, form its stream;
// rank 0 passes every stream to sink in rank order. Returns an MPI error code.
int funnel_to_root(MPI_Comm comm, const std::vector<std::string_view> &pieces,
                   const ChunkSink &sink, size_t chunk_bytes = funnel_chunk_bytes);

// Writes bytes to stdout (buffered). False once a write has failed.
bool write_stdout(const char *data, size_t size);
// Flushes stdout; false if any write failed.
bool flush_stdout();

}  // namespace pftw_tool

#endif
