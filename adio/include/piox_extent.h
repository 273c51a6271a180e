/* piox_extent.h - a run of bytes in a file: the unit of locking and of view
 * flattening in the piox adio core (C ABI). */
#ifndef PIOX_EXTENT_H
#define PIOX_EXTENT_H

#include <mpi.h>

typedef struct {
    MPI_Offset offset; /* first byte */
    MPI_Offset length; /* bytes, > 0 */
} piox_extent;

#endif /* PIOX_EXTENT_H */
