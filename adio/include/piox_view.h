/*
 * piox_view.h - the byte extents of a file an MPI-IO access touches (C ABI).
 *
 * Atomic mode locks exactly the bytes an access reads or writes. A view (the
 * displacement, etype and filetype given to MPI_File_set_view) is flattened
 * once into the filetype's list of (displacement, length) pieces; each access
 * is then mapped through it: the filetype is tiled from the displacement at a
 * stride of its extent, and the access's data bytes are laid on the tiles in
 * typemap order.
 *
 * Cost: creating a view is linear in the number of pieces of the filetype. An
 * access costs O(log pieces) to find where it starts, however far into the
 * file that is, plus the pieces of the partly covered first and last tiles,
 * plus O(max_extents) for all the whole tiles in between.
 *
 * Every function returns an MPI error code (MPI_SUCCESS on success) and never
 * aborts.
 */
#ifndef PIOX_VIEW_H
#define PIOX_VIEW_H

#include <mpi.h>

#include "piox_api.h"
#include "piox_extent.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct piox_view piox_view;

/* Flattens a file view (as given to MPI_File_set_view: displacement, etype,
 * filetype). The types are not retained. Returns MPI_ERR_TYPE for an invalid or
 * uncommitted type, a type of size 0, a filetype whose size is not a multiple of
 * the etype's or whose extent is not positive, a filetype with a negative
 * displacement, or one whose layout piox does not decode (types built with the
 * large-count MPI_Type_*_c constructors; a darray with MPI_DISTRIBUTE_NONE over
 * more than one process, which the standard forbids); MPI_ERR_ARG for a negative disp (MPI_DISPLACEMENT_CURRENT must be
 * resolved by the caller) or a NULL view; MPI_ERR_NO_MEM when out of memory. */
PIOX_API int piox_view_create(MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                              piox_view **view);

/* Frees the view and sets *view to NULL. */
PIOX_API int piox_view_free(piox_view **view);

/* The file byte extents touched by an access of `bytes` data bytes that starts
 * `offset` etypes into the view's data stream (offset as in MPI_File_read_at).
 * The output is sorted by offset and coalesced (overlapping or adjacent extents
 * merged), at most max_extents (>= 1) of them. When more would be needed, the
 * smallest gaps between neighbours are closed first, so the result then covers
 * a superset of the exact bytes, never fewer. *count receives how many were
 * written; bytes == 0 gives *count == 0. Negative offset or bytes, or an access
 * whose file offsets would not fit in MPI_Offset, gives MPI_ERR_ARG. */
PIOX_API int piox_view_extents(const piox_view *view, MPI_Offset offset, MPI_Offset bytes,
                               piox_extent *extents, int max_extents, int *count);

/* The size in bytes of the view's etype (callers convert etypes to bytes);
 * 0 for a NULL view. */
PIOX_API MPI_Offset piox_view_etype_size(const piox_view *view);

#ifdef __cplusplus
}
#endif

#endif /* PIOX_VIEW_H */
