// See disjoint_writes.h.
#include "disjoint_writes.h"

#include "access_check.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace piox::mpiio {
namespace {

constexpr MPI_Offset kUnknown = -1;  // a process that cannot tell its range

// [first byte, end) of this process's access; empty when it moves no bytes.
std::pair<MPI_Offset, MPI_Offset> byte_range(AtomicFile &file, MPI_Offset offset,
                                             MPI_Count count, MPI_Datatype datatype)
{
    MPI_Offset bytes = 0;
    if (offset < 0 || access_bytes(count, datatype, &bytes) != MPI_SUCCESS)
        return {kUnknown, kUnknown};
    if (bytes == 0)
        return {0, 0};
    const AccessMap *map = nullptr;
    if (map_access(file, offset, bytes, &map) != MPI_SUCCESS ||
        map->pieces.empty())
        return {kUnknown, kUnknown};
    const piox_extent &last = map->pieces.back();
    return {map->pieces.front().offset, last.offset + last.length};
}

}  // namespace

bool writes_are_disjoint(AtomicFile &file, MPI_Offset offset, MPI_Count count,
                         MPI_Datatype datatype)
{
    const auto [first, end] = byte_range(file, offset, count, datatype);
    int processes = 0;
    PMPI_Comm_size(file.comm, &processes);
    const MPI_Offset mine[2] = {first, end};
    std::vector<MPI_Offset> all(2 * static_cast<size_t>(processes));
    if (PMPI_Allgather(mine, 2, MPI_OFFSET, all.data(), 2, MPI_OFFSET, file.comm) != MPI_SUCCESS)
        return false;
    std::vector<std::pair<MPI_Offset, MPI_Offset>> ranges;
    for (int p = 0; p < processes; p++) {
        const MPI_Offset from = all[2 * p], to = all[2 * p + 1];
        if (from == kUnknown)
            return false;
        if (from < to)
            ranges.emplace_back(from, to);
    }
    std::sort(ranges.begin(), ranges.end());
    for (size_t i = 1; i < ranges.size(); i++)
        if (ranges[i].first < ranges[i - 1].second)
            return false;
    return true;
}

}  // namespace piox::mpiio
