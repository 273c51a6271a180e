// The flattened form of an MPI datatype: its typemap reduced to runs of bytes,
// (displacement, length) in typemap order, displacements relative to the type's
// origin (buffer address 0). flatten.cpp builds one from a datatype; view_map.cpp
// lays a filetype's over the file.
#ifndef PIOX_ADIO_TYPEMAP_H
#define PIOX_ADIO_TYPEMAP_H

#include <mpi.h>

#include <vector>

namespace piox::adio {

struct Piece {
    MPI_Offset disp;
    MPI_Offset length;
};

// Pieces in typemap order; a piece that starts where the previous one ends is
// merged into it (typemap order is kept, so overlapping pieces stay apart).
class TypeMap {
public:
    void append(MPI_Offset disp, MPI_Offset length);
    // `copies` copies of `map` laid end to end at a stride of `extent`, the first at
    // `base`: the typemap of a contiguous block of a type. O(1) when the copies abut
    // as one run (a dense type), so counts of billions cost nothing.
    void append_copies(const TypeMap &map, MPI_Offset extent, MPI_Offset copies, MPI_Offset base);

    const std::vector<Piece> &pieces() const { return pieces_; }
    bool empty() const { return pieces_.empty(); }
    MPI_Offset size() const;  // sum of the lengths: the type's size
    MPI_Offset min_disp() const;

private:
    std::vector<Piece> pieces_;
};

}  // namespace piox::adio

#endif
