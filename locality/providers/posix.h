// posix.h - the posix provider's collective half: what one host holds of a local file,
// and the chunk table that the holdings of every host make together (DLI_Load).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../chunk_table.h"
#include "../config.h"

namespace dli {

// What the calling process's host holds of the file NAME.
struct PosixHolding {
    bool exists = false;      // the path names a regular file here
    bool node_local = false;  // on a file system of this node's own (not NFS, Lustre, CephFS, ...)
    int64_t size = 0;         // its size here
    // The byte ranges [first, second) that hold data here (holes of a sparse, partly
    // staged copy left out), in order. Only meaningful when node_local.
    std::vector<std::pair<int64_t, int64_t>> ranges;
};

PosixHolding posix_holding(const std::string &name);

// The chunk table made from every host's holding (hosts[i] holds holdings[i]; one entry
// per host): chunks of config.chunk_size over the largest size; a chunk is local to the
// hosts whose node-local copy holds all of it. Hosts that see the file only on a shared
// file system add nothing; when no host holds it node-locally, every chunk is local to
// every host that sees it ("no other information"). Throws Error(DLI_ERR_NOENT) when no
// host sees the file.
ChunkTable combine_posix_holdings(const std::string &name, const Config &config,
                                  const std::vector<std::string> &hosts,
                                  const std::vector<PosixHolding> &holdings);

// Wire form of a holding, for MPI_Allgatherv in DLI_Load.
std::vector<char> encode_holding(const PosixHolding &holding);
PosixHolding decode_holding(const char *data, size_t size);  // throws Error(DLI_ERR_PROTOCOL)

}  // namespace dli
