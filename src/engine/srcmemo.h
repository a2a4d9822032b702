/*
 * srcmemo.h - the sources the engine instantiated lately, by what their
 * text depends on (issue 32): a generation's thousand children share a
 * few hundred sources (a launch-only neighbour's is its point's), and
 * each instantiation is a template's text written out and hashed whole
 * (its hash names it in the journal), 4-5 us a softmax child on the
 * build host, most of engine_ms.sources.
 *
 * A key is made of everything tpl_instantiate_hdr's text depends on in
 * one run: the template, the values it writes (with the header of
 * compiled params only, not the launch-only ones), and the facts' values.
 * The texts are lent, not copied (a copy of each cost as much as the
 * hash it saves): they live as long as the memo, which keeps at most
 * SRCMEMO_BYTES of them and instantiates the rest as before.
 */
#ifndef KEVO_SRCMEMO_H
#define KEVO_SRCMEMO_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"
#include "tpl.h"

#define SRCMEMO_BYTES (32L << 20)

struct srcmemo_ent;

struct srcmemo {
    struct srcmemo_ent *tab; /* open addressing, cap a power of two */
    long cap, n;
    size_t bytes;            /* of the texts held */
    size_t cap_bytes;        /* at most (0: SRCMEMO_BYTES) */
};

void srcmemo_release(struct srcmemo *m);

/* The source of template t (index tpl in the run) at vals, as
 * tpl_instantiate_hdr(t, vals, dt, s, compiled_only) gives it, into
 * *text, and its journal hash (hash_final(hash_str(HASH_SEED, text)))
 * into *src_hash: from the memo, or instantiated and kept. *lent = 1: the
 * memo's text, valid until srcmemo_release, not to be freed; 0: a new
 * string (the memo is full), caller frees. KEVO_ENOMEM when out of
 * memory or when a fact cannot be evaluated (as tpl_instantiate_hdr's
 * NULL). */
int srcmemo_get(struct srcmemo *m, const struct tpl *t, int tpl,
                const int64_t *vals, enum dtype dt, const struct shape *s,
                int compiled_only, char **text, uint64_t *src_hash,
                int *lent) KEVO_WUR;

#endif
