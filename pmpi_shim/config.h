// Configuration: per job from PIOX_* environment variables (read once, at the
// first wrapped call), per file from piox_* info hints, which override them.
// README.md has the table of every knob.
#ifndef PIOX_SHIM_CONFIG_H
#define PIOX_SHIM_CONFIG_H

#include "atomic_file.h"
#include "lockless.h"
#include "sfp_file.h"

#include <mpi.h>

#include <string>
#include <utility>
#include <vector>

namespace piox::shim {

// How piox gives the file's reads locality (locality_open.h).
enum class LocalityMode { off, remap, aggregate };

struct FileConfig {
    bool sfp = true;  // the shared-file-pointer part manages this file
    mpiio::SfpOptions sfp_options;
    bool atomic = true;  // the atomic-mode part manages this file
    mpiio::AtomicOptions atomic_options;
    mpiio::LocklessPolicy lockless = mpiio::LocklessPolicy::detect;
    LocalityMode locality = LocalityMode::off;
};

struct JobConfig {
    FileConfig file_defaults;
    bool stats = false;  // PIOX_STATS: print per-file statistics at close
    // PIOX_LOCALITY_PATHS: PIOX_LOCALITY applies to files under these prefixes only
    // (all files when empty); the hint piox_locality applies wherever it is given.
    std::vector<std::string> locality_paths;
};

const JobConfig &job_config();

// Collective over comm: the job's defaults overridden by info's piox_* hints. Bad
// values are reported on stderr and replaced by the default. Returns
// MPI_ERR_NOT_SAME on every process when the result differs between processes,
// since the processes must agree on how the file is managed.
int file_config(MPI_Comm comm, MPI_Info info, FileConfig *config);

// For MPI_File_set_info: info's piox_* hints over *config. A value that is not one
// of its knob's spellings is MPI_ERR_INFO_VALUE, with *message naming the hint.
int config_after_open(MPI_Info info, FileConfig *config, std::string *message);

// Every per-file knob's hint and value (as an int), in one order.
std::vector<std::pair<const char *, int>> knob_values(const FileConfig &config);

}  // namespace piox::shim

#endif
