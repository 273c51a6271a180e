/* piox_extent.h - a run of bytes in a file: the unit of locking and of view
 * flattening in the piox adio core (C ABI). */
#ifndef PIOX_EXTENT_H
#define PIOX_EXTENT_H

#include <mpi.h>

#include "piox_api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    MPI_Offset offset; /* first byte */
    MPI_Offset length; /* bytes, > 0 */
} piox_extent;

/* Sorts and merges the n extents in place, then merges neighbours (smallest gaps
 * first) until at most cap (>= 1) remain: the result covers every byte it covered,
 * and maybe more. *count receives how many remain. */
PIOX_API int piox_extents_coarsen(piox_extent *extents, int n, int cap, int *count);

#ifdef __cplusplus
}
#endif

#endif /* PIOX_EXTENT_H */
