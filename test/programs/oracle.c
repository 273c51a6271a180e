/*
 * oracle.c - the MPI standard's answer for one access through a view (oracle.h).
 *
 * An access is a stream of bytes: the memory type's bytes in type order, copy
 * after copy, laid on the view's bytes in order, filetype copy after copy from
 * the displacement. Both sides reduce to one function, the address of stream
 * byte j, over the type's byte list.
 */
#include "oracle.h"

#include <stdlib.h>
#include <string.h>

/* The byte offsets of one copy of a type, in type order. */
struct byte_list {
    MPI_Aint *at;
    MPI_Aint n, extent;
};

static struct byte_list byte_list_of(const struct typemap *map)
{
    struct byte_list l = {malloc(((size_t)typemap_size(map) + 1) * sizeof(MPI_Aint)), 0,
                          map->ub - map->lb};
    for (int i = 0; i < map->n; i++)
        for (int k = 0; k < map->pieces[i].len; k++)
            l.at[l.n++] = map->pieces[i].disp + k;
    return l;
}

/* Where stream byte j of repeated copies lies. */
static MPI_Aint stream_at(const struct byte_list *l, MPI_Offset j)
{
    return (MPI_Aint)(j / l->n) * l->extent + l->at[j % l->n];
}

static MPI_Offset stream_bytes(const struct oracle_access *a)
{
    return (MPI_Offset)a->count * typemap_size(a->memtype);
}

const char *oracle_invalid(const struct oracle_access *a)
{
    MPI_Aint esize = typemap_size(a->etype), fsize = typemap_size(a->filetype), lo, hi;
    MPI_Aint msize = typemap_size(a->memtype);
    if (esize == 0 || fsize == 0 || fsize % esize)
        return "filetype is not whole etypes";
    if (msize == 0 || (stream_bytes(a) % esize))
        return "memory type is not whole etypes";
    if (a->disp < 0 || a->start < 0)
        return "negative displacement or offset";
    /* Monotone and non-negative, copy after copy: sorted, disjoint pieces whose
     * span fits in one extent. */
    typemap_true_bounds(a->filetype, &lo, &hi);
    if (lo < 0 || hi - lo > a->filetype->ub - a->filetype->lb)
        return "filetype copies overlap or go negative";
    for (int i = 1; i < a->filetype->n; i++)
        if (a->filetype->pieces[i].disp <
            a->filetype->pieces[i - 1].disp + a->filetype->pieces[i - 1].len)
            return "filetype is not monotone";
    if (!a->write && a->count > 0) {
        /* a read into overlapping buffer bytes has no defined result */
        MPI_Offset flo, fhi;
        MPI_Aint mlo, mhi;
        oracle_footprint(a, &flo, &fhi, &mlo, &mhi);
        unsigned char *seen = calloc((size_t)(mhi - mlo), 1);
        struct byte_list m = byte_list_of(a->memtype);
        const char *why = NULL;
        for (MPI_Offset j = 0; j < stream_bytes(a) && !why; j++)
            if (seen[stream_at(&m, j) - mlo]++)
                why = "read into overlapping buffer bytes";
        free(m.at);
        free(seen);
        return why;
    }
    return NULL;
}

void oracle_footprint(const struct oracle_access *a, MPI_Offset *lo, MPI_Offset *hi,
                      MPI_Aint *mlo, MPI_Aint *mhi)
{
    struct byte_list f = byte_list_of(a->filetype), m = byte_list_of(a->memtype);
    MPI_Offset first = a->start * typemap_size(a->etype), n = stream_bytes(a);
    *lo = *hi = a->disp;
    *mlo = *mhi = 0;
    for (MPI_Offset j = 0; j < n; j++) {
        MPI_Offset at = a->disp + stream_at(&f, first + j);
        MPI_Aint mat = stream_at(&m, j);
        if (j == 0 || at < *lo)
            *lo = at;
        if (j == 0 || at + 1 > *hi)
            *hi = at + 1;
        if (j == 0 || mat < *mlo)
            *mlo = mat;
        if (j == 0 || mat + 1 > *mhi)
            *mhi = mat + 1;
    }
    free(f.at);
    free(m.at);
}

static void file_reserve(struct oracle_file *file, MPI_Offset size)
{
    if (size <= file->cap)
        return;
    file->cap = size * 2;
    file->bytes = realloc(file->bytes, (size_t)file->cap);
    file->defined = realloc(file->defined, (size_t)file->cap);
}

void oracle_apply(const struct oracle_access *a, struct oracle_file *file, unsigned char *buf,
                  unsigned char *touched, struct oracle_result *r)
{
    struct byte_list f = byte_list_of(a->filetype), m = byte_list_of(a->memtype);
    MPI_Aint esize = typemap_size(a->etype), msize = m.n;
    MPI_Offset first = a->start * esize, n = stream_bytes(a), moved = 0;
    if (a->write) {
        for (; moved < n; moved++) {
            MPI_Offset at = a->disp + stream_at(&f, first + moved);
            if (at >= file->size) { /* extend: the gap is undefined */
                file_reserve(file, at + 1);
                memset(file->bytes + file->size, 0, (size_t)(at + 1 - file->size));
                memset(file->defined + file->size, 0, (size_t)(at + 1 - file->size));
                file->size = at + 1;
            }
            file->bytes[at] = buf[stream_at(&m, moved)];
            file->defined[at] = 1;
        }
    } else {
        while (moved < n && a->disp + stream_at(&f, first + moved) < file->size)
            moved++;
        moved -= moved % esize; /* whole etypes */
        for (MPI_Offset j = 0; j < moved; j++) {
            MPI_Aint at = stream_at(&m, j);
            buf[at] = file->bytes[a->disp + stream_at(&f, first + j)];
            if (touched)
                touched[at] = 1;
        }
    }
    r->bytes = moved;
    r->advance = moved / esize;
    r->count = moved % msize ? MPI_UNDEFINED : (int)(moved / msize);
    free(f.at);
    free(m.at);
}
