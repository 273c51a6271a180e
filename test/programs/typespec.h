/*
 * typespec.h - MPI datatypes written as short text, for the differential harness
 * (differential.c). typespec_parse builds the MPI datatype and, independently of
 * MPI, its typemap: every basic element's byte displacement in type order, the
 * lower and upper bound, and whether each bound was set explicitly (resized,
 * subarray, darray), as the standard defines them. typespec_check compares the
 * typemap with MPI's own lb, extent, true lb/extent and size.
 *
 * Grammar (no spaces; numbers are decimal, may be negative where it makes sense):
 *   int | double | byte | char                     basic types
 *   contig(N,T)                                    MPI_Type_contiguous
 *   vector(N,B,S,T)  hvector(N,B,SBYTES,T)         MPI_Type_vector / create_hvector
 *   indexed(B:D/B:D/...,T)                         MPI_Type_indexed (D in extents of T)
 *   hindexed(B:D/...,T)                            MPI_Type_create_hindexed (D in bytes)
 *   resized(LB,EXTENT,T)                           MPI_Type_create_resized
 *   struct(B:D:T/B:D:T/...)                        MPI_Type_create_struct (D in bytes)
 *   subarray(C|F,SIZES,SUBSIZES,STARTS,T)          lists as 4x5x6
 *   darray(NPROCS,RANK,C|F,GSIZES,DISTRIBS,DARGS,PSIZES,T)
 *                                                  DISTRIBS as bxcxn (block, cyclic,
 *                                                  none), DARGS as 2xdx1 (d: default)
 */
#ifndef PIOX_TYPESPEC_H
#define PIOX_TYPESPEC_H

#include <mpi.h>
#include <stddef.h>

/* One basic element of a typemap. */
struct typespec_piece {
    MPI_Aint disp;
    int len;
};

struct typemap {
    struct typespec_piece *pieces; /* in type order */
    int n, cap;
    MPI_Aint lb, ub;        /* extent = ub - lb */
    int lb_set, ub_set;     /* explicit bounds (the standard's lb/ub markers) */
    int align;              /* the largest basic type's alignment (struct padding) */
};

MPI_Aint typemap_size(const struct typemap *map);
/* The lowest and one past the highest byte holding data (0, 0 when empty). */
void typemap_true_bounds(const struct typemap *map, MPI_Aint *lo, MPI_Aint *hi);
void typemap_free(struct typemap *map);

/* Parses text into a committed MPI datatype and its typemap. Returns 0, or -1 with
 * a message in err. */
int typespec_parse(const char *text, MPI_Datatype *type, struct typemap *map, char *err,
                   size_t errlen);

/* 0 when MPI agrees with the typemap about lb, extent, true lb/extent and size;
 * otherwise -1 with the disagreement in err (a harness error, not a finding). */
int typespec_check(MPI_Datatype type, const struct typemap *map, char *err, size_t errlen);

#endif
