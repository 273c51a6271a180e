// piox-loadd: the load servers of `piox load`, one MPI process per node, started by
// the launcher as a job of its own beside the application (libraries load before
// the application's MPI_Init, so the servers cannot be inside its job).
//
//   piox-loadd --dir DIR [--nodes N] [--pull] [--readers K] [--preload FILE] [--strip]
//
// Each server serves its node's processes on DIR/<node>/sock and keeps their copies
// in DIR/<node>/root; <node> is PIOX_HOSTNAME, or MPI_Get_processor_name. --nodes N:
// the job is N servers simulating N nodes on one machine, and rank r serves node<r>
// (the client's PIOX_LOAD_NODES=N picks the same names). When all are ready (the
// readers have read FILE's paths, one absolute path a line), rank 0 writes
// DIR/ready. Creating DIR/stop on rank 0's node ends the job: the servers remove
// their node directories and exit 0. The launcher does both on its own node, so
// piox load puts its host first among the servers' hosts.
// --strip: the copies of shared objects hold only what the loader reads (a hole for
// the rest: section headers, symbols, debugging information).
#include <mpi.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/stat.h>
#include <vector>

#include "server.h"
#include "system_search.h"

namespace {

using piox_load::ServerOptions;

const char kUsage[] =
    "usage: piox-loadd --dir DIR [--nodes N] [--pull] [--readers K] [--preload FILE] [--strip]\n";

// A count of at least 1 (and at most 2^20), or 0 for anything else.
int parse_count(const char* text)
{
    char* end = nullptr;
    long count = strtol(text, &end, 10);
    return *text != '\0' && *end == '\0' && count >= 1 && count <= 1 << 20 ? static_cast<int>(count) : 0;
}

bool parse(int argc, char** argv, ServerOptions& options, std::string& error)
{
    for (int i = 1; i < argc; i++) {
        std::string arg = argv[i];
        if (arg == "--dir" && i + 1 < argc) {
            options.directory = argv[++i];
        } else if (arg == "--preload" && i + 1 < argc) {
            options.preload = argv[++i];
        } else if (arg == "--strip") {
            options.strip = true;
        } else if (arg == "--pull") {
            options.push = false;
        } else if ((arg == "--readers" || arg == "--nodes") && i + 1 < argc) {
            int count = parse_count(argv[++i]);
            if (count == 0) {
                error = arg + " " + argv[i] + ": expected a count of at least 1";
                return false;
            }
            (arg == "--readers" ? options.readers : options.simulated_nodes) = count;
        } else {
            error = "unknown or incomplete option '" + arg + "'";
            return false;
        }
    }
    if (options.directory.empty() || options.directory[0] != '/') {
        error = "--dir must name an absolute directory";
        return false;
    }
    return true;
}

std::string node_name(int simulated_nodes, std::string& error)
{
    if (simulated_nodes > 0) {
        int rank = 0, size = 1;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        if (size != simulated_nodes)
            error = "--nodes " + std::to_string(simulated_nodes) + " needs as many servers, not " +
                    std::to_string(size);
        return "node" + std::to_string(rank);
    }
    if (const char* name = getenv("PIOX_HOSTNAME"); name != nullptr && *name != '\0')
        return name;
    char name[MPI_MAX_PROCESSOR_NAME];
    int length = 0;
    MPI_Get_processor_name(name, &length);
    return std::string(name, static_cast<size_t>(length));
}

// Two servers on one node would share its socket: say so rather than serve half.
std::string duplicate_node(const std::string& node)
{
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::vector<char> mine(MPI_MAX_PROCESSOR_NAME, '\0'), all(size * MPI_MAX_PROCESSOR_NAME);
    strncpy(mine.data(), node.c_str(), MPI_MAX_PROCESSOR_NAME - 1);
    MPI_Allgather(mine.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME,
                  MPI_CHAR, MPI_COMM_WORLD);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int other = 0; other < rank; other++)
        if (node == &all[other * MPI_MAX_PROCESSOR_NAME])
            return "two servers on node " + node + " (ranks " + std::to_string(other) + " and " +
                   std::to_string(rank) + "): start one per node";
    return "";
}

// Every rank learns whether any failed, so that all exit rather than some wait.
bool all_ready(const std::string& error)
{
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (!error.empty())
        fprintf(stderr, "piox-loadd (rank %d): %s\n", rank, error.c_str());
    int failed = !error.empty(), any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return any == 0;
}

int remove_tree(const std::string& path)
{
    std::string command = "rm -rf -- '" + path + "'";  // our own directory, no quote in it
    return path.find('\'') == std::string::npos ? system(command.c_str()) : -1;
}

}  // namespace

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    ServerOptions options;
    std::string error;
    if (!parse(argc, argv, options, error)) {
        fprintf(stderr, "piox-loadd: %s\n%s", error.c_str(), kUsage);
        MPI_Finalize();
        return 2;
    }
    const std::string node = node_name(options.simulated_nodes, error);
    const std::string node_directory = options.directory + "/" + node;
    if (error.empty())
        error = duplicate_node(node);
    // DIR itself is made here on nodes other than the launcher's.
    if (error.empty() && mkdir(options.directory.c_str(), 0700) != 0 && errno != EEXIST)
        error = "cannot create " + options.directory + ": " + strerror(errno);
    bool created = false;  // only what this server made is removed at the end
    if (error.empty() && !(created = mkdir(node_directory.c_str(), 0700) == 0))
        error = "cannot create " + node_directory + ": " + strerror(errno);
    piox_load::SystemSearch system;
    if (error.empty())
        system = piox_load::SystemSearch::of_this_node(error);
    int status = 1;
    {
        piox_load::Server server(options, node, std::move(system), MPI_COMM_WORLD);
        if (error.empty() && server.setup_error() != 0)
            error = "cannot listen on " + node_directory + "/sock: " + strerror(server.setup_error());
        if (all_ready(error)) {
            server.run();
            status = 0;
        }
    }
    if (created)
        remove_tree(node_directory);
    MPI_Finalize();
    return status;
}
