/* desync_line.h - the 1-D applications of the libdesync tests (desync_chain.c,
 * desync_errors.c): one file of line_blocks blocks per version; block (v, x) is made
 * from blocks (v - 1, x - line_radius .. x + line_radius) inside the file, and the
 * callbacks for dependencies and the chunk iterator that such a line needs. */
#ifndef PIOX_DESYNC_LINE_H
#define PIOX_DESYNC_LINE_H

#include "desync.h"

#include <stdlib.h>

static long line_blocks, line_radius;
static int line_iterator_overruns; /* set: the iterator gives one block past its chunk */

static int line_deps(const blockaddr *b, const chunkdesc *file, baddrslist *list, int dir)
{
    int v = b->dims[1] + (dir == DESYNCH_FORWARD ? 1 : -1);
    list->num = 0;
    if (v < file->dims[1].min || v > file->dims[1].max)
        return 1;
    if (list->maxnum < 2 * line_radius + 1) {
        list->num = (int)(2 * line_radius + 1);
        return 1;
    }
    for (long x = b->dims[2] - line_radius; x <= b->dims[2] + line_radius; x++)
        if (x >= 0 && x < line_blocks) {
            int *d = list->baddrs[list->num++].dims;
            d[0] = 0, d[1] = v, d[2] = (int)x;
        }
    return 1;
}

struct line_cursor {
    int version, x, last;
};

static void *line_iter_init(const chunkdesc *chunk)
{
    struct line_cursor *c = malloc(sizeof *c);
    if (c)
        *c = (struct line_cursor){chunk->dims[1].min, chunk->dims[2].min,
                                  chunk->dims[2].max + (line_iterator_overruns ? 1 : 0)};
    return c;
}

static int line_iter_next(void *iter, blockaddr *b)
{
    struct line_cursor *c = iter;
    if (!c || c->x > c->last)
        return 0;
    b->numdims = 3;
    b->dims[0] = 0, b->dims[1] = c->version, b->dims[2] = c->x++;
    return 1;
}

static void line_iter_done(void *iter)
{
    free(iter);
}

#endif
