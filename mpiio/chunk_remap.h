// A file that reads see with its chunks in another order: piox's locality remapping
// (pmpi_shim/locality_remap.h decides the order at MPI_File_open). The file's logical
// bytes are its chunks laid end to end in the remap's order; a read at logical offset
// x reads the file's bytes at the physical offset of the chunk x falls in. The
// program sees a permutation of the file's chunks, which is right only for
// order-independent processing: the remapping is opted into, per file.
//
// mpiio knows only the permutation; where chunks are stored is the shim's business
// (arrows point from pmpi_shim to locality, never from mpiio).
#ifndef PIOX_MPIIO_CHUNK_REMAP_H
#define PIOX_MPIIO_CHUNK_REMAP_H

#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <vector>

namespace piox::mpiio {

struct RemappedChunk {
    MPI_Offset physical = 0;  // where its bytes are in the file
    MPI_Offset length = 0;
    bool local = false;  // a replica is on this process's host (for PIOX_STATS)
};

class ChunkRemap {
public:
    // The chunks in logical order; together they must cover the file once.
    explicit ChunkRemap(std::vector<RemappedChunk> chunks);

    MPI_Offset size() const { return size_; }
    const std::vector<RemappedChunk> &chunks() const { return chunks_; }

    // Calls piece(physical offset, length, local) for each piece of the logical
    // range [offset, offset + length) that the remapped file holds, in logical
    // order, until piece returns false.
    template <typename Piece>
    void for_each_piece(MPI_Offset offset, MPI_Offset length, Piece piece) const
    {
        const MPI_Offset end = offset + length;
        for (size_t i = first_chunk_at(offset); i < chunks_.size() && offset < end; i++) {
            const MPI_Offset within = offset - logical_[i];
            const MPI_Offset take = std::min(chunks_[i].length - within, end - offset);
            if (!piece(chunks_[i].physical + within, take, chunks_[i].local))
                return;
            offset += take;
        }
    }

    // Bytes read so far from chunks on this host and on others (PIOX_STATS).
    std::atomic<uint64_t> local_bytes{0}, remote_bytes{0};

private:
    size_t first_chunk_at(MPI_Offset offset) const;  // chunks_.size() past the end

    std::vector<RemappedChunk> chunks_;
    std::vector<MPI_Offset> logical_;  // each chunk's logical offset
    MPI_Offset size_ = 0;
};

}  // namespace piox::mpiio

#endif
