// walk.cpp - PFTW_Walk: checking the call, the collective set-up, the walk, and the
// statistics.
#include "pftw.h"

#include "options.h"
#include "peers.h"
#include "rank_walker.h"
#include "ticks.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <new>

#include <sched.h>
#include <sys/resource.h>
#include <sys/stat.h>

namespace pftw {
namespace {

int cpus_available()
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        return std::max(1, CPU_COUNT(&set));
    return 1;
}

int directory_budget()
{
    rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
        return 512;
    return static_cast<int>(std::clamp<rlim_t>(limit.rlim_cur / 2, 16, 65536));
}

// Worker threads need MPI_THREAD_FUNNELED and the call on the main thread.
bool mpi_lets_threads_run()
{
    int level = MPI_THREAD_SINGLE, is_main = 0;
    MPI_Query_thread(&level);
    MPI_Is_thread_main(&is_main);
    return level >= MPI_THREAD_FUNNELED && is_main;
}

// Checks made by each rank alone, before any collective call.
int check_locally(const char *root, PFTW_Visit_fn visit, MPI_Info info, WalkOptions *options)
{
    if (!root || !*root || !visit)
        return PFTW_ERR_ARG;
    std::string problem;
    if (!parse_options(info, options, &problem))
        return PFTW_ERR_INFO;
    if (options->threads > 1 && !mpi_lets_threads_run())  // asked for explicitly
        return PFTW_ERR_THREAD;
    return PFTW_SUCCESS;
}

// The default thread count: 1, or for h-drqs the node's cpus shared among its ranks
// (one rank per node is the algorithm's intent), when MPI lets threads run at all.
int default_threads(Algorithm algorithm, const NodeLayout &layout)
{
    if (algorithm != Algorithm::h_drqs || !mpi_lets_threads_run())
        return 1;
    return std::max<int>(1, cpus_available() / std::max<size_t>(1, layout.local.size()));
}

bool same_on_every_rank(MPI_Comm comm, const std::string &text)
{
    unsigned long hash = std::hash<std::string>{}(text), low = 0, high = 0;
    MPI_Allreduce(&hash, &low, 1, MPI_UNSIGNED_LONG, MPI_MIN, comm);
    MPI_Allreduce(&hash, &high, 1, MPI_UNSIGNED_LONG, MPI_MAX, comm);
    return low == high;
}

void fill_stats(MPI_Comm comm, const RankWalker &walker, double seconds, double seconds_per_tick,
                PFTW_Stats *stats)
{
    const ThreadTally tally = walker.tally();
    const RankResult &result = walker.result();
    const std::vector<uint64_t> &messages_to = walker.messenger().messages_to();
    const std::vector<uint64_t> &bytes_to = walker.messenger().bytes_to();
    uint64_t messages = 0, message_bytes = 0;
    for (size_t r = 0; r < messages_to.size(); r++) {
        messages += messages_to[r];
        message_bytes += bytes_to[r];
    }
    enum { kEntries, kDirs, kFiles, kLinks, kOthers, kBytes, kErrors, kMessages, kMessageBytes, kSums };
    uint64_t local[kSums] = {tally.entries, tally.directories, tally.files, tally.symlinks, tally.others,
                             tally.bytes,   tally.errors,      messages,    message_bytes};
    uint64_t sums[kSums];
    MPI_Allreduce(local, sums, kSums, MPI_UINT64_T, MPI_SUM, comm);
    uint64_t items_max = 0;
    MPI_Allreduce(&tally.entries, &items_max, 1, MPI_UINT64_T, MPI_MAX, comm);
    double slowest = 0;
    MPI_Allreduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
    if (!stats)
        return;
    std::memset(stats, 0, sizeof *stats);
    stats->entries = sums[kEntries];
    stats->directories = sums[kDirs];
    stats->files = sums[kFiles];
    stats->symlinks = sums[kLinks];
    stats->others = sums[kOthers];
    stats->bytes = sums[kBytes];
    stats->errors = sums[kErrors];
    stats->messages = sums[kMessages];
    stats->message_bytes = sums[kMessageBytes];
    stats->seconds = slowest;
    stats->items_max = items_max;
    MPI_Comm_rank(comm, &stats->rank);
    MPI_Comm_size(comm, &stats->size);
    stats->items_mean = static_cast<double>(sums[kEntries]) / stats->size;
    stats->items = tally.entries;
    stats->requests_fruitful = result.requests_fruitful;
    stats->requests_unfruitful = result.requests_unfruitful;
    stats->requests_served = result.requests_served;
    stats->token_rounds = result.token_rounds;
    stats->time_visit = static_cast<double>(tally.ticks_visit) * seconds_per_tick;
    stats->time_stat = static_cast<double>(tally.ticks_stat) * seconds_per_tick;
    stats->time_readdir = static_cast<double>(tally.ticks_readdir) * seconds_per_tick;
    stats->time_comm = result.seconds_comm;
    stats->messages_to = static_cast<uint64_t *>(std::calloc(stats->size, sizeof(uint64_t)));
    stats->bytes_to = static_cast<uint64_t *>(std::calloc(stats->size, sizeof(uint64_t)));
    if (stats->messages_to && stats->bytes_to) {
        std::copy(messages_to.begin(), messages_to.end(), stats->messages_to);
        std::copy(bytes_to.begin(), bytes_to.end(), stats->bytes_to);
    }
}

int walk(MPI_Comm user_comm, const char *root, MPI_Info info, PFTW_Visit_fn visit, void *extra,
         PFTW_Progress_fn progress, double interval, PFTW_Stats *stats)
{
    if (stats)
        std::memset(stats, 0, sizeof *stats);
    int inter = 0;
    if (user_comm == MPI_COMM_NULL || MPI_Comm_test_inter(user_comm, &inter) != MPI_SUCCESS || inter)
        return PFTW_ERR_ARG;

    // The walk's own communicator: its messages never meet the caller's.
    MPI_Comm comm;
    if (MPI_Comm_dup(user_comm, &comm) != MPI_SUCCESS)
        return PFTW_ERR_MPI;
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int rank = 0, size = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);

    WalkContext context;
    context.visit = visit;
    context.extra = extra;
    int code = check_locally(root, visit, info, &context.options), worst = 0;
    MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MAX, comm);
    if (worst == PFTW_SUCCESS && !same_on_every_rank(comm, std::string(root) + '\0' + context.options.fingerprint()))
        worst = PFTW_ERR_NOT_SAME;
    NodeLayout layout = worst == PFTW_SUCCESS ? find_node_layout(comm) : NodeLayout();
    if (worst != PFTW_SUCCESS) {
        MPI_Comm_free(&comm);
        return worst;
    }
    if (context.options.threads == 0)
        context.options.threads = default_threads(context.options.algorithm, layout);
    context.directory_budget = directory_budget();

    struct stat root_stat;
    unsigned long long root_device = 0;
    if (rank == 0 && lstat(root, &root_stat) == 0)
        root_device = root_stat.st_dev;
    MPI_Bcast(&root_device, 1, MPI_UNSIGNED_LONG_LONG, 0, comm);
    context.root_device = static_cast<dev_t>(root_device);
    MPI_Bcast(&interval, 1, MPI_DOUBLE, 0, comm);

    ProgressReport report;
    report.callback = rank == 0 ? progress : nullptr;
    report.extra = extra;
    report.interval = progress ? interval : 0;
    int progress_on = report.interval > 0;
    MPI_Bcast(&progress_on, 1, MPI_INT, 0, comm);
    if (!progress_on)
        report.interval = 0;
    else if (report.interval <= 0)
        report.interval = 1.0;

    int result_code = PFTW_SUCCESS;
    try {
        WorkItem root_item;
        root_item.path = root;
        RankWalker walker(comm, rank, size, &context, layout, 0x5eed0000ULL + static_cast<uint64_t>(rank), report);
        TickRate tick_rate;
        MPI_Barrier(comm);
        double start = seconds_now();
        walker.run(rank == 0 ? &root_item : nullptr);
        double seconds = seconds_now() - start;
        const RankResult &result = walker.result();
        int flags[2] = {result.stopped ? 1 : 0, result.mpi_failed ? 1 : 0}, any[2];
        MPI_Allreduce(flags, any, 2, MPI_INT, MPI_MAX, comm);
        fill_stats(comm, walker, seconds, tick_rate.seconds_per_tick(), stats);
        result_code = any[1] ? PFTW_ERR_MPI : any[0] ? PFTW_STOPPED : PFTW_SUCCESS;
    } catch (const std::bad_alloc &) {
        result_code = PFTW_ERR_NOMEM;  // this rank cannot go on; the others may wait for it
    }
    MPI_Comm_free(&comm);
    return result_code;
}

}  // namespace
}  // namespace pftw

extern "C" int PFTW_Walk(MPI_Comm comm, const char *root, MPI_Info info, PFTW_Visit_fn visit, void *extra,
                         PFTW_Stats *stats)
{
    return pftw::walk(comm, root, info, visit, extra, nullptr, 0, stats);
}

extern "C" int PFTW_Walk_progress(MPI_Comm comm, const char *root, MPI_Info info, PFTW_Visit_fn visit,
                                  void *extra, PFTW_Progress_fn progress, double interval, PFTW_Stats *stats)
{
    return pftw::walk(comm, root, info, visit, extra, progress, interval, stats);
}

extern "C" void PFTW_Stats_free(PFTW_Stats *stats)
{
    if (!stats)
        return;
    std::free(stats->messages_to);
    std::free(stats->bytes_to);
    stats->messages_to = nullptr;
    stats->bytes_to = nullptr;
}
