// See extent_list.h.
#include "extent_list.h"

#include <algorithm>
#include <cstddef>
#include <numeric>

namespace piox::adio {

void normalise(ExtentList *extents)
{
    ExtentList &list = *extents;
    list.erase(std::remove_if(list.begin(), list.end(),
                              [](const piox_extent &e) { return e.length <= 0; }),
               list.end());
    auto by_offset = [](const piox_extent &a, const piox_extent &b) { return a.offset < b.offset; };
    // Views and lock requests mostly arrive sorted already: check before sorting.
    if (!std::is_sorted(list.begin(), list.end(), by_offset))
        std::sort(list.begin(), list.end(), by_offset);
    size_t kept = 0;
    for (size_t i = 0; i < list.size(); i++) {
        if (kept > 0 && list[i].offset <= end_of(list[kept - 1])) {
            MPI_Offset end = std::max(end_of(list[kept - 1]), end_of(list[i]));
            list[kept - 1].length = end - list[kept - 1].offset;
        } else {
            list[kept++] = list[i];
        }
    }
    list.resize(kept);
}

void coarsen(ExtentList *extents, size_t cap)
{
    ExtentList &list = *extents;
    cap = std::max<size_t>(cap, 1);
    if (list.size() <= cap)
        return;
    // Close the (size - cap) smallest gaps; gap i lies between extent i and i + 1.
    const size_t gaps = list.size() - 1, to_close = list.size() - cap;
    std::vector<size_t> order(gaps);
    std::iota(order.begin(), order.end(), 0);
    auto gap = [&](size_t i) { return list[i + 1].offset - end_of(list[i]); };
    std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(to_close - 1),
                     order.end(),
                     [&](size_t a, size_t b) { return gap(a) < gap(b) || (gap(a) == gap(b) && a < b); });
    std::vector<bool> close(gaps, false);
    for (size_t k = 0; k < to_close; ++k)
        close[order[k]] = true;
    size_t kept = 0;
    for (size_t i = 0; i < list.size(); ++i) {
        if (i > 0 && close[i - 1])
            list[kept - 1].length = end_of(list[i]) - list[kept - 1].offset;
        else
            list[kept++] = list[i];
    }
    list.resize(kept);
}

void BoundedExtentSet::add(MPI_Offset offset, MPI_Offset length)
{
    if (length <= 0)
        return;
    extents_.push_back({offset, length});
    if (extents_.size() >= 2 * cap_) {
        normalise(&extents_);
        coarsen(&extents_, cap_);
    }
}

const ExtentList &BoundedExtentSet::finish()
{
    normalise(&extents_);
    coarsen(&extents_, cap_);
    return extents_;
}

bool overlap(const piox_extent *a, size_t na, const piox_extent *b, size_t nb)
{
    size_t i = 0, j = 0;
    while (i < na && j < nb) {
        if (end_of(a[i]) <= b[j].offset)
            i++;
        else if (end_of(b[j]) <= a[i].offset)
            j++;
        else
            return true;
    }
    return false;
}

}  // namespace piox::adio

extern "C" int piox_extents_coarsen(piox_extent *extents, int n, int cap, int *count)
{
    if (n < 0 || cap < 1 || count == nullptr || (n > 0 && extents == nullptr))
        return MPI_ERR_ARG;
    piox::adio::ExtentList list(extents, extents + n);
    piox::adio::normalise(&list);
    piox::adio::coarsen(&list, static_cast<size_t>(cap));
    std::copy(list.begin(), list.end(), extents);
    *count = static_cast<int>(list.size());
    return MPI_SUCCESS;
}
