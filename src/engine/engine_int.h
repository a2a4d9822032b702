/*
 * engine_int.h - the engine's state, shared by engine.c (the generation
 * loop) and engine_llm.c (LLM requests and answers). Not for other modules.
 */
#ifndef KEVO_ENGINE_INT_H
#define KEVO_ENGINE_INT_H

#include "archive.h"
#include "bandit.h"
#include "bgwrite.h"
#include "busy.h"
#include "engine.h"
#include "genome.h"
#include "records.h"
#include "rng.h"
#include "seen.h"
#include "srcmemo.h"

#define MAKE_TRIES 40     /* attempts to make one new child */
#define RANDOM_TRIES 200  /* attempts to draw one random valid point */

struct member {
    struct genome g;
    double fitness;    /* ok members only live on islands */
    double median_ns;
};

struct island {
    int n;
    struct member *m;  /* capacity population + offspring + 1 */
};

struct child {
    struct genome g;
    int island;
    const char *mutator;   /* static name */
    int n_par;
    uint64_t par[2];
    char *source;          /* owned unless src_lent (engine_free_source) */
    int src_lent;          /* 1: source is the engine's srcmemo's */
    uint64_t src_hash;
    struct eval_result r;  /* owned evidence */
    struct archive_desc d;
    int depth;             /* repairs in this child's LLM lineage */
    double score;          /* the surrogate's rating (0 = none) */
    int deferred;          /* handed back unmeasured (engine_defer.c): 1,
                              2 at the time budget, 3 dropped */
    int optional;          /* generation 0's fill: may be dropped */
};

/* An operator the bandit chooses among: every cheap mutator of
 * kevo_mutators, then every LLM operator of kevo_llm_mutators with role
 * LLM_ROLE_VARY, in table order (engine_llm.c builds the list). */
struct arm {
    const char *name;
    const struct mutator *cheap;      /* or */
    const struct llm_mutator *llm;
};

/* What one generation's results say about the GPU's time (engine_fill.c):
 * summed over its evaluations, from recorded fields only, so a replay or
 * a resume computes the same. */
struct fill_stats {
    double idle_ms;     /* worker idle before each job (evidence
                           phase_ms.worker_idle) */
    double gpu_ms;      /* check + timing */
    double fill_gpu_ms; /* check + timing of the fill's children */
    long n;             /* evaluations */
};

/* The compiles of the results taken so far (a resume counts the
 * journal's), for the spare fill's compile rule (engine_fill.c). */
struct fill_compiles {
    double ms;    /* summed compile_ms of the results compiled for the run
                     (compile_ms > 0; a cache hit has 0) */
    long n;       /* their count */
    double procs; /* compile processes of the last result that recorded
                     them (evidence "compilers"); 0: none yet */
};

struct llm_pending;
struct recmap;
struct engine_prof;
struct surrogate;

/* One measured point, for the surrogate (engine_sur.c). */
struct sur_hist {
    int tpl;
    uint8_t at[TPL_MAX_PARAMS]; /* value indices */
    uint8_t ok;
    double fitness;
};

struct engine {
    struct engine_env env;
    struct rng rng;
    int n_isl, cap_members;
    struct island *isl;
    struct archive arc;
    struct seen seen;
    struct engine_stats st;
    struct child *kids;
    int n_kids, cap_kids;
    int gen;               /* generation being made */
    long gen_cap;          /* evaluation budget this generation had when
                              recorded (its gen record's evals_budget;
                              0 = none) */
    long long t0_ns;       /* session start */
    struct busy sess_busy; /* this session's live results' phase times
                              (GPU idle on the progress line, busy.h) */
    char best_what[256];
    char errbuf[256];
    /* templates: env's first (borrowed), then LLM-made ones (owned) */
    struct tpl **tpls;
    int n_tpls, cap_tpls, n_base;
    char (*tpl_key)[17];   /* per template: transcript key ("" = env's) */
    int *tpl_depth;        /* per template: repairs in its lineage */
    /* LLM side (engine_llm.c) */
    struct recmap *recs;   /* compact results by genome hash */
    struct llm_pending *pend;
    int n_pend, cap_pend;
    long llm_seq;          /* answers taken so far */
    int llm_off;           /* 1 once a fatal or budget answer was taken */
    int llm_this_gen;      /* requests made this generation */
    char llm_note[400];    /* what was wrong with the last proposal taken
                              this generation ("" = none): said in the
                              proposals asked again */
    int llm_rounds;        /* proposals asked again for want of a usable
                              template (engine_llm_until_usable) */
    uint64_t *rw;          /* template versions (hashes) asked for a
                              rewrite: each once (checkpointed) */
    int n_rw, cap_rw;
    int use_bandit;
    struct bandit bandit;
    struct arm arms[BANDIT_MAX_ARMS];
    const char *arm_names[BANDIT_MAX_ARMS];
    int n_arms;
    /* issue 13 (engine.c): per base template, its usable points, built
     * when first needed (pts_state 0 = not yet, 1 = built, 2 = a sample
     * of a large space, -1 = too many to enumerate); the sweep's order
     * over all of them */
    struct pointset *pts;
    signed char *pts_state;
    struct seen members;   /* genome hashes of env.points (if given) */
    int has_members;
    long *sweep;           /* template << 40 | point index, shuffled */
    long n_sweep, sweep_at;
    int sweep_ready;
    /* the surrogate (engine_sur.c): every result in journal order, and
     * the forest fitted to them for this generation (NULL: none) */
    struct sur_hist *hist;
    long n_hist, cap_hist, n_hist_ok;
    struct surrogate *sur;
    int sur_n_tpls;        /* templates when it was fitted */
    int *sur_off;          /* per template: its first feature */
    int sur_d;             /* features */
    /* hardware profiles (engine_prof.c) */
    struct engine_prof *prof;
    struct seen compiled;  /* compile keys of the points measured (template
                              and the values of its params that are not
                              launch-only): a point whose key is here
                              costs no compile (engine_sur.c) */
    int has_compiled;      /* 1 once compiled is initialised */
    struct srcmemo srcs;   /* the sources instantiated lately */
    struct bgwrite bgw;    /* writes sources/ and checkpoint.json on a
                              thread of its own (bgwrite.h) */
    struct seen written;   /* source hashes this process wrote to (or
                              found in) the run's sources/: not written
                              again (a generation's children, a thousand
                              on softmax, share a few hundred sources) */
    /* the pipeline (engine_pipe.c): the next generation's children, bred
     * while this one is measured (n_next 0: none; it is bred when due) */
    struct child *next;
    int n_next, cap_next;
    long next_cap;         /* the evaluation budget that cut next when it
                              was bred (0: not cut): the budget of that
                              generation, recorded in its gen record */
    /* the fill (engine_fill.c): this generation's results so far, and
     * the last finished generation's (what the next fill is sized by) */
    struct fill_stats fill_cur, fill_last;
    struct fill_compiles fill_comp;
    unsigned char *fill_done; /* per history row: 1 once all its launch-only
                                 neighbours are measured or invalid (so the
                                 fill no longer looks at it) */
    long cap_fill_done;
    /* deferred children (engine_defer.c): handed back unmeasured by the
     * last generation's batch, the first children of the next one */
    struct child *carry;
    int n_carry, cap_carry;
    int gen_dropped;        /* this generation's optional children dropped
                               (engine_defer_carry) */
    /* the engine's own time around this generation's batch, ms, while the
     * GPU waits (the gen record's "engine_ms", accounting): its children
     * made, their sources written and handed on, the results taken to
     * survivors (confirmations and profiles inside), and the last
     * generation's record and checkpoint */
    double ms_breed, ms_sources, ms_after, ms_finish_last;
    long in_flight;        /* children being measured while the next
                              generation is bred (0 otherwise): spent, for
                              the budget */
};

/* engine.c: run time incl. earlier sessions, s */
double engine_elapsed_s(const struct engine *e);
/* engine.c: the children of generation e->gen (strategy sweep, the
 * initial points, or offspring), into e->kids. */
int engine_make_children(struct engine *e);
/* engine.c: fills c->source and c->src_hash unless c has its source. */
int engine_instantiate(struct engine *e, struct child *c);
/* engine.c: frees the sources and results of kids[0..n) (not the array). */
void engine_clear_kids(struct child *kids, int n);
/* Frees c->source unless it is lent (srcmemo.h); NULL after. */
void engine_free_source(struct child *c);
/* engine.c: the candidates of kids[0..n) as *cands and a pointer to each
 * as *ptrs (both new: caller frees; they borrow kids). KEVO_ENOMEM. */
int engine_candidates(const struct engine *e, const struct child *kids,
                      int n, struct candidate **cands,
                      const struct candidate ***ptrs);
/* engine.c: the evaluation budget of generation e->gen (0 = none), and
 * the evals_budget the journal's recorded gen record of generation gen
 * holds when the run log replays it (0 = none or not replaying). */
long engine_evals_cap(const struct engine *e);
/* What the evaluation budget leaves for the children being made (the
 * evaluations in flight count as spent); 1 << 62 without one. */
long engine_evals_left(const struct engine *e);
long engine_recorded_cap(const struct engine *e, int gen);

/* engine_pipe.c: the pipeline (spec pipeline, issue 32) */
/* 1 if the run pipelines: its spec says so and it has no LLM mutation. */
int engine_pipe_on(const struct engine *e);
/* Before generation e->gen (its children in e->kids, not yet measured) is
 * measured: breeds generation e->gen + 1 from the results so far into
 * e->next and hands it to the evaluator's prefetch. Deterministic in the
 * results taken so far. */
int engine_pipe_breed(struct engine *e);
/* At the start of generation e->gen: moves the children bred for it into
 * e->kids (empty); 1 if there were any, 0 if they are to be bred now. */
int engine_pipe_take(struct engine *e);
/* e->next for the checkpoint (new JSON array), and read back from
 * checkpoint ck (absent: none; KEVO_EPARSE if malformed). */
cJSON *engine_pipe_to_json(const struct engine *e);
int engine_pipe_restore(struct engine *e, const cJSON *ck);
/* A child as the checkpoint holds it (point, hash, island, mutator,
 * parents; new object, NULL without memory), and read back (its hash
 * checked against its point; KEVO_EPARSE). */
cJSON *engine_child_json(const struct child *c);
int engine_child_from_json(const struct engine *e, const cJSON *o,
                           struct child *c);

/* engine_defer.c: candidates handed back unmeasured (spec defer) */
/* 1 if the run lets its evaluator defer: its spec says so, no LLM
 * mutation, no pipeline. */
int engine_defer_on(const struct engine *e);
/* Before generation e->gen's batch: how many of its e->n_kids the
 * evaluator may defer (0 if engine_defer_on is not). */
int engine_defer_max(const struct engine *e);
/* Kid idx came back deferred (kind: eval_result.deferred; 2, not
 * measured by the time budget, and 3, an optional one dropped, are beyond
 * the allowance): its "defer" record to the run log
 * (KEVO_EDIVERGE, the log's divergence set, for a recorded one in a run
 * that does not defer: a recording it cannot have made). */
int engine_defer_note(struct engine *e, int idx, int kind);
/* Generation 0's fill (spec fill0): up to 4 x fill0 launch-only
 * neighbours of each of its points, optional. */
int engine_fill0_add(struct engine *e);
/* After the batch: the deferred kids leave e->kids (the rest keep their
 * order) for e->carry. */
int engine_defer_carry(struct engine *e);
/* At a generation's start (e->kids empty): the carried kids become its
 * first children. */
int engine_defer_take(struct engine *e);
/* e->carry for the checkpoint (new array; NULL if empty), and read back
 * from checkpoint ck ("carry" absent: none; their hashes join the seen
 * set). KEVO_EPARSE if malformed. */
cJSON *engine_defer_to_json(const struct engine *e);
int engine_defer_restore(struct engine *e, const cJSON *ck);

/* engine.c: a pool of candidate children (the surrogate's offspring
 * pool, the fill's neighbours), {0} when empty: membership by genome hash
 * (a hash set), append (KEVO_ENOMEM), empty it for reuse, free it; and
 * the qsort order best rated first (ties: lower genome hash). */
struct pool {
    struct child *c;
    int n, cap;
    struct seen in;        /* the hashes of c[0..n) (keys NULL: none) */
};
int engine_pool_has(const struct pool *p, uint64_t h);
int engine_pool_add(struct pool *p, const struct child *c);
void engine_pool_clear(struct pool *p);
void engine_pool_free(struct pool *p);
int engine_by_score(const void *a, const void *b);

/* engine_fill.c: the GPU fill (spec fill, issue 32) */
/* Adds a result (its child's mutator m) to s (NULL: none) and its
 * compile (and its GPU's compile processes) to e->fill_comp: every
 * result, live, replayed or counted at a resume. */
void engine_fill_note(struct engine *e, struct fill_stats *s, const char *m,
                      const struct eval_result *r);
/* At a generation's end: its stats become the last finished ones. */
void engine_fill_roll(struct engine *e);
/* After the bred children of generation e->gen are in e->kids: adds the
 * fill's children (launch-only neighbours of island members and archive
 * elites, then of the run's other ok points; best rated first), as many
 * as the last finished generation's idle GPU time holds, then the spare
 * ones (spec fill_spare, optional; at most spec fill_per_bred in all per
 * bred child).
 * Deterministic in the results taken so far. KEVO_OK or KEVO_ENOMEM. */
int engine_fill_add(struct engine *e);
/* The mutator name the fill's children carry. */
extern const char engine_fill_mutator[];

/* engine_report.c: the progress lines and --json events of a new best
 * (after set_best) and of a finished generation; how the session ended,
 * into the run directory's end.json (live runs, ends other than a
 * signal). */
void engine_report_best(struct engine *e);
void engine_report_gen(struct engine *e);
int engine_note_end(const struct engine *e);
/* Removes end.json at a session's start: it exists only while the last
 * session is one that ended on its own. */
void engine_clear_end(const struct engine *e);
/* engine_prof.c: hardware profiles of the best and of LLM parents (see
 * the file's top comment for the budget) */
int engine_prof_init(struct engine *e);
void engine_prof_free(struct engine *e);
/* Profiles genome (tpl, vals, hash) for reason why unless it has a
 * profile, the budget is spent or counters are unavailable; recorded
 * profiles are taken from the journal (runlog_profile). */
int engine_prof_take(struct engine *e, int tpl, const int64_t *vals,
                     uint64_t hash, const char *why);
/* The genome's profile, or NULL. */
const struct kprof *engine_prof_find(const struct engine *e, uint64_t hash);
/* The unavailable profile that turned profiling off (counters restricted,
 * another profiler), or NULL: what prompts show for unprofiled parents. */
const struct kprof *engine_prof_off(const struct engine *e);
/* A "profile" record of the history (before the checkpoint). */
int engine_prof_note_record(struct engine *e, const cJSON *o);
/* Live, before the run's first profile: the evaluator starts what that
 * one needs now (eval.h profile_soon); nothing otherwise. */
void engine_prof_soon(struct engine *e);

/* engine_llm.c */
const struct tpl *engine_tpl_of(const struct engine *e,
                                const struct genome *g);
const struct member *engine_tournament(struct engine *e,
                                       const struct island *is,
                                       int tpl);
int engine_supports(const struct engine *e, const struct genome *g);
/* The template (index, the last of that name) and parameter values of
 * eval record rec into *tpl and vals; -1 if its template is unknown or
 * a parameter is missing (*tpl untouched, vals maybe partly written). */
int engine_record_point(const struct engine *e, const struct rec_eval *rec,
                     int *tpl, int64_t *vals);
/* 1 if template t supports the run's dtype. */
int engine_tpl_usable(const struct engine *e, int t);
int engine_add_child(struct engine *e, const struct child *c);

int engine_llm_init(struct engine *e);
void engine_llm_free(struct engine *e);
/* Remembers a result (for prompts and rewards). */
int engine_llm_note(struct engine *e, const struct child *c);
/* Remembers a result read back from an earlier session's journal. */
int engine_llm_note_record(struct engine *e, const struct rec_eval *rec);
/* Generation 0: asks for the initial proposals. */
int engine_llm_propose(struct engine *e);
/* Takes the answers asked for earlier, in order: journal records,
 * templates, children. */
int engine_llm_collect(struct engine *e);
/* Picks the operator (index in e->arms) for one offspring slot of island
 * i; an LLM arm queues a request (and makes no child now). */
int engine_llm_pick(struct engine *e, int i, int *arm);
/* After evaluation: bandit rewards, repair requests. */
int engine_llm_after_eval(struct engine *e);
cJSON *engine_llm_to_json(const struct engine *e);
int engine_llm_restore(struct engine *e, const cJSON *ck);
int engine_llm_usable_tpls(const struct engine *e);
/* With no usable template, no child and nothing asked (every proposal
 * rejected): asks for proposals again, after a backoff and saying what
 * was wrong, until one is usable; ends with st.stop set when the LLM is
 * off or the rounds run out (STOP_EXHAUSTED), KEVO_ESTOPPED when the time
 * budget or a signal ends a wait. Deterministic in the journaled answers. */
int engine_llm_until_usable(struct engine *e);
/* After a run that evaluated nothing: KEVO_ENOENT with the reason in
 * errbuf if that was for want of a usable LLM answer, else KEVO_OK. */
int engine_llm_end_check(struct engine *e);
/* Template versions asked for a rewrite so far. */
int engine_llm_rewrites_asked(const struct engine *e);

/* engine_sur.c: the surrogate that ranks offspring before evaluation */
/* Remembers a result (in journal order; also for records read back). */
int engine_sur_note(struct engine *e, int tpl, const int64_t *vals,
              enum eval_outcome o, double fitness);
int engine_sur_note_record(struct engine *e, const struct rec_eval *rec);
/* Fits the forest to the results so far (when the spec asks for a
 * surrogate and there are enough of them); deterministic in the seed and
 * generation. */
int engine_sur_fit(struct engine *e);
/* The forest's rating of g: predicted log fitness plus an exploration
 * bonus for uncertainty; 0 if no forest, HUGE_VAL for a template newer
 * than the forest (an LLM's: tried before the rated ones). */
double engine_sur_score(const struct engine *e, const struct genome *g);
/* Counts the binary of (tpl, vals), a candidate being measured, as one
 * the run has (its launch-only neighbours cost no compile). */
int engine_sur_note_compiling(struct engine *e, int tpl, const int64_t *vals);
/* The key of g's binary (its template and compiled params); *have: 1 if
 * the run measured a point of that binary (or one is being measured). */
uint64_t engine_sur_binary(const struct engine *e, const struct genome *g,
                           int *have);
void engine_sur_release(struct engine *e);
/* qsort_r order of history indices (ud: e->hist): fastest first, then
 * earlier first. */
int engine_hist_by_fitness(const void *a, const void *b, void *ud);


#endif
