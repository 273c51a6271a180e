/*
 * sieve_write_error DIR [atomic] [naive] - a noncontiguous write that fails
 * part-way releases the bytes it locked.
 *
 * Rank 0 may write no byte past 1 MiB (RLIMIT_FSIZE, SIGXFSZ ignored: a write
 * there fails with EFBIG, as one fails on a full disk). It writes 1,048,576 ints
 * one int apart (a vector view spanning 8 MiB, more than any sieve buffer: ROMIO's
 * 512 KiB, or the 4 MiB ad_piox sieves at once in atomic mode), so that the write
 * fails inside ROMIO's sieving loop, after its first buffers went out. The call
 * must return an error, not abort. Then rank 1 writes 16 ints one apart at the
 * start of the same span, which takes the sieving lock on bytes rank 0 locked: it
 * must return, and its ints and the holes between them must be in the file, byte
 * by byte. A lock left held makes rank 1 wait forever (ROMIO's fcntl lock or
 * ad_piox's); after 10 s an alarm reports that and ends the job.
 *
 * "atomic" runs both writes in atomic mode. "naive" turns data sieving off
 * (romio_ds_write=disable): ROMIO then writes piece by piece, and locks the
 * access only in atomic mode. Rank 0 prints " No Errors".
 */
#include "testlib.h"

#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define LIMIT (1 << 20)          /* rank 0's largest file size */
#define INTS (1 << 20)           /* rank 0's ints, one int apart: 8 MiB of file */
#define LATE_INTS 16             /* rank 1's */
#define WAIT_SECONDS 10

static void waited_too_long(int signal_number)
{
    static const char message[] = "FAIL rank 1: the write waited 10 s for bytes a failed "
                                  "write left locked\n";
    (void)signal_number;
    (void)!write(2, message, sizeof message - 1);
    _exit(1);
}

static MPI_File open_with_ints_one_apart(const char *path, int atomic, int naive)
{
    MPI_File fh = MPI_FILE_NULL;
    MPI_Datatype every_other;
    MPI_Info info;
    MPI_Info_create(&info);
    if (naive)
        MPI_Info_set(info, "romio_ds_write", "disable");
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh));
    MPI_Info_free(&info);
    MPI_Type_vector(INTS, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, every_other, "native", MPI_INFO_NULL));
    MPI_Type_free(&every_other);
    CHECK_MPI(MPI_File_set_atomicity(fh, atomic));
    return fh;
}

static void check_late_ints(const char *path)
{
    int file[2 * LATE_INTS];
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0 && pread(fd, file, sizeof file, 0) == (ssize_t)sizeof file,
          "reading back %s", path);
    for (int i = 0; i < LATE_INTS; i++) {
        CHECK(file[2 * i] == 1000 + i, "int %d is %d, rank 1 wrote %d", 2 * i, file[2 * i],
              1000 + i);
        CHECK(file[2 * i + 1] == 0, "hole %d is %d, expected 0", 2 * i + 1, file[2 * i + 1]);
    }
    if (fd >= 0)
        close(fd);
}

int main(int argc, char **argv)
{
    char dir[3000], path[4096];
    int rank, nprocs;
    if (!testlib_start_in_dir(&argc, &argv, dir, sizeof dir))
        return 2;
    int atomic = 0, naive = 0;
    for (int i = 2; i < argc; i++) {
        atomic |= strcmp(argv[i], "atomic") == 0;
        naive |= strcmp(argv[i], "naive") == 0;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    snprintf(path, sizeof path, "%s/sieve_write_error%s%s", dir, atomic ? "_atomic" : "",
             naive ? "_naive" : "");
    if (nprocs < 2) {
        CHECK(0, "needs 2 ranks, has %d", nprocs);
        return testlib_finish_and_finalize();
    }
    /* Zeros over the whole span, so that holes read as 0 and not as what ROMIO
     * leaves in a buffer read past the end of the file. */
    if (rank == 0) {
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        CHECK(fd >= 0 && ftruncate(fd, 2 * (off_t)INTS * sizeof(int)) == 0, "creating %s", path);
        if (fd >= 0)
            close(fd);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File fh = open_with_ints_one_apart(path, atomic, naive);

    if (rank == 0) {
        struct rlimit limit = {LIMIT, LIMIT};
        signal(SIGXFSZ, SIG_IGN);
        CHECK(setrlimit(RLIMIT_FSIZE, &limit) == 0, "setrlimit");
        int *ints = malloc(INTS * sizeof(int));
        for (int i = 0; i < INTS; i++)
            ints[i] = i;
        int code = MPI_File_write_at(fh, 0, ints, INTS, MPI_INT, MPI_STATUS_IGNORE);
        CHECK(code != MPI_SUCCESS, "a write past the file size limit succeeded");
        free(ints);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        int ints[LATE_INTS];
        for (int i = 0; i < LATE_INTS; i++)
            ints[i] = 1000 + i;
        signal(SIGALRM, waited_too_long);
        alarm(WAIT_SECONDS);
        CHECK_MPI(MPI_File_write_at(fh, 0, ints, LATE_INTS, MPI_INT, MPI_STATUS_IGNORE));
        alarm(0);
    }
    CHECK_MPI(MPI_File_close(&fh));
    if (rank == 1)
        check_late_ints(path);
    return testlib_finish_and_finalize();
}
