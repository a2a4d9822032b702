/*
 * engine_pipe.c - the pipeline (spec "pipeline", issue 32): no generation
 * barrier between the compilers and the search. Generation g + 1 is bred
 * from the state the results up to g - 1 left (population, archive,
 * surrogate, PRNG), with g's children counted as seen, just before g is
 * measured; its candidates then go to the evaluator's prefetch (eval.h),
 * so the compile pool works on them behind g's compiles while the GPU
 * measures g, and g + 1's batch finds its binaries ready. Selection and
 * the gen record stay per generation.
 *
 * Determinism: what is bred depends only on completed batches, never on
 * when a compile or a measurement ends; the bred children are part of the
 * checkpoint, so a resume takes them as they were; a replay breeds them
 * again at the same point. The budget: breeding counts g's children as
 * spent; when g leaves no evaluation (by the cap g itself had, which its
 * gen record keeps), nothing is bred and g + 1 is bred after g as without
 * the pipeline (so a resume with a larger --evals and its replay agree).
 * A generation the budget cut when it was bred keeps that budget as its
 * own (its gen record's evals_budget), so a replay with a larger one
 * breeds it as cut even when its session stopped inside it.
 * Generation 1 is bred after generation 0 (bred from nothing it would be
 * random points). Runs with LLM mutation do not pipeline: their answers
 * join the generation that collects them (engine_llm.c). Owns e->next;
 * knows nothing of compilers.
 */
#include "engine_int.h"

#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "mutator.h"
#include "record.h"

int engine_pipe_on(const struct engine *e)
{
    return e->env.spec->pipeline && !e->env.llm_on;
}

static void swap_kids(struct engine *e)
{
    struct child *k = e->kids;
    int n = e->n_kids, cap = e->cap_kids;
    e->kids = e->next;
    e->n_kids = e->n_next;
    e->cap_kids = e->cap_next;
    e->next = k;
    e->n_next = n;
    e->cap_next = cap;
}

int engine_pipe_take(struct engine *e)
{
    if (e->n_next == 0)
        return 0;
    /* e->kids is empty (cleared at the generation's start) */
    swap_kids(e);
    if (e->next_cap > 0)
        e->gen_cap = e->next_cap;
    e->next_cap = 0;
    return 1;
}

/* 1 if no evaluation is left after generation e->gen by the budget that
 * generation has (the spec's, or its recorded gen record's). */
static int nothing_left(const struct engine *e)
{
    long cap = engine_evals_cap(e);
    return cap > 0 && cap - e->st.evals - e->n_kids <= 0;
}

/* Generation e->gen + 1's children into e->next. */
static int breed_next(struct engine *e)
{
    int rc = KEVO_OK, gen = e->gen;
    long cap = e->gen_cap;
    for (int k = 0; k < e->n_kids && !rc; k++)
        rc = engine_sur_note_compiling(e, e->kids[k].g.tpl,
                                       e->kids[k].g.vals);
    if (rc)
        return rc;
    e->in_flight = e->n_kids;
    swap_kids(e);
    e->gen = gen + 1;
    e->gen_cap = engine_recorded_cap(e, e->gen);
    rc = engine_make_children(e);
    long max = engine_evals_cap(e);
    e->next_cap = max > 0 && e->n_kids >= max - e->st.evals - e->in_flight
                      ? max
                      : 0;
    e->gen = gen;
    e->gen_cap = cap;
    swap_kids(e);
    e->in_flight = 0;
    return rc;
}

/* Compiles generation e->gen + 1 ahead unless generation e->gen is the
 * last of the generation budget (bred all the same: a resume with a
 * larger one takes it from the checkpoint). */
static int prefetch_next(struct engine *e)
{
    int max = e->env.spec->max_generations, rc = KEVO_OK;
    if (e->n_next == 0 || (max > 0 && e->gen + 1 >= max))
        return KEVO_OK;
    for (int k = 0; k < e->n_next && !rc; k++)
        rc = engine_instantiate(e, &e->next[k]);
    struct candidate *cands = NULL;
    const struct candidate **ptrs = NULL;
    if (!rc)
        rc = engine_candidates(e, e->next, e->n_next, &cands, &ptrs);
    if (!rc)
        runlog_prefetch(e->env.log, ptrs, e->n_next);
    free(cands);
    free(ptrs);
    return rc;
}

int engine_pipe_breed(struct engine *e)
{
    engine_clear_kids(e->next, e->n_next);
    e->n_next = 0;
    e->next_cap = 0;
    if (!engine_pipe_on(e) || e->gen < 1 || nothing_left(e))
        return KEVO_OK;
    int rc = breed_next(e);
    return rc ? rc : prefetch_next(e);
}

/* ------------------------------------------------------------ checkpoint */

cJSON *engine_child_json(const struct child *c)
{
    char hex[17];
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddNumberToObject(o, "t", c->g.tpl);
    cJSON *v = cJSON_AddArrayToObject(o, "v");
    for (int i = 0; i < TPL_MAX_PARAMS; i++)
        cJSON_AddItemToArray(v, cJSON_CreateNumber((double)c->g.vals[i]));
    hash_hex(c->g.hash, hex);
    cJSON_AddStringToObject(o, "h", hex);
    cJSON_AddNumberToObject(o, "island", c->island);
    cJSON_AddStringToObject(o, "mutator", c->mutator);
    cJSON *p = cJSON_AddArrayToObject(o, "parents");
    for (int i = 0; i < c->n_par; i++) {
        hash_hex(c->par[i], hex);
        cJSON_AddItemToArray(p, cJSON_CreateString(hex));
    }
    return o;
}

cJSON *engine_pipe_to_json(const struct engine *e)
{
    cJSON *a = cJSON_CreateArray();
    for (int k = 0; a && k < e->n_next; k++)
        cJSON_AddItemToArray(a, engine_child_json(&e->next[k]));
    return a;
}

/* The static name of a child's mutator: "init", "random", "sweep", the
 * fill's or one of the table's; NULL if unknown. */
static const char *mutator_name(const char *s)
{
    static const char *const own[] = {"init", "random", "sweep"};
    if (!strcmp(s, engine_fill_mutator))
        return engine_fill_mutator;
    for (size_t i = 0; i < sizeof own / sizeof *own; i++)
        if (!strcmp(s, own[i]))
            return own[i];
    const struct mutator *m = mutator_find(s);
    return m ? m->name : NULL;
}

int engine_child_from_json(const struct engine *e, const cJSON *o,
                           struct child *c)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "v");
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(o, "parents");
    const char *h = record_str(o, "h"), *m = record_str(o, "mutator");
    memset(c, 0, sizeof *c);
    c->g.tpl = record_int(o, "t", -1);
    c->island = record_int(o, "island", -1);
    c->n_par = cJSON_GetArraySize(p);
    if (cJSON_GetArraySize(v) != TPL_MAX_PARAMS || !h || !m ||
        !(c->mutator = mutator_name(m)) || c->g.tpl < 0 ||
        c->g.tpl >= e->n_tpls || c->island < 0 || c->island >= e->n_isl ||
        c->n_par > 2 || hash_parse(h, &c->g.hash))
        return KEVO_EPARSE;
    for (int i = 0; i < TPL_MAX_PARAMS; i++) {
        const cJSON *x = cJSON_GetArrayItem(v, i);
        if (!cJSON_IsNumber(x))
            return KEVO_EPARSE;
        c->g.vals[i] = (int64_t)x->valuedouble;
    }
    for (int i = 0; i < c->n_par; i++) {
        const cJSON *x = cJSON_GetArrayItem(p, i);
        if (!cJSON_IsString(x) || hash_parse(x->valuestring, &c->par[i]))
            return KEVO_EPARSE;
    }
    /* the hash must be the point's: a checkpoint names no other genome */
    uint64_t want = c->g.hash;
    genome_rehash(&c->g, e->tpls[c->g.tpl]);
    return c->g.hash == want ? KEVO_OK : KEVO_EPARSE;
}

int engine_pipe_restore(struct engine *e, const cJSON *ck)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(ck, "next"), *o;
    if (!a || !engine_pipe_on(e))
        return KEVO_OK;
    if (!cJSON_IsArray(a))
        return KEVO_EPARSE;
    e->next_cap = (long)record_i64(ck, "next_cap", 0);
    if (e->next_cap < 0)
        return KEVO_EPARSE;
    int rc = KEVO_OK;
    swap_kids(e); /* engine_add_child fills e->kids */
    cJSON_ArrayForEach(o, a)
    {
        struct child c;
        if ((rc = engine_child_from_json(e, o, &c)) ||
            (rc = engine_add_child(e, &c)))
            break;
    }
    swap_kids(e);
    return rc;
}
