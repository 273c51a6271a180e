/* desync_sum: a small DesyncFS job on the installed libdesync: 4 blocks of one int,
 * block (v, x) = block (v - 1, x) + 1 from 0 at version 0, 5 versions; rank 0 prints
 * "total=16" (4 blocks of 4). Built with `pkg-config --cflags --libs desync` by
 * installcheck/check. */
#include <desync.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static long mine;

static int deps(const blockaddr *b, const chunkdesc *file, baddrslist *list, int dir)
{
    int v = b->dims[1] + (dir == DESYNCH_FORWARD ? 1 : -1);
    list->num = 0;
    if (v >= file->dims[1].min && v <= file->dims[1].max) {
        int *d = list->baddrs[list->num++].dims;
        d[0] = 0, d[1] = v, d[2] = b->dims[2];
    }
    return 1;
}

static void compute(const blockaddr *b, const chunkdesc *file)
{
    (void)file;
    int *value = desynchBlockMake(sizeof(int)), previous[3] = {0, b->dims[1] - 1, b->dims[2]};
    blockaddr before = {3, previous};
    const void *data;
    size_t len;
    rd_handle h = b->dims[1] > 0 ? desynchBlockRead(&before, &data, &len) : NULL;
    *value = h ? *(const int *)data + 1 : 0;
    if (h)
        desynchBlockFree(h);
    desynchBlockWrite(b, value, sizeof(int));
}

struct cursor {
    int version, x, last;
};

static void *iter_init(const chunkdesc *c)
{
    struct cursor *it = malloc(sizeof *it);
    *it = (struct cursor){c->dims[1].min, c->dims[2].min, c->dims[2].max};
    return it;
}

static int iter_next(void *iter, blockaddr *b)
{
    struct cursor *it = iter;
    if (it->x > it->last)
        return 0;
    b->dims[0] = 0, b->dims[1] = it->version, b->dims[2] = it->x++;
    return 1;
}

static void iter_done(void *iter)
{
    free(iter);
}

static void result(const blockaddr *b, const void *data, size_t len)
{
    (void)b, (void)len;
    mine += *(const int *)data;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "desync_files", "0:5:4");
    desynch_app app = {deps, compute, iter_init, iter_next, iter_done, result};
    int rc = desynch_Run(MPI_COMM_WORLD, info, &app, NULL), rank;
    long total = 0;
    MPI_Reduce(&mine, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rc != DESYNC_SUCCESS)
        fprintf(stderr, "desync_sum: %s\n", desynch_Last_message());
    else if (rank == 0)
        printf("total=%ld\n", total);
    MPI_Info_free(&info);
    MPI_Finalize();
    return rc == DESYNC_SUCCESS ? 0 : 1;
}
