// See extent_list.h.
#include "extent_list.h"

#include <algorithm>

namespace piox::adio {

void normalise(ExtentList *extents)
{
    ExtentList &list = *extents;
    list.erase(std::remove_if(list.begin(), list.end(),
                              [](const piox_extent &e) { return e.length <= 0; }),
               list.end());
    std::sort(list.begin(), list.end(),
              [](const piox_extent &a, const piox_extent &b) { return a.offset < b.offset; });
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
    while (list.size() > cap) {
        size_t kept = 0;
        for (size_t i = 0; i < list.size(); i += 2) {
            piox_extent merged = list[i];
            if (i + 1 < list.size())
                merged.length = end_of(list[i + 1]) - merged.offset;
            list[kept++] = merged;
        }
        list.resize(kept);
    }
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
