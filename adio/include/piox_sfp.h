/*
 * piox_sfp.h - the shared file pointer object of the piox adio core (C ABI).
 *
 * A shared file pointer is one 64-bit counter, created collectively over a
 * communicator and hosted on one rank (rank 0 of that communicator). Units are
 * whatever the caller counts in (the MPI-IO layer counts etypes of the view).
 *
 *   shared mode   piox_sfp_fetch_add: one atomic fetch-and-add, no lock.
 *   ordered mode  piox_sfp_ordered:   one scan plus one update; collective; no
 *                 process returns before the pointer holds its new value.
 *   seek/reset    piox_sfp_update:    collective set or add, arguments checked
 *                 to be identical on every process.
 *                 piox_sfp_store:     one process sets it, atomically, without
 *                 the others (ROMIO's ADIO_Set_shared_fp, see adio/romio/).
 *
 * Transport: when every process of the communicator is on one node the
 * counter lives in a shared-memory window and is updated with CPU atomics, so
 * no process ever waits for another to enter MPI; collective steps sleep on a
 * futex instead of spinning, so they stay cheap when ranks outnumber cores.
 * Across nodes the counter is updated with MPI-3 atomics (MPI_Fetch_and_op),
 * which need the MPI library to make progress on the host rank (see README).
 *
 * Every function returns an MPI error code (MPI_SUCCESS on success) and never
 * aborts.
 */
#ifndef PIOX_SFP_H
#define PIOX_SFP_H

#include <mpi.h>

#include "piox_api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct piox_sfp piox_sfp;

typedef enum {
    PIOX_SFP_TRANSPORT_AUTO = 0, /* shared memory when on one node, else RMA */
    PIOX_SFP_TRANSPORT_SHM = 1,  /* requires every process on one node */
    PIOX_SFP_TRANSPORT_RMA = 2   /* MPI_Fetch_and_op on a window hosted by rank 0 */
} piox_sfp_transport;

typedef enum {
    PIOX_SFP_SET = 0, /* pointer = operand */
    PIOX_SFP_ADD = 1  /* pointer = pointer + operand */
} piox_sfp_op;

/* Collective over comm. `initial` is taken from rank 0. comm is duplicated. */
PIOX_API int piox_sfp_create(MPI_Comm comm, MPI_Offset initial, piox_sfp_transport transport,
                    piox_sfp **sfp);

/* Collective. Frees the windows and the duplicated communicator; sets *sfp to NULL. */
PIOX_API int piox_sfp_free(piox_sfp **sfp);

/* Independent. Atomically adds delta (>= 0) and returns the previous value. */
PIOX_API int piox_sfp_fetch_add(piox_sfp *sfp, MPI_Offset delta, MPI_Offset *previous);

/* Independent. Reads the current value. */
PIOX_API int piox_sfp_read(piox_sfp *sfp, MPI_Offset *current);

/* Independent. Atomically replaces the value by value (>= 0). Ordering with
 * other processes' accesses is the caller's (ROMIO stores inside collective
 * calls and follows with a barrier). */
PIOX_API int piox_sfp_store(piox_sfp *sfp, MPI_Offset value);

/* Collective. Each process contributes delta (>= 0) and receives its offset:
 * the pointer's value plus the deltas of all lower ranks. The pointer advances
 * by the sum of all deltas before any process returns. */
PIOX_API int piox_sfp_ordered(piox_sfp *sfp, MPI_Offset delta, MPI_Offset *offset);

/* Collective. Applies op with operand once, after every process has arrived.
 * Returns MPI_ERR_ARG on every process, leaving the pointer unchanged, when the
 * operands differ between processes or the result would be negative.
 * *result (may be NULL) receives the new value. */
PIOX_API int piox_sfp_update(piox_sfp *sfp, piox_sfp_op op, MPI_Offset operand, MPI_Offset *result);

/* "shm" or "rma": the transport chosen at creation. */
PIOX_API const char *piox_sfp_transport_name(const piox_sfp *sfp);

#ifdef __cplusplus
}
#endif

#endif /* PIOX_SFP_H */
