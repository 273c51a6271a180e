/* dli_cli.h - what the libdli test programs (dli_query, dli_hdfs_summary) share: their
 * command line and how they print strings and failures as JSON. */
#ifndef DLI_CLI_H
#define DLI_CLI_H

#include <dli.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

/* A JSON string; bytes outside printable ASCII as \u00XX, so any name prints safely. */
static inline void dli_print_string(const char *s)
{
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if (*p < 0x20 || *p >= 0x7f)
            printf("\\u%04x", *p);
        else
            putchar(*p);
    }
    putchar('"');
}

/* Prints {"rank":R,"error":CODE,"name":"...","message":"..."} and returns 1 when rc is
 * not DLI_SUCCESS; returns 0 otherwise. */
static inline int dli_print_failure(int rank, int rc)
{
    if (rc == DLI_SUCCESS)
        return 0;
    printf("{\"rank\":%d,\"error\":%d,\"name\":", rank, rc);
    dli_print_string(DLI_strerror(rc));
    printf(",\"message\":");
    dli_print_string(DLI_last_error());
    printf("}\n");
    return 1;
}

/* [--init] [--load] [--dir] [--hint KEY=VALUE]... NAME [HOST...] */
struct dli_cli {
    int init, load, directory;
    MPI_Info info;       /* the hints; free with MPI_Info_free */
    const char *name;
    const char **hosts;  /* NULL-terminated, or NULL when none was given */
};

/* Parses argv (after MPI_Init); a bad command line aborts the job with USAGE. --dir is
 * accepted only when ALLOW_DIRECTORY. */
static inline struct dli_cli dli_parse_cli(int argc, char **argv, int allow_directory, const char *usage)
{
    struct dli_cli cli = {0, 0, 0, MPI_INFO_NULL, NULL, NULL};
    int rank = 0, a = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* MPICH's MPI_Init leaves stdout unbuffered, a write per byte: a huge table would
     * crawl. A buffer of our own, since glibc keeps the 1-byte one when given none. The
     * programs flush before each barrier. */
    static char stdout_buffer[1 << 16];
    setvbuf(stdout, stdout_buffer, _IOFBF, sizeof stdout_buffer);
    MPI_Info_create(&cli.info);
    for (; a < argc && strncmp(argv[a], "--", 2) == 0; ++a) {
        if (strcmp(argv[a], "--init") == 0)
            cli.init = 1;
        else if (strcmp(argv[a], "--load") == 0)
            cli.load = 1;
        else if (allow_directory && strcmp(argv[a], "--dir") == 0)
            cli.directory = 1;
        else if (strcmp(argv[a], "--hint") == 0 && a + 1 < argc && strchr(argv[a + 1], '=')) {
            char *setting = argv[++a], *eq = strchr(setting, '=');
            *eq = '\0';
            MPI_Info_set(cli.info, setting, eq + 1);
        } else {
            if (rank == 0)
                fprintf(stderr, "unknown option %s\nusage: %s\n", argv[a], usage);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (a >= argc) {
        if (rank == 0)
            fprintf(stderr, "usage: %s\n", usage);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    cli.name = argv[a++];
    cli.hosts = a < argc ? (const char **)&argv[a] : NULL; /* argv[argc] is NULL */
    return cli;
}

/* Runs QUERY on each rank in turn (rank order, so the lines do not mix), after DLI_Init
 * and DLI_Load when asked, and DLI_Finalize after. A failed setup is printed instead of
 * the query. Returns 1 when anything failed on this rank. */
typedef int (*dli_query_fn)(int rank, const struct dli_cli *cli);

static inline int dli_run_in_rank_order(const struct dli_cli *cli, dli_query_fn query)
{
    int rank = 0, size = 1, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int setup = cli->init ? DLI_Init(MPI_COMM_WORLD, cli->info) : DLI_SUCCESS;
    int finalize = cli->init && setup == DLI_SUCCESS;
    if (setup == DLI_SUCCESS && cli->load)
        setup = DLI_Load(cli->name);
    for (int r = 0; r < size; ++r) {
        if (r == rank)
            bad = dli_print_failure(rank, setup) || query(rank, cli);
        fflush(stdout);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (finalize)
        bad |= dli_print_failure(rank, DLI_Finalize());
    return bad;
}

#endif /* DLI_CLI_H */
