/*
 * atomic_errors DIR - atomic mode's switch and its error paths, through the
 * file's error handler (MPI_ERRORS_RETURN), never an abort:
 *   - MPI_File_get_atomicity reports what MPI_File_set_atomicity set;
 *   - a flag that differs between processes is MPI_ERR_NOT_SAME (2+ ranks), and
 *     leaves the mode as it was;
 *   - in atomic mode: a negative count is MPI_ERR_COUNT, an invalid datatype
 *     MPI_ERR_TYPE, a write to a read-only file MPI_ERR_READ_ONLY; after each, the
 *     locks are free again (the next access does not hang);
 *   - nonblocking accesses give requests that MPI_Wait completes with the right
 *     count; split collectives: end without begin and a second begin are errors;
 *   - the data of every kind of access lands where the view says, byte by byte;
 *   - accesses that piox sieves itself (many pieces of a strided view) keep the
 *     memory datatype's order: a plain array, and pairs of ints listed backwards.
 */
#include "testlib.h"

#include <string.h>

static char dir[3000];
static int rank, nprocs;

static MPI_File open_file(const char *name, int amode)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    MPI_File fh = MPI_FILE_NULL;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, amode, MPI_INFO_NULL, &fh));
    return fh;
}

static void test_switch(void)
{
    MPI_File fh = open_file("switch", MPI_MODE_CREATE | MPI_MODE_RDWR);
    int flag = -1;
    CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
    CHECK(flag == 0, "a new file is in atomic mode (%d)", flag);
    CHECK_MPI(MPI_File_set_atomicity(fh, 1));
    CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
    CHECK(flag == 1, "get_atomicity after set 1 gave %d", flag);
    if (nprocs > 1) {
        CHECK_ERROR_CLASS(MPI_File_set_atomicity(fh, rank == 0), MPI_ERR_NOT_SAME);
        CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
        CHECK(flag == 1, "a refused set_atomicity changed the mode to %d", flag);
    }
    CHECK_MPI(MPI_File_set_atomicity(fh, 0));
    CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
    CHECK(flag == 0, "get_atomicity after set 0 gave %d", flag);
    CHECK_MPI(MPI_File_close(&fh));
}

static void test_bad_arguments(void)
{
    MPI_File fh = open_file("bad-arguments", MPI_MODE_CREATE | MPI_MODE_RDWR);
    CHECK_MPI(MPI_File_set_atomicity(fh, 1));
    char buf[16] = {0};
    CHECK_ERROR_CLASS(MPI_File_write_at(fh, 0, buf, -1, MPI_BYTE, MPI_STATUS_IGNORE),
                      MPI_ERR_COUNT);
    CHECK_ERROR_CLASS(MPI_File_read_at(fh, 0, buf, 1, MPI_DATATYPE_NULL, MPI_STATUS_IGNORE),
                      MPI_ERR_TYPE);
    /* The locks were released: this would hang otherwise. */
    CHECK_MPI(MPI_File_write_at(fh, rank, buf, 1, MPI_BYTE, MPI_STATUS_IGNORE));
    /* Split collectives out of turn: MPI_ERR_IO, ROMIO's class for both. */
    MPI_Status status;
    CHECK_ERROR_CLASS(MPI_File_read_all_end(fh, buf, &status), MPI_ERR_IO);
    CHECK_MPI(MPI_File_write_at_all_begin(fh, rank, buf, 1, MPI_BYTE));
    CHECK_ERROR_CLASS(MPI_File_write_at_all_begin(fh, rank, buf, 1, MPI_BYTE), MPI_ERR_IO);
    CHECK_ERROR_CLASS(MPI_File_read_all_end(fh, buf, &status), MPI_ERR_IO);
    CHECK_MPI(MPI_File_write_at_all_end(fh, buf, &status));
    CHECK_MPI(MPI_File_close(&fh));

    fh = open_file("bad-arguments", MPI_MODE_RDONLY);
    CHECK_MPI(MPI_File_set_atomicity(fh, 1));
    CHECK_ERROR_CLASS(MPI_File_write_at(fh, 0, buf, 1, MPI_BYTE, MPI_STATUS_IGNORE),
                      MPI_ERR_READ_ONLY);
    CHECK_MPI(MPI_File_read_at(fh, 0, buf, 1, MPI_BYTE, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_File_close(&fh));
}

/* Each rank owns every nprocs-th 4-byte int of the file (a vector view); each kind
 * of access writes one int per rank at its own place, read back byte by byte. */
static void test_every_routine(void)
{
    enum { KINDS = 8 };
    MPI_File fh = open_file("routines", MPI_MODE_CREATE | MPI_MODE_RDWR);
    MPI_Datatype filetype;
    MPI_Type_vector(1, 1, nprocs, MPI_INT, &filetype);
    MPI_Datatype tiled;
    MPI_Type_create_resized(filetype, 0, (MPI_Aint)(nprocs * sizeof(int)), &tiled);
    MPI_Type_commit(&tiled);
    CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)(rank * sizeof(int)), MPI_INT, tiled, "native",
                                MPI_INFO_NULL));
    CHECK_MPI(MPI_File_set_atomicity(fh, 1));
    MPI_Status status;
    MPI_Request request;
    int value[KINDS];
    for (int k = 0; k < KINDS; k++)
        value[k] = 1000 * (k + 1) + rank;
    CHECK_MPI(MPI_File_write_at(fh, 0, &value[0], 1, MPI_INT, &status));
    CHECK_MPI(MPI_File_write_at_all(fh, 1, &value[1], 1, MPI_INT, &status));
    CHECK_MPI(MPI_File_iwrite_at(fh, 2, &value[2], 1, MPI_INT, &request));
    CHECK_MPI(MPI_Wait(&request, &status));
    int got = -1;
    MPI_Get_count(&status, MPI_INT, &got);
    CHECK(got == 1, "iwrite_at's request completed with count %d", got);
    CHECK_MPI(MPI_File_iwrite_at_all(fh, 3, &value[3], 1, MPI_INT, &request));
    CHECK_MPI(MPI_Wait(&request, &status));
    CHECK_MPI(MPI_File_seek(fh, 4, MPI_SEEK_SET));
    CHECK_MPI(MPI_File_write(fh, &value[4], 1, MPI_INT, &status));
    CHECK_MPI(MPI_File_write_all(fh, &value[5], 1, MPI_INT, &status));
    CHECK_MPI(MPI_File_iwrite(fh, &value[6], 1, MPI_INT, &request));
    CHECK_MPI(MPI_Wait(&request, &status));
    CHECK_MPI(MPI_File_write_all_begin(fh, &value[7], 1, MPI_INT));
    CHECK_MPI(MPI_File_write_all_end(fh, &value[7], &status));
    MPI_Get_count(&status, MPI_INT, &got);
    CHECK(got == 1, "write_all_end's status has count %d", got);
    MPI_Offset position = -1;
    CHECK_MPI(MPI_File_get_position(fh, &position));
    CHECK(position == KINDS, "individual pointer at %lld, expected %d", (long long)position, KINDS);

    int back[KINDS] = {0};
    CHECK_MPI(MPI_File_read_at_all(fh, 0, back, KINDS, MPI_INT, &status));
    for (int k = 0; k < KINDS; k++)
        CHECK(back[k] == value[k], "access kind %d: read back %d, wrote %d", k, back[k], value[k]);
    CHECK_MPI(MPI_File_close(&fh));
    MPI_Type_free(&tiled);
    MPI_Type_free(&filetype);

    /* The whole file in plain bytes: int i belongs to rank i % nprocs. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        fh = MPI_FILE_NULL;
        char path[4096];
        snprintf(path, sizeof path, "%s/routines", dir);
        FILE *file = fopen(path, "rb");
        CHECK(file != NULL, "cannot reopen %s", path);
        for (int i = 0; file != NULL && i < KINDS * nprocs; i++) {
            int v = -1;
            CHECK(fread(&v, sizeof v, 1, file) == 1, "short file at int %d", i);
            CHECK(v == 1000 * (i / nprocs + 1) + i % nprocs, "int %d of the file is %d", i, v);
        }
        if (file != NULL)
            fclose(file);
    }
}

/* Each rank writes PIECES ints, one every nprocs-th int of the file: enough pieces
 * that piox sieves the access in one pread/pwrite of the span. The memory side is
 * a plain int array, then a datatype whose pairs of ints are listed backwards (no
 * holes, but not in address order): the file must follow the type's order. */
static void test_sieved_memory_order(void)
{
    enum { PIECES = 64 };
    MPI_File fh = open_file("sieved", MPI_MODE_CREATE | MPI_MODE_RDWR);
    MPI_Datatype filetype, tiled, swapped_pair, swapped;
    MPI_Type_vector(1, 1, nprocs, MPI_INT, &filetype);
    MPI_Type_create_resized(filetype, 0, (MPI_Aint)(nprocs * sizeof(int)), &tiled);
    MPI_Type_commit(&tiled);
    int backwards[2] = {1, 0};
    MPI_Type_create_indexed_block(2, 1, backwards, MPI_INT, &swapped_pair);
    MPI_Type_create_resized(swapped_pair, 0, (MPI_Aint)(2 * sizeof(int)), &swapped);
    MPI_Type_commit(&swapped);
    CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)(rank * sizeof(int)), MPI_INT, tiled, "native",
                                MPI_INFO_NULL));
    CHECK_MPI(MPI_File_set_atomicity(fh, 1));

    int plain[PIECES], pairs[PIECES], back[PIECES];
    for (int i = 0; i < PIECES; i++) {
        plain[i] = 100000 * (rank + 1) + i;
        pairs[i] = 200000 * (rank + 1) + i;
    }
    CHECK_MPI(MPI_File_write_at(fh, 0, plain, PIECES, MPI_INT, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_File_write_at(fh, PIECES, pairs, PIECES / 2, swapped, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_File_read_at(fh, 0, back, PIECES, MPI_INT, MPI_STATUS_IGNORE));
    for (int i = 0; i < PIECES; i++)
        CHECK(back[i] == plain[i], "sieved int %d: read %d, wrote %d", i, back[i], plain[i]);
    CHECK_MPI(MPI_File_read_at(fh, PIECES, back, PIECES, MPI_INT, MPI_STATUS_IGNORE));
    for (int i = 0; i < PIECES; i++)
        CHECK(back[i] == pairs[i ^ 1], "swapped pairs, int %d of the file: %d, expected %d", i,
              back[i], pairs[i ^ 1]);
    memset(back, 0, sizeof back);
    CHECK_MPI(MPI_File_read_at(fh, PIECES, back, PIECES / 2, swapped, MPI_STATUS_IGNORE));
    for (int i = 0; i < PIECES; i++)
        CHECK(back[i] == pairs[i], "swapped pairs read back, int %d: %d, wrote %d", i, back[i],
              pairs[i]);
    CHECK_MPI(MPI_File_close(&fh));
    MPI_Type_free(&swapped);
    MPI_Type_free(&swapped_pair);
    MPI_Type_free(&tiled);
    MPI_Type_free(&filetype);
}

int main(int argc, char **argv)
{
    if (!testlib_start_in_dir(&argc, &argv, dir, sizeof dir))
        return 2;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    test_switch();
    test_bad_arguments();
    test_every_routine();
    test_sieved_memory_order();
    return testlib_finish_and_finalize();
}
