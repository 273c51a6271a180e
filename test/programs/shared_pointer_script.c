/*
 * shared_pointer_script DIR [KEY=VALUE] - a fixed script of shared-pointer operations whose
 * outcome the MPI standard fixes: ordered-mode writes and reads (blocking and
 * split), shared-mode writes (order free, total fixed), seeks, the reset by
 * MPI_File_set_view, and MPI_MODE_APPEND. Rank 0 prints a transcript, one line
 * per step with every rank's offset or checksum; the file it leaves,
 * DIR/shared_pointer_script.dat, is part of the outcome too.
 *
 * Two MPI-IO implementations agree on the shared pointer when their transcripts
 * and files are equal byte for byte (shared-mode writes put the same bytes from
 * every rank, since their order is free): test_romio_driver.py compares ROMIO inside
 * stock MPICH (hidden .shfp file, token chain) with the patched libromio through
 * ad_piox (piox's pointer) and through ufs (the token chain, moved by the patch).
 * Counts differ per rank and per step, so a wrong order shows. KEY=VALUE, when
 * given, is a hint passed to both opens (e.g. romio_fstype_force=piox:).
 */
#include "testlib.h"

#include <string.h>

static int rank, nprocs;
static MPI_File fh;
static MPI_Info hints = MPI_INFO_NULL;

/* Rank 0 prints `step` and every rank's value, in rank order. */
static void transcript(const char *step, long long value)
{
    long long all[64];
    MPI_Gather(&value, 1, MPI_LONG_LONG, all, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    if (rank != 0)
        return;
    printf("%-28s", step);
    for (int i = 0; i < nprocs; i++)
        printf(" %lld", all[i]);
    printf("\n");
    fflush(stdout);
}

/* Every rank's view of the shared pointer, after all ranks' last step. */
static void position(const char *step)
{
    MPI_Offset offset = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_File_get_position_shared(fh, &offset));
    transcript(step, offset);
    MPI_Barrier(MPI_COMM_WORLD); /* nobody moves the pointer before all have read it */
}

/* count ints, each naming the writer, the step and its index */
static void fill(int *buf, int count, int step)
{
    for (int i = 0; i < count; i++)
        buf[i] = rank * 1000000 + step * 1000 + i;
}

static long long checksum(const int *buf, int count)
{
    unsigned long long sum = 0;
    for (int i = 0; i < count; i++)
        sum = sum * 31 + (unsigned) buf[i];
    return (long long) (sum >> 1);
}

int main(int argc, char **argv)
{
    char dir[4096], path[4200];
    int buf[4096];
    MPI_Status status;
    MPI_Datatype every_other;

    if (!testlib_start_in_dir(&argc, &argv, dir, sizeof dir))
        return 2;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (nprocs > 64)
        MPI_Abort(MPI_COMM_WORLD, 2);
    if (argc > 2) {
        char key[256];
        const char *value = strchr(argv[2], '=');
        if (value == NULL || value - argv[2] >= (long) sizeof key) {
            fprintf(stderr, "hint \"%s\" is not KEY=VALUE\n", argv[2]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        snprintf(key, sizeof key, "%.*s", (int) (value - argv[2]), argv[2]);
        MPI_Info_create(&hints);
        MPI_Info_set(hints, key, value + 1);
    }
    snprintf(path, sizeof path, "%s/shared_pointer_script.dat", dir);
    MPI_File_delete(path, MPI_INFO_NULL); /* may not exist */
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, hints, &fh));
    CHECK_MPI(MPI_File_set_view(fh, 4, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    position("after open");

    fill(buf, rank + 1, 1);
    CHECK_MPI(MPI_File_write_ordered(fh, buf, rank + 1, MPI_INT, &status));
    position("write_ordered");

    fill(buf, 2 * (nprocs - rank), 2);
    CHECK_MPI(MPI_File_write_ordered_begin(fh, buf, 2 * (nprocs - rank), MPI_INT));
    CHECK_MPI(MPI_File_write_ordered_end(fh, buf, &status));
    position("write_ordered_begin/end");

    /* zero-count ranks take part too */
    fill(buf, rank % 2 ? 0 : 3, 3);
    CHECK_MPI(MPI_File_write_ordered(fh, buf, rank % 2 ? 0 : 3, MPI_INT, &status));
    position("write_ordered, odd ranks 0");

    /* the order of shared-mode writes is free: the same bytes from every rank */
    for (int i = 0; i < 5; i++)
        buf[i] = 4000 + i;
    CHECK_MPI(MPI_File_write_shared(fh, buf, 5, MPI_INT, &status));
    position("write_shared 5 each");

    CHECK_MPI(MPI_File_seek_shared(fh, -7, MPI_SEEK_CUR));
    position("seek_shared -7 CUR");
    fill(buf, 1, 5);
    CHECK_MPI(MPI_File_write_ordered(fh, buf, 1, MPI_INT, &status));
    position("write_ordered over the end");

    CHECK_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_END));
    position("seek_shared 0 END");

    CHECK_MPI(MPI_File_seek_shared(fh, 2, MPI_SEEK_SET));
    memset(buf, 0, sizeof buf);
    CHECK_MPI(MPI_File_read_ordered(fh, buf, rank + 2, MPI_INT, &status));
    transcript("read_ordered from 2: sum", checksum(buf, rank + 2));
    position("read_ordered");

    memset(buf, 0, sizeof buf);
    CHECK_MPI(MPI_File_read_ordered_begin(fh, buf, 3, MPI_INT));
    CHECK_MPI(MPI_File_read_ordered_end(fh, buf, &status));
    transcript("read_ordered_begin/end: sum", checksum(buf, 3));
    position("read_ordered_begin/end");

    /* a new view resets the pointer; its etypes are the filetype's ints */
    MPI_Type_vector(8, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    CHECK_MPI(MPI_File_set_view(fh, 64, MPI_INT, every_other, "native", MPI_INFO_NULL));
    position("set_view resets");
    fill(buf, 3 + rank, 6);
    CHECK_MPI(MPI_File_write_ordered(fh, buf, 3 + rank, MPI_INT, &status));
    position("write_ordered, strided view");
    MPI_Type_free(&every_other);
    CHECK_MPI(MPI_File_close(&fh));

    /* MPI_MODE_APPEND: the shared pointer starts at the end (bytes, view reset) */
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY | MPI_MODE_APPEND, hints,
                            &fh));
    position("reopen MPI_MODE_APPEND");
    fill(buf, rank + 1, 7);
    CHECK_MPI(MPI_File_write_ordered(fh, buf, (rank + 1) * (int) sizeof(int), MPI_BYTE,
                                     &status));
    position("write_ordered appended");
    CHECK_MPI(MPI_File_close(&fh));
    if (hints != MPI_INFO_NULL)
        MPI_Info_free(&hints);
    return testlib_finish_and_finalize();
}
