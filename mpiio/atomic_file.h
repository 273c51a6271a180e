// Atomic mode (MPI-3.1 13.6.1), rebuilt on the adio core's byte-range locks: the
// per-file state, MPI_File_set_atomicity / get_atomicity, and the locking of one
// access. The MPI library underneath always stays in non-atomic mode, so it never
// takes an fcntl lock for atomicity.
//
// In atomic mode every data access holds the locks for exactly the bytes it
// touches (its view flattened, adio/include/piox_view.h), read or write mode, for
// the whole transfer. piox moves the data itself while the locks are held
// (own_transfer.h), or hands it to the library's blocking independent routines
// where it cannot: collective routines become independent (a
// process holding locks must never wait in a collective for one that waits for
// those locks; ROMIO does the same in atomic mode), and nonblocking routines finish
// before they return a completed request.
//
// The library's write data sieving is off in atomic mode (atomic_file.cpp says why).
//
// Visibility: the transfer is a pwrite/pread (piox's or the library's), finished before
// the locks are released, and the next conflicting access starts only after it has
// acquired them; on a file system that keeps one page cache per file (local file
// systems, FUSE mounts) the write is then visible to every process of the node.
#ifndef PIOX_MPIIO_ATOMIC_FILE_H
#define PIOX_MPIIO_ATOMIC_FILE_H

#include "access_kind.h"
#include "piox_lock.h"
#include "piox_view.h"

#include <mpi.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace piox::mpiio {

struct AtomicOptions {
    piox_lock_kind lock = PIOX_LOCK_RANGE;
};

// The file bytes an access of `bytes` at `offset` (etypes of the view) touches, kept
// for the next access: programs tend to repeat the same one.
struct AccessMap {
    bool valid = false;
    MPI_Offset offset = 0, bytes = 0;
    std::vector<piox_extent> pieces;  // sorted (for a filetype, also stream order)
    bool exact = false;               // pieces are exactly the access's bytes
    MPI_Offset piece_length = 0;      // the length every piece has, or 0 if they differ
    std::vector<piox_extent> locks;   // pieces, coarsened to what a lock request holds
};

struct AtomicFile {
    MPI_File fh = MPI_FILE_NULL;
    MPI_Comm comm = MPI_COMM_NULL;  // the file's private communicator (OpenFile::comm), lent
    std::string filename;
    AtomicOptions options;
    bool atomic = false;
    // The file system's fcntl locks fail: independent writes go through piox's locks
    // and sieving even outside atomic mode (see lockless.h).
    bool lockless = false;
    piox_lock *lock = nullptr;  // created at open when lockless, else by the first
                                // MPI_File_set_atomicity(fh, 1)
    piox_view *view = nullptr;  // the current view, flattened at the first locked access
    bool native = true;         // the view's data representation is "native"
    int own_fd = -1;             // piox's own descriptor of the file (own_transfer.h)
    bool own_fd_writes = false;  // it was opened for writing
    // The maps of the last few accesses (map_access): programs repeat the same ones,
    // and an access mapped in chunks (over 4 MiB, or 64 Ki pieces) needs its whole map
    // and its chunks' maps at each call. Replaced oldest first.
    std::array<AccessMap, 4> recent_maps;
    size_t next_map = 0;  // the slot the next new map takes
    std::vector<char> own_stream, own_span;  // staging for own_transfer, kept between calls
    // The library's write sieving hint before atomic mode; empty when the library
    // has no such hint (it is not ROMIO) and atomic mode leaves its hints alone.
    std::string saved_ds_write;
};

// Collective over comm (the file's private communicator, which must outlive the
// part), right after the library opened fh.
int attach(MPI_File fh, MPI_Comm comm, const char *filename, int amode, bool lockless,
           const AtomicOptions &options, std::unique_ptr<AtomicFile> *out);

// True when piox may move the data of an access: always in atomic mode; outside it,
// the writes of a file on a lockless file system (collective ones only when their
// processes' bytes are disjoint: disjoint_writes.h).
inline bool takes_over(const AtomicFile &file, bool write)
{
    return file.atomic || (file.lockless && write);
}

// Collective (MPI_File_close): frees the lock (not the communicator lent to attach).
int detach(AtomicFile &file);

// After every MPI_File_set_view: the flattened view is stale.
void view_changed(AtomicFile &file);

// MPI_File_set_atomicity and MPI_File_get_atomicity.
int set_atomicity(AtomicFile &file, int flag);
int get_atomicity(const AtomicFile &file, int *flag);

// Flattens the current view if it is not yet (file.view, file.native).
int current_view(AtomicFile &file);

// The map of an access (exact up to a few MiB, coarsened beyond), from a recent
// access's when it is the same (the pointer stays valid until four other accesses
// have been mapped). Errors are returned, not raised.
int map_access(AtomicFile &file, MPI_Offset offset, MPI_Offset bytes, const AccessMap **map);

// The stream bytes of an exact map whose file bytes lie before `end`: its pieces, in
// stream order (filetypes are monotonic), up to that byte.
MPI_Offset stream_bytes_before(const AccessMap &map, MPI_Offset end);

// Takes the locks for an access of count items of datatype starting at offset
// (etypes of the current view). Errors are returned, not raised.
int lock_access(AtomicFile &file, Direction direction, MPI_Offset offset, MPI_Count count,
                MPI_Datatype datatype);
int unlock_access(AtomicFile &file);

// Runs io() (a blocking transfer) with the access locked. io's own error has been
// reported by the library already; a locking error is raised here.
template <typename Io>
int with_access_locked(AtomicFile &file, Direction direction, MPI_Offset offset,
                       MPI_Count count, MPI_Datatype datatype, Io io);

}  // namespace piox::mpiio

#include "errors.h"

template <typename Io>
int piox::mpiio::with_access_locked(AtomicFile &file, Direction direction, MPI_Offset offset,
                                    MPI_Count count, MPI_Datatype datatype, Io io)
{
    int rc = lock_access(file, direction, offset, count, datatype);
    if (rc != MPI_SUCCESS)
        return raise_code(file.fh, rc);
    int io_rc = io();
    rc = unlock_access(file);
    if (io_rc != MPI_SUCCESS)
        return io_rc;
    return rc == MPI_SUCCESS ? MPI_SUCCESS : raise_code(file.fh, rc);
}

#endif
