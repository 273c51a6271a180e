// map_role.cpp - the map, a role of rank 0 (NOTES.md 2.2): it gathers every
// process's lease frontiers and sends the table back (the garbage collector's
// knowledge of what exists elsewhere), and ends the job when every process has made
// its blocks of every last version. Leases are all given at the start in this build
// (no rechunking yet), so the map grants nothing later.
#include "runtime.h"

#include <algorithm>

namespace desync {

namespace {
const double REPORT_INTERVAL = 0.005; // seconds between frontier reports, and broadcasts
} // namespace

int Runtime::send_report()
{
    double now = MPI_Wtime();
    if (!report_due_ || now - last_report_ < REPORT_INTERVAL)
        return DESYNC_SUCCESS;
    report_due_ = false;
    last_report_ = now;
    std::vector<int> pairs;
    for (const OwnLease &own : own_) {
        pairs.push_back(own.lease);
        pairs.push_back(frontier_[static_cast<size_t>(own.lease)]);
    }
    if (channel_.rank() == 0)
        return map_report(pairs);
    std::vector<char> bytes;
    put_ints(&bytes, pairs.data(), pairs.size());
    if (channel_.send(0, TAG_REPORT, std::move(bytes)) != MPI_SUCCESS)
        return fail(DESYNC_ERR_MPI, "sending a frontier report failed");
    return DESYNC_SUCCESS;
}

int Runtime::map_report(const std::vector<int> &pairs)
{
    for (size_t i = 0; i + 1 < pairs.size(); i += 2) {
        size_t l = static_cast<size_t>(pairs[i]);
        if (l >= map_frontier_.size())
            return fail(DESYNC_ERR_MPI, "a frontier report names no lease of the job");
        map_frontier_[l] = std::max(map_frontier_[l], pairs[i + 1]);
        frontier_[l] = std::max(frontier_[l], pairs[i + 1]); // rank 0's own view
    }
    map_dirty_ = true;
    collect_due_ = true;
    return DESYNC_SUCCESS;
}

int Runtime::map_progress()
{
    if (channel_.rank() != 0 || !map_dirty_ || MPI_Wtime() - map_last_broadcast_ < REPORT_INTERVAL)
        return DESYNC_SUCCESS;
    map_dirty_ = false;
    map_last_broadcast_ = MPI_Wtime();
    for (int r = 1; r < channel_.size(); r++) {
        std::vector<char> bytes;
        put_ints(&bytes, map_frontier_.data(), map_frontier_.size());
        if (channel_.send(r, TAG_FRONTIERS, std::move(bytes)) != MPI_SUCCESS)
            return fail(DESYNC_ERR_MPI, "sending the frontier table failed");
    }
    return DESYNC_SUCCESS;
}

int Runtime::map_done()
{
    if (++map_done_ < channel_.size())
        return DESYNC_SUCCESS;
    ended_ = true;
    for (int r = 1; r < channel_.size(); r++)
        if (channel_.send(r, TAG_END, {}) != MPI_SUCCESS)
            return fail(DESYNC_ERR_MPI, "sending the end of the job failed");
    return DESYNC_SUCCESS;
}

} // namespace desync
