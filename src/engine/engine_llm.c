/*
 * engine_llm.c - the engine's LLM side: which operator makes a child (a
 * bandit, by improvement per cost, over the cheap mutators and the LLM
 * operators of role "vary", from their tables), the requests (proposals at
 * start, variations chosen by the bandit, repairs of LLM children that
 * failed), and the
 * answers, which become new templates whose default point is a child and
 * whose space the cheap mutators then explore.
 *
 * Determinism (see engine.h): requests are made at fixed points of a
 * generation from journaled facts only, and answers are taken at the start
 * of the next generation, in request order, each journaled as one "llm"
 * record before its child is made. The run log (runlog.h) gives each
 * answer: a recorded one after checking it answers the same prompt, its
 * text from the run's transcript store (llm/<key>.json), so resume and
 * replay need no provider and see the same templates; else the live one. Fatal and budget answers turn LLM mutation off at the
 * record that carries them, never earlier, so the choice stays the same on
 * replay.
 *
 * Waiting: a first Ctrl-C or the end of the time budget ends a wait for a
 * live answer (give_up): the generation stops before that answer's record,
 * and a resume asks the request again. No template and no usable proposal:
 * the proposals are asked again with a backoff, saying what was wrong
 * (engine_llm_until_usable); a run that evaluated nothing for want of
 * answers fails naming why (engine_llm_end_check).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "answer.h"
#include "engine_int.h"
#include "fsutil.h"
#include "hash.h"
#include "llm.h"
#include "llm_store.h"
#include "llm_mutator.h"
#include "mutator.h"
#include "prompt.h"
#include "record.h"
#include "secret.h"

#define LLM_COST_DEFAULT 20.0 /* an LLM request in evaluations (bandit) */
/* Proposals asked again when none gave a usable template: at most this
 * many rounds, the n-th after a wait of 2^(n-1) s up to ROUND_WAIT_MAX_S
 * (1 + 2 + 4 + ... about 90 s in all; a --time budget ends it sooner). */
#define LLM_ROUNDS_MAX 8
#define ROUND_WAIT_MAX_S 30.0

struct llm_pending {
    const struct llm_mutator *op;
    int island;
    int n_par;
    uint64_t par[2];
    int depth;             /* repairs so far in the lineage */
    int variant;           /* propose: variant number */
    char *system, *user;   /* the request, kept until answered */
    uint64_t prompt;       /* hash of system and user */
    long ticket;           /* live request, or -1 */
};

/* Compact result of one genome, for prompts and rewards. */
struct rec {
    uint64_t hash;
    int tpl;
    int64_t vals[TPL_MAX_PARAMS];
    struct eval_result r;  /* detail and evidence kept (owned; the
                              prompts show the journal's evidence) */
};

struct recmap {
    struct rec *v;
    size_t n, cap;         /* cap: power of two, open addressing */
};

/* The bandit's arms from the plug-in tables (see struct arm). */
static void build_arms(struct engine *e)
{
    e->n_arms = 0;
    for (int i = 0; kevo_mutators[i] && e->n_arms < BANDIT_MAX_ARMS; i++)
        e->arms[e->n_arms++] = (struct arm){kevo_mutators[i]->name,
                                            kevo_mutators[i], NULL};
    for (int i = 0; kevo_llm_mutators[i] && e->n_arms < BANDIT_MAX_ARMS; i++)
        if (kevo_llm_mutators[i]->role == LLM_ROLE_VARY)
            e->arms[e->n_arms++] = (struct arm){kevo_llm_mutators[i]->name,
                                                NULL, kevo_llm_mutators[i]};
    for (int a = 0; a < e->n_arms; a++)
        e->arm_names[a] = e->arms[a].name;
}

static int arm_of(const struct engine *e, const char *mutator)
{
    for (int a = 0; a < e->n_arms; a++)
        if (!strcmp(e->arms[a].name, mutator))
            return a;
    return -1;
}

/* ------------------------------------------------------------ results */

static struct rec *rec_find(const struct engine *e, uint64_t h)
{
    const struct recmap *m = e->recs;
    if (!m || !m->cap)
        return NULL;
    for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (!m->v[i].hash)
            return NULL;
        if (m->v[i].hash == h)
            return &m->v[i];
    }
}

static int rec_grow(struct recmap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 1024;
    struct rec *v = calloc(cap, sizeof *v);
    if (!v)
        return KEVO_ENOMEM;
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->v[i].hash)
            continue;
        size_t j = m->v[i].hash & (cap - 1);
        while (v[j].hash)
            j = (j + 1) & (cap - 1);
        v[j] = m->v[i];
    }
    free(m->v);
    m->v = v;
    m->cap = cap;
    return KEVO_OK;
}

int engine_llm_note(struct engine *e, const struct child *c)
{
    struct recmap *m = e->recs;
    if (!m || !c->g.hash || rec_find(e, c->g.hash))
        return KEVO_OK;
    if ((m->n + 1) * 2 > m->cap && rec_grow(m))
        return KEVO_ENOMEM;
    size_t j = c->g.hash & (m->cap - 1);
    while (m->v[j].hash)
        j = (j + 1) & (m->cap - 1);
    struct rec *r = &m->v[j];
    r->hash = c->g.hash;
    r->tpl = c->g.tpl;
    memcpy(r->vals, c->g.vals, sizeof r->vals);
    r->r = c->r;
    r->r.evidence_json = c->r.evidence_json ? strdup(c->r.evidence_json)
                                            : NULL;
    m->n++;
    return KEVO_OK;
}

int engine_llm_note_record(struct engine *e, const struct rec_eval *rec)
{
    if (!e->recs)
        return KEVO_OK;
    struct child c;
    memset(&c, 0, sizeof c);
    if (engine_record_point(e, rec, &c.g.tpl, c.g.vals))
        return KEVO_EPARSE;
    c.g.hash = rec->hash;
    c.r = rec->r;
    return engine_llm_note(e, &c); /* (copies the evidence) */
}

/* ---------------------------------------------------------- waiting */

static double run_time_s(const struct engine *e)
{
    return e->env.elapsed_before_s + (double)(fs_now_ns() - e->t0_ns) * 1e-9;
}

/* Asked while the engine waits for a live answer (runlog_set_give_up): a
 * first Ctrl-C or the end of the time budget abandons the wait, so a
 * provider that never answers cannot hold the run. */
static int give_up(void *ud)
{
    struct engine *e = ud;
    if (e->env.stop && *e->env.stop) {
        e->st.stop = STOP_SIGNAL;
        return 1;
    }
    if (e->env.spec->max_time_s > 0 &&
        run_time_s(e) >= e->env.spec->max_time_s) {
        e->st.stop = STOP_TIME;
        return 1;
    }
    return 0;
}

/* Sleeps s seconds unless give_up says stop first (KEVO_ESTOPPED). */
static int nap(struct engine *e, double s)
{
    long long end = fs_now_ns() + (long long)(s * 1e9);
    while (fs_now_ns() < end) {
        if (give_up(e))
            return KEVO_ESTOPPED;
        struct timespec ts = {0, LLM_GIVE_UP_POLL_MS * 1000000L};
        nanosleep(&ts, NULL);
    }
    return give_up(e) ? KEVO_ESTOPPED : KEVO_OK;
}

/* ---------------------------------------------------------- templates */

int engine_llm_init(struct engine *e)
{
    e->n_base = e->n_tpls = e->env.n_tpls;
    e->cap_tpls = e->n_tpls + 16;
    e->tpls = calloc((size_t)e->cap_tpls, sizeof *e->tpls);
    e->tpl_key = calloc((size_t)e->cap_tpls, sizeof *e->tpl_key);
    e->tpl_depth = calloc((size_t)e->cap_tpls, sizeof *e->tpl_depth);
    if (!e->tpls || !e->tpl_key || !e->tpl_depth)
        return KEVO_ENOMEM;
    for (int i = 0; i < e->n_tpls; i++)
        e->tpls[i] = e->env.tpls[i];
    if (!e->env.llm_on)
        return KEVO_OK;
    runlog_set_give_up(e->env.log, give_up, e);
    if (!(e->recs = calloc(1, sizeof *e->recs)))
        return KEVO_ENOMEM;
    e->use_bandit = 1;
    build_arms(e);
    bandit_init(&e->bandit, e->n_arms, e->arm_names);
    return KEVO_OK;
}

static void pending_release(struct llm_pending *p)
{
    free(p->system);
    free(p->user);
    memset(p, 0, sizeof *p);
}

void engine_llm_free(struct engine *e)
{
    for (int i = e->n_base; e->tpls && i < e->n_tpls; i++)
        tpl_free(e->tpls[i]);
    free(e->tpls);
    free(e->tpl_key);
    free(e->tpl_depth);
    for (int i = 0; i < e->n_pend; i++)
        pending_release(&e->pend[i]);
    free(e->pend);
    free(e->rw);
    for (size_t i = 0; e->recs && i < e->recs->cap; i++)
        free(e->recs->v[i].r.evidence_json);
    if (e->recs)
        free(e->recs->v);
    free(e->recs);
}

int engine_llm_usable_tpls(const struct engine *e)
{
    int n = 0;
    for (int t = 0; t < e->n_tpls; t++)
        n += engine_tpl_usable(e, t);
    return n;
}

/* Adds template t (owned) with its transcript key; its index in *idx.
 * A template with the same text as one the run has is not added twice. */
static int add_tpl(struct engine *e, struct tpl *t, const char *key,
                   int depth, int *idx)
{
    for (int i = 0; i < e->n_tpls; i++)
        if (e->tpls[i]->hash == t->hash) {
            tpl_free(t);
            *idx = i;
            return KEVO_OK;
        }
    if (e->n_tpls == e->cap_tpls) {
        int cap = e->cap_tpls * 2;
        void *a = realloc(e->tpls, sizeof *e->tpls * (size_t)cap);
        if (a)
            e->tpls = a;
        void *b = realloc(e->tpl_key, sizeof *e->tpl_key * (size_t)cap);
        if (b)
            e->tpl_key = b;
        void *c = realloc(e->tpl_depth, sizeof *e->tpl_depth * (size_t)cap);
        if (c)
            e->tpl_depth = c;
        if (!a || !b || !c) {
            tpl_free(t);
            return KEVO_ENOMEM;
        }
        e->cap_tpls = cap;
    }
    *idx = e->n_tpls++;
    e->tpls[*idx] = t;
    snprintf(e->tpl_key[*idx], sizeof e->tpl_key[*idx], "%s", key);
    e->tpl_depth[*idx] = depth;
    return KEVO_OK;
}

/* ------------------------------------------------------------ prompts */

/* Parent h's facts; for a rewrite or crossover (profile = 1) its
 * hardware profile, taken now if it has none (engine_prof.c). */
static int fill_parent(struct engine *e, uint64_t h, int profile,
                       struct llm_parent *p, struct eval_result *r,
                       const int64_t **vals)
{
    const struct rec *x = rec_find(e, h);
    eval_result_init(r);
    if (x) {
        int rc = profile && x->r.outcome == EVAL_OK
                     ? engine_prof_take(e, x->tpl, x->vals, h, "parent")
                     : KEVO_OK;
        if (rc)
            return rc;
        x = rec_find(e, h); /* (the map is not changed by it; kept safe) */
        *r = x->r;        /* borrows the evidence */
        p->tpl = e->tpls[x->tpl];
        *vals = x->vals;
        p->prof = engine_prof_find(e, h);
        if (!p->prof && profile)
            p->prof = engine_prof_off(e); /* "not available: why" */
    }
    p->vals = *vals;
    p->r = r;
    return KEVO_OK;
}

/* Hashes request p's prompt, asks the provider (if any) and appends p to
 * the pending requests, which then own its texts (released on error). */
static int push_pending(struct engine *e, struct llm_pending *p)
{
    p->prompt = hash_final(hash_str(hash_str(HASH_SEED, p->system), p->user));
    /* the request's number in the run: answers are taken in order, so it
     * is the answers taken plus the requests still pending (the same on a
     * resume, which re-asks the pending ones) */
    struct llm_req q = {p->op->name, p->system, p->user,
                        e->llm_seq + e->n_pend};
    int rc = runlog_ask(e->env.log, &q, &p->ticket);
    if (rc) {
        pending_release(p);
        return rc;
    }
    if (e->n_pend == e->cap_pend) {
        int cap = e->cap_pend ? e->cap_pend * 2 : 16;
        void *a = realloc(e->pend, sizeof *e->pend * (size_t)cap);
        if (!a) {
            pending_release(p);
            return KEVO_ENOMEM;
        }
        e->pend = a;
        e->cap_pend = cap;
    }
    e->pend[e->n_pend++] = *p;
    return KEVO_OK;
}

/* Appends to a proposal asked again what was wrong with the last one
 * (*user is replaced; freed on failure). */
static int add_note(const struct engine *e, char **user)
{
    struct prompt_buf b;
    prompt_buf_init(&b, 0);
    prompt_buf_adds(&b, *user);
    prompt_buf_addf(&b, "\n\nThis is attempt %d: no earlier proposal gave "
                    "a usable template. The last answer was rejected: %s. "
                    "Answer with one complete template in a ```cuda block, "
                    "with its // kevo: header lines and the kernel "
                    "signature the problem requires.\n",
                    e->llm_rounds + 1, e->llm_note);
    free(*user);
    *user = prompt_buf_take(&b);
    return *user ? KEVO_OK : KEVO_ENOMEM;
}

static int queue(struct engine *e, const struct llm_mutator *op, int island,
                 int n_par, const uint64_t *par, int depth, int variant)
{
    struct llm_parent pp[2];
    struct eval_result rr[2];
    const int64_t *vals[2] = {NULL, NULL};
    memset(pp, 0, sizeof pp);
    for (int i = 0; i < n_par; i++) {
        int rc = fill_parent(e, par[i], op->role == LLM_ROLE_VARY, &pp[i],
                             &rr[i], &vals[i]);
        if (rc)
            return rc;
        if (!pp[i].tpl)
            return KEVO_OK; /* no facts about this parent: ask nothing */
    }
    double base = e->st.best_ratio > 0
                      ? e->st.best_fitness / e->st.best_ratio : 0;
    /* the main baseline's name and time, from the worker's evidence (a
     * copy is then reported in bytes/s, not in the problem's unit) */
    const struct rec *bx = n_par ? rec_find(e, par[0])
                                 : rec_find(e, e->st.best_hash);
    cJSON *ev = bx && bx->r.evidence_json ? cJSON_Parse(bx->r.evidence_json)
                                          : NULL;
    char base_name[32];
    snprintf(base_name, sizeof base_name, "%s",
             record_str(ev, "baseline") ? record_str(ev, "baseline") : "");
    double base_ns = record_num(ev, "baseline_ns", 0);
    cJSON_Delete(ev);
    struct llm_prompt_ctx ctx = {
        .prompts_dir = e->env.prompts_dir, .problem = e->env.problem,
        .dtype = e->env.spec->dtype, .shape = &e->env.spec->shape,
        .gpu_facts = e->env.gpu_facts ? e->env.gpu_facts : "",
        .best_fitness = e->st.best_fitness, .baseline_fitness = base,
        .baseline_name = base_name, .baseline_ns = base_ns,
        /* variant is 1-based here (0: not a proposal) */
        .n_variants = variant ? e->env.spec->llm_propose : 0,
        .variant = variant ? variant - 1 : 0};
    struct llm_pending p = {.op = op, .island = island, .n_par = n_par,
                            .depth = depth, .variant = variant,
                            .ticket = -1};
    for (int i = 0; i < n_par; i++)
        p.par[i] = par[i];
    char err[512];
    int rc;
    if (op->build(&ctx, pp, &p.system, &p.user, err, sizeof err)) {
        snprintf(e->errbuf, sizeof e->errbuf, "%s: %s", op->name, err);
        free(p.system);
        free(p.user);
        return KEVO_EPARSE;
    }
    /* the prompt quotes compile logs and answers: no key goes out, and the
     * prompt hash is the same on a resume, which sees scrubbed records */
    if (variant && e->llm_rounds > 0 && e->llm_note[0] &&
        (rc = add_note(e, &p.user))) {
        free(p.system);
        return rc;
    }
    secret_scrub(p.system);
    secret_scrub(p.user);
    rc = push_pending(e, &p);
    e->llm_this_gen += rc == KEVO_OK;
    return rc;
}

int engine_llm_propose(struct engine *e)
{
    if (!e->env.llm_on || e->llm_off)
        return KEVO_OK;
    const struct llm_mutator *op = llm_mutator_for(LLM_ROLE_PROPOSE, -1);
    int n = op ? e->env.spec->llm_propose : 0;
    for (int i = 0; i < n; i++) {
        int rc = queue(e, op, i % e->n_isl, 0, NULL, 0, i + 1);
        if (rc)
            return rc;
    }
    return KEVO_OK;
}

/* ---------------------------------------------------------- operators */

/* 1 if template version h was asked for a rewrite. */
static int rewrite_asked(const struct engine *e, uint64_t h)
{
    for (int k = 0; k < e->n_rw; k++)
        if (e->rw[k] == h)
            return 1;
    return 0;
}

static int rewrite_mark(struct engine *e, uint64_t h)
{
    if (rewrite_asked(e, h))
        return KEVO_OK;
    if (e->n_rw == e->cap_rw) {
        int cap = e->cap_rw ? 2 * e->cap_rw : 16;
        uint64_t *v = realloc(e->rw, sizeof *v * (size_t)cap);
        if (!v)
            return KEVO_ENOMEM;
        e->rw = v;
        e->cap_rw = cap;
    }
    e->rw[e->n_rw++] = h;
    return KEVO_OK;
}

/* The best member of the best template on island is that was not asked
 * for a rewrite yet (members are sorted best first), or NULL. */
static const struct member *rewrite_parent(const struct engine *e,
                                           const struct island *is)
{
    for (int k = 0; k < is->n; k++)
        if (!rewrite_asked(e, e->tpls[is->m[k].g.tpl]->hash))
            return &is->m[k];
    return NULL;
}

int engine_llm_rewrites_asked(const struct engine *e)
{
    return e->n_rw;
}

int engine_llm_pick(struct engine *e, int i, int *arm)
{
    const struct island *is = &e->isl[i];
    int llm_ok = e->env.llm_on && !e->llm_off && is->n > 0 &&
                 e->llm_this_gen < e->env.spec->llm_per_gen;
    int allowed[BANDIT_MAX_ARMS];
    for (int a = 0; a < e->n_arms; a++)
        allowed[a] = e->arms[a].cheap ||
                     (llm_ok && is->n >= e->arms[a].llm->n_parents);
    *arm = bandit_pick(&e->bandit, &e->rng, allowed);
    const struct llm_mutator *op = e->arms[*arm].llm;
    if (!op)
        return KEVO_OK;
    const struct member *p1 = engine_tournament(e, is, -1);
    uint64_t par[2] = {p1->g.hash, 0};
    if (op->n_parents == 2) {
        /* a second parent of another family, if the island has one */
        for (int t = 0; t < 8 && !par[1]; t++) {
            const struct member *p2 = engine_tournament(e, is, -1);
            if (p2->g.tpl != p1->g.tpl)
                par[1] = p2->g.hash;
        }
        const struct llm_mutator *one = llm_mutator_for(LLM_ROLE_VARY, 1);
        if (par[1] || !one)
            return queue(e, op, i, par[1] ? 2 : 1, par, 0, 0);
        op = one; /* none: a one-parent operator instead */
        *arm = arm_of(e, op->name);
    }
    /* A rewrite is a question about a design, not a point: once per
     * template version, at its best point, leading templates first. */
    const struct member *best = rewrite_parent(e, is);
    if (!best) { /* every template here was asked: a cheap child */
        for (int a = 0; a < e->n_arms; a++)
            allowed[a] = e->arms[a].cheap != NULL;
        *arm = bandit_pick(&e->bandit, &e->rng, allowed);
        return KEVO_OK;
    }
    int rc = rewrite_mark(e, e->tpls[best->g.tpl]->hash);
    return rc ? rc : queue(e, op, i, 1, &best->g.hash, 0, 0);
}

static double cost_of(const struct engine *e, int arm)
{
    double c = e->env.spec->llm_cost > 0 ? e->env.spec->llm_cost
                                         : LLM_COST_DEFAULT;
    return e->arms[arm].llm ? 1.0 + c : 1.0;
}

int engine_llm_after_eval(struct engine *e)
{
    if (!e->env.llm_on)
        return KEVO_OK;
    for (int k = 0; k < e->n_kids; k++) {
        const struct child *c = &e->kids[k];
        int arm = arm_of(e, c->mutator);
        if (arm >= 0) {
            double pf = 0, gain = 0;
            for (int j = 0; j < c->n_par; j++) {
                const struct rec *x = rec_find(e, c->par[j]);
                if (x && x->r.fitness > pf)
                    pf = x->r.fitness;
            }
            if (c->r.outcome == EVAL_OK && pf > 0 && c->r.fitness > pf)
                gain = c->r.fitness / pf - 1.0;
            bandit_update(&e->bandit, arm, gain, cost_of(e, arm));
        }
        /* an LLM child that does not compile or is wrong gets repaired */
        const struct llm_mutator *fix = llm_mutator_for(LLM_ROLE_REPAIR, -1);
        if (fix && llm_mutator_find(c->mutator) && !e->llm_off &&
            (c->r.outcome == EVAL_COMPILE_ERROR ||
             c->r.outcome == EVAL_WRONG) &&
            c->depth < e->env.spec->llm_repairs) {
            int rc = queue(e, fix, c->island, 1, &c->g.hash,
                           c->depth + 1, 0);
            if (rc)
                return rc;
        }
    }
    return KEVO_OK;
}

/* ----------------------------------------------------------- answers */

static cJSON *llm_record(const struct engine *e, const struct llm_pending *p,
                         const struct llm_ans *a, enum answer_reject v,
                         const char *why, const struct tpl *t)
{
    struct rec_llm r = {.gen = e->gen, .seq = e->llm_seq,
                        .island = p->island, .n_par = p->n_par,
                        .prompt = p->prompt, .has_tpl = t != NULL,
                        .tpl_hash = t ? t->hash : 0,
                        .tokens_in = a->tokens_in,
                        .tokens_out = a->tokens_out, .cost_usd = a->cost_usd,
                        .cached = a->cached, .latency_ms = a->latency_ms,
                        .t = (double)(fs_now_ns() - e->t0_ns) * 1e-9 +
                             e->env.elapsed_before_s};
    memcpy(r.par, p->par, sizeof r.par);
    snprintf(r.op, sizeof r.op, "%s", p->op->name);
    snprintf(r.key, sizeof r.key, "%s", a->key);
    snprintf(r.status, sizeof r.status, "%s", llm_status_name(a->status));
    snprintf(r.verdict, sizeof r.verdict, "%s",
             a->status == LLM_OK ? answer_reject_name(v) : "none");
    snprintf(r.why, sizeof r.why, "%s", why);
    if (t)
        snprintf(r.tpl, sizeof r.tpl, "%s", t->name);
    return rec_llm_json(&r);
}

/* Saves an LLM template's text for people (the transcript stays the
 * source of truth): <run>/llm/templates/<name>.cu. */
static void save_tpl_text(const struct engine *e, const struct tpl *t)
{
    char rel[128], path[4096];
    snprintf(rel, sizeof rel, "llm/templates/%s.cu", t->name);
    if (!runlog_writes(e->env.log) ||
        fs_join(path, sizeof path, e->env.run_dir, rel))
        return;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    char *text = secret_scrub_dup(t->text, strlen(t->text));
    if (text && !fs_mkdirs(dir) &&
        fs_write_new(path, text, strlen(text), 0) == KEVO_OK) {
        /* written */
    }
    free(text); /* (best effort: it exists already, or the disk is full and
                   the journal write after this one reports it) */
}

/* Parses an answer into a template (or a verdict with a reason). */
static enum answer_reject to_template(struct engine *e, const char *text,
                                      struct tpl **out, char *why,
                                      size_t whycap)
{
    /* named after the answer's content, so the same answer from another
     * provider (a replay) makes the same template */
    char name[TPL_NAME_MAX], hex[17];
    hash_hex(hash_final(hash_str(HASH_SEED, text ? text : "")), hex);
    snprintf(name, sizeof name, "llm_%.8s", hex);
    struct answer_ctx ax = {e->env.problem, e->env.spec->dtype,
                            &e->env.spec->shape, &e->env.dev, name};
    char *src = NULL;
    *out = NULL;
    enum answer_reject v = answer_parse(&ax, text ? text : "", out, &src,
                                        why, whycap);
    free(src);
    return v;
}

static void log_answer(struct engine *e, const struct llm_pending *p,
                       const struct llm_ans *a, enum answer_reject v,
                       const char *why, const struct tpl *t)
{
    if (!e->env.prog)
        return;
    char line[600];
    if (a->status != LLM_OK)
        snprintf(line, sizeof line, "%s: no answer (%s): %s", p->op->name,
                 llm_status_name(a->status), a->detail[0] ? a->detail : why);
    else if (v != ANSWER_OK)
        snprintf(line, sizeof line, "%s: answer rejected (%s): %s",
                 p->op->name, answer_reject_name(v), why);
    else
        snprintf(line, sizeof line, "%s: new template %s (%d params)%s",
                 p->op->name, t->name, t->n_params,
                 a->cached ? " [recorded]" : "");
    progress_log(e->env.prog, "llm", line);
}

/* Takes the answer of pending request p (the run log's: recorded or live)
 * and journals what became of it. */
static int take_answer(struct engine *e, struct llm_pending *p)
{
    struct llm_ans a;
    char why[512] = "";
    int rc = runlog_answer(e->env.log, p->prompt, p->ticket, &a);
    if (rc)
        return rc;
    struct tpl *t = NULL;
    enum answer_reject v = ANSWER_NO_CODE;
    if (a.status == LLM_OK)
        v = to_template(e, a.text, &t, why, sizeof why);
    else
        snprintf(why, sizeof why, "%s", a.detail);
    cJSON *o = llm_record(e, p, &a, v, why, t);
    rc = o ? runlog_put(e->env.log, o, 0) : KEVO_ENOMEM;
    cJSON_Delete(o);
    if (rc) {
        tpl_free(t);
        llm_ans_release(&a);
        return rc;
    }
    e->llm_seq++;
    log_answer(e, p, &a, v, why, t);
    if (p->op->role == LLM_ROLE_PROPOSE && !t)
        snprintf(e->llm_note, sizeof e->llm_note, "%s: %.300s",
                 a.status == LLM_OK ? answer_reject_name(v)
                                    : llm_status_name(a.status), why);
    if ((a.status == LLM_FATAL || a.status == LLM_BUDGET) && !e->llm_off) {
        e->llm_off = 1;
        if (e->env.prog)
            progress_log(e->env.prog, "llm",
                         "LLM mutation is off for the rest of the run; the "
                         "cheap mutators go on");
    }
    int arm = p->op->role == LLM_ROLE_VARY ? arm_of(e, p->op->name) : -1;
    if (!t) {
        if (arm >= 0 && e->use_bandit)
            bandit_update(&e->bandit, arm, 0, cost_of(e, arm));
        llm_ans_release(&a);
        return KEVO_OK;
    }
    int idx;
    rc = add_tpl(e, t, a.key, p->depth, &idx);
    llm_ans_release(&a);
    if (rc)
        return rc;
    save_tpl_text(e, e->tpls[idx]);
    struct child c = {.island = p->island, .mutator = p->op->name,
                      .n_par = p->n_par, .depth = p->depth};
    c.par[0] = p->par[0];
    c.par[1] = p->par[1];
    c.g.tpl = idx;
    tpl_default_point(e->tpls[idx], c.g.vals);
    genome_rehash(&c.g, e->tpls[idx]);
    if (!engine_supports(e, &c.g) || seen_has(&e->seen, c.g.hash) ||
        e->n_kids >= (e->env.spec->max_evals > 0
                          ? e->env.spec->max_evals - e->st.evals : 1L << 62))
        return KEVO_OK;
    return engine_add_child(e, &c);
}

int engine_llm_collect(struct engine *e)
{
    int rc = KEVO_OK, i = 0;
    e->llm_note[0] = '\0';
    for (; !rc && i < e->n_pend; i++)
        rc = take_answer(e, &e->pend[i]);
    if (rc == KEVO_ESTOPPED && e->env.prog) {
        char line[300];
        snprintf(line, sizeof line, "%d LLM request%s abandoned unanswered "
                 "(%s); a resume asks %s again", e->n_pend - i + 1,
                 e->n_pend - i + 1 == 1 ? "" : "s",
                 e->st.stop == STOP_SIGNAL ? "stopped" : "time budget reached",
                 e->n_pend - i + 1 == 1 ? "it" : "them");
        progress_log(e->env.prog, "llm", line);
    }
    /* what was taken is gone; on error keep the rest for the checkpoint */
    int taken = rc ? i - 1 : i;
    for (int k = 0; k < taken; k++)
        pending_release(&e->pend[k]);
    if (taken > 0) /* pend is NULL while nothing was ever asked */
        memmove(e->pend, e->pend + taken,
                sizeof *e->pend * (size_t)(e->n_pend - taken));
    e->n_pend -= taken;
    e->llm_this_gen = 0;
    return rc;
}

int engine_llm_until_usable(struct engine *e)
{
    if (!e->env.llm_on)
        return KEVO_OK;
    const struct llm_mutator *op = llm_mutator_for(LLM_ROLE_PROPOSE, -1);
    while (op && !e->llm_off && e->n_kids == 0 && e->n_pend == 0 &&
           engine_llm_usable_tpls(e) == 0 && e->llm_rounds < LLM_ROUNDS_MAX) {
        double wait = ROUND_WAIT_MAX_S;
        if (e->llm_rounds < 5)
            wait = (double)(1 << e->llm_rounds);
        if (e->env.prog) {
            char line[600];
            snprintf(line, sizeof line, "no usable template from %s "
                     "(last: %s); asking again in %.0f s",
                     e->llm_rounds ? "the proposals asked again"
                                   : "the proposals",
                     e->llm_note[0] ? e->llm_note : "no answer", wait);
            progress_log(e->env.prog, "llm", line);
        }
        /* recorded answers (a resume, a replay) need no wait */
        int rc = runlog_replaying(e->env.log) ? KEVO_OK : nap(e, wait);
        if (!rc) {
            e->llm_rounds++;
            rc = engine_llm_propose(e);
        }
        if (!rc)
            rc = engine_llm_collect(e);
        if (rc)
            return rc;
    }
    if (e->n_kids == 0 && e->n_pend == 0 && engine_llm_usable_tpls(e) == 0)
        e->st.stop = STOP_EXHAUSTED; /* engine_llm_end_check says why */
    return KEVO_OK;
}

int engine_llm_end_check(struct engine *e)
{
    if (!e->env.llm_on || e->st.evals > 0 || engine_llm_usable_tpls(e) > 0)
        return KEVO_OK;
    char why[300];
    if (e->llm_off)
        snprintf(why, sizeof why, "LLM mutation is off (%s)",
                 e->llm_note[0] ? e->llm_note : "fatal error or budget");
    else
        snprintf(why, sizeof why, "no usable template in %d round%s of "
                 "proposals (last: %s)", e->llm_rounds + 1,
                 e->llm_rounds ? "s" : "",
                 e->llm_note[0] ? e->llm_note : "no answer came");
    if (e->st.stop == STOP_EXHAUSTED) /* no space: no template at all */
        snprintf(e->errbuf, sizeof e->errbuf, "nothing was evaluated: %s",
                 why);
    else
        snprintf(e->errbuf, sizeof e->errbuf, "nothing was evaluated (%s): "
                 "%s", e->st.stop == STOP_TIME ? "time budget reached"
                       : e->st.stop == STOP_SIGNAL ? "stopped"
                       : e->st.stop == STOP_GENERATIONS
                           ? "generation budget reached"
                           : engine_stop_text(e->st.stop), why);
    return KEVO_ENOENT;
}

/* ---------------------------------------------------------- checkpoint */

cJSON *engine_llm_to_json(const struct engine *e)
{
    char hex[17];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "seq", (double)e->llm_seq);
    cJSON_AddBoolToObject(o, "off", e->llm_off);
    cJSON_AddItemToObject(o, "bandit", bandit_to_json(&e->bandit));
    cJSON *ts = cJSON_AddArrayToObject(o, "templates");
    for (int i = e->n_base; i < e->n_tpls; i++) {
        cJSON *t = cJSON_CreateObject();
        cJSON_AddStringToObject(t, "name", e->tpls[i]->name);
        cJSON_AddStringToObject(t, "key", e->tpl_key[i]);
        cJSON_AddNumberToObject(t, "depth", e->tpl_depth[i]);
        cJSON_AddItemToArray(ts, t);
    }
    cJSON *rw = cJSON_AddArrayToObject(o, "rewritten");
    for (int i = 0; rw && i < e->n_rw; i++) {
        hash_hex(e->rw[i], hex);
        cJSON_AddItemToArray(rw, cJSON_CreateString(hex));
    }
    cJSON *ps = cJSON_AddArrayToObject(o, "pending");
    for (int i = 0; i < e->n_pend; i++) {
        const struct llm_pending *p = &e->pend[i];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "op", p->op->name);
        cJSON_AddNumberToObject(j, "island", p->island);
        cJSON *par = cJSON_AddArrayToObject(j, "parents");
        for (int k = 0; k < p->n_par; k++) {
            hash_hex(p->par[k], hex);
            cJSON_AddItemToArray(par, cJSON_CreateString(hex));
        }
        cJSON_AddNumberToObject(j, "depth", p->depth);
        cJSON_AddNumberToObject(j, "variant", p->variant);
        cJSON_AddStringToObject(j, "system", p->system);
        cJSON_AddStringToObject(j, "user", p->user);
        cJSON_AddItemToArray(ps, j);
    }
    return o;
}

static int restore_tpls(struct engine *e, const cJSON *ts)
{
    const cJSON *t;
    cJSON_ArrayForEach(t, ts)
    {
        const char *key = record_str(t, "key"), *name = record_str(t, "name");
        struct llm_ans a;
        struct tpl *tp = NULL;
        char why[512];
        if (!key || !name || strlen(key) > 16 ||
            runlog_transcript(e->env.log, key, &a))
            return KEVO_EPARSE;
        enum answer_reject v = to_template(e, a.text, &tp, why, sizeof why);
        llm_ans_release(&a);
        if (v != ANSWER_OK || strcmp(tp->name, name)) {
            tpl_free(tp);
            return KEVO_EPARSE;
        }
        int idx, rc = add_tpl(e, tp, key, record_int(t, "depth", 0),
                              &idx);
        if (rc)
            return rc;
    }
    return KEVO_OK;
}

static int restore_pending(struct engine *e, const cJSON *ps)
{
    const cJSON *j;
    cJSON_ArrayForEach(j, ps)
    {
        const struct llm_mutator *op = llm_mutator_find(record_str(j, "op")
                                                            ? record_str(j, "op")
                                                            : "");
        const char *sys = record_str(j, "system"), *user = record_str(j, "user");
        const cJSON *par = cJSON_GetObjectItemCaseSensitive(j, "parents");
        if (!op || !sys || !user || cJSON_GetArraySize(par) > 2)
            return KEVO_EPARSE;
        struct llm_pending p = {.op = op, .ticket = -1,
                                .island = record_int(j, "island", 0),
                                .depth = record_int(j, "depth", 0),
                                .variant = record_int(j, "variant", 0)};
        const cJSON *h;
        cJSON_ArrayForEach(h, par)
        {
            if (!cJSON_IsString(h) || hash_parse(h->valuestring,
                                                 &p.par[p.n_par++]))
                return KEVO_EPARSE;
        }
        if (p.island < 0 || p.island >= e->n_isl)
            return KEVO_EPARSE;
        p.system = strdup(sys);
        p.user = strdup(user);
        if (!p.system || !p.user) {
            pending_release(&p);
            return KEVO_ENOMEM;
        }
        int rc = push_pending(e, &p);
        if (rc)
            return rc;
    }
    return KEVO_OK;
}

int engine_llm_restore(struct engine *e, const cJSON *ck)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(ck, "llm");
    if (!e->env.llm_on)
        return o ? KEVO_EPARSE : KEVO_OK;
    if (!o)
        return KEVO_EPARSE;
    e->llm_seq = (long)record_i64(o, "seq", 0);
    e->llm_off = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "off"));
    int rc = bandit_from_json(&e->bandit,
                              cJSON_GetObjectItemCaseSensitive(o, "bandit"));
    if (!rc)
        rc = restore_tpls(e, cJSON_GetObjectItemCaseSensitive(o, "templates"));
    if (!rc)
        rc = restore_pending(e, cJSON_GetObjectItemCaseSensitive(o, "pending"));
    const cJSON *h; /* template versions asked for a rewrite (absent in
                       checkpoints of older runs: none) */
    cJSON_ArrayForEach(h, cJSON_GetObjectItemCaseSensitive(o, "rewritten"))
    {
        uint64_t x;
        if (!rc && (!cJSON_IsString(h) || hash_parse(h->valuestring, &x)))
            rc = KEVO_EPARSE;
        if (!rc)
            rc = rewrite_mark(e, x);
    }
    return rc;
}
