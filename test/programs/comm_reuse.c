/*
 * comm_reuse DIR - shared-pointer files opened again and again on one communicator,
 * on a duplicate of it and on a part of it. piox keeps whether a communicator lies
 * on one node as an attribute of it, copied to its duplicates (adio/one_node.h), so
 * only the first open asks; a communicator that is not a duplicate (the part) must
 * be asked anew. Run with PIOX_HOSTNAME splitting the ranks into nodes and
 * PIOX_DEBUG=1: the transports logged show which answer each open used, and each
 * file must hold every rank's record exactly once.
 *
 * Opens, in order: MPI_COMM_WORLD twice, a duplicate of it, and the ranks of this
 * process's host (by PIOX_HOSTNAME, else the processor name; one file per host).
 * Each rank writes one record with MPI_File_write_shared; the communicator's rank 0
 * reads the file back.
 */
#include "testlib.h"

#include <string.h>

enum { RECORD = 32 };

/* The processes of comm with this process's host name. */
static MPI_Comm same_host(MPI_Comm comm)
{
    char mine[MPI_MAX_PROCESSOR_NAME] = {0};
    const char *forced = getenv("PIOX_HOSTNAME");
    int len = 0, size = 0, rank = 0;
    if (forced != NULL && forced[0] != '\0')
        snprintf(mine, sizeof mine, "%s", forced);
    else
        MPI_Get_processor_name(mine, &len);
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    char *all = calloc((size_t)size, MPI_MAX_PROCESSOR_NAME);
    MPI_Allgather(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, comm);
    int color = 0;
    while (strncmp(all + (size_t)color * MPI_MAX_PROCESSOR_NAME, mine, MPI_MAX_PROCESSOR_NAME) != 0)
        color++;
    free(all);
    MPI_Comm part = MPI_COMM_NULL;
    MPI_Comm_split(comm, color, rank, &part);
    return part;
}

/* One file on comm: every rank's record, once each, in some order. */
static void write_and_check(const char *dir, const char *step, MPI_Comm comm)
{
    char path[4096], record[RECORD + 1];
    int rank = 0, size = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    snprintf(path, sizeof path, "%s/%s.%d", dir, step, size);
    MPI_File fh;
    CHECK_MPI(MPI_File_open(comm, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    snprintf(record, sizeof record, "%-*s", RECORD - 1, step);
    snprintf(record + RECORD - 9, 10, " rank%03d\n", rank);
    CHECK_MPI(MPI_File_write_shared(fh, record, RECORD, MPI_CHAR, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_File_close(&fh));
    MPI_Barrier(comm);
    if (rank != 0)
        return;
    FILE *file = fopen(path, "rb");
    CHECK(file != NULL, "%s: cannot read it back", path);
    if (file == NULL)
        return;
    int *seen = calloc((size_t)size, sizeof *seen);
    int records = 0, writer = -1;
    char got[RECORD + 1] = {0};
    while (fread(got, 1, RECORD, file) == RECORD) {
        records++;
        CHECK(strncmp(got, step, strlen(step)) == 0 && sscanf(got + RECORD - 8, "rank%3d", &writer) == 1 &&
                  writer >= 0 && writer < size,
              "%s: record %d is '%.*s'", path, records, RECORD, got);
        if (writer >= 0 && writer < size)
            seen[writer]++;
        writer = -1;
    }
    fclose(file);
    CHECK(records == size, "%s: %d records, expected %d", path, records, size);
    for (int r = 0; r < size; r++)
        CHECK(seen[r] == 1, "%s: rank %d's record %d times", path, r, seen[r]);
    free(seen);
}

int main(int argc, char **argv)
{
    char dir[4096];
    if (!testlib_start_in_dir(&argc, &argv, dir, sizeof dir))
        return 2;
    write_and_check(dir, "world", MPI_COMM_WORLD);
    write_and_check(dir, "world-again", MPI_COMM_WORLD);
    MPI_Comm dup = MPI_COMM_NULL, part = same_host(MPI_COMM_WORLD);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    write_and_check(dir, "duplicate", dup);
    int first = 0;  /* the part's first world rank names its file */
    MPI_Comm_rank(MPI_COMM_WORLD, &first);
    MPI_Bcast(&first, 1, MPI_INT, 0, part);
    char step[32];
    snprintf(step, sizeof step, "host-of-rank%d", first);
    write_and_check(dir, step, part);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&part);
    return testlib_finish_and_finalize();
}
