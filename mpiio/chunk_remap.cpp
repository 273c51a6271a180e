// See chunk_remap.h.
#include "chunk_remap.h"

#include <algorithm>
#include <utility>

namespace piox::mpiio {

ChunkRemap::ChunkRemap(std::vector<RemappedChunk> chunks) : chunks_(std::move(chunks))
{
    logical_.reserve(chunks_.size());
    for (const RemappedChunk &chunk : chunks_) {
        logical_.push_back(size_);
        size_ += chunk.length;
    }
}

size_t ChunkRemap::first_chunk_at(MPI_Offset offset) const
{
    if (offset < 0 || offset >= size_)
        return chunks_.size();
    // The last chunk that starts at or before offset (chunks are never empty).
    auto after = std::upper_bound(logical_.begin(), logical_.end(), offset);
    return static_cast<size_t>(after - logical_.begin()) - 1;
}

}  // namespace piox::mpiio
