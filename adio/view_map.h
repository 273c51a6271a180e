// The map a file view defines from its data stream to file bytes (MPI-3.1 13.3):
// the filetype is tiled from the displacement at a stride of its extent, and
// stream byte s lands in tile s / filetype_size, at the piece of the filetype's
// typemap (in typemap order) that holds byte s % filetype_size.
#ifndef PIOX_ADIO_VIEW_MAP_H
#define PIOX_ADIO_VIEW_MAP_H

#include "extent_list.h"
#include "typemap.h"

#include <vector>

namespace piox::adio {

class ViewMap {
public:
    // `filetype`: non-empty, displacements >= 0; `extent` > 0.
    ViewMap(MPI_Offset disp, const TypeMap &filetype, MPI_Offset extent);

    // Adds to `out` the file bytes that stream bytes [first, first + bytes) land on.
    // MPI_ERR_ARG when a file offset would not fit in MPI_Offset.
    int map(MPI_Offset first, MPI_Offset bytes, BoundedExtentSet *out) const;

private:
    // Stream bytes [from, to) of one tile (within-tile offsets), piece by piece.
    int map_part_of_tile(MPI_Offset tile, MPI_Offset from, MPI_Offset to,
                         BoundedExtentSet *out) const;
    // `count` whole tiles from `first_tile`: each tile's footprint, or, when that
    // would overflow the set's cap anyway, groups of tiles covered whole.
    int map_whole_tiles(MPI_Offset first_tile, MPI_Offset count, BoundedExtentSet *out) const;
    // File offset of a tile's origin; false when the tile's bytes would overflow.
    bool tile_origin(MPI_Offset tile, MPI_Offset *origin) const;

    MPI_Offset disp_, extent_, size_;
    std::vector<Piece> pieces_;       // the filetype, typemap order
    std::vector<MPI_Offset> starts_;  // stream offset within a tile where each piece begins
    ExtentList footprint_;   // the pieces sorted and coalesced: a whole tile's bytes
};

}  // namespace piox::adio

#endif
