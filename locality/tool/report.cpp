// report.cpp - printing piox-locality's tables.
#include "report.h"

#include <algorithm>
#include <cinttypes>
#include <set>

namespace locality_tool {
namespace {

double percent(int64_t part, int64_t whole) {
    return whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 100.0;
}

// Whether chunk CHUNK is in map.processes[host]'s (ascending) local list.
bool local_to(const DLI_Chunk_map &map, int host, int chunk) {
    const DLI_Process_chunks &p = map.processes[host];
    return std::binary_search(p.chunk_index, p.chunk_index + p.count, chunk);
}

}  // namespace

std::vector<std::string> hosts_in(const DLI_Chunk_list &chunks) {
    std::vector<std::string> hosts;
    std::set<std::string> seen;
    for (int c = 0; c < chunks.count; ++c)
        for (int h = 0; h < chunks.chunks[c].nhosts; ++h) {
            std::string host = chunks.chunks[c].hosts[h];
            if (host != "*" && seen.insert(host).second) hosts.push_back(host);
        }
    return hosts;
}

void print_chunks(FILE *out, const DLI_Chunk_list &chunks, int rows) {
    std::fprintf(out, "%s: %" PRId64 " bytes in %d chunks\n\n", chunks.file, chunks.file_size, chunks.count);
    std::fprintf(out, "%8s %16s %12s  %s\n", "chunk", "offset", "length", "hosts (replica order)");
    int shown = rows > 0 ? std::min(rows, chunks.count) : chunks.count;
    for (int c = 0; c < shown; ++c) {
        const DLI_Chunk &chunk = chunks.chunks[c];
        std::fprintf(out, "%8d %16" PRId64 " %12" PRId64 " ", chunk.index, chunk.offset, chunk.length);
        for (int h = 0; h < chunk.nhosts; ++h) std::fprintf(out, " %s", chunk.hosts[h]);
        if (chunk.nhosts == 0) std::fprintf(out, " (no replica known)");
        std::fprintf(out, "\n");
    }
    if (shown < chunks.count)
        std::fprintf(out, "%8s (%d more chunks; --rows 0 prints all)\n", "...", chunks.count - shown);
}

void print_shares(FILE *out, const DLI_Chunk_map &map) {
    std::fprintf(out, "\n%-24s %8s %16s %8s\n", "host", "chunks", "bytes", "share");
    for (int p = 0; p < map.nprocesses; ++p) {
        const DLI_Process_chunks &host = map.processes[p];
        std::fprintf(out, "%-24s %8d %16" PRId64 " %7.1f%%\n", host.process, host.count, host.local_bytes,
                     percent(host.local_bytes, map.all.file_size));
    }
}

int64_t rank_offset_local_bytes(const DLI_Chunk_map &map, const std::vector<int> &host_of_rank) {
    int64_t local = 0;
    int64_t n = map.all.count, ranks = static_cast<int64_t>(host_of_rank.size());
    for (int64_t c = 0; c < n; ++c) {
        int64_t rank = c * ranks / n;
        if (local_to(map, host_of_rank[static_cast<size_t>(rank)], static_cast<int>(c)))
            local += map.all.chunks[c].length;
    }
    return local;
}

void print_assignment(FILE *out, const DLI_Chunk_map &map, const DLI_Assignment &assignment,
                      const std::vector<int> &host_of_rank, uint64_t seed) {
    std::fprintf(out, "\nassignment: probability scheduler (DLI_Sched_static), %d ranks, seed %" PRIu64 "\n",
                 assignment.nranks, seed);
    std::fprintf(out, "%6s %-24s %8s %16s %8s\n", "rank", "host", "chunks", "bytes", "local");
    std::vector<int> chunks(static_cast<size_t>(assignment.nranks), 0);
    std::vector<int64_t> local(static_cast<size_t>(assignment.nranks), 0);
    for (int c = 0; c < assignment.nchunks; ++c) {
        int rank = assignment.rank_of_chunk[c];
        ++chunks[static_cast<size_t>(rank)];
        if (local_to(map, host_of_rank[static_cast<size_t>(rank)], c)) local[static_cast<size_t>(rank)] += map.all.chunks[c].length;
    }
    int64_t most = 0;
    for (int r = 0; r < assignment.nranks; ++r) {
        int64_t bytes = assignment.bytes_of_rank[r];
        most = std::max(most, bytes);
        std::fprintf(out, "%6d %-24s %8d %16" PRId64 " %7.1f%%\n", r,
                     map.processes[host_of_rank[static_cast<size_t>(r)]].process, chunks[static_cast<size_t>(r)],
                     bytes, percent(local[static_cast<size_t>(r)], bytes));
    }
    double mean = static_cast<double>(assignment.total_bytes) / assignment.nranks;
    std::fprintf(out, "\nlocality: %.1f%% of the bytes are read on a host that holds them "
                      "(rank-offset partition: %.1f%%)\n",
                 percent(assignment.local_bytes, assignment.total_bytes),
                 percent(rank_offset_local_bytes(map, host_of_rank), map.all.file_size));
    std::fprintf(out, "bytes per rank: busiest/mean %.3f\n", mean > 0 ? static_cast<double>(most) / mean : 1.0);
}

}  // namespace locality_tool
