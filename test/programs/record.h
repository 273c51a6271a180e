/*
 * record.h - self-describing records for the record-integrity tests. A record is a
 * 20-byte header (magic, writer rank, sequence number, total length, checksum of
 * the payload) followed by 1..4096 payload bytes derived from (rank, sequence), so
 * a reader can check each record on its own. test/integration/records.py parses
 * the same format.
 */
#ifndef PIOX_RECORD_H
#define PIOX_RECORD_H

#include <stdint.h>
#include <string.h>

#define RECORD_MAGIC 0x43525850u /* "PXRC" little-endian */
#define RECORD_HEADER 20
#define RECORD_MAX_PAYLOAD 4096

static uint32_t record_next_random(uint64_t *state)
{
    /* xorshift64*: deterministic, so lengths and payloads can be recomputed */
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return (uint32_t)((*state * 2685821657736338717ull) >> 32);
}

static uint32_t record_fnv1a(const unsigned char *data, uint32_t n)
{
    uint32_t h = 2166136261u;
    for (uint32_t i = 0; i < n; i++)
        h = (h ^ data[i]) * 16777619u;
    return h;
}

/* Fills out (at least RECORD_HEADER + RECORD_MAX_PAYLOAD bytes) with record
 * (rank, seq) and returns its total length. */
static uint32_t record_make(unsigned char *out, uint32_t rank, uint32_t seq, uint64_t seed)
{
    uint64_t state = seed * 0x9E3779B97F4A7C15ull + ((uint64_t)rank << 32) + seq + 1;
    uint32_t payload = 1 + record_next_random(&state) % RECORD_MAX_PAYLOAD;
    for (uint32_t i = 0; i < payload; i++)
        out[RECORD_HEADER + i] = (unsigned char)record_next_random(&state);
    uint32_t header[5] = {RECORD_MAGIC, rank, seq, RECORD_HEADER + payload,
                          record_fnv1a(out + RECORD_HEADER, payload)};
    memcpy(out, header, sizeof header);
    return RECORD_HEADER + payload;
}

#endif
