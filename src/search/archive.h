/*
 * archive.h - the diversity archive (MAP-Elites): the best kernel found in
 * each cell of a grid of kernel-meaningful descriptors, so that one family
 * cannot take over the population. Cells: template, threads per block
 * (log2), shared memory per block (log2 KB buckets), registers per thread
 * (buckets of 32) as measured by the compiler. Parents are sometimes drawn
 * from here instead of from an island.
 */
#ifndef KEVO_ARCHIVE_H
#define KEVO_ARCHIVE_H

#include <cJSON.h>
#include <stdint.h>

#include "genome.h"
#include "rng.h"

struct archive_desc {
    int tpl;          /* template index */
    int threads_log2; /* log2 of threads per block of launch 0 */
    int smem_log2;    /* log2(1 + shared memory KB) of launch 0 */
    int regs_bucket;  /* registers per thread / 32 (-1 = unknown) */
};

struct archive_cell {
    uint64_t key;          /* hash of the descriptor */
    struct archive_desc d;
    struct genome g;       /* the elite */
    double fitness;
};

struct archive {
    int n, cap;
    struct archive_cell *cells; /* sorted by key for determinism */
};

void archive_init(struct archive *a);
void archive_release(struct archive *a);
/* Offers g with fitness; keeps it if its cell is empty or it is better
 * (ties go to the lower genome hash). Returns 1 if kept, 0 if not, or a
 * negative status on allocation failure. */
int archive_offer(struct archive *a, const struct archive_desc *d,
                  const struct genome *g, double fitness);
/* A uniformly chosen elite, or NULL if the archive is empty. */
const struct archive_cell *archive_pick(const struct archive *a,
                                        struct rng *r);
cJSON *archive_to_json(const struct archive *a);
int archive_from_json(struct archive *a, const cJSON *arr) KEVO_WUR;

#endif
