/* dli_hdfs_summary: the chunk table of one (possibly huge) file through libdli, in one
 * DLI_map_chunks_process call, plus DLI_get_total_chunks and DLI_get_data_percentage for
 * each HOST. For lists too long for dli_query, which calls DLI_check_data per chunk.
 *
 *   mpiexec -n N dli_hdfs_summary [--init] [--load] [--hint KEY=VALUE]... NAME [HOST...]
 *
 *   --init   DLI_Init(MPI_COMM_WORLD, the hints) first (and DLI_Finalize at the end)
 *   --load   DLI_Load(NAME) after DLI_Init (collective: rank 0 asks the storage once)
 *
 * Each rank prints one line, in rank order:
 *   {"rank":R,"file":"...","size":S,"total":T,
 *    "chunks":[[OFFSET,LENGTH,"HOST",...],...],"hosts":{"H":{"total":N,"percentage":P},...}}
 * or {"rank":R,"error":CODE,"name":"DLI_ERR_...","message":"..."} when a call fails.
 * Exits 0 when every call succeeded, 3 otherwise (after MPI_Finalize).
 */
#include "dli_cli.h"

static void print_chunks(const DLI_Chunk_list *list)
{
    printf("[");
    for (int i = 0; i < list->count; ++i) {
        const DLI_Chunk *c = &list->chunks[i];
        printf("%s[%lld,%lld", i ? "," : "", (long long)c->offset, (long long)c->length);
        for (int h = 0; h < c->nhosts; ++h) {
            putchar(',');
            dli_print_string(c->hosts[h]);
        }
        putchar(']');
    }
    printf("]");
}

static int summarize(int rank, const struct dli_cli *cli)
{
    static const char *no_hosts[1] = {NULL};
    const char **hosts = cli->hosts ? cli->hosts : no_hosts;
    DLI_Chunk_map *map = NULL;
    if (dli_print_failure(rank, DLI_map_chunks_process(cli->name, hosts, &map)))
        return 1;
    printf("{\"rank\":%d,\"file\":", rank);
    dli_print_string(map->all.file);
    printf(",\"size\":%lld,\"total\":%d,\"chunks\":", (long long)map->all.file_size, map->all.total_chunks);
    print_chunks(&map->all);
    DLI_free(map);
    printf(",\"hosts\":{");
    int rc = DLI_SUCCESS;
    for (int h = 0; hosts[h] && rc == DLI_SUCCESS; ++h) {
        int total = -1;
        double percentage = -1;
        rc = DLI_get_total_chunks(cli->name, hosts[h], &total);
        if (rc == DLI_SUCCESS)
            rc = DLI_get_data_percentage(cli->name, hosts[h], &percentage);
        printf("%s", h ? "," : "");
        dli_print_string(hosts[h]);
        printf(":{\"total\":%d,\"percentage\":%.9g}", total, percentage);
    }
    printf("}}\n");
    return dli_print_failure(rank, rc); /* a failure here gets a line of its own */
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct dli_cli cli = dli_parse_cli(argc, argv, 0, "dli_hdfs_summary [--init] [--load] [--hint K=V]... NAME [HOST...]");
    int bad = dli_run_in_rank_order(&cli, summarize);
    MPI_Info_free(&cli.info);
    MPI_Finalize();
    return bad ? 3 : 0;
}
