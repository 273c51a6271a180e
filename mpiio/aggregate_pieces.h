// The local half of piox's aggregate read (aggregate_read.h), no communication:
// which file bytes an access reads, cut at chunk boundaries into pieces for the
// chunks' readers, and a reader's side, reading what it was asked for once.
#ifndef PIOX_MPIIO_AGGREGATE_PIECES_H
#define PIOX_MPIIO_AGGREGATE_PIECES_H

#include "piox_extent.h"

#include <mpi.h>

#include <cstdint>
#include <vector>

namespace piox::mpiio {

struct AggregateFile;
struct AggregatePlan;
struct OpenFile;

// A run of file bytes one rank asks one reader for.
struct Piece {
    int64_t offset, length;
};

// The file bytes of an access of `bytes` bytes at `offset` (etypes of the view), in
// stream order, exactly; false when piox cannot map them (no flattened view, a
// representation other than "native", too many pieces, a filetype that reads bytes
// twice).
bool access_extents(OpenFile &file, MPI_Offset offset, MPI_Offset bytes,
                    std::vector<piox_extent> *out);

// What one rank asks of every reader: pieces split at chunk boundaries, grouped by
// reader, and where each piece's bytes go in the rank's stream.
struct Requests {
    std::vector<std::vector<Piece>> to;         // per reader
    std::vector<std::vector<MPI_Offset>> into;  // per reader, per piece: stream position
};

// Bytes past the plan's chunk table (the file grew since open) are the rank's own.
Requests requests_for(const AggregatePlan &plan, const std::vector<piox_extent> &extents,
                      int nranks, int rank);

// Bytes of the stream that the file holds: up to the first byte at or past its end.
MPI_Offset held_prefix(const std::vector<piox_extent> &extents, MPI_Offset file_size);

// A reader's bytes for one call: every piece it was asked for, read once, neighbouring
// pieces in one read across small gaps within a chunk.
class StagedPieces {
  public:
    // Reads them (pread on agg.fd) and counts the bytes read, local or remote, for the
    // statistics. False, with errno, when a read failed.
    bool read(AggregateFile &agg, const std::vector<std::vector<Piece>> &asked);
    // Where the bytes of a piece that was asked for are.
    const char *bytes_of(const Piece &piece) const;

  private:
    std::vector<Piece> ranges_;       // merged, by offset
    std::vector<MPI_Offset> starts_;  // each range's place in data_
    std::vector<char> data_;
};

}  // namespace piox::mpiio

#endif
