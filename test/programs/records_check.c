/*
 * records_check - verifies files made by `records` byte by byte. Not an MPI program.
 *
 *   records_check FILE records NRANKS N SEED [ordered]
 *       FILE holds exactly the records (r, s) for r < NRANKS, s < N, each once,
 *       back to back from offset 0 with no gap and nothing after, every payload
 *       equal to what record_make produces. With `ordered`, records come in calls:
 *       call s holds (0, s), (1, s), ... (NRANKS-1, s) in that order.
 *   records_check FILE chunks NRANKS CHUNK [ordered]
 *       FILE.rank<r>.chunks together hold every CHUNK-byte block of FILE exactly
 *       once (the last may be short). With `ordered`, rank r's i-th chunk is block
 *       i*NRANKS + r.
 * Prints one summary line; exits 0 when everything holds.
 */
#include "record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define FAIL(...) (failures++ < 20 ? (fprintf(stderr, "FAIL: " __VA_ARGS__), fputc('\n', stderr)) : 0)

static unsigned char *slurp(const char *path, long *size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    *size = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *data = malloc((size_t)*size + 1);
    if (fread(data, 1, (size_t)*size, f) != (size_t)*size)
        *size = -1;
    fclose(f);
    return data;
}

static int check_records(const unsigned char *data, long size, int nranks, int n, uint64_t seed,
                         int ordered)
{
    unsigned char *seen = calloc((size_t)nranks * (size_t)n, 1);
    unsigned char expected[RECORD_HEADER + RECORD_MAX_PAYLOAD];
    long offset = 0, count = 0;
    while (offset < size) {
        uint32_t header[5];
        if (size - offset < RECORD_HEADER) {
            FAIL("%ld stray bytes at the end (offset %ld)", size - offset, offset);
            break;
        }
        memcpy(header, data + offset, sizeof header);
        if (header[0] != RECORD_MAGIC || header[1] >= (uint32_t)nranks || header[2] >= (uint32_t)n) {
            FAIL("no valid record at offset %ld (gap, overlap or garbage)", offset);
            break;
        }
        uint32_t rank = header[1], seq = header[2];
        uint32_t len = record_make(expected, rank, seq, seed);
        if (header[3] != len || size - offset < (long)len || memcmp(expected, data + offset, len) != 0) {
            FAIL("record (%u, %u) at offset %ld is damaged", rank, seq, offset);
            break;
        }
        if (seen[(size_t)rank * n + seq]++)
            FAIL("record (%u, %u) appears twice (again at %ld)", rank, seq, offset);
        if (ordered && (seq != (uint32_t)(count / nranks) || rank != (uint32_t)(count % nranks)))
            FAIL("ordered: record %ld is (%u, %u), expected (%ld, %ld)", count, rank, seq,
                 count % nranks, count / nranks);
        offset += len;
        count++;
    }
    if (count != (long)nranks * n)
        FAIL("%ld records, expected %ld", count, (long)nranks * n);
    free(seen);
    printf("records=%ld bytes=%ld %s\n", count, size, failures ? "FAILED" : "ok");
    return failures == 0;
}

static int check_chunks(const char *path, const unsigned char *data, long size, int nranks,
                        long chunk, int ordered)
{
    const long blocks = (size + chunk - 1) / chunk;
    unsigned char *seen = calloc((size_t)blocks + 1, 1);
    long total = 0;
    for (int r = 0; r < nranks; r++) {
        char name[4096];
        long length = 0;
        snprintf(name, sizeof name, "%s.rank%d.chunks", path, r);
        unsigned char *chunks = slurp(name, &length);
        if (chunks == NULL) {
            FAIL("missing %s", name);
            continue;
        }
        for (long at = 0, i = 0; at + 4 <= length; i++) {
            uint32_t len;
            memcpy(&len, chunks + at, 4);
            const unsigned char *piece = chunks + at + 4;
            at += 4 + len;
            /* Which block is it? The ordered position is known; otherwise search the
             * block whose bytes match (payloads are random, so only one does). */
            long block = -1;
            if (len == 0) {
                /* a read at or past the end: allowed only there */
                if (ordered && i * nranks + r < blocks)
                    FAIL("rank %d chunk %ld is empty but block %ld exists", r, i, i * nranks + r);
                continue;
            }
            if (ordered) {
                block = i * nranks + r;
            } else {
                for (long b = 0; b < blocks && block < 0; b++)
                    if (!seen[b] && len == (uint32_t)(b == blocks - 1 ? size - b * chunk : chunk) &&
                        memcmp(data + b * chunk, piece, len) == 0)
                        block = b;
            }
            long want = block >= 0 && block < blocks ? (block == blocks - 1 ? size - block * chunk : chunk) : -1;
            if (block < 0 || block >= blocks || (long)len != want ||
                memcmp(data + block * chunk, piece, len) != 0) {
                FAIL("rank %d chunk %ld (%u bytes) matches no unread block", r, i, len);
                continue;
            }
            if (seen[block]++)
                FAIL("block %ld read twice", block);
            total += len;
        }
        free(chunks);
    }
    for (long b = 0; b < blocks; b++)
        if (!seen[b])
            FAIL("block %ld never read", b);
    free(seen);
    printf("blocks=%ld bytes_read=%ld %s\n", blocks, total, failures ? "FAILED" : "ok");
    return failures == 0 && total == size;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: records_check FILE records NRANKS N SEED [ordered] | "
                        "FILE chunks NRANKS CHUNK [ordered]\n");
        return 2;
    }
    long size = 0;
    unsigned char *data = slurp(argv[1], &size);
    if (data == NULL || size < 0) {
        fprintf(stderr, "FAIL: cannot read %s\n", argv[1]);
        return 1;
    }
    int ok;
    if (strcmp(argv[2], "records") == 0 && argc >= 6)
        ok = check_records(data, size, atoi(argv[3]), atoi(argv[4]), strtoull(argv[5], NULL, 10),
                           argc > 6 && strcmp(argv[6], "ordered") == 0);
    else
        ok = check_chunks(argv[1], data, size, atoi(argv[3]), atol(argv[4]),
                          argc > 5 && strcmp(argv[5], "ordered") == 0);
    free(data);
    return ok ? 0 : 1;
}
