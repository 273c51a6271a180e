// Data-sieving writes, one or several in one pass: read a span of the file once,
// patch each write's pieces in (in order, so a later write wins where two overlap),
// write the span back once. The range lock's combined writes (lock_shm_range.cpp)
// hand a pass the writes of several processes of the node, posted in shared memory
// in the compact form below.
#ifndef PIOX_ADIO_SIEVE_PASS_H
#define PIOX_ADIO_SIEVE_PASS_H

#include "extent_list.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace piox::adio {

// About how long one pass (sieve_pass) over `span` bytes patching `pieces` pieces
// takes here, to tell a combined write how long its pass makes others wait: the
// measurements behind mpiio/own_transfer.cpp's cost model (a system call 2 us, the
// page cache 0.04-0.11 ns per byte each way, charged 0.125) and 10,000 ints patched
// in 8-12 us.
double sieve_pass_ns(MPI_Offset span, double pieces);

// A write's pieces as runs of equal pieces at a constant stride (a strided view of
// ints is one run, whatever its count), followed by the write's bytes in stream
// order. Plain bytes, so that it can live in shared memory.
struct SieveRun {
    MPI_Offset offset;  // of the first piece
    MPI_Offset length;  // of each piece
    MPI_Offset stride;  // from one piece's start to the next's
    MPI_Offset count;
};

struct SievePostHeader {
    piox_extent span;     // first piece's start to last piece's end
    uint64_t runs;        // SieveRuns that follow the header
    uint64_t data_bytes;  // stream bytes that follow the runs
};

// Encodes pieces (ascending, disjoint, non-empty) and their stream into `post`, of
// `capacity` bytes. False, with nothing promised about `post`, when it does not fit.
bool encode_sieve_post(const piox_extent *pieces, size_t n, const void *stream, void *post,
                       size_t capacity);
// The bytes encode_sieve_post needs; a process-local post (a vector) is sized with it.
size_t sieve_post_bytes(const piox_extent *pieces, size_t n);

inline const SievePostHeader &post_header(const void *post)
{
    return *static_cast<const SievePostHeader *>(post);
}

// One pass over `posts` (encoded as above, applied in this order) through file
// descriptor fd: reads the hull of their spans, patches, writes it back. Bytes past
// the end of the file inside the hull are written as zeros (what a hole reads as).
// The caller holds a write lock on every byte of the hull. 0, or an errno value.
int sieve_pass(int fd, const std::vector<const void *> &posts, std::vector<char> *scratch);

}  // namespace piox::adio

#endif
