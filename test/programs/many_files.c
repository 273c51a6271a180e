/*
 * many_files DIR LIMIT - files opened on MPI_COMM_WORLD, none closed, until an open
 * fails or LIMIT are open. Each open costs the MPI library communicator contexts
 * (ROMIO duplicates the communicator, piox's shared pointer and locks theirs), and
 * MPICH has 2,048 of them a process: the open that finds none left must fail with an
 * MPI error whose message says why, on every rank, and leave the files already open
 * working and the job able to go on once they are closed.
 *
 * Each open file gets one MPI_File_write_shared record per rank (the rank, 8 bytes).
 * Once the opens stop: every file is closed, rank 0 checks that each holds every
 * rank's record once, and one more file is opened and written (the contexts came
 * back). Prints on rank 0 "opened=N" and, when an open failed, "other_class=1" if its
 * class is MPI_ERR_OTHER (else 0) and the error string on the next line.
 */
#include "testlib.h"

#include <string.h>

static void file_name(char *name, size_t n, const char *dir, int i)
{
    snprintf(name, n, "%s/f%d", dir, i);
}

/* Rank 0: the file holds each rank's record once. */
static void check_records(const char *dir, int i, int size)
{
    char name[4096];
    file_name(name, sizeof name, dir, i);
    FILE *f = fopen(name, "rb");
    CHECK(f != NULL, "%s cannot be read", name);
    if (f == NULL)
        return;
    int64_t records[64] = {0}, got = (int64_t)fread(records, sizeof records[0], 64, f);
    fclose(f);
    CHECK(got == size, "%s holds %lld records, not %d", name, (long long)got, size);
    int seen[64] = {0};
    for (int64_t r = 0; r < got; r++)
        if (records[r] >= 0 && records[r] < size)
            seen[records[r]]++;
    for (int r = 0; r < size && got == size; r++)
        CHECK(seen[r] == 1, "%s holds rank %d's record %d times", name, r, seen[r]);
}

static int open_and_write(const char *dir, int i, int rank, MPI_File *fh)
{
    char name[4096];
    file_name(name, sizeof name, dir, i);
    int rc = MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, fh);
    if (rc != MPI_SUCCESS)
        return rc;
    int64_t record = rank;
    CHECK_MPI(MPI_File_write_shared(*fh, &record, 1, MPI_INT64_T, MPI_STATUS_IGNORE));
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 3) {
        fprintf(stderr, "usage: %s DIR LIMIT\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    const char *dir = argv[1];
    int limit = atoi(argv[2]), rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size <= 64, "at most 64 ranks");
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
    MPI_File *files = calloc((size_t)limit + 1, sizeof *files);
    int opened = 0, failed = MPI_SUCCESS;
    while (opened < limit && (failed = open_and_write(dir, opened, rank, &files[opened])) == MPI_SUCCESS)
        opened++;

    /* Every rank stopped at the same open. */
    int lowest = opened, highest = opened;
    MPI_Allreduce(&opened, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&opened, &highest, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(lowest == highest, "ranks opened %d to %d files", lowest, highest);
    CHECK(files[opened] == MPI_FILE_NULL, "a failed open left a handle");
    if (rank == 0) {
        printf("opened=%d\n", opened);
        if (failed != MPI_SUCCESS) {
            char text[MPI_MAX_ERROR_STRING];
            int length = 0, error_class = 0;
            MPI_Error_class(failed, &error_class);
            MPI_Error_string(failed, text, &length);
            printf("other_class=%d\n%s\n", error_class == MPI_ERR_OTHER, text);
        }
        fflush(stdout);
    }

    for (int i = 0; i < opened; i++)
        CHECK_MPI(MPI_File_close(&files[i]));
    if (rank == 0)
        for (int i = 0; i < opened; i++)
            check_records(dir, i, size);
    MPI_Barrier(MPI_COMM_WORLD);
    /* The contexts came back: one more file opens and works. */
    MPI_File again = MPI_FILE_NULL;
    CHECK_MPI(open_and_write(dir, limit, rank, &again));
    if (again != MPI_FILE_NULL)
        CHECK_MPI(MPI_File_close(&again));
    if (rank == 0)
        check_records(dir, limit, size);
    free(files);
    return testlib_finish_and_finalize();
}
