/*
 * piox_lock.h - byte-range reader/writer locks over a communicator (C ABI).
 *
 * A lock object is created collectively over a communicator (typically the
 * communicator of an open file). A process acquires a set of byte extents, all
 * in one mode, in one call, and releases them all in another. Guarantees:
 *
 *   - conflicting requests (overlapping extents, at least one writer) exclude
 *     each other; readers share; requests with disjoint extents never wait for
 *     each other;
 *   - no deadlock, whatever the extents of concurrent requests;
 *   - fairness: a request waits only for conflicting requests that arrived
 *     before it, so none starves (a writer queued behind readers gets in);
 *   - a waiting process sleeps (on a futex), it never polls remote memory;
 *   - on one node a reader may go without a request: an optimistic read
 *     (piox_lock_optimistic_begin) tells afterwards whether a write overlapped it.
 *
 * Kinds:
 *   PIOX_LOCK_RANGE  exact byte ranges (the default). The lock state is spread
 *                    over shards (regions of the file). On one node the shards
 *                    live in node-shared memory and are updated with CPU atomics,
 *                    so no target progress is ever needed. Across nodes shard s
 *                    lives in MPI windows on rank s % size: a shard nobody else
 *                    uses is taken and given back with one MPI atomic round trip
 *                    each; a busy one is queued in a table updated in exclusive
 *                    RMA epochs, and its waiters are woken by a message. That RMA
 *                    needs the home rank to make MPI progress.
 *   PIOX_LOCK_MUTEX  the whole-file waitflag mutex of Latham, Ross and Thakur
 *                    (2007, figures 3-4): MPI RMA epochs on a byte array hosted by
 *                    rank 0, waiters woken by a message. Any communicator. Kept as
 *                    the baseline to measure the range lock against; extents and
 *                    mode are ignored (every request is exclusive).
 *
 * One process holds at most one request of a lock object at a time (acquire,
 * then release). Every function returns an MPI error code and never aborts.
 */
#ifndef PIOX_LOCK_H
#define PIOX_LOCK_H

#include <mpi.h>

#include "piox_api.h"
#include "piox_extent.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct piox_lock piox_lock;

typedef enum { PIOX_LOCK_RANGE = 0, PIOX_LOCK_MUTEX = 1 } piox_lock_kind;
typedef enum { PIOX_LOCK_READ = 0, PIOX_LOCK_WRITE = 1 } piox_lock_mode;

/* Collective over comm (duplicated). */
PIOX_API int piox_lock_create(MPI_Comm comm, piox_lock_kind kind, piox_lock **lock);

/* Collective. Frees everything; sets *lock to NULL. No request may be held. */
PIOX_API int piox_lock_free(piox_lock **lock);

/* Independent. Blocks until every byte of the n extents is held in mode. The
 * extents may come in any order and may overlap; lengths must be >= 0 and
 * offsets >= 0 (MPI_ERR_ARG otherwise). n == 0 acquires nothing but still
 * counts as holding (release must follow). MPI_ERR_OTHER when this process
 * already holds a request. */
PIOX_API int piox_lock_acquire(piox_lock *lock, piox_lock_mode mode, const piox_extent *extents,
                               int n);

/* Independent. Releases what the last acquire took; MPI_ERR_OTHER when nothing
 * is held. */
PIOX_API int piox_lock_release(piox_lock *lock);

/* Independent. Optimistic reads: instead of acquiring the extents for reading, a
 * process may begin an optimistic read of them, read, and end it. *begun is 1 when
 * the read began: no lock is held and no request waits for it. *valid, at the end,
 * is 1 when no write of the lock overlapping the extents began or was under way
 * in between, so what was read in between is one atomic read; 0 when one was (the
 * bytes read may mix two versions: read again, or acquire and read). *begun is 0
 * when a write is under way on the extents, or where the lock cannot tell (across
 * nodes, and PIOX_LOCK_MUTEX): acquire instead. Writes are those made under a
 * write request of this lock (acquire or piox_lock_sieved_write). Begin and end
 * pair up like acquire and release, and a process reads optimistically or holds a
 * request, not both (MPI_ERR_OTHER). */
PIOX_API int piox_lock_optimistic_begin(piox_lock *lock, const piox_extent *extents, int n,
                                        int *begun);
PIOX_API int piox_lock_optimistic_end(piox_lock *lock, int *valid);

/* Independent. Writes n pieces (offsets ascending, pieces disjoint, lengths > 0;
 * their bytes in stream, in order) to the file open as fd, by data sieving: with
 * a write lock on the pieces' span it reads the span, patches the pieces in and
 * writes it back, so fd must be open for reading and writing, and the span's other
 * bytes are rewritten as they were. One atomic access with respect to every other
 * request of the lock.
 * On one node the lock combines such writes: when the lock is granted, queued
 * sieved writes of other processes of the node that lie inside this one's span
 * (rounded out to 4 KiB) are written in the same pass, each still atomic and in
 * the lock's queue order; a process whose write another wrote returns once its
 * bytes are in the file. MPI_ERR_IO with errno set when the file failed (every
 * writer of the pass gets it); MPI_ERR_ARG for bad arguments; MPI_ERR_OTHER when
 * this process holds a request. */
PIOX_API int piox_lock_sieved_write(piox_lock *lock, int fd, const piox_extent *pieces, int n,
                                    const void *stream);

/* Independent. Of this process's sieved writes so far, how many also wrote other
 * processes' (a combiner's passes that took any) and how many others wrote for it.
 * Both 0 where the lock does not combine. For tests and statistics. */
PIOX_API int piox_lock_combined_writes(const piox_lock *lock, long long *combined_others,
                                       long long *combined_by_others);

/* Independent. How many network round trips this process's calls on the lock have
 * waited for so far: RMA synchronisations (an epoch opened or closed, a flush) with
 * another process. 0 on one node, where no RMA is used. For tests and statistics. */
PIOX_API int piox_lock_round_trips(const piox_lock *lock, long long *count);

/* "range" or "mutex". */
PIOX_API const char *piox_lock_kind_name(const piox_lock *lock);

#ifdef __cplusplus
}
#endif

#endif /* PIOX_LOCK_H */
