// Subarray and darray as one grid of elements (MPI-3.1 section 4.1.3 and 4.1.4).
#include "flatten_grid.h"

#include <algorithm>

namespace piox::adio {

namespace {

// Arranges per-dimension sizes and index runs slowest first for `order` and
// gives each dimension its stride. MPI_ERR_TYPE for an unknown order.
int arrange(int order, const std::vector<MPI_Offset> &sizes, std::vector<std::vector<IndexRun>> runs,
            Grid *grid)
{
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return MPI_ERR_TYPE;
    const size_t n = sizes.size();
    grid->assign(n, GridDim{});
    MPI_Offset stride = 1;
    for (size_t k = n; k-- > 0;) {
        // C order: dimension 0 is slowest; Fortran order: dimension n-1 is.
        size_t dim = order == MPI_ORDER_C ? k : n - 1 - k;
        (*grid)[k].stride = stride;
        (*grid)[k].runs = std::move(runs[dim]);
        stride *= sizes[dim];
    }
    return MPI_SUCCESS;
}

// The indices of a dimension of `gsize` elements that process coordinate `coord`
// of `psize` owns when blocks of `block` elements are dealt out cyclically.
// BLOCK is the case with a single round, NONE the case psize = 1.
std::vector<IndexRun> cyclic_runs(MPI_Offset gsize, MPI_Offset psize, MPI_Offset coord,
                                  MPI_Offset block)
{
    std::vector<IndexRun> runs;
    for (MPI_Offset start = coord * block; start < gsize; start += psize * block)
        runs.push_back({start, std::min(block, gsize - start)});
    return runs;
}

}  // namespace

int subarray_grid(const std::vector<int> &ints, Grid *grid)
{
    // ndims, sizes[ndims], subsizes[ndims], starts[ndims], order
    if (ints.empty() || ints[0] <= 0 || ints.size() != 3 * static_cast<size_t>(ints[0]) + 2)
        return MPI_ERR_TYPE;
    const int n = ints[0];
    std::vector<MPI_Offset> sizes(n);
    std::vector<std::vector<IndexRun>> runs(n);
    for (int i = 0; i < n; ++i) {
        MPI_Offset size = ints[1 + i], subsize = ints[1 + n + i], start = ints[1 + 2 * n + i];
        if (size <= 0 || subsize < 0 || start < 0 || start + subsize > size)
            return MPI_ERR_TYPE;
        sizes[i] = size;
        if (subsize > 0)
            runs[i].push_back({start, subsize});
    }
    return arrange(ints[1 + 3 * n], sizes, std::move(runs), grid);
}

int darray_grid(const std::vector<int> &ints, Grid *grid)
{
    // size, rank, ndims, gsizes[ndims], distribs[ndims], dargs[ndims], psizes[ndims], order
    if (ints.size() < 4 || ints[2] <= 0 || ints.size() != 4 * static_cast<size_t>(ints[2]) + 4)
        return MPI_ERR_TYPE;
    const int n = ints[2];
    const int *gsizes = &ints[3], *distribs = &ints[3 + n], *dargs = &ints[3 + 2 * n],
              *psizes = &ints[3 + 3 * n];
    std::vector<MPI_Offset> sizes(n);
    std::vector<std::vector<IndexRun>> runs(n);
    // The process grid is numbered row-major whatever the array order (4.1.4).
    MPI_Offset procs = ints[0], rank = ints[1];
    for (int i = 0; i < n; ++i) {
        if (gsizes[i] <= 0 || psizes[i] <= 0 || procs % psizes[i] != 0)
            return MPI_ERR_TYPE;
        procs /= psizes[i];
        MPI_Offset coord = rank / procs;
        rank %= procs;

        MPI_Offset gsize = gsizes[i], psize = psizes[i], block = 0;
        const bool dflt = dargs[i] == MPI_DISTRIBUTE_DFLT_DARG;
        switch (distribs[i]) {
        case MPI_DISTRIBUTE_BLOCK:
            block = dflt ? (gsize + psize - 1) / psize : dargs[i];
            break;
        case MPI_DISTRIBUTE_CYCLIC:
            block = dflt ? 1 : dargs[i];
            break;
        case MPI_DISTRIBUTE_NONE:
            // Not distributed: the whole dimension. The standard requires psize 1
            // here; MPICH accepts more and then disagrees with itself (C order deals
            // blocks, Fortran order gives every process everything), so refuse.
            if (psize != 1)
                return MPI_ERR_TYPE;
            block = gsize;
            break;
        default:
            return MPI_ERR_TYPE;
        }
        if (block <= 0)
            return MPI_ERR_TYPE;
        sizes[i] = gsize;
        runs[i] = cyclic_runs(gsize, psize, coord, block);
    }
    return arrange(ints[3 + 4 * n], sizes, std::move(runs), grid);
}

namespace {

void place_dim(const Grid &grid, size_t d, MPI_Offset base, const TypeMap &element,
               MPI_Offset extent, TypeMap *out)
{
    const GridDim &dim = grid[d];
    const bool innermost = d + 1 == grid.size();
    for (const IndexRun &run : dim.runs) {
        if (innermost) {  // stride 1: the run is one block of consecutive elements
            out->append_copies(element, extent, run.count, (base + run.start) * extent);
            continue;
        }
        for (MPI_Offset i = run.start; i < run.start + run.count; ++i)
            place_dim(grid, d + 1, base + i * dim.stride, element, extent, out);
    }
}

}  // namespace

void place_grid(const Grid &grid, const TypeMap &element, MPI_Offset element_extent, TypeMap *out)
{
    if (!grid.empty())
        place_dim(grid, 0, 0, element, element_extent, out);
}

}  // namespace piox::adio
