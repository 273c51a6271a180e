// totals.cpp - adding walks up and ranks together.
#include "totals.h"

#include <algorithm>

namespace pftw_tool {

void RunTotals::add_walk(const PFTW_Stats &stats) {
    entries += stats.entries;
    directories += stats.directories;
    files += stats.files;
    symlinks += stats.symlinks;
    others += stats.others;
    bytes += stats.bytes;
    errors += stats.errors;
    messages += stats.messages;
    message_bytes += stats.message_bytes;
    seconds += stats.seconds;
    items += stats.items;
    requests_fruitful += stats.requests_fruitful;
    requests_unfruitful += stats.requests_unfruitful;
    requests_served += stats.requests_served;
    token_rounds += stats.token_rounds;
    time_visit += stats.time_visit;
    time_stat += stats.time_stat;
    time_readdir += stats.time_readdir;
    time_comm += stats.time_comm;
    const size_t ranks = size_t(std::max(stats.size, 0));
    messages_to.resize(ranks);
    bytes_to.resize(ranks);
    for (size_t to = 0; to < ranks; ++to) {
        if (stats.messages_to)
            messages_to[to] += stats.messages_to[to];
        if (stats.bytes_to)
            bytes_to[to] += stats.bytes_to[to];
    }
}

int combine_ranks(MPI_Comm comm, const RunTotals &mine, bool with_matrix, RunSummary &summary) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    summary.ranks = size;
    summary.sums = mine;  // the run-wide totals are already the same everywhere

    const uint64_t counts[] = {mine.requests_fruitful, mine.requests_unfruitful,
                               mine.requests_served, mine.matched};
    uint64_t count_sums[4] = {};
    const double times[] = {mine.time_visit, mine.time_stat, mine.time_readdir, mine.time_comm};
    double time_sums[4] = {};
    const uint64_t maxima_in[] = {mine.items, uint64_t(mine.threads_seen)};
    uint64_t maxima[2] = {};
    int rc = MPI_Reduce(counts, count_sums, 4, MPI_UINT64_T, MPI_SUM, 0, comm);
    if (rc == MPI_SUCCESS)
        rc = MPI_Reduce(times, time_sums, 4, MPI_DOUBLE, MPI_SUM, 0, comm);
    if (rc == MPI_SUCCESS)
        rc = MPI_Reduce(maxima_in, maxima, 2, MPI_UINT64_T, MPI_MAX, 0, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    RunTotals &sums = summary.sums;
    sums.requests_fruitful = count_sums[0];
    sums.requests_unfruitful = count_sums[1];
    sums.requests_served = count_sums[2];
    sums.matched = count_sums[3];
    sums.time_visit = time_sums[0];
    sums.time_stat = time_sums[1];
    sums.time_readdir = time_sums[2];
    sums.time_comm = time_sums[3];
    summary.items_max = maxima[0];
    sums.threads_seen = int(maxima[1]);
    summary.items_mean = size > 0 ? double(mine.entries) / size : 0;

    if (!with_matrix)
        return MPI_SUCCESS;
    // Each rank's row of the matrix; a rank that walked nothing has no arrays yet.
    std::vector<uint64_t> row_messages(mine.messages_to), row_bytes(mine.bytes_to);
    row_messages.resize(size_t(size));
    row_bytes.resize(size_t(size));
    if (rank == 0) {
        summary.matrix_messages.resize(size_t(size) * size_t(size));
        summary.matrix_bytes.resize(size_t(size) * size_t(size));
    }
    rc = MPI_Gather(row_messages.data(), size, MPI_UINT64_T, summary.matrix_messages.data(), size,
                    MPI_UINT64_T, 0, comm);
    if (rc == MPI_SUCCESS)
        rc = MPI_Gather(row_bytes.data(), size, MPI_UINT64_T, summary.matrix_bytes.data(), size,
                        MPI_UINT64_T, 0, comm);
    return rc;
}

}  // namespace pftw_tool
