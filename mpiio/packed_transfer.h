// Moving the data of an access that piox takes over (locked_transfer.h) through the
// library's blocking explicit-offset routine, with the memory type unfolded by piox.
//
// Why: piox turns the library's write sieving off on the files whose data it moves
// (atomic mode, lockless file systems), and on that path ROMIO 4.0.2 misplaces
// noncontiguous memory types: a write of indexed(3:1) of doubles resized to 16
// bytes puts only the first double in the file. ROMIO also shifts the data of
// memory types whose lower bound lies before their data. MPI_Pack places every
// type right in both MPIs, so piox packs such a buffer itself, in chunks, and hands
// the library contiguous bytes, the case every MPI-IO implementation gets right.
// A buffer of a predefined type goes to the library as it is, and so does every
// buffer of a view whose data representation is not "native": packed bytes carry no
// types, so the library could not convert them (it packs the memory type itself
// before converting, and writes contiguous bytes).
#ifndef PIOX_MPIIO_PACKED_TRANSFER_H
#define PIOX_MPIIO_PACKED_TRANSFER_H

#include "access_kind.h"

#include <mpi.h>

#include <functional>

namespace piox::mpiio {

// The start of the access's bytes in buf when count items of datatype are one block
// in stream order (an array of a predefined type without holes), else nullptr. A
// derived type without holes may still list its pieces out of address order.
char *contiguous_data(void *buf, MPI_Datatype datatype, MPI_Count size);

// The communicator piox packs and unpacks with: MPI_COMM_SELF's duplicate, whose
// errors return (an uncommitted type then fails the pack, and the access goes to
// the library, which reports it to the file's error handler as stock MPI would,
// instead of MPI_COMM_SELF's fatal handler ending the job). Freed in MPI_Finalize.
MPI_Comm pack_comm();

// True for a derived memory type whose lower bound is negative or lies elsewhere
// than its data's start: the kind ROMIO 4.0.2 writes outside the buffer for on some
// paths (which corrupts the heap) or shifts. piox packs those itself for the
// independent accesses it passes on (transfer.h). Not every type with holes: ROMIO's
// explicit-offset routine, which then moves the packed bytes, hangs or misplaces
// data with some filetypes where its other routines do not.
bool lower_bound_off_data(MPI_Datatype datatype);

// Moves `bytes` contiguous bytes of an access, those that start `done` bytes into it,
// between data and the file; says in *status how many it moved (fewer at the end of
// the file).
using ByteMover =
    std::function<int(MPI_Count done, char *data, MPI_Count bytes, MPI_Status *status)>;

// staged_transfer's answer when datatype cannot be packed (uncommitted, say).
constexpr int kPackFailed = -1;

// The bytes of count items of datatype in buf, moved by `move` in stream order,
// packed through a staging buffer a few MiB at a time; a read unpacks what it read.
// Stops after a short move (the end of the file). *status is the last move's, with
// the bytes moved rounded down to whole etypes of etype_size bytes.
int staged_transfer(Direction direction, void *buf, MPI_Count count, MPI_Datatype datatype,
                    MPI_Count etype_size, const ByteMover &move, MPI_Status *status);

// count items of datatype at offset (etypes of the view, whose etype has etype_size
// bytes; native_view: its data representation is "native") by the library's
// MPI_File_read_at / MPI_File_write_at: the next definition after piox, in the count
// form Count. The status counts the bytes moved (whole
// etypes, for a packed read that reached the end of the file). The library's errors
// are raised by the library.
template <typename Count>
int library_transfer(MPI_File fh, Direction direction, MPI_Offset offset, void *buf,
                     Count count, MPI_Datatype datatype, MPI_Count etype_size,
                     bool native_view, MPI_Status *status);

}  // namespace piox::mpiio

#endif
