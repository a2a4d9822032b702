/*
 * engine_defer.c - candidates handed back unmeasured (spec "defer", issue
 * 32): no generation waits for its slowest compiles.
 *
 * Why: a generation ends when its last candidate is measured, and its
 * slowest compile sets that: fp32 GEMM 4096^3 on two H200s waited 5-9 s
 * a generation for one or two sgemm_warptile compiles of 7-9 s while
 * the GPUs had nothing left to measure and the compilers had nothing
 * left to compile (bench/results/2026-11-29-h200x2-s21).
 *
 * What: the engine lets the evaluator defer up to an eighth of a batch
 * (evaluator_ops.set_defer): a candidate whose compile has not ended
 * when every other one is measured comes back with deferred set. The
 * engine journals a "defer" record for it, takes it out of the
 * generation (no result: it is not selected, counted or learnt from) and
 * makes it the first child of the next generation, where its compile,
 * which went on meanwhile, is ready or nearly so.
 *
 * Determinism: which candidates were deferred is a decision recorded in
 * the journal, in its place among the results; a replay or a resume
 * reads it there (runlog_evaluate gives a recorded "defer" as a deferred
 * result) and the engine does the same with it. The carried children
 * are part of the checkpoint.
 *
 * At the time budget (eval.h set_deadline) the evaluator measures nothing
 * more and hands back every candidate not measured by then deferred,
 * beyond the allowance (records with "end": true; measured candidates
 * after them in the batch's order are recorded as usual, in their place):
 * the run ends on time with everything it
 * measured recorded and its generation finished, and a resume with a
 * larger budget measures those first (before, the run stopped at the
 * first result after its budget, waited for the compiles still running
 * and dropped what the GPU had measured behind them).
 *
 * Runs with LLM mutation (their answers join generations their own way)
 * and pipelined runs (the next generation is bred before this one ends)
 * do not defer.
 */
#include "engine_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "records.h"

/* At most one candidate in DEFER_SHARE of a batch may be deferred. */
#define DEFER_SHARE 8

int engine_defer_on(const struct engine *e)
{
    return e->env.spec->defer && !e->env.llm_on && !e->env.spec->pipeline;
}

int engine_defer_max(const struct engine *e)
{
    int n = 0; /* (optional ones are dropped, never deferred) */
    for (int k = 0; k < e->n_kids; k++)
        n += !e->kids[k].optional;
    return engine_defer_on(e) ? n / DEFER_SHARE : 0;
}

/* 1 if the journal being replayed holds generation gen's end: the
 * generation is replayed whole. (The replay of a journal that ends
 * inside a generation makes that one only as large as what it recorded,
 * so its allowance is smaller than the one the run had.) */
static int gen_recorded(const struct engine *e, int gen)
{
    const cJSON *r;
    for (long i = runlog_pos(e->env.log);
         (r = runlog_recorded(e->env.log, i)); i++)
        if (rec_type_of(r) == REC_GEN)
            return record_int(r, "gen", -1) == gen;
    return 0;
}

/* Kid idx's "defer" record (kind: eval_result.deferred; 3, an optional
 * kid dropped, leaves the generation: engine_defer_carry). */
static int put_defer(struct engine *e, int idx, int kind)
{
    struct child *c = &e->kids[idx];
    c->deferred = kind;
    struct rec_defer d = {.gen = e->gen, .idx = idx, .hash = c->g.hash,
                          .end = kind == 2, .dropped = kind == 3,
                          .t = engine_elapsed_s(e)};
    cJSON *rec = rec_defer_json(&d);
    int rc = rec ? runlog_put(e->env.log, rec, 0) : KEVO_ENOMEM;
    cJSON_Delete(rec);
    return rc;
}

int engine_defer_note(struct engine *e, int idx, int kind)
{
    struct child *c = &e->kids[idx];
    /* dropped: optional ones only; one an evaluator that cannot drop
     * deferred (a run resumed on several GPUs) is dropped all the same */
    if (c->optional && (kind == 3 || !runlog_replaying(e->env.log)))
        return put_defer(e, idx, 3);
    if (kind == 3 || c->optional) {
        if (runlog_replaying(e->env.log))
            return runlog_refuse(e->env.log, kind == 3
                ? "the journal drops a candidate that was not optional"
                : "the journal defers an optional candidate");
        snprintf(e->errbuf, sizeof e->errbuf, "internal: the evaluator "
                 "dropped or deferred a candidate it was not allowed to");
        return KEVO_EINTERNAL;
    }
    int end = kind == 2;
    int before = 0;
    for (int k = 0; k < e->n_kids; k++)
        before += e->kids[k].deferred == 1;
    int over = !end && before >= engine_defer_max(e) &&
               (!runlog_replaying(e->env.log) || gen_recorded(e, e->gen));
    if (!engine_defer_on(e) || over) {
        if (runlog_replaying(e->env.log))
            return runlog_refuse(e->env.log, !engine_defer_on(e)
                ? "the journal defers a candidate here, which this run "
                  "cannot do (its spec has no \"defer\": 1, or it "
                  "pipelines or mutates with an LLM)"
                : "the journal defers more of this generation's "
                  "candidates than an eighth of them");
        snprintf(e->errbuf, sizeof e->errbuf, "internal: the evaluator "
                 "deferred a candidate it was not allowed to");
        return KEVO_EINTERNAL;
    }
    return put_defer(e, idx, end ? 2 : 1);
}

static int carry_add(struct engine *e, const struct child *c)
{
    if (e->n_carry == e->cap_carry) {
        int cap = e->cap_carry ? e->cap_carry * 2 : 16;
        void *p = realloc(e->carry, sizeof *e->carry * (size_t)cap);
        if (!p)
            return KEVO_ENOMEM;
        e->carry = p;
        e->cap_carry = cap;
    }
    e->carry[e->n_carry] = *c;
    e->carry[e->n_carry].deferred = 0;
    eval_result_init(&e->carry[e->n_carry].r);
    e->n_carry++;
    return KEVO_OK;
}

int engine_defer_carry(struct engine *e)
{
    int w = 0, rc = KEVO_OK;
    for (int k = 0; k < e->n_kids; k++) {
        struct child *c = &e->kids[k];
        if (!c->deferred) {
            e->kids[w++] = *c;
            continue;
        }
        if (!rc && c->deferred != 3) /* (a dropped one is not carried) */
            rc = carry_add(e, c); /* the source moves with it */
        e->gen_dropped += c->deferred == 3;
        if (rc || c->deferred == 3)
            engine_free_source(c);
        eval_result_release(&c->r);
    }
    e->n_kids = w;
    return rc;
}

int engine_defer_take(struct engine *e)
{
    int rc = KEVO_OK, k = 0;
    /* as many as the evaluation budget leaves (a run that ended at its
     * time budget with many deferred, resumed with --evals): the rest stay
     * carried, first in line for a resume with a larger budget */
    long left = engine_evals_left(e);
    for (; k < e->n_carry && !rc && e->n_kids < left; k++) {
        int before = e->n_kids; /* (already seen: seen_add adds nothing) */
        rc = engine_add_child(e, &e->carry[k]);
        if (e->n_kids == before) /* not taken: its source is ours */
            engine_free_source(&e->carry[k]);
    }
    if (rc) { /* (what was not offered is freed) */
        for (; k < e->n_carry; k++)
            engine_free_source(&e->carry[k]);
        e->n_carry = 0;
        return rc;
    }
    if (k > 0 && k < e->n_carry) /* (the rest, first in line) */
        memmove(e->carry, e->carry + k,
                (size_t)(e->n_carry - k) * sizeof *e->carry);
    e->n_carry -= k;
    return KEVO_OK;
}

cJSON *engine_defer_to_json(const struct engine *e)
{
    if (e->n_carry == 0)
        return NULL;
    cJSON *a = cJSON_CreateArray();
    for (int k = 0; a && k < e->n_carry; k++)
        cJSON_AddItemToArray(a, engine_child_json(&e->carry[k]));
    return a;
}

int engine_defer_restore(struct engine *e, const cJSON *ck)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(ck, "carry"), *o;
    if (!a)
        return KEVO_OK;
    if (!cJSON_IsArray(a) || !engine_defer_on(e))
        return KEVO_EPARSE;
    int rc = KEVO_OK;
    cJSON_ArrayForEach(o, a)
    {
        struct child c;
        if ((rc = engine_child_from_json(e, o, &c)) ||
            (rc = carry_add(e, &c)) || (rc = seen_add(&e->seen, c.g.hash)))
            break;
    }
    return rc;
}
