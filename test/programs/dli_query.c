/* dli_query: asks libdli about one file (or directory) through each of the paper's six
 * functions and prints what they said as one JSON object per rank, for the tests to
 * cross-check against the storage's own answer.
 *
 *   mpiexec -n N dli_query [--init] [--load] [--dir] [--hint KEY=VALUE]... NAME [HOST...]
 *
 *   --init   DLI_Init(MPI_COMM_WORLD, the hints) first (and DLI_Finalize at the end)
 *   --load   DLI_Load(NAME) after DLI_Init (collective)
 *   --dir    NAME is a directory: print DLI_map_Dprocess_Dchunks instead
 *   HOST...  the processes to ask about (default: the calling rank's own host)
 *
 * Each rank prints, in rank order:
 *   {"rank":R,"host":"...","map":{...DLI_map_chunks_process...},
 *    "hosts":{"H":{"chunks":[i,...],"total":N,"percentage":P},...},
 *    "check":[true,false,...]}            (DLI_check_data at each chunk's first byte)
 * or {"rank":R,"error":CODE,"name":"DLI_ERR_...","message":"..."} when a call fails.
 * Exits 0 when every call succeeded, 3 otherwise (after MPI_Finalize).
 */
#include <dli.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_string(const char *s)
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

static void print_chunk_list(const DLI_Chunk_list *list)
{
    printf("{\"file\":");
    print_string(list->file);
    printf(",\"size\":%lld,\"total\":%d,\"chunks\":[", (long long)list->file_size, list->total_chunks);
    for (int i = 0; i < list->count; ++i) {
        const DLI_Chunk *c = &list->chunks[i];
        printf("%s{\"index\":%d,\"offset\":%lld,\"length\":%lld,\"hosts\":[", i ? "," : "", c->index,
               (long long)c->offset, (long long)c->length);
        for (int h = 0; h < c->nhosts; ++h) {
            if (h)
                putchar(',');
            print_string(c->hosts[h]);
        }
        printf("]}");
    }
    printf("]}");
}

static void print_chunk_map(const DLI_Chunk_map *map)
{
    printf("{\"all\":");
    print_chunk_list(&map->all);
    printf(",\"processes\":[");
    for (int p = 0; p < map->nprocesses; ++p) {
        const DLI_Process_chunks *pc = &map->processes[p];
        printf("%s{\"process\":", p ? "," : "");
        print_string(pc->process);
        printf(",\"local_bytes\":%lld,\"chunks\":[", (long long)pc->local_bytes);
        for (int i = 0; i < pc->count; ++i)
            printf("%s%d", i ? "," : "", pc->chunk_index[i]);
        printf("]}");
    }
    printf("]}");
}

/* Prints the error object and returns 1 when rc is not DLI_SUCCESS. */
static int failed(int rank, int rc)
{
    if (rc == DLI_SUCCESS)
        return 0;
    printf("{\"rank\":%d,\"error\":%d,\"name\":", rank, rc);
    print_string(DLI_strerror(rc));
    printf(",\"message\":");
    print_string(DLI_last_error());
    printf("}\n");
    return 1;
}

/* The file part: the map, each host's own view, and DLI_check_data per chunk. */
static int query_file(int rank, const char *me, const char *name, const char **hosts)
{
    DLI_Chunk_map *map = NULL;
    if (failed(rank, DLI_map_chunks_process(name, hosts, &map)))
        return 1;
    int bad = 0;
    printf("{\"rank\":%d,\"host\":", rank);
    print_string(me);
    printf(",\"map\":");
    print_chunk_map(map);
    printf(",\"hosts\":{");
    for (int h = 0; hosts[h] && !bad; ++h) {
        DLI_Chunk_list *mine = NULL;
        int total = -1;
        double percentage = -1;
        bad = DLI_map_process_chunks(name, hosts[h], &mine) || DLI_get_total_chunks(name, hosts[h], &total) ||
              DLI_get_data_percentage(name, hosts[h], &percentage);
        if (bad)
            break;
        printf("%s", h ? "," : "");
        print_string(hosts[h]);
        printf(":{\"chunks\":[");
        for (int i = 0; i < mine->count; ++i)
            printf("%s%d", i ? "," : "", mine->chunks[i].index);
        printf("],\"total\":%d,\"percentage\":%.9g}", total, percentage);
        DLI_free(mine);
    }
    printf("},\"check\":[");
    for (int i = 0; i < map->all.count && !bad; ++i) {
        size_t offset = (size_t)map->all.chunks[i].offset;
        bool local = false;
        bad = DLI_check_data(name, &offset, &local);
        printf("%s%s", i ? "," : "", local ? "true" : "false");
    }
    printf("]}\n");
    if (bad) { /* the object above is incomplete: say why on a line of its own */
        printf("{\"rank\":%d,\"error\":-1,\"message\":", rank);
        print_string(DLI_last_error());
        printf("}\n");
    }
    DLI_free(map);
    return bad;
}

static int query_directory(int rank, const char *name, const char **hosts)
{
    DLI_Directory_map *map = NULL;
    if (failed(rank, DLI_map_Dprocess_Dchunks(name, hosts, &map)))
        return 1;
    printf("{\"rank\":%d,\"directory\":", rank);
    print_string(map->directory);
    printf(",\"files\":[");
    for (int f = 0; f < map->nfiles; ++f) {
        if (f)
            putchar(',');
        print_chunk_map(&map->files[f]);
    }
    printf("]}\n");
    DLI_free(map);
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int init = 0, load = 0, directory = 0, a = 1;
    MPI_Info info;
    MPI_Info_create(&info);
    for (; a < argc && strncmp(argv[a], "--", 2) == 0; ++a) {
        if (strcmp(argv[a], "--init") == 0)
            init = 1;
        else if (strcmp(argv[a], "--load") == 0)
            load = 1;
        else if (strcmp(argv[a], "--dir") == 0)
            directory = 1;
        else if (strcmp(argv[a], "--hint") == 0 && a + 1 < argc && strchr(argv[a + 1], '=')) {
            char *setting = argv[++a], *eq = strchr(setting, '=');
            *eq = '\0';
            MPI_Info_set(info, setting, eq + 1);
        } else {
            if (rank == 0)
                fprintf(stderr, "dli_query: unknown option %s\n", argv[a]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (a >= argc) {
        if (rank == 0)
            fprintf(stderr, "usage: dli_query [--init] [--load] [--dir] [--hint K=V]... NAME [HOST...]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *name = argv[a++];
    char me[MPI_MAX_PROCESSOR_NAME + 256];
    DLI_get_process_name(me, (int)sizeof me);
    const char *own[2] = {me, NULL};
    const char **hosts = a < argc ? (const char **)&argv[a] : own; /* argv[argc] is NULL */

    int setup = DLI_SUCCESS, bad = 0;
    if (init)
        setup = DLI_Init(MPI_COMM_WORLD, info);
    int finalize = init && setup == DLI_SUCCESS;
    if (setup == DLI_SUCCESS && load)
        setup = DLI_Load(name);
    for (int r = 0; r < size; ++r) { /* print in rank order */
        if (r == rank)
            bad = failed(rank, setup) ||
                  (directory ? query_directory(rank, name, hosts) : query_file(rank, me, name, hosts));
        fflush(stdout);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (finalize)
        bad |= failed(rank, DLI_Finalize());
    MPI_Info_free(&info);
    MPI_Finalize();
    return bad ? 3 : 0;
}
