/*
 * runview.h - a run directory as every reader sees it: manifest, problem,
 * journal (each record checked), device facts, the run's templates (its
 * own copies and those born from LLM answers), the winner and verify.json.
 * report, leaderboard, export, promote, verify and replay all open runs
 * through it, so every command finds a template the same way and reports
 * a damaged run the same way: the path, and for the journal the line of
 * the bad record. The journal's records are parsed once, by the records
 * codec (records.h), and best.json by its typed reader: readers use the
 * structs (recs, run_view_eval, best, ...) and never pick the run's JSON
 * apart by key.
 */
#ifndef KEVO_RUNVIEW_H
#define KEVO_RUNVIEW_H

#include <cJSON.h>

#include "problem.h"
#include "record.h"
#include "records.h"
#include "spec.h"
#include "status.h"
#include "tpl.h"
#include "vdoc.h"

/* A run directory as the output commands see it. Use the functions. */
struct run_view {
    char dir[4096];              /* as given */
    struct spec spec;            /* from manifest.json */
    const struct problem *prob;  /* registry entry of spec.problem */
    cJSON *manifest;             /* whole manifest, owned */
    cJSON *records;              /* journal records in order, as JSON,
                                    owned (replay hands them to the run
                                    log); readers use recs */
    struct record *recs;         /* the same records, typed (records.h),
                                    each parsed once, owned */
    int n_records;
    struct tpl **tpls;           /* the run's own templates (templates/,
                                    copied at creation), owned */
    int n_tpls;
    struct tpl **llm_tpls;       /* templates born from the run's LLM
                                    answers, owned */
    int n_llm_tpls;
    char llm_why[1024];          /* why an LLM template of the journal could
                                    not be recovered ("" = all were) */
    struct tpl_device dev;       /* device facts from the manifest, else
                                    tpl_device_default */
    int has_best;                /* 0 = no winner */
    struct rec_best best;        /* best.json, else made from the fittest
                                    ok eval record */
    char best_hex[17];           /* best.hash in hex */
    const struct rec_eval *best_eval; /* the winner's eval record in recs
                                    (borrowed), NULL if not journaled */
    const struct tpl *best_tpl;  /* winner's template, NULL if unknown */
    int64_t best_vals[TPL_MAX_PARAMS]; /* winner's point in best_tpl */
    struct vdoc *verify;         /* verify.json if present (vdoc.h),
                                    owned */
};

/*
 * Opens dir: manifest, problem, journal (each record checked), device
 * facts and templates. The run's own come from templates/<problem>/; an
 * LLM-born one (named in an "llm" journal record) from
 * llm/templates/<name>.cu if it still hashes to the recorded
 * "template_hash", else it is rebuilt from its answer in llm/<key>.json.
 * One that cannot be recovered is no error here (llm_why says why; see
 * run_view_tpl_missing()). Errors name the path: "'x' is not a kevo run
 * directory", "<dir>/journal.jsonl:<line>: eval record has no valid
 * 'outcome'" (the codec's words), ... has_best stays 0, verify NULL. v
 * is filled only on success; release it with run_view_release().
 */
int run_view_open(const char *dir, struct run_view *v, char *err,
                  size_t errcap) KEVO_WUR;
/*
 * run_view_open() plus the winner (best.json, else the fittest ok eval
 * record: its record, template and point) and verify.json. Errors also: a
 * best.json naming a template the run does not have (with why), a
 * verify.json that is not a JSON object.
 */
int run_view_load(const char *dir, struct run_view *v, char *err,
                  size_t errcap) KEVO_WUR;
void run_view_release(struct run_view *v);
/* Record i's eval record, or NULL when record i is of another type. */
const struct rec_eval *run_view_eval(const struct run_view *v, int i);
/* The first eval record of genome hash h that is ok, else the first of
 * any outcome, else NULL. */
const struct rec_eval *run_view_find_eval(const struct run_view *v,
                                          uint64_t h);
/* The fittest ok eval record (the first of equals), of template tpl or
 * (tpl NULL) of any; NULL if none. */
const struct rec_eval *run_view_fittest(const struct run_view *v,
                                        const char *tpl);
/* The number of eval records (returned) and of each outcome (n, may be
 * NULL). */
long run_view_outcomes(const struct run_view *v,
                       long n[EVAL_OUTCOME_COUNT]);
/* The run's template named name - its own or LLM-born - or NULL: the one
 * lookup every reader uses. */
const struct tpl *run_view_tpl(const struct run_view *v, const char *name);
/* Why run_view_tpl(v, name) is NULL, for a message: "template 'x' is
 * neither in '<dir>/templates/<problem>/' nor among the run's LLM
 * templates (...)". */
void run_view_tpl_missing(const struct run_view *v, const char *name,
                          char *out, size_t cap);
/* GPU name from the manifest's environment ("" if none recorded). */
/* Member k of the manifest's "environment" object, or NULL. */
const cJSON *run_view_env(const struct run_view *v, const char *k);
const char *run_view_gpu(const struct run_view *v);
/* The environment's "baselines" array ({name, median_ns, fitness}), or
 * NULL. Borrowed. */
const cJSON *run_view_baselines(const struct run_view *v);
/* How many baselines the run measured; baseline i of them, typed. */
int run_view_n_baselines(const struct run_view *v);
void run_view_baseline(const struct run_view *v, int i,
                       struct record_baseline *b);
/* The point of template t that eval record e names, into vals (the
 * default for a parameter it does not name). */
void run_view_point(const struct tpl *t, const struct rec_eval *e,
                    int64_t *vals);

/* The winner's exact source: sources/<h>.cu of its eval record, else
 * best.cu, else instantiated from its template (rel = ""); rel[cap] gets
 * the path relative to the run. New string (caller frees), NULL without
 * memory. Requires v->has_best. */
char *run_view_source(const struct run_view *v, char *rel, size_t cap);

#endif
