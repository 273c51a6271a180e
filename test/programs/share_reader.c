/*
 * share_reader.c - an unmodified data-parallel reader in the DL-MPI paper's shape
 * (section II.B): each rank reads its share of a file, offset = rank * (size /
 * nprocs), the last rank reading the rest, without asking where the data is. Under
 * piox with locality remapping, the bytes it reads are a permutation of the file's
 * chunks; the test reassembles the shares to check that.
 *
 *   share_reader FILE OUTDIR [--how HOW] [--pieces N] [--rdwr] [--view] [--external32]
 *                [--large-count] [KEY=VALUE ...]
 *
 * HOW is how the share is read; several --how read it once each, in that order, each in an
 * open of its own (one run covers several ways, as valgrind runs of it do):
 *   at (default)   MPI_File_read_at
 *   at_all         MPI_File_read_at_all
 *   iat            MPI_File_iread_at, then MPI_Wait
 *   iat_all        MPI_File_iread_at_all, then MPI_Wait
 *   iat_all_many   every piece's MPI_File_iread_at_all first, then MPI_Wait on each,
 *                  the last one first (several collective reads in flight at once)
 *   at_all_split   MPI_File_read_at_all_begin/end
 *   pointer        MPI_File_seek, then MPI_File_read
 *   pointer_all    MPI_File_seek, then MPI_File_read_all
 *   ipointer_all   MPI_File_seek, then MPI_File_iread_all and MPI_Wait
 *   vector         MPI_File_read_at into every other byte of a buffer twice as long
 *                  (an MPI_Type_vector memory type: piox's staged path)
 * --pieces N reads the share in N calls of about equal length (the last one longer),
 * so that reads start and end inside chunks. --rdwr opens the file MPI_MODE_RDWR;
 * --view sets a view that is not the default one but places bytes as it does (etype
 * MPI_BYTE, filetype 8 contiguous bytes); --external32 a view of bytes in the
 * "external32" representation (the same bytes, which piox does not map). --large-count calls the MPI-4 _c forms of
 * the routines (where the MPI library has them). KEY=VALUE pairs go into the info of
 * MPI_File_open (piox_locality=remap, dli_map_file=...).
 *
 * Writes the bytes it read to OUTDIR/share.RANK and prints one line per rank (each --how
 * in turn: the last one's bytes stay):
 *   share RANK OFFSET LENGTH READ POSITION
 * (READ from the statuses; POSITION the individual pointer after the reads, -1 for
 * the explicit-offset forms). Rank 0 prints " No Errors" when every call succeeded.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

/* The routine in the form asked for: MPI-4's large-count MPI_File_name_c, or MPI_File_name. */
#if MPI_VERSION >= 4
#define READ_FORM(name, ...) (large_count ? MPI_File_##name##_c(__VA_ARGS__) : MPI_File_##name(__VA_ARGS__))
#else
#define READ_FORM(name, ...) MPI_File_##name(__VA_ARGS__)
#endif
static int large_count;

enum how { AT, AT_ALL, IAT, IAT_ALL, AT_ALL_SPLIT, POINTER, POINTER_ALL, VECTOR, IAT_ALL_MANY,
           IPOINTER_ALL };

static enum how parse_how(const char *text)
{
    static const char *names[] = {"at", "at_all", "iat", "iat_all", "at_all_split",
                                  "pointer", "pointer_all", "vector", "iat_all_many",
                                  "ipointer_all"};
    for (int i = 0; i < (int)(sizeof names / sizeof names[0]); i++)
        if (!strcmp(text, names[i]))
            return (enum how)i;
    fprintf(stderr, "share_reader: unknown --how %s\n", text);
    MPI_Abort(MPI_COMM_WORLD, 2);
    return AT;
}

/* One read of `length` bytes at `offset` into buf; returns the bytes read. */
static MPI_Count read_piece(MPI_File fh, enum how how, MPI_Offset offset, char *buf, int length)
{
    MPI_Status status;
    MPI_Request request;
    memset(&status, 0, sizeof status);
    switch (how) {
    case AT:
        CHECK_MPI(READ_FORM(read_at, fh, offset, buf, length, MPI_BYTE, &status));
        break;
    case AT_ALL:
        CHECK_MPI(READ_FORM(read_at_all, fh, offset, buf, length, MPI_BYTE, &status));
        break;
    case IAT:
        CHECK_MPI(READ_FORM(iread_at, fh, offset, buf, length, MPI_BYTE, &request));
        CHECK_MPI(MPI_Wait(&request, &status));
        break;
    case IAT_ALL:
        CHECK_MPI(READ_FORM(iread_at_all, fh, offset, buf, length, MPI_BYTE, &request));
        CHECK_MPI(MPI_Wait(&request, &status));
        break;
    case AT_ALL_SPLIT:
        CHECK_MPI(READ_FORM(read_at_all_begin, fh, offset, buf, length, MPI_BYTE));
        CHECK_MPI(MPI_File_read_at_all_end(fh, buf, &status));
        break;
    case POINTER:
        CHECK_MPI(READ_FORM(read, fh, buf, length, MPI_BYTE, &status));
        break;
    case POINTER_ALL:
        CHECK_MPI(READ_FORM(read_all, fh, buf, length, MPI_BYTE, &status));
        break;
    case IPOINTER_ALL:
        CHECK_MPI(READ_FORM(iread_all, fh, buf, length, MPI_BYTE, &request));
        CHECK_MPI(MPI_Wait(&request, &status));
        break;
    case IAT_ALL_MANY:  /* read_pieces_at_once's */
        break;
    case VECTOR: {
        MPI_Datatype every_other;
        char *spread = calloc(2 * (size_t)length + 1, 1);
        MPI_Type_vector(length, 1, 2, MPI_BYTE, &every_other);
        MPI_Type_commit(&every_other);
        CHECK_MPI(MPI_File_read_at(fh, offset, spread, 1, every_other, &status));
        for (int b = 0; b < length; b++)
            buf[b] = spread[2 * b];
        MPI_Type_free(&every_other);
        free(spread);
        break;
    }
    }
    MPI_Count got = 0;
    MPI_Get_elements_x(&status, MPI_BYTE, &got);
    return got;
}

/* The pieces' MPI_File_iread_at_all calls all at once, then their MPI_Waits in the
 * reverse order; returns the bytes read. */
static MPI_Count read_pieces_at_once(MPI_File fh, MPI_Offset offset, char *buf, MPI_Offset length,
                                     int pieces)
{
    MPI_Request *requests = calloc((size_t)pieces, sizeof *requests);
    const MPI_Offset piece = length / pieces;
    for (int p = 0; p < pieces; p++) {
        const MPI_Offset from = p * piece;
        const MPI_Offset take = p == pieces - 1 ? length - from : piece;
        CHECK_MPI(READ_FORM(iread_at_all, fh, offset + from, buf + from, (int)take, MPI_BYTE,
                            &requests[p]));
    }
    MPI_Count read = 0;
    for (int p = pieces - 1; p >= 0; p--) {
        MPI_Status status;
        MPI_Count got = 0;
        CHECK_MPI(MPI_Wait(&requests[p], &status));
        MPI_Get_elements_x(&status, MPI_BYTE, &got);
        read += got;
    }
    free(requests);
    return read;
}

/* How each rank opens the file and reads its share (main's options). */
struct reading {
    const char *path, *outdir;
    int pieces, amode, byte_view, external32;
    MPI_Info info;
};

/* Opens the file, reads this rank's share `how`, closes the file, saves the bytes to
 * OUTDIR/share.RANK and prints the rank's share line. */
static void read_share(const struct reading *r, enum how how, int rank, int nprocs)
{
    MPI_File fh;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, r->path, r->amode, r->info, &fh));
    if (r->byte_view) {
        MPI_Datatype eight;
        MPI_Type_contiguous(8, MPI_BYTE, &eight);
        MPI_Type_commit(&eight);
        CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, eight, "native", MPI_INFO_NULL));
        MPI_Type_free(&eight);
    }
    if (r->external32)
        CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL));
    MPI_Offset size = 0;
    CHECK_MPI(MPI_File_get_size(fh, &size));
    const MPI_Offset avg = size / nprocs;
    const MPI_Offset offset = rank * avg;
    const MPI_Offset length = rank == nprocs - 1 ? size - offset : avg;
    char *buf = malloc((size_t)length + 1);
    const MPI_Offset piece = length / r->pieces;  /* the last piece takes the rest */
    const int individual = how == POINTER || how == POINTER_ALL || how == IPOINTER_ALL;
    if (individual)
        CHECK_MPI(MPI_File_seek(fh, offset, MPI_SEEK_SET));
    MPI_Count read = 0;
    if (how == IAT_ALL_MANY)
        read = read_pieces_at_once(fh, offset, buf, length, r->pieces);
    for (int p = 0; how != IAT_ALL_MANY && p < r->pieces; p++) {
        const MPI_Offset from = p * piece;
        const MPI_Offset take = p == r->pieces - 1 ? length - from : piece;
        read += read_piece(fh, how, offset + from, buf + from, (int)take);
    }
    MPI_Offset position = -1;
    if (individual)
        CHECK_MPI(MPI_File_get_position(fh, &position));
    CHECK_MPI(MPI_File_close(&fh));

    char path[4096];
    snprintf(path, sizeof path, "%s/share.%d", r->outdir, rank);
    FILE *out = fopen(path, "wb");
    CHECK(out != NULL, "cannot create %s", path);
    if (out) {
        CHECK(fwrite(buf, 1, (size_t)read, out) == (size_t)read, "short write to %s", path);
        fclose(out);
    }
    free(buf);
    printf("share %d %lld %lld %lld %lld\n", rank, (long long)offset, (long long)length,
           (long long)read, (long long)position);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nprocs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 3) {
        if (rank == 0)
            fprintf(stderr, "usage: share_reader FILE OUTDIR [--how HOW]... [--pieces N] [--rdwr] "
                            "[--view] [--external32] [--large-count] [KEY=VALUE ...]\n");
        MPI_Finalize();
        return 2;
    }
    enum how hows[argc];
    int nhows = 0;
    struct reading r = {argv[1], argv[2], 1, MPI_MODE_RDONLY, 0, 0, MPI_INFO_NULL};
    MPI_Info_create(&r.info);
    for (int i = 3; i < argc; i++) {
        if (!strcmp(argv[i], "--how") && i + 1 < argc) {
            hows[nhows++] = parse_how(argv[++i]);
        } else if (!strcmp(argv[i], "--pieces") && i + 1 < argc) {
            r.pieces = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--rdwr")) {
            r.amode = MPI_MODE_RDWR;
        } else if (!strcmp(argv[i], "--view")) {
            r.byte_view = 1;
        } else if (!strcmp(argv[i], "--external32")) {
            r.external32 = 1;
        } else if (!strcmp(argv[i], "--large-count")) {
            large_count = 1;
        } else {
            char *eq = strchr(argv[i], '=');
            if (eq) {
                *eq = '\0';
                MPI_Info_set(r.info, argv[i], eq + 1);
            }
        }
    }
    if (nhows == 0)
        hows[nhows++] = AT;
    for (int h = 0; h < nhows; h++)
        read_share(&r, hows[h], rank, nprocs);
    MPI_Info_free(&r.info);
    return testlib_finish_and_finalize();
}
