/*
 * tool_client FILE - writes through every path piox takes over, for the test of an
 * I/O monitor preloaded beside piox (counting_tool.c): write_shared, iwrite_shared,
 * write_ordered and its split form, then, in atomic mode, one strided write_at
 * (SIEVED ints interleaved between the ranks: many small pieces, which piox would
 * sieve on its own descriptor if no monitor followed it). Each rank writes how many
 * bytes it wrote to FILE.client.<rank> (a file, not stdout: mpiexec may splice lines
 * of different ranks together).
 *
 * The records fill the file without gaps, so the file's size is the sum over ranks.
 */
#include "testlib.h"

#include <string.h>

#define RECORD 100
#define SIEVED 4096

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 2) {
        fprintf(stderr, "usage: tool_client FILE\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_File fh;
    if (rank == 0)
        MPI_File_delete(argv[1], MPI_INFO_NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR,
                            MPI_INFO_NULL, &fh));
    char record[RECORD];
    memset(record, 'a' + rank % 26, sizeof record);
    long long wrote = 0;
    MPI_Request request;
    for (int i = 0; i < 10; i++, wrote += RECORD)
        CHECK_MPI(MPI_File_write_shared(fh, record, RECORD, MPI_CHAR, MPI_STATUS_IGNORE));
    for (int i = 0; i < 5; i++, wrote += RECORD) {
        CHECK_MPI(MPI_File_iwrite_shared(fh, record, RECORD, MPI_CHAR, &request));
        CHECK_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
    }
    for (int i = 0; i < 10; i++, wrote += RECORD)
        CHECK_MPI(MPI_File_write_ordered(fh, record, RECORD, MPI_CHAR, MPI_STATUS_IGNORE));
    for (int i = 0; i < 2; i++, wrote += RECORD) {
        CHECK_MPI(MPI_File_write_ordered_begin(fh, record, RECORD, MPI_CHAR));
        CHECK_MPI(MPI_File_write_ordered_end(fh, record, MPI_STATUS_IGNORE));
    }

    /* Atomic mode, after everything the shared pointer wrote. */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Offset end = 0;
    CHECK_MPI(MPI_File_get_position_shared(fh, &end));
    MPI_Datatype interleaved;
    MPI_Type_create_resized(MPI_INT, 0, (MPI_Aint)sizeof(int) * size, &interleaved);
    MPI_Type_commit(&interleaved);
    CHECK_MPI(MPI_File_set_atomicity(fh, 1));
    CHECK_MPI(MPI_File_set_view(fh, end + rank * (MPI_Offset)sizeof(int), MPI_INT, interleaved,
                                "native", MPI_INFO_NULL));
    static int ints[SIEVED];
    for (int i = 0; i < SIEVED; i++)
        ints[i] = rank * SIEVED + i;
    CHECK_MPI(MPI_File_write_at(fh, 0, ints, SIEVED, MPI_INT, MPI_STATUS_IGNORE));
    wrote += (long long)sizeof ints;
    MPI_Type_free(&interleaved);
    CHECK_MPI(MPI_File_close(&fh));

    char report[4096];
    snprintf(report, sizeof report, "%s.client.%d", argv[1], rank);
    FILE *out = fopen(report, "w");
    CHECK(out != NULL, "cannot create %s", report);
    if (out != NULL) {
        fprintf(out, "%lld\n", wrote);
        fclose(out);
    }
    return testlib_finish_and_finalize();
}
