/*
 * piox_comm.h - piox's private duplicates of a caller's communicator (C ABI).
 */
#ifndef PIOX_COMM_H
#define PIOX_COMM_H

#include <mpi.h>

#include "piox_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Collective over comm: *dup is a duplicate of comm whose errors return
 * (MPI_ERRORS_RETURN). A failure, such as no communicator context left, is
 * returned and not passed to comm's error handler, which is fatal by default: an
 * MPI_File_open that cannot make its duplicates must fail through the file error
 * handler, as any other failed open. On failure *dup is MPI_COMM_NULL. comm's
 * handler is set to MPI_ERRORS_RETURN for the duration of the call, so another
 * thread's error on comm meanwhile returns too (MPI_THREAD_MULTIPLE). */
PIOX_API int piox_comm_dup_private(MPI_Comm comm, MPI_Comm *dup);

#ifdef __cplusplus
}
#endif

#endif /* PIOX_COMM_H */
