// main.cpp - piox-locality FILE [--hosts ...] [--ranks N]: where FILE's chunks are, each
// host's share, and the assignment DL-MPI's scheduler would make. Runs alone or under
// mpiexec (then the job's own ranks and hosts are the default, and the storage is asked
// once, by rank 0, through DLI_Load).
#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

#include "dli.h"
#include "options.h"
#include "report.h"

using namespace locality_tool;

namespace {

constexpr int exit_ok = 0, exit_failed = 1, exit_usage = 2;

// Every rank's host name, in rank order.
std::vector<std::string> job_hosts() {
    char me[MPI_MAX_PROCESSOR_NAME + 256] = {};
    DLI_get_process_name(me, static_cast<int>(sizeof me));
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::vector<char> all(sizeof me * static_cast<size_t>(size));
    MPI_Allgather(me, sizeof me, MPI_CHAR, all.data(), sizeof me, MPI_CHAR, MPI_COMM_WORLD);
    std::vector<std::string> hosts;
    for (int r = 0; r < size; ++r) hosts.emplace_back(all.data() + sizeof me * static_cast<size_t>(r));
    return hosts;
}

int index_of(std::vector<std::string> &list, const std::string &name) {
    for (size_t i = 0; i < list.size(); ++i)
        if (list[i] == name) return static_cast<int>(i);
    list.push_back(name);
    return static_cast<int>(list.size() - 1);
}

int failed(const char *call, int rc) {
    std::fprintf(stderr, "piox-locality: %s\n", *DLI_last_error() ? DLI_last_error() : DLI_strerror(rc));
    (void)call;
    return exit_failed;
}

// Rank 0's work once the table is loaded: choose hosts and ranks, schedule, print.
int report(const Options &options, const std::vector<std::string> &job) {
    DLI_Chunk_map *probe = nullptr;
    const char *none[] = {nullptr};
    if (int rc = DLI_map_chunks_process(options.file.c_str(), none, &probe)) return failed("map", rc);
    std::vector<std::string> hosts = options.hosts;
    std::vector<int> host_of_rank;
    if (hosts.empty() && options.ranks == 0 && job.size() > 1) {
        for (const std::string &host : job) host_of_rank.push_back(index_of(hosts, host));
    } else {
        if (hosts.empty()) hosts = hosts_in(probe->all);
        if (hosts.empty()) hosts.push_back(job[0]);  // only "every host": this one
        int ranks = options.ranks ? options.ranks : static_cast<int>(hosts.size());
        for (int r = 0; r < ranks; ++r) host_of_rank.push_back(r % static_cast<int>(hosts.size()));
    }
    DLI_free(probe);

    std::vector<const char *> host_names;
    for (const std::string &host : hosts) host_names.push_back(host.c_str());
    host_names.push_back(nullptr);
    DLI_Chunk_map *map = nullptr;
    if (int rc = DLI_map_chunks_process(options.file.c_str(), host_names.data(), &map)) return failed("map", rc);
    std::vector<const char *> rank_hosts;
    std::vector<double> speeds;
    for (int host : host_of_rank) {
        rank_hosts.push_back(host_names[static_cast<size_t>(host)]);
        if (!options.speeds.empty()) speeds.push_back(options.speeds[static_cast<size_t>(host)]);
    }
    DLI_Assignment *assignment = nullptr;
    int rc = DLI_Sched_static(&map->all, static_cast<int>(rank_hosts.size()), rank_hosts.data(),
                              speeds.empty() ? nullptr : speeds.data(), options.seed, &assignment);
    print_chunks(stdout, map->all, options.rows);
    print_shares(stdout, *map);
    if (rc == DLI_SUCCESS) print_assignment(stdout, *map, *assignment, host_of_rank, options.seed);
    else failed("schedule", rc);
    DLI_free(assignment);
    DLI_free(map);
    return rc == DLI_SUCCESS ? exit_ok : exit_failed;
}

}  // namespace

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    Options options;
    std::string usage_error = parse_options(argc, argv, options);
    int status = exit_ok;
    if (!usage_error.empty() || options.help) {
        if (rank == 0 && !usage_error.empty()) std::fprintf(stderr, "piox-locality: %s\n%s", usage_error.c_str(), usage_text());
        else if (rank == 0) std::fputs(usage_text(), stdout);
        MPI_Finalize();
        return usage_error.empty() ? exit_ok : exit_usage;
    }
    MPI_Info info;
    MPI_Info_create(&info);
    for (const auto &[key, value] : options.hints) MPI_Info_set(info, key.c_str(), value.c_str());
    std::vector<std::string> job = job_hosts();
    int rc = DLI_Init(MPI_COMM_WORLD, info);
    MPI_Info_free(&info);
    if (rc != DLI_SUCCESS) {
        status = rc == DLI_ERR_INFO ? exit_usage : exit_failed;
        if (rank == 0) failed("init", rc);
    } else {
        rc = DLI_Load(options.file.c_str());  // every rank gets the same code
        if (rc != DLI_SUCCESS) {
            status = exit_failed;
            if (rank == 0) failed("load", rc);
        } else if (rank == 0) {
            status = report(options, job);
        }
        MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
        DLI_Finalize();
    }
    MPI_Finalize();
    return status;
}
