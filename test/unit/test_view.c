/*
 * test_view - unit tests (CMocka) of piox_view.h: the file extents an access
 * touches through a view, byte for byte, for every datatype constructor, against
 * hand-made lists and against an MPI_Unpack oracle (view_oracle.c); the cap on
 * the number of extents; errors. Runs as an MPI singleton.
 */
#include "piox_view.h"
#include "view_oracle.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

enum { MANY = 4096 };

/* A literal extent list and its length, for check_hand. */
#define EXTENTS(...) (const piox_extent[]){__VA_ARGS__}, \
                     (int)(sizeof((piox_extent[]){__VA_ARGS__}) / sizeof(piox_extent))

static void assert_same_extents(const piox_extent *got, int n_got, const piox_extent *want, int n_want)
{
    if (n_got != n_want) {
        for (int i = 0; i < n_got; ++i)
            print_message("got [%d] {%lld, %lld}\n", i, (long long)got[i].offset, (long long)got[i].length);
    }
    assert_int_equal(n_got, n_want);
    for (int i = 0; i < n_want; ++i) {
        assert_int_equal(got[i].offset, want[i].offset);
        assert_int_equal(got[i].length, want[i].length);
    }
}

static int extents_of(const piox_view *view, MPI_Offset offset, MPI_Offset bytes, piox_extent *out, int max)
{
    int count = -1;
    assert_int_equal(piox_view_extents(view, offset, bytes, out, max, &count), MPI_SUCCESS);
    return count;
}

/* The extents of one access (offset in etypes) through (disp, etype, filetype) are `want`. */
static void check_hand(MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype, MPI_Offset offset,
                       MPI_Offset bytes, const piox_extent *want, int n_want)
{
    piox_view *view = NULL;
    piox_extent got[MANY];
    assert_int_equal(piox_view_create(disp, etype, filetype, &view), MPI_SUCCESS);
    assert_same_extents(got, extents_of(view, offset, bytes, got, MANY), want, n_want);
    assert_int_equal(piox_view_free(&view), MPI_SUCCESS);
    assert_null(view);
}

/* piox agrees with the MPI_Unpack oracle on every access that starts in the
 * first two tiles, for lengths around one tile. */
static void check_against_oracle(MPI_Offset disp, MPI_Datatype filetype)
{
    piox_view *view = NULL;
    piox_extent got[MANY], want[MANY];
    int size = 0;
    MPI_Type_size(filetype, &size);
    assert_int_equal(piox_view_create(disp, MPI_BYTE, filetype, &view), MPI_SUCCESS);
    const MPI_Offset lengths[] = {1, size - 1, size, 2 * size + 3};
    for (MPI_Offset first = 0; first <= 2 * size; ++first) {
        for (size_t k = 0; k < sizeof lengths / sizeof lengths[0]; ++k) {
            int n_want = oracle_extents(disp, filetype, first, lengths[k], want, MANY);
            assert_same_extents(got, extents_of(view, first, lengths[k], got, MANY), want, n_want);
        }
    }
    assert_int_equal(piox_view_free(&view), MPI_SUCCESS);
}

static void commit(MPI_Datatype *type) { assert_int_equal(MPI_Type_commit(type), MPI_SUCCESS); }

static void named_types_give_a_contiguous_view_from_disp(void **state)
{
    (void)state;
    piox_view *view = NULL;
    assert_int_equal(piox_view_create(100, MPI_INT, MPI_INT, &view), MPI_SUCCESS);
    assert_int_equal(piox_view_etype_size(view), 4);
    piox_view_free(&view);
    check_hand(100, MPI_INT, MPI_INT, 3, 10, EXTENTS({112, 10}));

    MPI_Datatype dup, f90;
    MPI_Type_dup(MPI_INT, &dup);
    check_hand(100, MPI_INT, dup, 3, 10, EXTENTS({112, 10}));
    MPI_Type_free(&dup);
    MPI_Type_create_f90_real(6, MPI_UNDEFINED, &f90);  /* predefined: never freed */
    check_hand(8, f90, f90, 2, 8, EXTENTS({16, 8}));
}

static void pair_types_keep_their_holes(void **state)
{
    (void)state;
    check_against_oracle(0, MPI_SHORT_INT);
    check_against_oracle(3, MPI_DOUBLE_INT);
    check_against_oracle(0, MPI_LONG_DOUBLE_INT);
    check_against_oracle(0, MPI_2INT);
}

static void vector_and_hvector(void **state)
{
    (void)state;
    MPI_Datatype vector, hvector;
    MPI_Type_vector(3, 2, 4, MPI_INT, &vector);
    commit(&vector);
    check_hand(0, MPI_BYTE, vector, 0, 24, EXTENTS({0, 8}, {16, 8}, {32, 8}));
    check_against_oracle(0, vector);
    MPI_Type_create_hvector(3, 2, 7, MPI_SHORT, &hvector);
    commit(&hvector);
    check_hand(5, MPI_BYTE, hvector, 2, 8, EXTENTS({7, 2}, {12, 4}, {19, 2}));
    check_against_oracle(5, hvector);
    MPI_Type_free(&vector);
    MPI_Type_free(&hvector);
}

static void indexed_family_keeps_typemap_order(void **state)
{
    (void)state;
    MPI_Datatype indexed, hindexed, block, hblock;
    /* Out of order on purpose: the stream follows the typemap, the output is sorted. */
    MPI_Type_indexed(3, (int[]){2, 1, 3}, (int[]){5, 0, 9}, MPI_SHORT, &indexed);
    MPI_Type_create_hindexed(2, (int[]){1, 2}, (MPI_Aint[]){3, 20}, MPI_INT, &hindexed);
    MPI_Type_create_indexed_block(3, 2, (int[]){0, 3, 7}, MPI_CHAR, &block);
    MPI_Type_create_hindexed_block(5, 1, (MPI_Aint[]){0, 2, 10, 13, 30}, MPI_BYTE, &hblock);
    MPI_Datatype *all[] = {&indexed, &hindexed, &block, &hblock};
    for (int i = 0; i < 4; ++i) {
        commit(all[i]);
        check_against_oracle(0, *all[i]);
        check_against_oracle(7, *all[i]);
    }
    check_hand(0, MPI_BYTE, indexed, 0, 12, EXTENTS({0, 2}, {10, 4}, {18, 6}));
    check_hand(0, MPI_BYTE, indexed, 3, 2, EXTENTS({0, 1}, {13, 1}));
    check_hand(0, MPI_BYTE, hindexed, 0, 12, EXTENTS({3, 4}, {20, 8}));
    check_hand(0, MPI_BYTE, block, 1, 4, EXTENTS({1, 1}, {3, 2}, {7, 1}));
    for (int i = 0; i < 4; ++i)
        MPI_Type_free(all[i]);
}

static void struct_and_nested(void **state)
{
    (void)state;
    MPI_Datatype mixed, small, indexed, nested;
    MPI_Type_create_struct(3, (int[]){1, 2, 3}, (MPI_Aint[]){0, 8, 30},
                           (MPI_Datatype[]){MPI_INT, MPI_DOUBLE, MPI_CHAR}, &mixed);
    commit(&mixed);
    check_hand(0, MPI_BYTE, mixed, 0, 23, EXTENTS({0, 4}, {8, 16}, {30, 3}));
    check_against_oracle(2, mixed);

    /* A vector of an indexed of a struct. */
    MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, 2}, (MPI_Datatype[]){MPI_CHAR, MPI_SHORT}, &small);
    MPI_Type_indexed(2, (int[]){1, 2}, (int[]){0, 2}, small, &indexed);
    MPI_Type_vector(2, 1, 2, indexed, &nested);
    commit(&nested);
    check_against_oracle(0, nested);
    check_against_oracle(9, nested);
    MPI_Type_free(&mixed);
    MPI_Type_free(&small);
    MPI_Type_free(&indexed);
    MPI_Type_free(&nested);
}

static void subarrays_in_both_orders(void **state)
{
    (void)state;
    MPI_Datatype c2, f2, c3, f3;
    MPI_Type_create_subarray(2, (int[]){4, 5}, (int[]){2, 3}, (int[]){1, 1}, MPI_ORDER_C, MPI_BYTE, &c2);
    MPI_Type_create_subarray(2, (int[]){4, 5}, (int[]){2, 3}, (int[]){1, 1}, MPI_ORDER_FORTRAN, MPI_BYTE, &f2);
    MPI_Type_create_subarray(3, (int[]){3, 4, 5}, (int[]){2, 2, 3}, (int[]){1, 0, 2}, MPI_ORDER_C, MPI_SHORT, &c3);
    MPI_Type_create_subarray(3, (int[]){3, 4, 5}, (int[]){2, 2, 3}, (int[]){1, 0, 2}, MPI_ORDER_FORTRAN, MPI_SHORT, &f3);
    MPI_Datatype *all[] = {&c2, &f2, &c3, &f3};
    for (int i = 0; i < 4; ++i) {
        commit(all[i]);
        check_against_oracle(0, *all[i]);
        check_against_oracle(11, *all[i]);
    }
    check_hand(0, MPI_BYTE, c2, 0, 6, EXTENTS({6, 3}, {11, 3}));
    check_hand(0, MPI_BYTE, f2, 0, 6, EXTENTS({5, 2}, {9, 2}, {13, 2}));
    for (int i = 0; i < 4; ++i)
        MPI_Type_free(all[i]);
}

static MPI_Datatype darray(int size, int rank, int ndims, const int *gsizes, const int *distribs,
                           const int *dargs, const int *psizes, int order)
{
    MPI_Datatype type;
    assert_int_equal(MPI_Type_create_darray(size, rank, ndims, gsizes, distribs, dargs, psizes, order,
                                            MPI_BYTE, &type), MPI_SUCCESS);
    commit(&type);
    return type;
}

static void darrays_match_hand_made_lists(void **state)
{
    (void)state;
    const int B = MPI_DISTRIBUTE_BLOCK, C = MPI_DISTRIBUTE_CYCLIC, N = MPI_DISTRIBUTE_NONE,
              D = MPI_DISTRIBUTE_DFLT_DARG;
    struct {
        MPI_Datatype type;
        const piox_extent *want;
        int n;
    } cases[] = {
        /* gsize 10, cyclic(3) over 2: rank 1 holds 3-5 and 9. */
        {darray(2, 1, 1, (int[]){10}, (int[]){C}, (int[]){3}, (int[]){2}, MPI_ORDER_C), EXTENTS({3, 3}, {9, 1})},
        /* gsize 10, block over 3: blocks of 4, rank 2 holds 8-9. */
        {darray(3, 2, 1, (int[]){10}, (int[]){B}, (int[]){D}, (int[]){3}, MPI_ORDER_C), EXTENTS({8, 2})},
        /* 4x6 block over 2x2, rank 1 = coords (0,1): rows 0-1, columns 3-5. */
        {darray(4, 1, 2, (int[]){4, 6}, (int[]){B, B}, (int[]){D, D}, (int[]){2, 2}, MPI_ORDER_C),
         EXTENTS({3, 3}, {9, 3})},
        /* The same in Fortran order: index i0 + 4 * i1, i0 in 0-1, i1 in 3-5. */
        {darray(4, 1, 2, (int[]){4, 6}, (int[]){B, B}, (int[]){D, D}, (int[]){2, 2}, MPI_ORDER_FORTRAN),
         EXTENTS({12, 2}, {16, 2}, {20, 2})},
        /* Rows not distributed, columns in blocks of 2 over 3: rank 2 holds columns 4-5. */
        {darray(3, 2, 2, (int[]){4, 6}, (int[]){N, B}, (int[]){D, D}, (int[]){1, 3}, MPI_ORDER_C),
         EXTENTS({4, 2}, {10, 2}, {16, 2}, {22, 2})},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        int size = 0;
        MPI_Type_size(cases[i].type, &size);
        check_hand(0, MPI_BYTE, cases[i].type, 0, size, cases[i].want, cases[i].n);
        MPI_Type_free(&cases[i].type);
    }
}

static void darrays_match_the_oracle_on_every_rank(void **state)
{
    (void)state;
    const int B = MPI_DISTRIBUTE_BLOCK, C = MPI_DISTRIBUTE_CYCLIC, N = MPI_DISTRIBUTE_NONE,
              D = MPI_DISTRIBUTE_DFLT_DARG;
    struct {
        int distribs[3], dargs[3], psizes[3];
    } layouts[] = {
        {{B, B, B}, {D, D, D}, {2, 1, 2}},
        {{C, B, C}, {2, D, D}, {2, 2, 1}},
        {{N, C, B}, {D, 3, 3}, {1, 2, 3}},
        {{C, N, C}, {D, D, 2}, {3, 1, 2}},
    };
    const int gsizes[3] = {3, 5, 7};
    const int orders[2] = {MPI_ORDER_C, MPI_ORDER_FORTRAN};
    for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; ++l) {
        int procs = layouts[l].psizes[0] * layouts[l].psizes[1] * layouts[l].psizes[2];
        for (int o = 0; o < 2; ++o) {
            for (int rank = 0; rank < procs; ++rank) {
                MPI_Datatype type = darray(procs, rank, 3, gsizes, layouts[l].distribs, layouts[l].dargs,
                                           layouts[l].psizes, orders[o]);
                int size = 0;
                MPI_Type_size(type, &size);
                if (size > 0)
                    check_against_oracle(4, type);
                MPI_Type_free(&type);
            }
        }
    }
}

static void resized_tiles_at_its_extent(void **state)
{
    (void)state;
    MPI_Datatype pair, placed, resized;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_create_hindexed_block(1, 1, (MPI_Aint[]){4}, pair, &placed);
    MPI_Type_create_resized(placed, 2, 20, &resized);  /* lb 2 > 0, extent 20 > data */
    commit(&resized);
    check_hand(10, MPI_BYTE, resized, 0, 16, EXTENTS({14, 8}, {34, 8}));
    check_hand(10, MPI_BYTE, resized, 6, 4, EXTENTS({20, 2}, {34, 2}));
    check_against_oracle(10, resized);
    MPI_Type_free(&pair);
    MPI_Type_free(&placed);
    MPI_Type_free(&resized);
}

static void access_from_mid_piece_across_tiles(void **state)
{
    (void)state;
    MPI_Datatype vector;
    MPI_Type_vector(3, 2, 4, MPI_INT, &vector);  /* pieces {0,8} {16,8} {32,8}, extent 40 */
    commit(&vector);
    /* Stream bytes 20..60: the end of tile 0, all of tile 1, the start of tile 2. */
    check_hand(4, MPI_INT, vector, 5, 40, EXTENTS({40, 12}, {60, 8}, {76, 16}, {100, 4}));
    MPI_Type_free(&vector);
}

static void etype_counts_offsets(void **state)
{
    (void)state;
    MPI_Datatype triple, filetype;
    MPI_Type_contiguous(3, MPI_INT, &triple);
    commit(&triple);
    MPI_Type_vector(2, 1, 3, triple, &filetype);  /* {0,12} {36,12}, extent 48 */
    commit(&filetype);
    piox_view *view = NULL;
    assert_int_equal(piox_view_create(0, triple, filetype, &view), MPI_SUCCESS);
    assert_int_equal(piox_view_etype_size(view), 12);
    piox_view_free(&view);
    check_hand(0, triple, filetype, 1, 24, EXTENTS({36, 24}));
    check_hand(0, triple, filetype, 3, 12, EXTENTS({84, 12}));
    MPI_Type_free(&triple);
    MPI_Type_free(&filetype);
}

static void far_offsets_and_huge_accesses_are_fast(void **state)
{
    (void)state;
    MPI_Datatype sparse;
    MPI_Type_vector(2, 1, 2, MPI_BYTE, &sparse);  /* {0,1} {2,1}, extent 3, size 2 */
    commit(&sparse);
    const MPI_Offset T = 1000000000000LL;  /* 10^12 */
    double started = MPI_Wtime();
    check_hand(0, MPI_BYTE, sparse, T, 3, EXTENTS({3 * T / 2, 1}, {3 * T / 2 + 2, 2}));
    check_hand(7, MPI_BYTE, MPI_BYTE, T, T, EXTENTS({T + 7, T}));

    /* 10^12 bytes over 5 * 10^11 tiles, four extents: merged, still covering them all. */
    piox_view *view = NULL;
    piox_extent got[4];
    assert_int_equal(piox_view_create(0, MPI_BYTE, sparse, &view), MPI_SUCCESS);
    int n = -1;
    assert_int_equal(piox_view_extents(view, 1, T, got, 4, &n), MPI_SUCCESS);
    assert_true(n >= 1 && n <= 4);
    assert_int_equal(got[0].offset, 2);
    assert_int_equal(got[n - 1].offset + got[n - 1].length, 3 * (T / 2) + 1);
    for (int i = 1; i < n; ++i)
        assert_true(got[i].offset > got[i - 1].offset + got[i - 1].length);
    /* An access whose file offsets do not fit in MPI_Offset is refused. */
    assert_int_equal(piox_view_extents(view, INT64_MAX - 10, 4, got, 4, &n), MPI_ERR_ARG);
    piox_view_free(&view);
    assert_true(MPI_Wtime() - started < 0.5);
    MPI_Type_free(&sparse);
}

static void zero_bytes_touch_nothing(void **state)
{
    (void)state;
    piox_view *view = NULL;
    piox_extent got[1];
    int n = -1;
    assert_int_equal(piox_view_create(0, MPI_INT, MPI_INT, &view), MPI_SUCCESS);
    assert_int_equal(piox_view_extents(view, 5, 0, got, 1, &n), MPI_SUCCESS);
    assert_int_equal(n, 0);
    piox_view_free(&view);
}

/* Every byte of `exact` lies in `capped`, which is sorted, coalesced, within bounds. */
static void assert_covers(const piox_extent *capped, int n_capped, int max, const piox_extent *exact, int n_exact)
{
    assert_true(n_capped >= 1 && n_capped <= max);
    assert_int_equal(capped[0].offset, exact[0].offset);
    assert_int_equal(capped[n_capped - 1].offset + capped[n_capped - 1].length,
                     exact[n_exact - 1].offset + exact[n_exact - 1].length);
    for (int i = 1; i < n_capped; ++i)
        assert_true(capped[i].offset > capped[i - 1].offset + capped[i - 1].length);
    for (int e = 0, c = 0; e < n_exact; ++e) {
        while (capped[c].offset + capped[c].length <= exact[e].offset)
            ++c;
        assert_true(capped[c].offset <= exact[e].offset);
        assert_true(exact[e].offset + exact[e].length <= capped[c].offset + capped[c].length);
    }
}

static void the_cap_closes_the_smallest_gaps_first(void **state)
{
    (void)state;
    MPI_Datatype gaps;
    /* Bytes 0, 2, 10, 13, 30: gaps of 1, 7, 2, 16. */
    MPI_Type_create_hindexed_block(5, 1, (MPI_Aint[]){0, 2, 10, 13, 30}, MPI_BYTE, &gaps);
    commit(&gaps);
    piox_view *view = NULL;
    piox_extent got[MANY], exact[MANY];
    assert_int_equal(piox_view_create(0, MPI_BYTE, gaps, &view), MPI_SUCCESS);
    assert_same_extents(got, extents_of(view, 0, 5, got, 3), EXTENTS({0, 3}, {10, 4}, {30, 1}));
    assert_same_extents(got, extents_of(view, 0, 5, got, 1), EXTENTS({0, 31}));

    /* Many tiles, small caps: a superset, never fewer bytes. */
    const MPI_Offset firsts[] = {0, 3, 1001}, lengths[] = {7, 600, 1999};
    for (int f = 0; f < 3; ++f) {
        for (int l = 0; l < 3; ++l) {
            int n_exact = extents_of(view, firsts[f], lengths[l], exact, MANY);
            for (int max = 1; max <= 9; max += 2)
                assert_covers(got, extents_of(view, firsts[f], lengths[l], got, max), max, exact, n_exact);
        }
    }
    piox_view_free(&view);
    MPI_Type_free(&gaps);
}

static void bad_arguments_are_refused(void **state)
{
    (void)state;
    piox_view *view = NULL;
    piox_extent got[2];
    int n = 0;
    MPI_Datatype uncommitted, negative, odd;
    MPI_Type_contiguous(2, MPI_INT, &uncommitted);
    MPI_Type_create_hindexed_block(1, 1, (MPI_Aint[]){-4}, MPI_INT, &negative);
    commit(&negative);
    MPI_Type_contiguous(3, MPI_CHAR, &odd);
    commit(&odd);

    assert_int_equal(piox_view_create(0, MPI_BYTE, MPI_BYTE, NULL), MPI_ERR_ARG);
    assert_int_equal(piox_view_create(-1, MPI_BYTE, MPI_BYTE, &view), MPI_ERR_ARG);
    assert_int_equal(piox_view_create(0, MPI_DATATYPE_NULL, MPI_BYTE, &view), MPI_ERR_TYPE);
    assert_int_equal(piox_view_create(0, MPI_BYTE, MPI_DATATYPE_NULL, &view), MPI_ERR_TYPE);
    assert_int_equal(piox_view_create(0, MPI_BYTE, uncommitted, &view), MPI_ERR_TYPE);
    assert_int_equal(piox_view_create(0, MPI_BYTE, negative, &view), MPI_ERR_TYPE);
    assert_int_equal(piox_view_create(0, MPI_INT, odd, &view), MPI_ERR_TYPE);  /* not whole etypes */
    assert_null(view);

    assert_int_equal(piox_view_create(0, MPI_INT, MPI_INT, &view), MPI_SUCCESS);
    assert_int_equal(piox_view_extents(view, -1, 4, got, 2, &n), MPI_ERR_ARG);
    assert_int_equal(piox_view_extents(view, 0, -4, got, 2, &n), MPI_ERR_ARG);
    assert_int_equal(piox_view_extents(view, 0, 4, got, 0, &n), MPI_ERR_ARG);
    assert_int_equal(piox_view_extents(view, 0, 4, NULL, 2, &n), MPI_ERR_ARG);
    assert_int_equal(piox_view_extents(view, 0, 4, got, 2, NULL), MPI_ERR_ARG);
    assert_int_equal(piox_view_extents(view, INT64_MAX / 2, 4, got, 2, &n), MPI_ERR_ARG);
    assert_int_equal(piox_view_extents(NULL, 0, 4, got, 2, &n), MPI_ERR_ARG);
    assert_int_equal(piox_view_etype_size(NULL), 0);
    assert_int_equal(piox_view_free(&view), MPI_SUCCESS);
    assert_int_equal(piox_view_free(&view), MPI_ERR_ARG);
    assert_int_equal(piox_view_free(NULL), MPI_ERR_ARG);
    MPI_Type_free(&uncommitted);
    MPI_Type_free(&negative);
    MPI_Type_free(&odd);
}

/* Views whose layout piox cannot be sure of are refused, never guessed at. */
static void undecodable_types_are_refused(void **state)
{
    (void)state;
    piox_view *view = NULL;
    /* DISTRIBUTE_NONE over 2 processes breaks the standard's psize = 1 rule; MPICH
     * accepts it and lays it out differently in C and Fortran order. */
    MPI_Datatype none = darray(2, 1, 2, (int[]){4, 6}, (int[]){MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_BLOCK},
                               (int[]){MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, (int[]){2, 1},
                               MPI_ORDER_C);
    assert_int_equal(piox_view_create(0, MPI_BYTE, none, &view), MPI_ERR_TYPE);
    MPI_Type_free(&none);
#if MPI_VERSION >= 4
    /* Large-count constructors: the int introspection calls would be fatal. */
    MPI_Datatype large;
    MPI_Type_contiguous_c(4, MPI_INT, &large);
    commit(&large);
    assert_int_equal(piox_view_create(0, MPI_BYTE, large, &view), MPI_ERR_TYPE);
    MPI_Type_free(&large);
#endif
    assert_null(view);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(named_types_give_a_contiguous_view_from_disp),
        cmocka_unit_test(pair_types_keep_their_holes),
        cmocka_unit_test(vector_and_hvector),
        cmocka_unit_test(indexed_family_keeps_typemap_order),
        cmocka_unit_test(struct_and_nested),
        cmocka_unit_test(subarrays_in_both_orders),
        cmocka_unit_test(darrays_match_hand_made_lists),
        cmocka_unit_test(darrays_match_the_oracle_on_every_rank),
        cmocka_unit_test(resized_tiles_at_its_extent),
        cmocka_unit_test(access_from_mid_piece_across_tiles),
        cmocka_unit_test(etype_counts_offsets),
        cmocka_unit_test(far_offsets_and_huge_accesses_are_fast),
        cmocka_unit_test(zero_bytes_touch_nothing),
        cmocka_unit_test(the_cap_closes_the_smallest_gaps_first),
        cmocka_unit_test(bad_arguments_are_refused),
        cmocka_unit_test(undecodable_types_are_refused),
    };
    int failed = cmocka_run_group_tests_name("piox_view", tests, NULL, NULL);
    MPI_Finalize();
    return failed == 0 ? 0 : 1;
}
