/*
 * view_oracle - the exact file extents of an access through a view, computed
 * independently of piox: MPI_Unpack lays a stream whose i-th byte is i + 1 into
 * a zeroed buffer through the filetype, and where each value lands is where that
 * stream byte goes. For filetypes of fewer than 255 data bytes.
 */
#ifndef PIOX_TEST_VIEW_ORACLE_H
#define PIOX_TEST_VIEW_ORACLE_H

#include "piox_view.h"

/* The sorted, coalesced extents of `bytes` stream bytes from stream byte `first`
 * (bytes, not etypes) of the view (disp, filetype). Returns how many, at most max. */
int oracle_extents(MPI_Offset disp, MPI_Datatype filetype, MPI_Offset first, MPI_Offset bytes,
                   piox_extent *out, int max);

/* Sorts and coalesces n extents in place; returns the new count. */
int coalesce_extents(piox_extent *extents, int n);

#endif
