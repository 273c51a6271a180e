/* view_oracle: see view_oracle.h. */
#include "view_oracle.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

static int by_offset(const void *a, const void *b)
{
    MPI_Offset x = ((const piox_extent *)a)->offset, y = ((const piox_extent *)b)->offset;
    return (x > y) - (x < y);
}

int coalesce_extents(piox_extent *extents, int n)
{
    qsort(extents, (size_t)n, sizeof *extents, by_offset);
    int kept = 0;
    for (int i = 0; i < n; ++i) {
        piox_extent *last = kept > 0 ? &extents[kept - 1] : NULL;
        if (last != NULL && extents[i].offset <= last->offset + last->length) {
            MPI_Offset end = extents[i].offset + extents[i].length;
            if (end > last->offset + last->length)
                last->length = end - last->offset;
        } else {
            extents[kept++] = extents[i];
        }
    }
    return kept;
}

/* Where each data byte of one filetype lands, relative to its origin. */
static int byte_locations(MPI_Datatype filetype, MPI_Offset *where)
{
    int size = 0;
    MPI_Aint true_lb = 0, true_extent = 0;
    MPI_Type_size(filetype, &size);
    MPI_Type_get_true_extent(filetype, &true_lb, &true_extent);
    assert_true(size > 0 && size < 255);
    assert_true(true_lb >= 0);
    unsigned char stream[255];
    for (int i = 0; i < size; ++i)
        stream[i] = (unsigned char)(i + 1);
    unsigned char *buffer = calloc((size_t)(true_lb + true_extent), 1);
    int position = 0;
    assert_int_equal(MPI_Unpack(stream, size, &position, buffer, 1, filetype, MPI_COMM_SELF),
                     MPI_SUCCESS);
    for (MPI_Aint b = 0; b < true_lb + true_extent; ++b)
        if (buffer[b] != 0)
            where[buffer[b] - 1] = b;
    free(buffer);
    return size;
}

int oracle_extents(MPI_Offset disp, MPI_Datatype filetype, MPI_Offset first, MPI_Offset bytes,
                   piox_extent *out, int max)
{
    MPI_Offset where[255];
    MPI_Aint lb = 0, extent = 0;
    int size = byte_locations(filetype, where);
    MPI_Type_get_extent(filetype, &lb, &extent);
    piox_extent *each = malloc(sizeof *each * (size_t)(bytes > 0 ? bytes : 1));
    for (MPI_Offset s = first; s < first + bytes; ++s) {
        MPI_Offset tile = s / size;
        each[s - first] = (piox_extent){disp + tile * extent + where[s % size], 1};
    }
    int n = coalesce_extents(each, (int)bytes);
    assert_true(n <= max);
    for (int i = 0; i < n; ++i)
        out[i] = each[i];
    free(each);
    return n;
}
