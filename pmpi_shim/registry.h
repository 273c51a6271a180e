// The per-file state of every file piox manages, keyed by MPI_File handle. A record
// is added by MPI_File_open (collective) and removed by MPI_File_close; it holds
// what piox keeps of the file (mpiio/open_file.h: the state of each part) and the
// statistics. Safe to use from several threads.
#ifndef PIOX_SHIM_REGISTRY_H
#define PIOX_SHIM_REGISTRY_H

#include "config.h"
#include "open_file.h"
#include "routine.h"

#include <mpi.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace piox::shim {

struct FileRecord {
    mpiio::OpenFile file;
    FileConfig config;  // the settings the file was opened with
    std::array<std::atomic<uint64_t>, kRoutineCount> calls{};  // for PIOX_STATS

    const char *filename() const { return file.filename.c_str(); }

    void count(Routine routine)
    {
        calls[static_cast<size_t>(routine)].fetch_add(1, std::memory_order_relaxed);
    }
};

class FileRegistry {
public:
    void add(MPI_File fh, std::shared_ptr<FileRecord> record);
    std::shared_ptr<FileRecord> find(MPI_File fh) const;
    std::shared_ptr<FileRecord> remove(MPI_File fh);
    std::vector<std::shared_ptr<FileRecord>> remove_all();
    // True when fh was a managed file that has been closed (and its handle not
    // reused since): calls on it get MPI_ERR_FILE instead of reaching the library
    // with a dangling handle. The most recent closes are remembered.
    bool was_closed(MPI_File fh) const;

private:
    struct Impl;
    Impl &impl() const;
};

FileRegistry &file_registry();

}  // namespace piox::shim

#endif
