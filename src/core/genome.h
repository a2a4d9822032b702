/*
 * genome.h - a candidate's identity: (template, parameter assignment).
 *
 * The genome hash covers the template's content hash and every parameter
 * value in declared order, so the same kernel is never evaluated twice in a
 * run, whatever mutation produced it.
 */
#ifndef KEVO_GENOME_H
#define KEVO_GENOME_H

#include <stdint.h>

#include "tpl.h"

struct genome {
    int tpl;                       /* index into the run's template table */
    int64_t vals[TPL_MAX_PARAMS];  /* tpl->n_params values */
    uint64_t hash;                 /* genome_hash() of the above */
};

/* Hash of (t->hash, vals[0..t->n_params)). */
uint64_t genome_hash(const struct tpl *t, const int64_t *vals);
/* Sets g->hash from its template. */
void genome_rehash(struct genome *g, const struct tpl *t);
/* Writes "BM=128 BN=64 ..." into out[cap]. */
void genome_format(const struct genome *g, const struct tpl *t, char *out,
                   size_t cap);

#endif
