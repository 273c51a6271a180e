/*
 * oracle.h - what the MPI standard says one data access through a file view does,
 * computed from typemaps (typespec.h) without MPI: the file's bytes after a write,
 * the buffer after a read, the status count and the pointer's advance. Used by
 * differential.c to judge each run of a case.
 *
 * The choices the standard leaves open, fixed here (MPI-4.0, 14.4 and 14.5):
 * - a read stops at the end of file and moves whole etypes only: data past the
 *   last whole etype before the end is not read, and the buffer bytes it would
 *   have filled stay as they were;
 * - the status then counts what was read: MPI_Get_count is the number of whole
 *   copies of the memory type (MPI_UNDEFINED when a copy is partial), and on
 *   MPI_BYTE the bytes moved: whole etypes, hence whole basic elements of the
 *   memory type (whose basic elements are the etype's). MPI_Get_elements would
 *   say the same in elements, but MPICH 4.0.2 asserts in it for darray types;
 * - a pointer advances by the etypes moved (for a read past the end, read);
 * - a write past the end leaves the bytes between the old end and its data
 *   undefined (as MPI_File_set_size does), not zeros.
 */
#ifndef PIOX_ORACLE_H
#define PIOX_ORACLE_H

#include "typespec.h"

struct oracle_access {
    MPI_Offset disp;                /* the view's displacement, bytes */
    const struct typemap *etype, *filetype, *memtype;
    int count;                      /* copies of the memory type */
    MPI_Offset start;               /* etypes into the view */
    int write;
};

struct oracle_result {
    MPI_Offset bytes;    /* moved */
    int count;           /* MPI_Get_count on the memory type */
    MPI_Offset advance;  /* of the pointer, in etypes */
};

/* A growable image of the file. defined[i] is 0 for a byte the standard leaves
 * undefined: between the old end of file and data written past it. */
struct oracle_file {
    unsigned char *bytes, *defined;
    MPI_Offset size, cap;
};

/* NULL when the access is one the standard defines; otherwise why not (a filetype
 * whose data is not monotone and non-negative, a type signature that does not fit
 * the etype, overlapping buffer bytes for a read). */
const char *oracle_invalid(const struct oracle_access *a);

/* The bytes the access would touch with no end of file: file offsets [*lo, *hi) and
 * buffer offsets [*mlo, *mhi) relative to the buffer address (may be negative). */
void oracle_footprint(const struct oracle_access *a, MPI_Offset *lo, MPI_Offset *hi,
                      MPI_Aint *mlo, MPI_Aint *mhi);

/* Applies the access: a write changes file (and may extend it), a read fills buf
 * (the address the program passes to MPI) and, if touched is not NULL, sets
 * touched[i] (indexed as buf) for every byte it fills. */
void oracle_apply(const struct oracle_access *a, struct oracle_file *file, unsigned char *buf,
                  unsigned char *touched, struct oracle_result *r);

#endif
