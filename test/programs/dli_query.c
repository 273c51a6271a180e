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
#include "dli_cli.h"

static void print_chunk_list(const DLI_Chunk_list *list)
{
    printf("{\"file\":");
    dli_print_string(list->file);
    printf(",\"size\":%lld,\"total\":%d,\"chunks\":[", (long long)list->file_size, list->total_chunks);
    for (int i = 0; i < list->count; ++i) {
        const DLI_Chunk *c = &list->chunks[i];
        printf("%s{\"index\":%d,\"offset\":%lld,\"length\":%lld,\"hosts\":[", i ? "," : "", c->index,
               (long long)c->offset, (long long)c->length);
        for (int h = 0; h < c->nhosts; ++h) {
            if (h)
                putchar(',');
            dli_print_string(c->hosts[h]);
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
        dli_print_string(pc->process);
        printf(",\"local_bytes\":%lld,\"chunks\":[", (long long)pc->local_bytes);
        for (int i = 0; i < pc->count; ++i)
            printf("%s%d", i ? "," : "", pc->chunk_index[i]);
        printf("]}");
    }
    printf("]}");
}

/* The file part: the map, each host's own view, and DLI_check_data per chunk. */
static int query_file(int rank, const char *me, const char *name, const char **hosts)
{
    DLI_Chunk_map *map = NULL;
    if (dli_print_failure(rank, DLI_map_chunks_process(name, hosts, &map)))
        return 1;
    int bad = 0;
    printf("{\"rank\":%d,\"host\":", rank);
    dli_print_string(me);
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
        dli_print_string(hosts[h]);
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
        dli_print_string(DLI_last_error());
        printf("}\n");
    }
    DLI_free(map);
    return bad;
}

static int query_directory(int rank, const char *name, const char **hosts)
{
    DLI_Directory_map *map = NULL;
    if (dli_print_failure(rank, DLI_map_Dprocess_Dchunks(name, hosts, &map)))
        return 1;
    printf("{\"rank\":%d,\"directory\":", rank);
    dli_print_string(map->directory);
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

/* One rank's answers: the directory's maps, or the file's about HOST... (default: the
 * rank's own host). */
static int query(int rank, const struct dli_cli *cli)
{
    char me[MPI_MAX_PROCESSOR_NAME + 256];
    DLI_get_process_name(me, (int)sizeof me);
    const char *own[2] = {me, NULL};
    const char **hosts = cli->hosts ? cli->hosts : own;
    return cli->directory ? query_directory(rank, cli->name, hosts) : query_file(rank, me, cli->name, hosts);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct dli_cli cli =
        dli_parse_cli(argc, argv, 1, "dli_query [--init] [--load] [--dir] [--hint K=V]... NAME [HOST...]");
    int bad = dli_run_in_rank_order(&cli, query);
    MPI_Info_free(&cli.info);
    MPI_Finalize();
    return bad ? 3 : 0;
}
