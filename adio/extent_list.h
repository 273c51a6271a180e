// Lists of byte extents (piox_extent): normalising, splitting, coarsening and
// overlap tests, shared by the lock service and view flattening.
#ifndef PIOX_ADIO_EXTENT_LIST_H
#define PIOX_ADIO_EXTENT_LIST_H

#include "piox_extent.h"

#include <cstddef>
#include <vector>

namespace piox::adio {

using ExtentList = std::vector<piox_extent>;

// Sorts by offset, drops empty extents and merges overlapping or adjacent ones.
void normalise(ExtentList *extents);

// At most cap (>= 1) extents covering at least the same bytes: the smallest gaps
// between neighbours are closed first. Input and output are normalised.
void coarsen(ExtentList *extents, size_t cap);

// True when two normalised lists share a byte. O(na + nb).
bool overlap(const piox_extent *a, size_t na, const piox_extent *b, size_t nb);

// Collects extents in any order and gives them back normalised and at most cap of
// them (coarsened each time the buffer reaches 2 x cap), so memory stays O(cap)
// however many extents are added.
class BoundedExtentSet {
public:
    explicit BoundedExtentSet(size_t cap) : cap_(cap < 1 ? 1 : cap) {}
    void add(MPI_Offset offset, MPI_Offset length);
    size_t cap() const { return cap_; }
    const ExtentList &finish();

private:
    size_t cap_;
    ExtentList extents_;
};

inline MPI_Offset end_of(const piox_extent &extent) { return extent.offset + extent.length; }

}  // namespace piox::adio

#endif
