// report.h - piox-locality's printed tables: chunks, hosts' shares, the assignment.
#pragma once
#include <cstdio>
#include <string>
#include <vector>

#include "dli.h"

namespace locality_tool {

// The hosts a chunk map names, in order of first appearance ("*" left out).
std::vector<std::string> hosts_in(const DLI_Chunk_list &chunks);

void print_chunks(FILE *out, const DLI_Chunk_list &chunks, int rows);
// MAP was asked for the hosts whose shares are printed.
void print_shares(FILE *out, const DLI_Chunk_map &map);

// The assignment, with rank_hosts[r] the host rank r runs on; map->processes holds one
// entry per distinct host, host_of_rank[r] indexes it.
void print_assignment(FILE *out, const DLI_Chunk_map &map, const DLI_Assignment &assignment,
                      const std::vector<int> &host_of_rank, uint64_t seed);

// Bytes local to their rank when rank r takes the r-th contiguous 1/N of the chunks, as
// MPI codes partition a file today: the anchor the assignment is compared with.
int64_t rank_offset_local_bytes(const DLI_Chunk_map &map, const std::vector<int> &host_of_rank);

}  // namespace locality_tool
