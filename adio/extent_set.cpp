// BoundedExtentSet: sort, coalesce, and close the smallest gaps when over the cap.
#include "extent_set.h"

#include <algorithm>
#include <numeric>

namespace piox::adio {

void BoundedExtentSet::add(MPI_Offset offset, MPI_Offset length)
{
    if (length <= 0)
        return;
    extents_.push_back({offset, length});
    if (extents_.size() >= 2 * cap_)
        shrink_to(cap_);
}

const std::vector<Extent> &BoundedExtentSet::finish()
{
    shrink_to(cap_);
    return extents_;
}

void BoundedExtentSet::shrink_to(size_t target)
{
    auto &ext = extents_;
    std::sort(ext.begin(), ext.end(),
              [](const Extent &a, const Extent &b) { return a.offset < b.offset; });
    // Merge overlapping or adjacent extents.
    size_t kept = 0;
    for (size_t i = 0; i < ext.size(); ++i) {
        if (kept > 0 && ext[i].offset <= ext[kept - 1].end()) {
            MPI_Offset end = std::max(ext[kept - 1].end(), ext[i].end());
            ext[kept - 1].length = end - ext[kept - 1].offset;
        } else {
            ext[kept++] = ext[i];
        }
    }
    ext.resize(kept);
    if (ext.size() <= target)
        return;

    // Close the (size - target) smallest gaps; gap i lies between extent i and i+1.
    const size_t gaps = ext.size() - 1, to_close = ext.size() - target;
    std::vector<size_t> order(gaps);
    std::iota(order.begin(), order.end(), 0);
    auto gap = [&](size_t i) { return ext[i + 1].offset - ext[i].end(); };
    std::nth_element(order.begin(), order.begin() + (to_close - 1), order.end(),
                     [&](size_t a, size_t b) { return gap(a) < gap(b) || (gap(a) == gap(b) && a < b); });
    std::vector<bool> close(gaps, false);
    for (size_t k = 0; k < to_close; ++k)
        close[order[k]] = true;
    kept = 0;
    for (size_t i = 0; i < ext.size(); ++i) {
        if (i > 0 && close[i - 1])
            ext[kept - 1].length = ext[i].end() - ext[kept - 1].offset;
        else
            ext[kept++] = ext[i];
    }
    ext.resize(kept);
}

}  // namespace piox::adio
