// ViewMap: stream bytes -> file extents. Whole tiles are skipped arithmetically,
// so where an access starts costs O(log pieces) however far into the file.
#include "view_map.h"

#include <algorithm>

namespace piox::adio {

ViewMap::ViewMap(MPI_Offset disp, const TypeMap &filetype, MPI_Offset extent)
    : disp_(disp), extent_(extent), size_(0), pieces_(filetype.pieces())
{
    starts_.reserve(pieces_.size());
    for (const Piece &p : pieces_) {
        starts_.push_back(size_);
        size_ += p.length;
    }
    BoundedExtentSet all(pieces_.size());
    for (const Piece &p : pieces_)
        all.add(p.disp, p.length);
    footprint_ = all.finish();
}

bool ViewMap::tile_origin(MPI_Offset tile, MPI_Offset *origin) const
{
    MPI_Offset shift = 0, last_byte = 0;
    return !__builtin_mul_overflow(tile, extent_, &shift) &&
           !__builtin_add_overflow(disp_, shift, origin) &&
           !__builtin_add_overflow(*origin, end_of(footprint_.back()), &last_byte);
}

int ViewMap::map(MPI_Offset first, MPI_Offset bytes, BoundedExtentSet *out) const
{
    if (bytes <= 0)
        return MPI_SUCCESS;
    const MPI_Offset end = first + bytes;  // the caller checked it fits
    const MPI_Offset first_tile = first / size_, first_in = first % size_;
    const MPI_Offset end_tile = end / size_, end_in = end % size_;
    if (first_tile == end_tile)
        return map_part_of_tile(first_tile, first_in, end_in, out);

    MPI_Offset whole_from = first_tile;
    int rc = MPI_SUCCESS;
    if (first_in > 0) {
        rc = map_part_of_tile(first_tile, first_in, size_, out);
        ++whole_from;
    }
    if (rc == MPI_SUCCESS)
        rc = map_whole_tiles(whole_from, end_tile - whole_from, out);
    if (rc == MPI_SUCCESS && end_in > 0)
        rc = map_part_of_tile(end_tile, 0, end_in, out);
    return rc;
}

int ViewMap::map_part_of_tile(MPI_Offset tile, MPI_Offset from, MPI_Offset to,
                              BoundedExtentSet *out) const
{
    MPI_Offset origin = 0;
    if (!tile_origin(tile, &origin))
        return MPI_ERR_ARG;
    // The last piece that begins at or before `from`.
    size_t i = std::upper_bound(starts_.begin(), starts_.end(), from) - starts_.begin() - 1;
    for (MPI_Offset pos = from; pos < to; ++i) {
        const MPI_Offset into = pos - starts_[i];
        const MPI_Offset take = std::min(pieces_[i].length - into, to - pos);
        out->add(origin + pieces_[i].disp + into, take);
        pos += take;
    }
    return MPI_SUCCESS;
}

int ViewMap::map_whole_tiles(MPI_Offset first_tile, MPI_Offset count, BoundedExtentSet *out) const
{
    if (count <= 0)
        return MPI_SUCCESS;
    MPI_Offset origin = 0;
    if (!tile_origin(first_tile + count - 1, &origin))  // the farthest tile
        return MPI_ERR_ARG;
    if (footprint_.size() == 1 && footprint_[0].length == extent_) {
        // Dense tiles abut (the default byte view, a contiguous filetype): one extent,
        // however many tiles, instead of one per tile.
        MPI_Offset first = 0;
        tile_origin(first_tile, &first);
        out->add(first + footprint_[0].offset, origin - first + extent_);
        return MPI_SUCCESS;
    }
    const MPI_Offset cap = static_cast<MPI_Offset>(out->cap());
    const MPI_Offset per_tile = static_cast<MPI_Offset>(footprint_.size());
    if (count <= 2 * cap / per_tile) {
        // Few enough to list exactly (the set may still merge some).
        for (MPI_Offset t = first_tile; t < first_tile + count; ++t) {
            tile_origin(t, &origin);
            for (const piox_extent &e : footprint_)
                out->add(origin + e.offset, e.length);
        }
        return MPI_SUCCESS;
    }
    // Too many to keep apart: the set would merge them anyway. Cover groups of
    // consecutive tiles, each by one extent from its first tile's lowest byte to
    // its last tile's highest, at most cap groups. Exact when tiles abut.
    const MPI_Offset lowest = footprint_.front().offset, highest = end_of(footprint_.back());
    const MPI_Offset group = (count + cap - 1) / cap;
    for (MPI_Offset t = first_tile; t < first_tile + count; t += group) {
        const MPI_Offset last = std::min(t + group, first_tile + count) - 1;
        MPI_Offset from = 0, to = 0;
        tile_origin(t, &from);
        tile_origin(last, &to);
        out->add(from + lowest, to + highest - (from + lowest));
    }
    return MPI_SUCCESS;
}

}  // namespace piox::adio
