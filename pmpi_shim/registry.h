// The per-file state of every file piox manages, keyed by MPI_File handle. A record
// is added by MPI_File_open (collective) and removed by MPI_File_close; each part of
// piox keeps its own state in the record. Safe to use from several threads.
#ifndef PIOX_SHIM_REGISTRY_H
#define PIOX_SHIM_REGISTRY_H

#include "routine.h"
#include "atomic_file.h"
#include "sfp_file.h"

#include <mpi.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace piox::shim {

struct FileRecord {
    std::unique_ptr<mpiio::SfpFile> sfp;        // null when the part is off for this file
    std::unique_ptr<mpiio::AtomicFile> atomic;  // likewise
    bool lockless = false;  // fcntl locks fail on the file's file system
    std::array<std::atomic<uint64_t>, kRoutineCount> calls{};  // for PIOX_STATS

    const char *filename() const
    {
        return sfp != nullptr ? sfp->filename.c_str() : atomic != nullptr ? atomic->filename.c_str() : "?";
    }

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
