// main.cpp - pftw: mpiexec -n N pftw [OPTION]... [PATH]... (see pftw.1).
// Parses the options on every rank, walks each PATH with PFTW_Walk_progress, funnels
// what the ranks collected to rank 0, and reports from there.
#include "du.h"
#include "messages.h"
#include "options.h"
#include "output.h"
#include "paths.h"
#include "report.h"
#include "totals.h"
#include "visit.h"

#include <mpi.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <thread>

using namespace pftw_tool;

namespace {

constexpr int exit_ok = 0, exit_entry_errors = 1, exit_usage = 2;
constexpr double progress_interval_seconds = 2.0;

// What rank 0 decided or looked up, broadcast so that every rank acts alike (ranks on
// other nodes could see another --newer file, another clock, another terminal).
struct SharedSetup {
    int usage_error;
    int has_newer;
    int64_t newer_sec, newer_nsec;
    int has_user;
    uint64_t uid;
    int progress;
    int64_t start_sec, start_nsec;  // the reference time of --mtime
};

SharedSetup decide_on_rank0(Options &options, const std::string &parse_error) {
    SharedSetup setup{};
    std::string error = parse_error;
    if (error.empty() && !options.help)
        error = resolve_references(options);
    if (!error.empty()) {
        report(error);
        write_stderr_line("Try 'pftw --help' for more information.\n");
        setup.usage_error = 1;
    }
    if (options.selection.newer_than) {
        setup.has_newer = 1;
        setup.newer_sec = options.selection.newer_than->tv_sec;
        setup.newer_nsec = options.selection.newer_than->tv_nsec;
    }
    if (options.selection.user) {
        setup.has_user = 1;
        setup.uid = *options.selection.user;
    }
    setup.progress = options.progress || isatty(STDERR_FILENO);
    timespec now{};
    clock_gettime(CLOCK_REALTIME, &now);
    setup.start_sec = now.tv_sec;
    setup.start_nsec = now.tv_nsec;
    return setup;
}

void adopt(const SharedSetup &setup, Options &options) {
    if (setup.has_newer)
        options.selection.newer_than = timespec{time_t(setup.newer_sec), long(setup.newer_nsec)};
    if (setup.has_user)
        options.selection.user = uid_t(setup.uid);
    options.progress = setup.progress;
}

// Tallies to keep per rank: enough for the threads asked for, or for the library's
// default (at most one per cpu this rank may use).
int thread_slots(const Options &options) {
    int cpus = int(std::thread::hardware_concurrency());
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        cpus = std::max(cpus, CPU_COUNT(&set));
    const int requested = int(std::strtol(options.hint("pftw_threads", "1").c_str(), nullptr, 10));
    return std::max({cpus, requested, 1});
}

MPI_Info walk_info(const Options &options) {
    MPI_Info info;
    MPI_Info_create(&info);
    for (const auto &[key, value] : options.hints)
        MPI_Info_set(info, key.c_str(), value.c_str());  // a later setting replaces
    // The tool stats by default (its summary has bytes), the library does not.
    MPI_Info_set(info, "pftw_stat", options.stat() ? "yes" : "no");
    return info;
}

void print_progress(uint64_t entries, double seconds, void *) {
    write_stderr_line(progress_line(entries, seconds));
}

// Rank 0 gathers this walk's --du records and appends its lines to du.
int collect_du(MPI_Comm comm, const std::string &root, const Visitor &visitor,
               std::vector<DuLine> &du) {
    const std::string records = visitor.du_records();
    DuMerge merge;
    bool complete = true;
    const int rc = funnel_to_root(comm, {records}, [&](int, const char *data, size_t size) {
        if (size)
            merge.feed(data, size);
        else
            complete = merge.end_of_stream() && complete;
    });
    if (!complete)
        report("internal error: a --du record was cut short");
    for (const auto &[child, bytes] : merge.totals())
        du.push_back({child_path(root, child), bytes});
    return rc;
}

void write_file_or_report(const std::string &path, const std::string &text, int &status) {
    FILE *file = std::fopen(path.c_str(), "w");
    const bool ok = file && std::fwrite(text.data(), 1, text.size(), file) == text.size();
    if (!(file && std::fclose(file) == 0 && ok)) {
        report("cannot write '" + path + "'");
        status = std::max(status, exit_entry_errors);
    }
}

// Every rank parses argv; rank 0's verdict and look-ups are shared. Returns false
// when the run ends here, with exit_status set (usage error or --help).
bool agree_on_options(MPI_Comm comm, int argc, char **argv, Options &options, timespec &start,
                      int &exit_status) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    const std::string parse_error = parse_options(argc, argv, options);
    SharedSetup setup{};
    if (rank == 0)
        setup = decide_on_rank0(options, parse_error);
    MPI_Bcast(&setup, sizeof setup, MPI_BYTE, 0, comm);
    if (setup.usage_error || options.help) {
        if (options.help && !setup.usage_error && rank == 0)
            std::fputs(usage_text(), stdout);
        exit_status = setup.usage_error ? exit_usage : exit_ok;
        return false;
    }
    adopt(setup, options);
    start = timespec{time_t(setup.start_sec), long(setup.start_nsec)};
    return true;
}

// Walks each PATH in turn, funnelling its paths and --du totals to rank 0 after it.
// Returns the exit status so far; rc is an MPI error code.
int walk_paths(MPI_Comm comm, const Options &options, Visitor &visitor, RunTotals &totals,
               std::vector<DuLine> &du, int &rc) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Info info = walk_info(options);
    int status = exit_ok;
    rc = MPI_SUCCESS;
    for (const std::string &root : options.paths) {
        visitor.begin_walk(root);
        PFTW_Stats stats{};
        const int walked = PFTW_Walk_progress(MPI_COMM_WORLD, root.c_str(), info, Visitor::visit,
                                              &visitor, options.progress ? print_progress : nullptr,
                                              progress_interval_seconds, &stats);
        if (walked != PFTW_SUCCESS) {  // the same code on every rank: all stop here
            if (rank == 0)
                report("'" + root + "': " + PFTW_Error_string(walked));
            PFTW_Stats_free(&stats);
            status = walked == PFTW_ERR_INFO ? exit_usage : exit_entry_errors;
            break;
        }
        totals.add_walk(stats);
        PFTW_Stats_free(&stats);
        if (options.output == OutputMode::print || options.output == OutputMode::print0)
            rc = funnel_to_root(comm, visitor.path_pieces(), [](int, const char *data, size_t size) {
                write_stdout(data, size);
            });
        if (rc == MPI_SUCCESS && options.du)
            rc = collect_du(comm, root, visitor, du);
        if (rc != MPI_SUCCESS)
            break;
    }
    MPI_Info_free(&info);
    totals.matched = visitor.matched();
    totals.threads_seen = visitor.threads_seen();
    return status;
}

// Rank 0 writes the run's report: the --json object, the --du lines or the summary,
// and the --stats-matrix file.
void write_report(const Options &options, const RunSummary &summary,
                  const std::vector<DuLine> &du, int &status) {
    std::string text;
    if (options.output == OutputMode::json)
        text = json_report(options, summary, options.du ? &du : nullptr);
    else if (options.du)
        text = du_text(du);
    else if (options.output == OutputMode::summary)
        text = summary_text(options, summary);
    write_stdout(text.data(), text.size());
    if (!options.stats_matrix_file.empty())
        write_file_or_report(options.stats_matrix_file, stats_matrix_csv(summary), status);
}

int run(int argc, char **argv) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    // The tool's own traffic (funnel, reductions) stays apart from the walk's.
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);

    Options options;
    timespec start{};
    int status = exit_ok;
    if (!agree_on_options(comm, argc, argv, options, start, status)) {
        MPI_Comm_free(&comm);
        return status;
    }
    Visitor visitor(options, start, thread_slots(options));
    RunTotals totals;
    std::vector<DuLine> du;
    int rc = MPI_SUCCESS;
    status = walk_paths(comm, options, visitor, totals, du, rc);

    RunSummary summary;
    if (rc == MPI_SUCCESS)
        rc = combine_ranks(comm, totals, !options.stats_matrix_file.empty(), summary);
    if (rc != MPI_SUCCESS) {
        report("an MPI call failed while gathering the results");
        status = std::max(status, exit_entry_errors);
    }
    if (rank == 0 && rc == MPI_SUCCESS && status == exit_ok)
        write_report(options, summary, du, status);
    if (rank == 0 && !flush_stdout()) {
        report("write error on standard output");
        status = std::max(status, exit_entry_errors);
    }
    if (status == exit_ok && summary.sums.errors > 0)
        status = exit_entry_errors;  // like find: the walk went on, but not everything was read
    MPI_Comm_free(&comm);
    return status;
}

}  // namespace

int main(int argc, char **argv) {
    int provided = MPI_THREAD_SINGLE;
    // FUNNELED: libpftw's threads read and visit, only the main thread calls MPI.
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    const int status = run(argc, argv);
    MPI_Finalize();
    return status;
}
