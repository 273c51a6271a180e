/*
 * typespec.c - text to MPI datatype, and the typemap the MPI standard gives that
 * datatype, computed here without asking MPI (see typespec.h for the grammar).
 *
 * Every constructor is a list of copies of its children at byte shifts; one
 * builder (builder_add, builder_finish) turns copies into pieces and bounds, so
 * the standard's rules for lb/ub live in one place: explicit bounds win over data
 * bounds, and a struct without explicit bounds is padded to its alignment (as
 * MPICH does, the "epsilon" of MPI-1).
 */
#include "typespec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LIST 64
#define MAX_DIMS 8

MPI_Aint typemap_size(const struct typemap *map)
{
    MPI_Aint size = 0;
    for (int i = 0; i < map->n; i++)
        size += map->pieces[i].len;
    return size;
}

void typemap_true_bounds(const struct typemap *map, MPI_Aint *lo, MPI_Aint *hi)
{
    *lo = *hi = 0;
    for (int i = 0; i < map->n; i++) {
        MPI_Aint a = map->pieces[i].disp, b = a + map->pieces[i].len;
        if (i == 0 || a < *lo)
            *lo = a;
        if (i == 0 || b > *hi)
            *hi = b;
    }
}

void typemap_free(struct typemap *map)
{
    free(map->pieces);
    memset(map, 0, sizeof *map);
}

static void push_piece(struct typemap *map, MPI_Aint disp, int len)
{
    if (map->n == map->cap) {
        map->cap = map->cap ? 2 * map->cap : 16;
        map->pieces = realloc(map->pieces, (size_t)map->cap * sizeof *map->pieces);
    }
    map->pieces[map->n++] = (struct typespec_piece){disp, len};
}

/* ---- the builder: copies of children at shifts -> one typemap ---- */

struct builder {
    struct typemap *out;
    int copies, lb_set, ub_set;
    MPI_Aint lb_data, ub_data, lb_mark, ub_mark;
};

static void builder_start(struct builder *b, struct typemap *out)
{
    memset(b, 0, sizeof *b);
    memset(out, 0, sizeof *out);
    out->align = 1;
    b->out = out;
}

static void builder_add(struct builder *b, const struct typemap *child, MPI_Aint shift)
{
    for (int i = 0; i < child->n; i++)
        push_piece(b->out, child->pieces[i].disp + shift, child->pieces[i].len);
    MPI_Aint lo = child->lb + shift, hi = child->ub + shift;
    if (child->lb_set) {
        b->lb_mark = b->lb_set ? (lo < b->lb_mark ? lo : b->lb_mark) : lo;
        b->lb_set = 1;
    }
    if (child->ub_set) {
        b->ub_mark = b->ub_set ? (hi > b->ub_mark ? hi : b->ub_mark) : hi;
        b->ub_set = 1;
    }
    if (b->copies == 0 || lo < b->lb_data)
        b->lb_data = lo;
    if (b->copies == 0 || hi > b->ub_data)
        b->ub_data = hi;
    b->copies++;
    if (child->align > b->out->align)
        b->out->align = child->align;
}

/* pad: round the extent up to the alignment when no bound is explicit (structs). */
static void builder_finish(struct builder *b, int pad)
{
    struct typemap *m = b->out;
    m->lb_set = b->lb_set;
    m->ub_set = b->ub_set;
    m->lb = b->lb_set ? b->lb_mark : b->lb_data;
    m->ub = b->ub_set ? b->ub_mark : b->ub_data;
    if (pad && !b->lb_set && !b->ub_set && m->align > 1) {
        MPI_Aint extent = m->ub - m->lb, rest = extent % m->align;
        if (rest)
            m->ub += m->align - rest;
    }
}

/* ---- the parser ---- */

struct cursor {
    const char *text, *at;
    char *err;
    size_t errlen;
};

static int fail(struct cursor *c, const char *fmt, ...)
{
    if (c->err[0])
        return -1; /* keep the first, innermost message */
    int n = snprintf(c->err, c->errlen, "at %d: ", (int)(c->at - c->text));
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < c->errlen)
        vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

static int expect(struct cursor *c, char ch)
{
    if (*c->at != ch)
        return fail(c, "expected '%c'", ch);
    c->at++;
    return 0;
}

static int number(struct cursor *c, long *v)
{
    char *end;
    *v = strtol(c->at, &end, 10);
    if (end == c->at)
        return fail(c, "expected a number");
    c->at = end;
    return 0;
}

/* Numbers separated by sep ("4x5x6"); returns how many, or -1. */
static int number_list(struct cursor *c, char sep, long *out, int max)
{
    int n = 0;
    do {
        if (n == max)
            return fail(c, "list longer than %d", max);
        if (number(c, &out[n++]))
            return -1;
    } while (*c->at == sep && c->at++);
    return n;
}

/* One letter per dimension ("bxc", "2xd"): codes maps letters to values, and any
 * other token must be a number. */
static int token_list(struct cursor *c, const char *letters, const long *codes, long *out,
                      int max)
{
    int n = 0;
    do {
        if (n == max)
            return fail(c, "list longer than %d", max);
        const char *hit = *c->at ? strchr(letters, *c->at) : NULL;
        if (hit) {
            out[n++] = codes[hit - letters];
            c->at++;
        } else if (number(c, &out[n++])) {
            return -1;
        }
    } while (*c->at == 'x' && c->at++);
    return n;
}

static int parse_type(struct cursor *c, MPI_Datatype *type, struct typemap *map);

/* Blocks "B:D/B:D/..." (indexed, hindexed). */
static int block_list(struct cursor *c, int *lens, long *disps)
{
    int n = 0;
    do {
        long len;
        if (n == MAX_LIST)
            return fail(c, "more than %d blocks", MAX_LIST);
        if (number(c, &len) || expect(c, ':') || number(c, &disps[n]))
            return -1;
        lens[n++] = (int)len;
    } while (*c->at == '/' && c->at++);
    return n;
}

static int order_letter(struct cursor *c, int *order)
{
    if (*c->at != 'C' && *c->at != 'F')
        return fail(c, "expected C or F");
    *order = *c->at++ == 'C' ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
    return 0;
}

/* Copies of child at each element of a grid: per dimension a list of global
 * indices, in C or Fortran order, element (i) at linear(i) * extent (subarray,
 * darray). Bounds: 0 and the whole array, explicit. */
static void grid_copies(struct typemap *map, const struct typemap *child, int ndims,
                        const long *sizes, long idx[][MAX_LIST * 4], const int *counts,
                        int order)
{
    struct builder b;
    builder_start(&b, map);
    MPI_Aint extent = child->ub - child->lb, total = extent;
    int at[MAX_DIMS] = {0}, empty = 0;
    for (int d = 0; d < ndims; d++) {
        total *= sizes[d];
        empty |= counts[d] == 0;
    }
    while (!empty) {
        MPI_Aint linear = 0;
        for (int k = 0; k < ndims; k++) {
            int d = order == MPI_ORDER_C ? k : ndims - 1 - k;
            linear = linear * sizes[d] + idx[d][at[d]];
        }
        builder_add(&b, child, linear * extent);
        int k = ndims - 1; /* the fastest dimension first */
        for (; k >= 0; k--) {
            int d = order == MPI_ORDER_C ? k : ndims - 1 - k;
            if (++at[d] < counts[d])
                break;
            at[d] = 0;
        }
        if (k < 0)
            break;
    }
    builder_finish(&b, 0);
    map->lb = 0;
    map->ub = total;
    map->lb_set = map->ub_set = 1;
}

static int parse_subarray(struct cursor *c, MPI_Datatype *type, struct typemap *map)
{
    int order, n;
    long sizes[MAX_DIMS], subs[MAX_DIMS], starts[MAX_DIMS];
    MPI_Datatype child;
    struct typemap cm;
    if (order_letter(c, &order) || expect(c, ',') ||
        (n = number_list(c, 'x', sizes, MAX_DIMS)) < 0 || expect(c, ',') ||
        number_list(c, 'x', subs, MAX_DIMS) != n || expect(c, ',') ||
        number_list(c, 'x', starts, MAX_DIMS) != n || expect(c, ',') ||
        parse_type(c, &child, &cm) || expect(c, ')'))
        return fail(c, "bad subarray");
    int isizes[MAX_DIMS], isubs[MAX_DIMS], istarts[MAX_DIMS], counts[MAX_DIMS];
    static long idx[MAX_DIMS][MAX_LIST * 4];
    for (int d = 0; d < n; d++) {
        isizes[d] = (int)sizes[d];
        isubs[d] = (int)subs[d];
        istarts[d] = (int)starts[d];
        counts[d] = isubs[d] < MAX_LIST * 4 ? isubs[d] : 0;
        for (int i = 0; i < counts[d]; i++)
            idx[d][i] = starts[d] + i;
    }
    int rc = MPI_Type_create_subarray(n, isizes, isubs, istarts, order, child, type);
    if (rc == MPI_SUCCESS)
        grid_copies(map, &cm, n, sizes, idx, counts, order);
    MPI_Type_free(&child);
    typemap_free(&cm);
    return rc == MPI_SUCCESS ? 0 : fail(c, "MPI_Type_create_subarray refused it");
}

/* The global indices that process coordinate `coord` of `procs` owns in one
 * dimension of `size` elements (the standard's darray distributions). */
static int darray_owned(long size, int distrib, long darg, long procs, long coord, long *out)
{
    int n = 0;
    long block = darg;
    if (distrib == MPI_DISTRIBUTE_NONE) {
        for (long i = 0; i < size; i++)
            out[n++] = i;
    } else if (distrib == MPI_DISTRIBUTE_BLOCK) {
        if (darg == MPI_DISTRIBUTE_DFLT_DARG)
            block = (size + procs - 1) / procs;
        for (long i = coord * block; i < size && i < (coord + 1) * block; i++)
            out[n++] = i;
    } else {
        if (darg == MPI_DISTRIBUTE_DFLT_DARG)
            block = 1;
        for (long i = 0; i < size; i++)
            if ((i / block) % procs == coord)
                out[n++] = i;
    }
    return n;
}

static int parse_darray(struct cursor *c, MPI_Datatype *type, struct typemap *map)
{
    static const long distrib_codes[] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC,
                                         MPI_DISTRIBUTE_NONE};
    static const long darg_codes[] = {MPI_DISTRIBUTE_DFLT_DARG};
    long nprocs, rank, gsizes[MAX_DIMS], distribs[MAX_DIMS], dargs[MAX_DIMS], psizes[MAX_DIMS];
    int order, n;
    MPI_Datatype child;
    struct typemap cm;
    if (number(c, &nprocs) || expect(c, ',') || number(c, &rank) || expect(c, ',') ||
        order_letter(c, &order) || expect(c, ',') ||
        (n = number_list(c, 'x', gsizes, MAX_DIMS)) < 0 || expect(c, ',') ||
        token_list(c, "bcn", distrib_codes, distribs, MAX_DIMS) != n || expect(c, ',') ||
        token_list(c, "d", darg_codes, dargs, MAX_DIMS) != n || expect(c, ',') ||
        number_list(c, 'x', psizes, MAX_DIMS) != n || expect(c, ',') ||
        parse_type(c, &child, &cm) || expect(c, ')'))
        return fail(c, "bad darray");
    int ig[MAX_DIMS], id[MAX_DIMS], ia[MAX_DIMS], ip[MAX_DIMS], counts[MAX_DIMS];
    static long idx[MAX_DIMS][MAX_LIST * 4];
    long rest = rank;
    for (int d = n - 1; d >= 0; d--) { /* process grid: row-major, whatever the order */
        long coord = psizes[d] > 0 ? rest % psizes[d] : 0;
        rest = psizes[d] > 0 ? rest / psizes[d] : 0;
        ig[d] = (int)gsizes[d];
        id[d] = (int)distribs[d];
        ia[d] = (int)dargs[d];
        ip[d] = (int)psizes[d];
        counts[d] = gsizes[d] <= MAX_LIST * 4
                        ? darray_owned(gsizes[d], id[d], dargs[d], psizes[d], coord, idx[d])
                        : 0;
    }
    int rc = MPI_Type_create_darray((int)nprocs, (int)rank, n, ig, id, ia, ip, order, child,
                                    type);
    if (rc == MPI_SUCCESS)
        grid_copies(map, &cm, n, gsizes, idx, counts, order);
    MPI_Type_free(&child);
    typemap_free(&cm);
    return rc == MPI_SUCCESS ? 0 : fail(c, "MPI_Type_create_darray refused it");
}

static int parse_struct(struct cursor *c, MPI_Datatype *type, struct typemap *map)
{
    int lens[MAX_LIST], n = 0, rc = 0;
    MPI_Aint disps[MAX_LIST];
    MPI_Datatype types[MAX_LIST];
    struct typemap maps[MAX_LIST];
    do {
        long len, disp;
        if (n == MAX_LIST || number(c, &len) || expect(c, ':') || number(c, &disp) ||
            expect(c, ':') || parse_type(c, &types[n], &maps[n])) {
            rc = fail(c, "bad struct block");
            break;
        }
        lens[n] = (int)len;
        disps[n++] = disp;
    } while (*c->at == '/' && c->at++);
    if (rc == 0 && expect(c, ')') == 0 &&
        MPI_Type_create_struct(n, lens, disps, types, type) == MPI_SUCCESS) {
        struct builder b;
        builder_start(&b, map);
        for (int k = 0; k < n; k++)
            for (int j = 0; j < lens[k]; j++)
                builder_add(&b, &maps[k], disps[k] + j * (maps[k].ub - maps[k].lb));
        builder_finish(&b, 1);
    } else {
        rc = fail(c, "bad struct");
    }
    for (int k = 0; k < n; k++) {
        MPI_Type_free(&types[k]);
        typemap_free(&maps[k]);
    }
    return rc;
}

/* The constructors over one child type whose copies sit at regular or listed
 * shifts: contig, vector, hvector, indexed, hindexed, resized. */
static int parse_regular(struct cursor *c, const char *name, MPI_Datatype *type,
                         struct typemap *map)
{
    long arg[3] = {0, 0, 0};
    int nargs = !strcmp(name, "contig") ? 1 : !strcmp(name, "resized") ? 2 : 3;
    int lens[MAX_LIST], nblocks = 0, listed = !strcmp(name, "indexed") || !strcmp(name, "hindexed");
    long disps[MAX_LIST];
    if (listed) {
        if ((nblocks = block_list(c, lens, disps)) < 0 || expect(c, ','))
            return -1;
    } else {
        for (int i = 0; i < nargs; i++)
            if (number(c, &arg[i]) || expect(c, ','))
                return -1;
    }
    MPI_Datatype child;
    struct typemap cm;
    if (parse_type(c, &child, &cm) || expect(c, ')'))
        return -1;
    MPI_Aint extent = cm.ub - cm.lb, bdisps[MAX_LIST];
    int rc, idisps[MAX_LIST];
    for (int k = 0; k < nblocks; k++) {
        idisps[k] = (int)disps[k];
        bdisps[k] = disps[k];
    }
    if (!strcmp(name, "contig"))
        rc = MPI_Type_contiguous((int)arg[0], child, type);
    else if (!strcmp(name, "vector"))
        rc = MPI_Type_vector((int)arg[0], (int)arg[1], (int)arg[2], child, type);
    else if (!strcmp(name, "hvector"))
        rc = MPI_Type_create_hvector((int)arg[0], (int)arg[1], arg[2], child, type);
    else if (!strcmp(name, "indexed"))
        rc = MPI_Type_indexed(nblocks, lens, idisps, child, type);
    else if (!strcmp(name, "hindexed"))
        rc = MPI_Type_create_hindexed(nblocks, lens, bdisps, child, type);
    else
        rc = MPI_Type_create_resized(child, arg[0], arg[1], type);
    if (rc == MPI_SUCCESS) {
        /* Every form is blocks of `lens` copies, block k starting at start(k). */
        struct builder b;
        builder_start(&b, map);
        if (!listed) {
            nblocks = !strcmp(name, "contig") || !strcmp(name, "resized") ? 1 : (int)arg[0];
            if (nblocks > MAX_LIST * 64)
                nblocks = 0;
        }
        for (int k = 0; k < nblocks; k++) {
            MPI_Aint start;
            int len;
            if (listed) {
                len = lens[k];
                start = !strcmp(name, "indexed") ? disps[k] * extent : disps[k];
            } else if (!strcmp(name, "contig")) {
                len = (int)arg[0];
                start = 0;
            } else if (!strcmp(name, "resized")) {
                len = 1;
                start = 0;
            } else {
                len = (int)arg[1];
                start = !strcmp(name, "vector") ? k * arg[2] * extent : k * arg[2];
            }
            for (int j = 0; j < len; j++)
                builder_add(&b, &cm, start + j * extent);
        }
        builder_finish(&b, 0);
        if (!strcmp(name, "resized")) {
            map->lb = arg[0];
            map->ub = arg[0] + arg[1];
            map->lb_set = map->ub_set = 1;
        }
    }
    MPI_Type_free(&child);
    typemap_free(&cm);
    return rc == MPI_SUCCESS ? 0 : fail(c, "MPI refused %s", name);
}

static int parse_basic(struct cursor *c, const char *name, MPI_Datatype *type,
                       struct typemap *map)
{
    static const struct {
        const char *name;
        MPI_Datatype type;
        int size;
    } basics[] = {{"int", MPI_INT, sizeof(int)},
                  {"double", MPI_DOUBLE, sizeof(double)},
                  {"byte", MPI_BYTE, 1},
                  {"char", MPI_CHAR, 1}};
    for (size_t i = 0; i < sizeof basics / sizeof basics[0]; i++) {
        if (strcmp(name, basics[i].name))
            continue;
        /* A duplicate, so that every parsed type can be freed alike. */
        MPI_Type_dup(basics[i].type, type);
        memset(map, 0, sizeof *map);
        push_piece(map, 0, basics[i].size);
        map->ub = basics[i].size;
        map->align = basics[i].size;
        return 0;
    }
    return fail(c, "unknown type '%s'", name);
}

static int parse_type(struct cursor *c, MPI_Datatype *type, struct typemap *map)
{
    char name[16];
    size_t n = 0;
    while (*c->at >= 'a' && *c->at <= 'z' && n + 1 < sizeof name)
        name[n++] = *c->at++;
    name[n] = '\0';
    if (*c->at != '(')
        return parse_basic(c, name, type, map);
    c->at++;
    if (!strcmp(name, "struct"))
        return parse_struct(c, type, map);
    if (!strcmp(name, "subarray"))
        return parse_subarray(c, type, map);
    if (!strcmp(name, "darray"))
        return parse_darray(c, type, map);
    static const char *regular[] = {"contig", "vector", "hvector", "indexed", "hindexed",
                                    "resized"};
    for (size_t i = 0; i < sizeof regular / sizeof regular[0]; i++)
        if (!strcmp(name, regular[i]))
            return parse_regular(c, name, type, map);
    return fail(c, "unknown constructor '%s'", name);
}

int typespec_parse(const char *text, MPI_Datatype *type, struct typemap *map, char *err,
                   size_t errlen)
{
    struct cursor c = {text, text, err, errlen};
    err[0] = '\0';
    *type = MPI_DATATYPE_NULL;
    memset(map, 0, sizeof *map);
    if (parse_type(&c, type, map) == 0 && *c.at == '\0') {
        MPI_Type_commit(type);
        return 0;
    }
    if (*c.at)
        fail(&c, "trailing text");
    if (*type != MPI_DATATYPE_NULL)
        MPI_Type_free(type);
    typemap_free(map);
    return -1;
}

/* The typemap's order and displacements, through MPI's own engine: two copies of
 * the type unpacked from a stream that numbers its bytes (16-bit numbers, one byte
 * of them per pass) must put byte j of the stream where our typemap says. */
static int check_order(MPI_Datatype type, const struct typemap *map, MPI_Aint lo, MPI_Aint hi)
{
    MPI_Aint size = typemap_size(map), extent = map->ub - map->lb;
    MPI_Aint first = lo < lo + extent ? lo : lo + extent;
    MPI_Aint last = hi > hi + extent ? hi : hi + extent;
    MPI_Aint span = last - first, n = 2 * size;
    if (size == 0 || n > 65536 || span > (1 << 24))
        return 0;
    unsigned char *stream = malloc((size_t)n), *mem = malloc((size_t)span);
    int ok = 1;
    for (int pass = 0; pass < 2 && ok; pass++) {
        for (MPI_Aint j = 0; j < n; j++)
            stream[j] = (unsigned char)(j >> (8 * pass));
        memset(mem, 0, (size_t)span);
        int position = 0;
        MPI_Unpack(stream, (int)n, &position, mem - first, 2, type, MPI_COMM_SELF);
        MPI_Aint j = 0;
        for (int copy = 0; copy < 2; copy++)
            for (int i = 0; i < map->n; i++)
                for (int b = 0; b < map->pieces[i].len; b++, j++)
                    ok &= mem[map->pieces[i].disp + copy * extent + b - first] ==
                          (unsigned char)(j >> (8 * pass));
    }
    free(stream);
    free(mem);
    return ok;
}

int typespec_check(MPI_Datatype type, const struct typemap *map, char *err, size_t errlen)
{
    MPI_Aint lb, extent, true_lb, true_extent, lo, hi;
    MPI_Count size;
    MPI_Type_get_extent(type, &lb, &extent);
    MPI_Type_get_true_extent(type, &true_lb, &true_extent);
    MPI_Type_size_x(type, &size);
    typemap_true_bounds(map, &lo, &hi);
    /* MPICH 4.0.2's true extent of some cyclic darrays spans more than their data:
     * where they differ, MPI_Unpack decides (over the wider span). */
    if (lb == map->lb && extent == map->ub - map->lb && size == typemap_size(map)) {
        MPI_Aint span_lo = true_lb < lo ? true_lb : lo;
        MPI_Aint span_hi = true_lb + true_extent > hi ? true_lb + true_extent : hi;
        if (check_order(type, map, span_lo, span_hi))
            return 0;
        snprintf(err, errlen, "MPI_Unpack places the data elsewhere than the typemap");
        return -1;
    }
    snprintf(err, errlen,
             "typemap lb %ld extent %ld true %ld+%ld size %ld; MPI says lb %ld extent %ld "
             "true %ld+%ld size %lld",
             (long)map->lb, (long)(map->ub - map->lb), (long)lo, (long)(hi - lo),
             (long)typemap_size(map), (long)lb, (long)extent, (long)true_lb, (long)true_extent,
             (long long)size);
    return -1;
}
