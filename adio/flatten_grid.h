// Subarray and darray types are both a cartesian product of per-dimension index
// lists, each index naming one element (a copy of the old type) of a global array
// stored in C or Fortran order. This decodes both into one Grid and lays it out.
#ifndef PIOX_ADIO_FLATTEN_GRID_H
#define PIOX_ADIO_FLATTEN_GRID_H

#include "typemap.h"

#include <vector>

namespace piox::adio {

// Indices [start, start + count) of one dimension.
struct IndexRun {
    MPI_Offset start;
    MPI_Offset count;
};

struct GridDim {
    MPI_Offset stride;             // in elements: product of the faster dimensions' sizes
    std::vector<IndexRun> runs;    // increasing
};

// Dimensions slowest first, so the innermost (last) has stride 1; typemap order
// is lexicographic over the dimensions in this order.
using Grid = std::vector<GridDim>;

// From the integers MPI_Type_get_contents gives for MPI_COMBINER_SUBARRAY and
// MPI_COMBINER_DARRAY. MPI_ERR_TYPE when they are malformed.
int subarray_grid(const std::vector<int> &ints, Grid *grid);
int darray_grid(const std::vector<int> &ints, Grid *grid);

// Appends the elements of `grid`, each a copy of `element` (extent
// `element_extent`) at its index times that extent.
void place_grid(const Grid &grid, const TypeMap &element, MPI_Offset element_extent,
                TypeMap *out);

}  // namespace piox::adio

#endif
