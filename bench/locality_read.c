/*
 * locality_read.c - bench/locality_e2e's reader: test/programs/share_reader's access
 * (each rank reads its share, offset = rank * (size / nprocs), the last rank the rest,
 * without asking where the data is), timed and repeated.
 *
 *   locality_read FILE OUTDIR [--how at|at_all] [--reps N] [KEY=VALUE ...]
 *
 * Opens FILE read-only with the KEY=VALUE pairs as info hints (piox_locality=remap,
 * dli_map_file=...), then reads the share N + 1 times (default 5 + 1) with
 * MPI_File_read_at_all (default) or MPI_File_read_at into the same buffer: the first
 * read is a warm-up, each read starts after a barrier and is timed on every rank.
 * Every read must return the whole share and the same bytes as the first; those are
 * written to OUTDIR/share.RANK for the driver to check (the shares end to end are the
 * file, or a permutation of its chunks under remapping).
 *
 * Rank 0 prints one JSON line: "program", "mpi", "piox" (libpiox in the process),
 * "ranks", "how", "file_bytes", "open_s" (the slowest rank's MPI_File_open),
 * "read_s" (per timed read, the slowest rank's seconds), "check" ("ok").
 */
#include "benchlib.h"

#include <string.h>

enum how { READ_AT, READ_AT_ALL };

static void read_share(MPI_File fh, enum how how, MPI_Offset offset, char *buf, int length)
{
    MPI_Status status;
    if (how == READ_AT_ALL)
        check_mpi(MPI_File_read_at_all(fh, offset, buf, length, MPI_BYTE, &status),
                  "MPI_File_read_at_all");
    else
        check_mpi(MPI_File_read_at(fh, offset, buf, length, MPI_BYTE, &status),
                  "MPI_File_read_at");
    int count = 0;
    check_mpi(MPI_Get_count(&status, MPI_BYTE, &count), "MPI_Get_count");
    if (count != length)
        die("read %d bytes of a share of %d at offset %lld", count, length, (long long)offset);
}

static double slowest(double seconds)
{
    double most = 0;
    check_mpi(MPI_Reduce(&seconds, &most, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD),
              "MPI_Reduce");
    return most;
}

static void save_share(const char *outdir, const char *buf, int length)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/share.%d", outdir, world_rank);
    FILE *out = fopen(path, "wb");
    if (!out || fwrite(buf, 1, (size_t)length, out) != (size_t)length || fclose(out) != 0)
        die("cannot write %s", path);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    bench_program = "locality_read";
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    if (argc < 3)
        die("usage: locality_read FILE OUTDIR [--how at|at_all] [--reps N] [KEY=VALUE ...]");
    const char *file = argv[1], *outdir = argv[2];
    enum how how = READ_AT_ALL;
    int reps = 5;
    MPI_Info info;
    MPI_Info_create(&info);
    for (int i = 3; i < argc; i++) {
        char *equals = strchr(argv[i], '=');
        if (!strcmp(argv[i], "--how") && i + 1 < argc) {
            const char *name = argv[++i];
            if (strcmp(name, "at") && strcmp(name, "at_all"))
                die("--how %s: expected at or at_all", name);
            how = strcmp(name, "at") ? READ_AT_ALL : READ_AT;
        } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
            reps = atoi(argv[++i]);
            if (reps < 1)
                die("--reps must be at least 1");
        } else if (equals && equals != argv[i]) {
            *equals = '\0';
            MPI_Info_set(info, argv[i], equals + 1);
        } else {
            die("unknown argument %s", argv[i]);
        }
    }

    MPI_File fh;
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    check_mpi(MPI_File_open(MPI_COMM_WORLD, file, MPI_MODE_RDONLY, info, &fh), "MPI_File_open");
    const double open_s = slowest(MPI_Wtime() - start);
    MPI_Offset size = 0;
    check_mpi(MPI_File_get_size(fh, &size), "MPI_File_get_size");
    const MPI_Offset avg = size / world_size;
    const MPI_Offset offset = world_rank * avg;
    const MPI_Offset share = world_rank == world_size - 1 ? size - offset : avg;
    if (share > 1 << 30)
        die("a share of %lld bytes: at most 1 GiB", (long long)share);
    const int length = (int)share;
    char *buf = malloc((size_t)length + 1), *first = malloc((size_t)length + 1);
    double *read_s = calloc((size_t)reps, sizeof *read_s);
    if (!buf || !first || !read_s)
        die("out of memory for a share of %d bytes", length);

    for (int rep = 0; rep <= reps; rep++) {
        MPI_Barrier(MPI_COMM_WORLD);
        start = MPI_Wtime();
        read_share(fh, how, offset, rep ? buf : first, length);
        const double most = slowest(MPI_Wtime() - start);
        if (rep == 0)
            continue;  /* the warm-up */
        read_s[rep - 1] = most;
        if (memcmp(buf, first, (size_t)length) != 0)
            die("read %d returned other bytes than the first", rep);
    }
    check_mpi(MPI_File_close(&fh), "MPI_File_close");
    save_share(outdir, first, length);
    MPI_Info_free(&info);

    if (world_rank == 0) {
        printf("{\"program\": \"locality_read\", \"mpi\": \"%s\", \"piox\": %s, \"ranks\": %d, "
               "\"how\": \"%s\", \"file_bytes\": %lld, \"open_s\": %.6f, \"read_s\": [",
               mpi_name(), piox_loaded() ? "true" : "false", world_size,
               how == READ_AT_ALL ? "at_all" : "at", (long long)size, open_s);
        for (int rep = 0; rep < reps; rep++)
            printf("%s%.6f", rep ? ", " : "", read_s[rep]);
        printf("], \"check\": \"ok\"}\n");
    }
    free(buf);
    free(first);
    free(read_s);
    MPI_Finalize();
    return 0;
}
