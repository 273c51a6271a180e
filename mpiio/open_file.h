// What piox keeps of one open file: the facts every part needs (the handle, the
// name, the access mode the program asked for, the current view's etype size), the
// individual file pointer, which piox keeps itself, the file's one split collective,
// and the state of each part that manages the file (shared pointer, atomic mode).
// The shim creates it in MPI_File_open and hands it to every routine of
// data_access.h.
#ifndef PIOX_MPIIO_OPEN_FILE_H
#define PIOX_MPIIO_OPEN_FILE_H

#include "aggregate_read.h"
#include "atomic_file.h"
#include "chunk_remap.h"
#include "sfp_file.h"

#include <mpi.h>

#include <memory>
#include <string>

namespace piox::mpiio {

// The split collective routine that began (MPI-3.1 13.4.5: one per file at a time).
enum class SplitKind { none, read_at_all, write_at_all, read_all, write_all, read_ordered,
                       write_ordered };

struct SplitCollective {
    SplitKind kind = SplitKind::none;
    // The library holds it (piox passed the begin call on): the end call goes to the
    // library's matching ..._at_all_end. Otherwise piox moved the data in the begin
    // call and keeps its status here.
    bool forwarded = false;
    MPI_Status status{};
    // A split read at the individual pointer: where it began, and where the begin
    // call left the pointer (the end call moves it back to what was read).
    MPI_Offset pointer_before = 0, pointer_after = 0;
};

struct OpenFile {
    MPI_File fh = MPI_FILE_NULL;
    std::string filename;
    // As the program asked. MPI_MODE_APPEND and MPI_MODE_SEQUENTIAL are kept from the
    // library when piox manages the shared pointer (see amode_for_library).
    int amode = 0;
    bool lockless = false;     // fcntl locks fail on the file's file system
    MPI_Count etype_size = 1;  // of the current view
    bool native_view = true;   // the current view's data representation is "native"
    bool default_view = true;  // the current view is the default: bytes from 0, "native"
    // The individual file pointer, in etypes of the current view. piox keeps it, so
    // that every individual-pointer access can move its data the way piox moves
    // explicit-offset ones (and MPICH's own answer is wrong for some views).
    MPI_Offset position = 0;
    // The library's own individual pointer is where the program's calls would have
    // left it under stock MPI: true from open and after every MPI_File_set_view
    // until piox seeks or moves an individual-pointer access itself. While it holds,
    // individual-pointer accesses piox passes on need no seek of the library's
    // pointer, and land exactly where stock puts them (transfer.h).
    bool library_pointer_in_step = true;
    SplitCollective split;
    // A private duplicate of the opening communicator, made once for the parts below
    // that talk among the file's processes (shared pointer, atomic mode) and lent to
    // them: one context per file instead of one per part (the contexts run out, at
    // 2,048 a process in MPICH). Their talk is collective, in the order of the
    // program's collective calls, so it cannot cross.
    MPI_Comm comm = MPI_COMM_NULL;
    std::unique_ptr<SfpFile> sfp;        // null when the library keeps the shared pointer
    std::unique_ptr<AtomicFile> atomic;  // null when the library keeps atomic mode
    // Reads see the file's chunks in another order (locality remapping, opted into),
    // while the view is the default one; null for every other file.
    std::unique_ptr<ChunkRemap> remap;
    // Collective reads are piox's two-phase reads by hosts that store the chunks
    // (piox_locality=aggregate); null for every other file.
    std::unique_ptr<AggregateFile> aggregate;

    bool sequential() const { return (amode & MPI_MODE_SEQUENTIAL) != 0; }
};

// The access mode to give the MPI library's MPI_File_open when piox manages the
// shared pointer: without MPI_MODE_APPEND (ROMIO answers it by creating its hidden
// shared-pointer file; piox positions both pointers itself) and without
// MPI_MODE_SEQUENTIAL (the library would refuse the explicit-offset routines piox
// moves shared-pointer data with; piox enforces the mode's rules itself,
// sequential.h).
int amode_for_library(int amode);

// After the library's MPI_File_set_view succeeded: the new etype size and data
// representation, whether it is the default view, and the individual pointer back
// to 0 (the shared one is reset_shared_pointer's, collective).
void view_was_set(OpenFile &file, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                  const char *datarep);

}  // namespace piox::mpiio

#endif
