/*
 * thread_io DIR - MPI-IO from several threads of each process at once
 * (MPI_THREAD_MULTIPLE), as MPICH's ROMIO allows under its global lock: test
 * test_romio_driver_errors.py runs it against stock MPICH and the standalone
 * libromio (scripts/build-romio, patch 0008), whose lock used to be empty.
 *
 * Every rank runs THREADS threads. For ROUNDS rounds each thread
 *   - opens a file of its own on MPI_COMM_SELF (thread_io.<rank>.<thread>), sets
 *     a strided view (a vector filetype: ROMIO flattens it into a list that all
 *     threads share), writes its round's record there, and closes it;
 *   - writes its round's record into one file all ranks opened together
 *     (thread_io.shared), with MPI_File_write_at or, every other round,
 *     MPI_File_iwrite_at and MPI_Wait.
 * Then every rank reads both kinds of file back and checks each byte.
 *
 * Layouts. A record is RECORD bytes: "r<rank> t<thread> n<round>", NUL padded.
 * The shared file holds record (round, rank, thread) at index
 * (round * nprocs + rank) * THREADS + thread. Own files have a view of one
 * RECORD-byte block every 2 * RECORD bytes, so record n sits at byte 2*n*RECORD.
 */
#include "testlib.h"

#include <pthread.h>
#include <string.h>

enum { THREADS = 4, ROUNDS = 100, RECORD = 32 };

static char dir[3000];
static int rank, nprocs;
static MPI_File shared;

static void record_of(char *out, int r, int t, int n)
{
    memset(out, 0, RECORD);
    snprintf(out, RECORD, "r%d t%d n%d", r, t, n);
}

static void own_path(char *out, size_t size, int t)
{
    snprintf(out, size, "%s/thread_io.%d.%d", dir, rank, t);
}

static void *writer(void *arg)
{
    int t = (int) (intptr_t) arg;
    char path[4096], record[RECORD];
    MPI_Datatype block, strided;
    MPI_Type_contiguous(RECORD, MPI_BYTE, &block);
    MPI_Type_create_resized(block, 0, 2 * RECORD, &strided);
    MPI_Type_commit(&strided);
    own_path(path, sizeof path, t);
    for (int n = 0; n < ROUNDS; n++) {
        MPI_File own;
        record_of(record, rank, t, n);
        CHECK_MPI(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_WRONLY,
                                MPI_INFO_NULL, &own));
        CHECK_MPI(MPI_File_set_view(own, 0, MPI_BYTE, strided, "native", MPI_INFO_NULL));
        CHECK_MPI(MPI_File_write_at(own, (MPI_Offset) n * RECORD, record, RECORD, MPI_BYTE,
                                    MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_File_close(&own));

        MPI_Offset at = ((MPI_Offset) (n * nprocs + rank) * THREADS + t) * RECORD;
        if (n % 2) {
            MPI_Request request;
            CHECK_MPI(MPI_File_iwrite_at(shared, at, record, RECORD, MPI_BYTE, &request));
            CHECK_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
        } else {
            CHECK_MPI(MPI_File_write_at(shared, at, record, RECORD, MPI_BYTE,
                                        MPI_STATUS_IGNORE));
        }
    }
    MPI_Type_free(&strided);
    MPI_Type_free(&block);
    return NULL;
}

static void check_own_files(void)
{
    char path[4096], expected[RECORD], *data = calloc(2 * ROUNDS, RECORD);
    for (int t = 0; t < THREADS; t++) {
        MPI_File own;
        own_path(path, sizeof path, t);
        CHECK_MPI(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &own));
        CHECK_MPI(MPI_File_read_at(own, 0, data, 2 * ROUNDS * RECORD, MPI_BYTE,
                                   MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_File_close(&own));
        for (int n = 0; n < ROUNDS; n++) {
            record_of(expected, rank, t, n);
            CHECK(memcmp(data + 2 * n * RECORD, expected, RECORD) == 0,
                  "%s: record %d is not \"%s\"", path, n, expected);
        }
    }
    free(data);
}

static void check_shared_file(void)
{
    size_t records = (size_t) ROUNDS * nprocs * THREADS;
    char expected[RECORD], *data = calloc(records, RECORD);
    CHECK_MPI(MPI_File_read_at(shared, 0, data, (int) (records * RECORD), MPI_BYTE,
                               MPI_STATUS_IGNORE));
    for (int n = 0; n < ROUNDS; n++)
        for (int r = 0; r < nprocs; r++)
            for (int t = 0; t < THREADS; t++) {
                size_t index = ((size_t) n * nprocs + r) * THREADS + t;
                record_of(expected, r, t, n);
                CHECK(memcmp(data + index * RECORD, expected, RECORD) == 0,
                      "shared file: record %zu is not \"%s\"", index, expected);
            }
    free(data);
}

int main(int argc, char **argv)
{
    char path[4096];
    pthread_t threads[THREADS];
    int provided = MPI_THREAD_SINGLE;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    snprintf(dir, sizeof dir, "%s", argv[1]);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE not provided (%d)", provided);

    snprintf(path, sizeof path, "%s/thread_io.shared", dir);
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR,
                            MPI_INFO_NULL, &shared));
    for (int t = 0; t < THREADS; t++)
        pthread_create(&threads[t], NULL, writer, (void *) (intptr_t) t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(threads[t], NULL);
    CHECK_MPI(MPI_File_sync(shared));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_File_sync(shared));
    check_shared_file();
    CHECK_MPI(MPI_File_close(&shared));
    check_own_files();

    return testlib_finish_and_finalize();
}
