// See locality_open.h.
#include "locality_open.h"

#include "dli_library.h"
#include "piox_log.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace piox::shim {
namespace {

// The scheduler's seed: any fixed value, so that every rank, and every run, computes
// the same permutation.
constexpr uint64_t kSchedulerSeed = 0;

bool hint_given(MPI_Info info, const char *key)
{
    char value[MPI_MAX_INFO_VAL + 1] = {};
    int found = 0;
    return info != MPI_INFO_NULL &&
           PMPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &found) == MPI_SUCCESS && found;
}

// A prefix matches whole path components: /data matches /data and /data/x, not /database.
bool under(const std::string &name, const std::string &prefix)
{
    if (name.compare(0, prefix.size(), prefix) != 0)
        return false;
    return name.size() == prefix.size() || prefix.back() == '/' || name[prefix.size()] == '/';
}

// Why locality does not apply to this file ("" when it was not asked for), or null
// when it does.
const char *not_asked(const char *filename, int amode, MPI_Info info, const FileConfig &config)
{
    if (config.locality == LocalityMode::off)
        return "";
    const std::vector<std::string> &paths = job_config().locality_paths;
    if (!hint_given(info, "piox_locality") && !paths.empty() &&
        std::none_of(paths.begin(), paths.end(),
                     [&](const std::string &p) { return under(filename, p); }))
        return "not under PIOX_LOCALITY_PATHS";
    if (config.locality == LocalityMode::remap && !(amode & MPI_MODE_RDONLY))
        return "opened for writing (remapping serves read-only files)";
    return nullptr;
}

bool chunk_is_local(const DLI_Process_chunks &process, int chunk)
{
    return std::binary_search(process.chunk_index, process.chunk_index + process.count, chunk);
}

// Each rank's host, as the map names them (one process per rank).
std::vector<const char *> rank_hosts(const DLI_Chunk_map &map)
{
    std::vector<const char *> hosts;
    for (int r = 0; r < map.nprocesses; r++)
        hosts.push_back(map.processes[r].process);
    return hosts;
}

double percent(int64_t part, int64_t whole)
{
    return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 100.0;
}

// The remap of a file whose chunk map (one process per rank of comm) is `map`, or null
// with a PIOX_DEBUG line when it would not help.
std::unique_ptr<mpiio::ChunkRemap> remap_of(const DliLibrary &dli, const DLI_Chunk_map &map,
                                            int rank, const char *filename)
{
    std::vector<const char *> hosts = rank_hosts(map);  // the C API takes const char **
    DLI_Remap *remap = nullptr;
    if (dli.sched_remap(&map.all, map.nprocesses, hosts.data(), kSchedulerSeed, &remap) !=
        DLI_SUCCESS) {
        piox_debug("'%s': locality remapping off: %s", filename, dli.last_error());
        return nullptr;
    }
    std::unique_ptr<mpiio::ChunkRemap> out;
    if (remap->local_bytes <= remap->plain_local_bytes) {
        // Also where libdli knows nothing of hosts (every chunk local everywhere).
        piox_debug("'%s': locality remapping off: no permutation of its %d chunks makes "
                   "more bytes local (%.1f%%)",
                   filename, map.all.count, percent(remap->plain_local_bytes, remap->total_bytes));
    } else {
        std::vector<mpiio::RemappedChunk> chunks;
        for (int i = 0; i < remap->nchunks; i++) {
            const DLI_Chunk &chunk = map.all.chunks[remap->order[i]];
            if (chunk.length > 0)
                chunks.push_back({chunk.offset, chunk.length,
                                  chunk_is_local(map.processes[rank], remap->order[i])});
        }
        out = std::make_unique<mpiio::ChunkRemap>(std::move(chunks));
        piox_debug("'%s': locality remapping of %d chunks: %.1f%% of the bytes local "
                   "(%.1f%% without)",
                   filename, map.all.count, percent(remap->local_bytes, remap->total_bytes),
                   percent(remap->plain_local_bytes, remap->total_bytes));
    }
    dli.free(remap);
    return out;
}

// Each rank's speed for the readers' assignment: the bytes its host stores, shared
// by the host's ranks (at least a hundredth of an even share, so that a host that
// stores nothing still reads what no host of the job stores).
std::vector<double> reader_speeds(const DLI_Chunk_map &map)
{
    const int nranks = map.nprocesses;
    const double floor = static_cast<double>(map.all.file_size) / nranks / 100 + 1;
    std::unordered_map<std::string_view, int> ranks_on;  // per host
    for (int r = 0; r < nranks; r++)
        ranks_on[map.processes[r].process]++;
    std::vector<double> speeds;
    for (int r = 0; r < nranks; r++)
        speeds.push_back(std::max(floor, static_cast<double>(map.processes[r].local_bytes) /
                                             ranks_on[map.processes[r].process]));
    return speeds;
}

// The aggregate state of a file whose chunk map is `map`, or null (with a PIOX_DEBUG
// line). A chunk stored on the host of the rank whose share holds it is read by that
// rank. Every other chunk's reader is named by the scheduler's static assignment,
// with each rank's speed the bytes its host stores (reader_speeds): a rank then reads
// its host's chunks, and bytes per reader are as balanced as the placement allows.
// With equal speeds instead, a host that stores half the file would have its ranks
// read a third of it and send the rest to other hosts, to be read remotely there.
std::unique_ptr<mpiio::AggregateFile> aggregate_of(const DliLibrary &dli, const DLI_Chunk_map &map,
                                                   int rank, MPI_Comm comm, const char *filename)
{
    std::vector<const char *> hosts = rank_hosts(map);  // the C API takes const char **
    const std::vector<double> speeds = reader_speeds(map);
    DLI_Assignment *assignment = nullptr;
    const int scheduled = dli.sched_static(&map.all, map.nprocesses, hosts.data(), speeds.data(),
                                           kSchedulerSeed, &assignment);
    std::unique_ptr<mpiio::AggregateFile> out;
    mpiio::AggregatePlan plan;
    int64_t read_where_stored = 0;
    if (scheduled == DLI_SUCCESS) {
        const int nranks = map.nprocesses;
        const MPI_Offset share = map.all.file_size / nranks;
        for (int c = 0; c < map.all.count; c++) {
            const DLI_Chunk &chunk = map.all.chunks[c];
            plan.chunk_end.push_back(chunk.offset + chunk.length);
            // The rank whose share, as programs split files (rank * size / nprocs), holds
            // the chunk reads it itself where its host stores it: those bytes need not move.
            const int owner = share > 0 ? static_cast<int>(std::min<MPI_Offset>(
                                              nranks - 1, (chunk.offset + chunk.length / 2) / share))
                                        : nranks - 1;
            plan.reader.push_back(chunk_is_local(map.processes[owner], c) ? owner
                                                                          : assignment->rank_of_chunk[c]);
            plan.local.push_back(chunk_is_local(map.processes[rank], c));
            if (chunk_is_local(map.processes[plan.reader.back()], c))
                read_where_stored += chunk.length;
        }
        piox_debug("'%s': locality aggregation over %d chunks: %.1f%% of the bytes read "
                   "where they are stored",
                   filename, map.all.count, percent(read_where_stored, map.all.file_size));
        dli.free(assignment);
    }
    // The outcome above is the same on every process: all attach, or none.
    if (scheduled != DLI_SUCCESS ||
        mpiio::attach(comm, filename, std::move(plan), &out) != MPI_SUCCESS) {
        piox_debug("'%s': locality aggregation off: %s", filename,
                   scheduled != DLI_SUCCESS ? dli.last_error()
                                            : "piox cannot open the file for reading itself");
        return nullptr;
    }
    return out;
}

}  // namespace

void attach_locality(MPI_Comm comm, int amode, MPI_Info info, const FileConfig &config,
                     mpiio::OpenFile &file)
{
    const char *filename = file.filename.c_str();
    const char *mode = config.locality == LocalityMode::remap ? "remapping" : "aggregation";
    if (const char *why = not_asked(filename, amode, info, config)) {
        if (*why != '\0')
            piox_debug("'%s': locality %s off: %s", filename, mode, why);
        return;
    }
    std::string missing;  // the same on every process: the same installation
    const DliLibrary *dli = dli_library(&missing);
    if (dli == nullptr) {
        piox_warn("'%s': locality %s off: %s", filename, mode, missing.c_str());
        return;
    }
    DLI_Chunk_map *map = nullptr;
    if (dli->map_chunks_comm(comm, info, filename, &map) != DLI_SUCCESS) {
        piox_debug("'%s': locality %s off: libdli cannot describe its storage: %s", filename,
                   mode, dli->last_error());
        return;
    }
    // A table of another file, or of this one before it changed, would misplace bytes.
    MPI_Offset size = -1;
    if (PMPI_File_get_size(file.fh, &size) != MPI_SUCCESS || size != map->all.file_size) {
        piox_debug("'%s': locality %s off: its chunk table describes %lld bytes, the file "
                   "has %lld",
                   filename, mode, static_cast<long long>(map->all.file_size),
                   static_cast<long long>(size));
        dli->free(map);
        return;
    }
    int rank = 0;
    PMPI_Comm_rank(comm, &rank);
    if (config.locality == LocalityMode::remap)
        file.remap = remap_of(*dli, *map, rank, filename);
    else
        file.aggregate = aggregate_of(*dli, *map, rank, comm, filename);
    dli->free(map);
}

void detach_locality(mpiio::OpenFile &file)
{
    if (file.aggregate != nullptr && mpiio::detach(*file.aggregate) != MPI_SUCCESS)
        piox_warn("closing '%s': freeing the aggregate reads' communicator failed",
                  file.filename.c_str());
    file.aggregate.reset();
    file.remap.reset();
}

}  // namespace piox::shim
