// TypeMap: appending pieces and blocks of copies, with adjacent runs merged.
#include "typemap.h"

#include <algorithm>

namespace piox::adio {

void TypeMap::append(MPI_Offset disp, MPI_Offset length)
{
    if (length <= 0)
        return;
    if (!pieces_.empty() && pieces_.back().disp + pieces_.back().length == disp) {
        pieces_.back().length += length;
        return;
    }
    pieces_.push_back({disp, length});
}

void TypeMap::append_copies(const TypeMap &map, MPI_Offset extent, MPI_Offset copies,
                            MPI_Offset base)
{
    if (copies <= 0)
        return;
    const auto &src = map.pieces_;
    if (src.size() == 1 && src[0].length == extent) {
        append(base + src[0].disp, extent * copies);
        return;
    }
    for (MPI_Offset c = 0; c < copies; ++c)
        for (const Piece &p : src)
            append(base + c * extent + p.disp, p.length);
}

MPI_Offset TypeMap::size() const
{
    MPI_Offset total = 0;
    for (const Piece &p : pieces_)
        total += p.length;
    return total;
}

MPI_Offset TypeMap::min_disp() const
{
    MPI_Offset lowest = 0;
    for (size_t i = 0; i < pieces_.size(); ++i)
        lowest = i == 0 ? pieces_[i].disp : std::min(lowest, pieces_[i].disp);
    return lowest;
}

}  // namespace piox::adio
