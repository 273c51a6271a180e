/*
 * shared_log - an ordinary MPI program that keeps a shared log file: every rank
 * appends lines with MPI_File_write_shared, then all ranks add a summary line each,
 * in rank order, with MPI_File_write_ordered. It knows nothing about piox.
 *
 *   mpiexec -n 4 ./shared_log FILE [LINES_PER_RANK]
 *
 * Rank 0 prints the time per call of each phase and checks the file: every line
 * present exactly once, the summary in rank order.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE 64 /* every line is exactly LINE bytes, newline included */

static void format_line(char *out, const char *kind, int rank, int seq)
{
    char text[LINE + 1];
    snprintf(text, sizeof text, "%-8s rank %4d line %8d", kind, rank, seq);
    memset(out, ' ', LINE);
    memcpy(out, text, strlen(text));
    out[LINE - 1] = '\n';
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: shared_log FILE [LINES_PER_RANK]\n");
        MPI_Finalize();
        return 2;
    }
    const int lines = argc > 2 ? atoi(argv[2]) : 2000;
    const int summaries = 50;
    char line[LINE];
    MPI_File fh;
    MPI_File_delete(argv[1], MPI_INFO_NULL); /* start afresh; a missing file is fine */
    MPI_Barrier(MPI_COMM_WORLD);
    if (MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
                      &fh) != MPI_SUCCESS) {
        fprintf(stderr, "cannot open %s\n", argv[1]);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    for (int i = 0; i < lines; i++) {
        format_line(line, "event", rank, i);
        MPI_File_write_shared(fh, line, LINE, MPI_CHAR, MPI_STATUS_IGNORE);
    }
    double shared_time = MPI_Wtime() - start;
    MPI_Barrier(MPI_COMM_WORLD);
    start = MPI_Wtime();
    for (int i = 0; i < summaries; i++) {
        format_line(line, "summary", rank, i);
        MPI_File_write_ordered(fh, line, LINE, MPI_CHAR, MPI_STATUS_IGNORE);
    }
    double ordered_time = MPI_Wtime() - start;
    MPI_File_close(&fh);

    double worst[2], mine[2] = {shared_time, ordered_time};
    MPI_Reduce(mine, worst, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    int status = 0;
    if (rank == 0) {
        /* Check: every event line once; summaries in rank order after them. */
        FILE *f = fopen(argv[1], "r");
        char *seen = calloc((size_t)size * (size_t)lines, 1);
        long events = 0, expected_summary = 0, bad = 0;
        char text[LINE + 1];
        while (f != NULL && fread(text, 1, LINE, f) == LINE) {
            text[LINE] = '\0';
            char kind[16];
            int r, s;
            if (sscanf(text, "%15s rank %d line %d", kind, &r, &s) != 3 || r < 0 || r >= size)
                bad++;
            else if (strcmp(kind, "event") == 0 && s < lines && !seen[(long)r * lines + s]++)
                events++;
            else if (strcmp(kind, "summary") == 0 && expected_summary == (long)s * size + r)
                expected_summary++;
            else
                bad++;
        }
        if (f != NULL)
            fclose(f);
        free(seen);
        status = events == (long)size * lines && expected_summary == (long)size * summaries && !bad;
        printf("shared_log: %d ranks, %ld event lines, %ld summary lines in rank order: %s\n", size,
               events, expected_summary, status ? "file OK" : "FILE DAMAGED");
        printf("shared_log: write_shared  %9.2f us/call\n", 1e6 * worst[0] / lines);
        printf("shared_log: write_ordered %9.2f us/call\n", 1e6 * worst[1] / summaries);
        status = status ? 0 : 1;
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}
