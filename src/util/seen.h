/*
 * seen.h - the set of genome hashes already evaluated (or scheduled) in a
 * run: open addressing with linear probing, grown at 50% load. Hash 0 is
 * stored as 1 (a 2^-64 collision, accepted).
 */
#ifndef KEVO_SEEN_H
#define KEVO_SEEN_H

#include <stdint.h>

#include "status.h"

struct seen {
    uint64_t *keys; /* use the functions */
    long cap, n;
};

int seen_init(struct seen *s) KEVO_WUR;
void seen_release(struct seen *s);
/* Adds h (no-op if present). */
int seen_add(struct seen *s, uint64_t h) KEVO_WUR;
int seen_has(const struct seen *s, uint64_t h);

#endif
