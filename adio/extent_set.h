// A bounded set of file extents: collects extents in any order and gives them
// back sorted, coalesced and at most `cap` of them. When more would be needed it
// closes the smallest gaps between neighbours first (greedily, each time the
// buffer reaches 2 x cap), so the result covers a superset of what was added.
// Memory stays O(cap) however many extents are added.
#ifndef PIOX_ADIO_EXTENT_SET_H
#define PIOX_ADIO_EXTENT_SET_H

#include <mpi.h>

#include <cstddef>
#include <vector>

namespace piox::adio {

struct Extent {
    MPI_Offset offset;
    MPI_Offset length;
    MPI_Offset end() const { return offset + length; }
};

class BoundedExtentSet {
public:
    explicit BoundedExtentSet(size_t cap) : cap_(cap < 1 ? 1 : cap) {}
    void add(MPI_Offset offset, MPI_Offset length);
    size_t cap() const { return cap_; }
    // Sorted, coalesced, at most cap() extents.
    const std::vector<Extent> &finish();

private:
    void shrink_to(size_t target);

    size_t cap_;
    std::vector<Extent> extents_;
};

}  // namespace piox::adio

#endif
