/*
 * records.h - the records of a run's journal (journal.jsonl), typed, with
 * one JSON codec: "eval" (a candidate and its result), "confirm" (a
 * noise-aware acceptance of a new best), "gen" (the end of a generation),
 * "llm" (one LLM answer and what became of it), "profile" (a
 * candidate's hardware profile, core/profile.h) and "defer" (a candidate
 * the evaluator handed back unmeasured: its compile had not ended when
 * the rest of its generation was measured; it joins the next one). Every writer builds a
 * struct and calls rec_*_json; every reader calls rec_parse (or
 * rec_*_parse) and gets the struct back; the member names live here only
 * (the result's members in core/record.c).
 *
 * Which members are decisions and which are accounting (wall clock,
 * provider charges, the transcript key) is also said here, once:
 * rec_first_difference compares two records on their decisions, for
 * resume and replay (runlog.h).
 *
 * Unknown members are ignored (a newer kevo may add some); a missing or
 * ill-typed required member is KEVO_EPARSE naming it.
 */
#ifndef KEVO_RECORDS_H
#define KEVO_RECORDS_H

#include <cJSON.h>
#include <stdint.h>

#include "eval.h"
#include "profile.h"
#include "status.h"
#include "tpl.h"

enum rec_type { REC_EVAL, REC_CONFIRM, REC_GEN, REC_LLM, REC_PROFILE,
                REC_DEFER, REC_UNKNOWN };

/* "eval", "confirm", "gen", "llm", "profile", "defer"; "?" for
 * REC_UNKNOWN. */
const char *rec_type_name(enum rec_type t);
/* The type member of record o (REC_UNKNOWN when absent or unknown). */
enum rec_type rec_type_of(const cJSON *o);

#define REC_NAME_MAX 32

struct rec_eval {
    int gen;
    int idx;                   /* child index in its generation */
    int island;
    uint64_t hash;             /* genome hash */
    char tpl[TPL_NAME_MAX];    /* template name */
    int n_params;
    char names[TPL_MAX_PARAMS][REC_NAME_MAX];
    int64_t vals[TPL_MAX_PARAMS];
    char mutator[REC_NAME_MAX];
    int n_par;
    uint64_t par[2];           /* parents' genome hashes */
    uint64_t source;           /* hash of the instantiated source */
    struct eval_result r;      /* evidence_json owned: rec_eval_release */
    double t;                  /* run time at writing, s (accounting) */
};

struct rec_confirm {
    int gen;
    uint64_t challenger, incumbent;
    int accept;
    double ratio;              /* incumbent time / challenger time */
    double noise;
    double t;
};

struct rec_gen {
    int gen;
    long evals;                /* evaluations so far */
    int children;
    int has_best;
    uint64_t best;
    double best_fitness;
    int n_islands;
    int *island_n;             /* members per island (owned) */
    uint64_t *members;         /* all islands' members, in order (owned) */
    int archive_cells;
    long evals_budget;         /* the evaluation budget this generation
                                  reached (0 = none): a resume with a
                                  larger one, and its replay, make this
                                  generation as cut as it was */
    int compilers;             /* the compile processes of the session
                                  that made it (accounting: a resume on
                                  other CPUs has others; 0 = not
                                  recorded: MPI ranks, which have a pool
                                  each, and runs before kevo said) */
    double t;
};

struct rec_llm {
    int gen;
    long seq;                  /* the engine's request number */
    char op[REC_NAME_MAX];     /* mutator, e.g. "llm_rewrite" */
    int island;
    int n_par;
    uint64_t par[2];
    uint64_t prompt;           /* hash of the request */
    char key[17];              /* transcript key (accounting) */
    char status[16];           /* llm_status_name */
    char verdict[32];          /* answer_reject_name, or "none" */
    char why[512];
    int has_tpl;
    char tpl[TPL_NAME_MAX];
    uint64_t tpl_hash;
    long tokens_in, tokens_out;
    double cost_usd;
    int cached;
    double latency_ms;
    double t;
};

/* A hardware profile of one genome, taken because it became the best or
 * was chosen as the parent of an LLM rewrite/crossover (or by kevo verify
 * --profile). The profile's cost_ms is accounting. */
struct rec_profile {
    int gen;
    uint64_t hash;             /* genome hash */
    char why[16];              /* "best", "parent" */
    struct kprof p;
    double t;
};

struct rec_defer {
    int gen;
    int idx;                   /* child index in its generation */
    uint64_t hash;             /* genome hash */
    int end;                   /* 1: not measured by the run's time
                                  budget ("end": true; eval.h
                                  set_deadline), whatever the allowance */
    int dropped;               /* 1: an optional candidate not measured
                                  when the rest was ("dropped": true; eval.h
                                  set_drop): it leaves the generation */
    double t;
};

/* best.json: the run's accepted best kernel, rewritten at each accepted
 * new best (not a journal line; the readers' view of the winner). */
struct rec_best {
    uint64_t hash;             /* genome hash */
    char tpl[TPL_NAME_MAX];
    int n_params;
    char names[TPL_MAX_PARAMS][REC_NAME_MAX];
    int64_t vals[TPL_MAX_PARAMS];
    double fitness;
    char unit[32];             /* the problem's work unit ("" if absent) */
    double median_ns;
    double ratio;              /* to the main baseline (0: none) */
    int gen;                   /* generation that found it */
};

struct record {
    enum rec_type type;
    union {
        struct rec_eval eval;
        struct rec_confirm confirm;
        struct rec_gen gen;
        struct rec_llm llm;
        struct rec_profile profile;
        struct rec_defer defer;
    } u;
};

/* New JSON objects (NULL without memory). */
cJSON *rec_eval_json(const struct rec_eval *r);
cJSON *rec_confirm_json(const struct rec_confirm *r);
cJSON *rec_gen_json(const struct rec_gen *r);
cJSON *rec_llm_json(const struct rec_llm *r);
cJSON *rec_profile_json(const struct rec_profile *r);
cJSON *rec_defer_json(const struct rec_defer *r);
cJSON *rec_json(const struct record *r);

cJSON *rec_best_json(const struct rec_best *b);

/* Parse one record of known type; err names the bad member. */
int rec_eval_parse(const cJSON *o, struct rec_eval *r, char *err,
                   size_t errcap) KEVO_WUR;
int rec_confirm_parse(const cJSON *o, struct rec_confirm *r, char *err,
                      size_t errcap) KEVO_WUR;
int rec_gen_parse(const cJSON *o, struct rec_gen *r, char *err,
                  size_t errcap) KEVO_WUR;
int rec_llm_parse(const cJSON *o, struct rec_llm *r, char *err,
                  size_t errcap) KEVO_WUR;
int rec_profile_parse(const cJSON *o, struct rec_profile *r, char *err,
                      size_t errcap) KEVO_WUR;
/* A "defer" record's kind, as eval_result.deferred: 2 "end", 3
 * "dropped", else 1. */
int rec_defer_kind(const cJSON *o);
int rec_defer_parse(const cJSON *o, struct rec_defer *r, char *err,
                    size_t errcap) KEVO_WUR;
/* best.json: 'hash' and 'template' are required, 'params' (numbers)
 * when present; the rest default to 0 / "". */
int rec_best_parse(const cJSON *o, struct rec_best *b, char *err,
                   size_t errcap) KEVO_WUR;
/* The best an eval record would make (a run without best.json yet). */
void rec_best_from_eval(const struct rec_eval *e, struct rec_best *b);
/* Any record (an unknown type is KEVO_EPARSE). Release with rec_release. */
int rec_parse(const cJSON *o, struct record *r, char *err,
              size_t errcap) KEVO_WUR;
/* One journal line (a truncated or non-JSON line is KEVO_EPARSE). */
int rec_parse_text(const char *line, struct record *r, char *err,
                   size_t errcap) KEVO_WUR;
/*
 * Every record of JSON array a, typed, into a new array *recs of *n;
 * the caller releases it with rec_release_all, also on failure (then it
 * holds the records before the bad one). strict: the first record the
 * codec refuses is KEVO_EPARSE, *bad its index (0-based) and err the
 * codec's words; not strict: such a record is left out (a damaged run's
 * view). KEVO_ENOMEM without memory.
 */
int rec_parse_all(const cJSON *a, int strict, struct record **recs, int *n,
                  int *bad, char *err, size_t errcap) KEVO_WUR;
void rec_release_all(struct record *recs, int n);
/* The run time at which record r was written, s (accounting). */
double rec_time(const struct record *r);
/* The generation of record r (-1 for REC_UNKNOWN). */
int rec_generation(const struct record *r);
void rec_eval_release(struct rec_eval *r);
void rec_gen_release(struct rec_gen *r);
void rec_release(struct record *r);

/* The value of parameter name in an eval record (in best.json), or dflt. */
int64_t rec_eval_param(const struct rec_eval *r, const char *name,
                       int64_t dflt);
int64_t rec_best_param(const struct rec_best *b, const char *name,
                       int64_t dflt);

/* 1 if member k of a record is accounting (wall clock, provider charges,
 * transcript key, which GPU measured it, a gen record's evals_budget: the
 * engine follows a recorded one, and runs made before it have none), not
 * a decision. */
int rec_is_accounting(const char *k);
/* The first member in which records a and b differ, accounting members
 * aside; NULL if they agree. */
const char *rec_first_difference(const cJSON *a, const cJSON *b);
/* One line for people: "the evaluation of <hash> (<template>)", "a
 * confirmation of <h> against <h>", "a 'gen' record (generation 3)". */
void rec_describe(const cJSON *o, char *out, size_t cap);

#endif
