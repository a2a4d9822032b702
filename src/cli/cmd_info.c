/*
 * cmd_info.c - the read-only commands `kevo status <run-dir>` (where a run
 * stands: generation, evaluations, outcomes, best so far, budget used) and
 * `kevo list` (problems, templates with the size of their parameter
 * space, mutators). Neither needs a GPU, neither writes anything.
 */
#include <getopt.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <fcntl.h>
#include <unistd.h>

#include "busy.h"
#include "cmd_run.h"
#include "eval.h"
#include "jnl.h"
#include "llm_mutator.h"
#include "mutator.h"
#include "progress.h"
#include "provenance.h"
#include "quote.h"
#include "record.h"
#include "records.h"
#include "fsutil.h"
#include "rundir.h"
#include "tolerance.h"

static int want_help(int argc, char **argv, int *json)
{
    *json = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return 1;
        if (!strcmp(argv[i], "--json"))
            *json = 1;
    }
    return 0;
}

/* ------------------------------------------------------------ status */

static const char status_usage[] =
    "usage: kevo status <run-dir> [--json]\n"
    "\n"
    "Shows where a run stands: generation, evaluations and their outcomes,\n"
    "the best kernel so far, budget used, and whether it is finished,\n"
    "running, or resumable. The gpu line says how much of the run's time x\n"
    "GPUs no check or timing used (idle; and, where the results record it,\n"
    "how much of it the worker spent waiting for a job), and when the run\n"
    "is compile-bound (idle 25 % or more, and more compile than GPU time):\n"
    "the mean compile and GPU time a candidate and the compiles in flight\n"
    "on average.\n";

struct run_summary {
    int gen;
    long evals, outcomes[EVAL_OUTCOME_COUNT], confirms;
    double last_t;            /* run time at the last record, s */
    double ms[3];             /* summed compile, check, time phases */
    int profiles, prof_best, prof_parent;
    double prof_ms;           /* host ms the profiles took */
    const char *prof_note;    /* why counters are unavailable, or NULL */
    int rewrites, rewrite_tpls; /* LLM rewrite requests, template versions */
    struct busy busy;         /* GPU idle / compile-bound (busy.h) */
    long fill;                /* evaluations of the fill (engine_fill.c):
                                 launch-only neighbours, no compile */
    long deferred;            /* "defer" records but "end" ones */
    long deferred_end;        /* "end" ones (the time budget's) of the
                                 last generation that had any, if no
                                 later generation has begun: unmeasured */
    int end_gen;              /* that generation (-1: none) */
    long dropped;             /* "dropped" ones: optional, not measured */
    struct busy_span span[2]; /* GPU phases of the run's first and last
                                 fifth of results (busy.h) */
};

/* The journal's records, typed by the records codec; a record it
 * refuses (a damaged run is still shown) is left out. */
struct run_records {
    struct record *recs;
    int n_recs;
};

/* The template of genome h in the journal's eval records, or NULL. */
static const char *tpl_of(const struct run_records *rr, uint64_t h)
{
    for (int i = 0; i < rr->n_recs; i++)
        if (rr->recs[i].type == REC_EVAL && rr->recs[i].u.eval.hash == h)
            return rr->recs[i].u.eval.tpl;
    return NULL;
}

/* 1 if LLM rewrite record k is the first about its parent's template. */
static int first_rewrite_of_tpl(const struct run_records *rr, int k)
{
    const struct rec_llm *l = &rr->recs[k].u.llm;
    const char *t = l->n_par ? tpl_of(rr, l->par[0]) : NULL;
    for (int i = 0; t && i < k; i++) {
        const struct rec_llm *o = &rr->recs[i].u.llm;
        const char *u;
        if (rr->recs[i].type == REC_LLM && !strcmp(o->op, "llm_rewrite") &&
            o->n_par && (u = tpl_of(rr, o->par[0])) && !strcmp(t, u))
            return 0;
    }
    return t != NULL;
}

/* The compile processes of the run's first session: spec compilers
 * (validated by rundir_load_manifest), else the CPUs the run could use
 * when it was created (the pool's default); 0 where neither is known. */
static int first_compilers(const cJSON *man, const struct spec *sp)
{
    int c = sp->compilers;
    if (c <= 0)
        c = record_int(record_at(man, "host", NULL), "cpus", 0);
    return c > 0 && c <= 1024 ? c : 0;
}

/* The run's compile processes, weighted by run time: each "gen" record's
 * (its session's pool) over the time since the one before, the last
 * one's after it (a generation in progress or cut); where a record says
 * none (a session before kevo recorded them), the first session's
 * (first_compilers). A resume on other CPUs sizes its pool anew, so the
 * result is a mean where the sessions' pools differ. 0 for MPI ranks
 * (each has its own pool) and where a stretch's count is not known. */
static double run_compilers(const struct run_records *rr, double last_t,
                            const cJSON *man, const struct spec *sp)
{
    const cJSON *g;
    cJSON_ArrayForEach(g, record_at(man, "environment", "gpus"))
        if (cJSON_GetObjectItemCaseSensitive(g, "mpi_rank"))
            return 0;
    int first = first_compilers(man, sp), c = first;
    double t0 = 0, span = 0, sum = 0;
    for (int i = 0; i <= rr->n_recs; i++) { /* i == n_recs: after the last */
        const struct record *x = i < rr->n_recs ? &rr->recs[i] : NULL;
        if (x && x->type != REC_GEN)
            continue;
        if (x)
            c = x->u.gen.compilers > 0 ? x->u.gen.compilers : first;
        double t = x ? x->u.gen.t : last_t;
        /* a resume goes on from its checkpoint's time: the records a
         * killed session wrote after it can be later */
        if (!(t > t0))
            continue;
        if (!c)
            return 0;
        sum += c * (t - t0);
        span += t - t0;
        t0 = t;
    }
    double mean = span > 0 ? sum / span : first;
    return mean >= 1 && mean <= 1024 ? mean : 0; /* NaN too */
}

static void summarize(const struct run_records *rr, struct run_summary *s)
{
    memset(s, 0, sizeof *s);
    busy_init(&s->busy);
    s->gen = -1;
    s->end_gen = -1;
    for (int i = 0; i < rr->n_recs; i++) {
        const struct record *x = &rr->recs[i];
        s->last_t = rec_time(x);
        if ((x->type == REC_EVAL || x->type == REC_DEFER) &&
            rec_generation(x) > s->end_gen)
            s->deferred_end = 0; /* the next generation took them */
        if (x->type == REC_DEFER && x->u.defer.end) {
            if (x->u.defer.gen != s->end_gen)
                s->deferred_end = 0;
            s->end_gen = x->u.defer.gen;
            s->deferred_end++;
        } else if (x->type == REC_GEN) {
            s->gen = x->u.gen.gen;
        } else if (x->type == REC_CONFIRM) {
            s->confirms++;
        } else if (x->type == REC_DEFER && x->u.defer.dropped) {
            s->dropped++;
        } else if (x->type == REC_DEFER) {
            s->deferred++;
        } else if (x->type == REC_PROFILE) {
            const struct rec_profile *p = &x->u.profile;
            s->profiles++;
            s->prof_best += !strcmp(p->why, "best");
            s->prof_parent += !strcmp(p->why, "parent");
            s->prof_ms += p->p.available ? p->p.cost_ms : 0;
            if (!s->prof_note && prof_unavailable_everywhere(&p->p))
                s->prof_note = p->p.note;
        } else if (x->type == REC_LLM && !strcmp(x->u.llm.op, "llm_rewrite")) {
            s->rewrites++;
            s->rewrite_tpls += first_rewrite_of_tpl(rr, i);
        } else if (x->type == REC_EVAL) {
            const struct eval_result *r = &x->u.eval.r;
            s->ms[0] += r->compile_ms;
            s->ms[1] += r->check_ms;
            s->ms[2] += r->time_ms;
            busy_add(&s->busy, r);
            busy_add_rec(&s->busy, r);
            s->fill += !strcmp(x->u.eval.mutator, "launch");
            s->evals++;
            s->outcomes[r->outcome]++;
        }
    }
    /* the first and the last fifth of the run's results */
    long k = 0, fifth = s->evals / 5;
    for (int i = 0; i < rr->n_recs && fifth > 0; i++) {
        const struct record *x = &rr->recs[i];
        if (x->type != REC_EVAL)
            continue;
        if (k < fifth)
            busy_span_add(&s->span[0], &x->u.eval.r);
        else if (k >= s->evals - fifth)
            busy_span_add(&s->span[1], &x->u.eval.r);
        k++;
    }
}

/* The best so far: best.json if the run wrote one, else its fittest ok
 * eval record (eval set). */
struct status_best {
    int has;
    struct rec_best best;
    const struct rec_eval *eval;
};

/* The best as status --json shows it: best.json, or the eval record. */
static cJSON *best_json(const struct status_best *b)
{
    return b->eval ? rec_eval_json(b->eval) : rec_best_json(&b->best);
}

static int run_is_locked(const char *dir)
{
    int fd = -1; /* a FIFO or a link at .lock is no lock of ours */
    if (rundir_open_lock(dir, 0, &fd))
        return 0;
    int locked = flock(fd, LOCK_EX | LOCK_NB) != 0;
    close(fd);
    return locked;
}

static cJSON *status_json(const char *dir, const struct spec *sp,
                          const struct run_summary *s,
                          const struct status_best *best, const char *state)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "run", dir);
    cJSON_AddStringToObject(o, "state", state);
    cJSON_AddItemToObject(o, "spec", spec_to_json(sp));
    cJSON_AddItemToObject(o, "budgets", spec_budgets_json(sp));
    cJSON_AddNumberToObject(o, "generation", s->gen);
    cJSON_AddNumberToObject(o, "evaluations", (double)s->evals);
    cJSON *oc = cJSON_AddObjectToObject(o, "outcomes");
    for (int i = 0; i < EVAL_OUTCOME_COUNT; i++)
        cJSON_AddNumberToObject(oc, eval_outcome_name(i),
                                (double)s->outcomes[i]);
    cJSON_AddNumberToObject(o, "elapsed_s", s->last_t);
    cJSON_AddNumberToObject(o, "evals_per_min",
                            s->last_t > 0 ? s->evals * 60.0 / s->last_t : 0);
    cJSON *ms = cJSON_AddObjectToObject(o, "mean_ms");
    static const char *const phase[3] = {"compile", "check", "time"};
    for (int i = 0; i < 3; i++)
        cJSON_AddNumberToObject(ms, phase[i],
                                s->evals ? s->ms[i] / (double)s->evals : 0);
    cJSON *pf = cJSON_AddObjectToObject(o, "profiles");
    cJSON_AddNumberToObject(pf, "taken", s->profiles);
    cJSON_AddNumberToObject(pf, "ms", s->prof_ms);
    cJSON_AddNumberToObject(pf, "share", s->last_t > 0 ? s->prof_ms / 1e3 /
                            s->last_t : 0);
    if (s->prof_note)
        cJSON_AddStringToObject(pf, "not_available", s->prof_note);
    cJSON_AddNumberToObject(o, "deferred", (double)s->deferred);
    cJSON_AddNumberToObject(o, "deferred_at_end", (double)s->deferred_end);
    cJSON_AddNumberToObject(o, "fill_dropped", (double)s->dropped);
    cJSON_AddNumberToObject(o, "llm_rewrites", s->rewrites);
    cJSON_AddNumberToObject(o, "llm_rewrite_templates", s->rewrite_tpls);
    double idle = busy_idle_pct(&s->busy, s->last_t);
    if (idle >= 0) {
        cJSON_AddNumberToObject(o, "gpu_idle_pct", idle);
        cJSON_AddBoolToObject(o, "compile_bound",
                              busy_compile_bound(&s->busy, s->last_t));
        double pct = busy_pool_pct(&s->busy, s->last_t);
        if (pct >= 0) {
            cJSON_AddNumberToObject(o, "compilers", s->busy.compilers);
            cJSON_AddNumberToObject(o, "compile_busy_pct", pct);
        }
    }
    double wait = busy_wait_pct(&s->busy, s->last_t);
    if (wait >= 0)
        cJSON_AddNumberToObject(o, "gpu_wait_pct", wait);
    if (s->busy.trips > 0) { /* means over the results that record them */
        cJSON *jb = cJSON_AddObjectToObject(o, "jobs");
        double n = (double)s->busy.trips;
        cJSON_AddNumberToObject(jb, "round_trip_ms", s->busy.trip_ms / n);
        cJSON_AddNumberToObject(jb, "worker_ms", s->busy.job_ms / n);
        cJSON_AddNumberToObject(jb, "results", n);
    }
    if (s->span[0].n >= BUSY_SPAN_MIN && s->span[1].n >= BUSY_SPAN_MIN) {
        cJSON *dr = cJSON_AddObjectToObject(o, "drift");
        static const char *const part[2] = {"first_fifth", "last_fifth"};
        for (int k = 0; k < 2; k++) {
            const struct busy_span *bs = &s->span[k];
            cJSON *p = cJSON_AddObjectToObject(dr, part[k]);
            cJSON_AddNumberToObject(p, "results", (double)bs->n);
            cJSON_AddNumberToObject(p, "gpu_ms", bs->gpu_ms / (double)bs->n);
            cJSON_AddNumberToObject(p, "reps", (double)bs->reps /
                                                   (double)bs->n);
            if (bs->collects > 0)
                cJSON_AddNumberToObject(p, "collect_ms",
                                        bs->collect_ms / bs->collects);
        }
    }
    if (best->has)
        cJSON_AddItemToObject(o, "best", best_json(best));
    return o;
}

static void print_budget(const struct spec *sp, const struct run_summary *s)
{
    printf("budget:      ");
    if (sp->max_generations <= 0 && sp->max_evals <= 0 &&
        sp->max_time_s <= 0 && sp->stagnation <= 0)
        printf("none (runs until stopped)");
    if (sp->max_generations > 0)
        printf("generations %d/%d  ", s->gen + 1, sp->max_generations);
    if (sp->max_evals > 0)
        printf("evaluations %ld/%ld  ", s->evals, sp->max_evals);
    if (sp->max_time_s > 0)
        printf("time %.0f/%.0f s  ", s->last_t, sp->max_time_s);
    if (sp->stagnation > 0)
        printf("stagnation %d generations  ", sp->stagnation);
    if (sp->max_generations <= 0)
        printf("(no generation cap)");
    printf("\n");
}

/* " (2.96x eager, 1.10x compile)": the best against each baseline the
 * worker measured (manifest environment.baselines), else its recorded
 * ratio to the first one. */
static void print_ratios(const cJSON *man, const struct rec_best *b)
{
    const cJSON *env = cJSON_GetObjectItemCaseSensitive(man, "environment");
    const cJSON *bl = cJSON_GetObjectItemCaseSensitive(env, "baselines"), *x;
    int n = 0;
    cJSON_ArrayForEach(x, bl) {
        struct record_baseline r;
        record_get_baseline(x, &r);
        if (r.fitness > 0 && r.name[0])
            printf("%s%.2fx %s", n++ ? ", " : "  (", b->fitness / r.fitness,
                   r.name);
    }
    if (n)
        printf(")");
    else if (b->ratio > 0)
        printf("  (%.2fx baseline)", b->ratio);
}

static void print_status(const char *dir, const struct spec *sp,
                         const struct run_summary *s,
                         const struct status_best *best, const char *state,
                         const cJSON *man)
{
    char shape[64], fit[64];
    const struct problem *p = problem_find(sp->problem);
    problem_format_shape(&sp->shape, shape, sizeof shape);
    if (!shape[0]) /* a torch module with no size constant */
        snprintf(shape, sizeof shape, "(fixed shape)");
    printf("run:         %s (%s)\n", dir, state);
    printf("problem:     %s %s %s, seed %llu\n", sp->problem,
           dtype_name(sp->dtype), shape, (unsigned long long)sp->seed);
    char tol[2048]; /* one pair per output */
    cli_tolerance_line(p, p ? &sp->shape : NULL, sp->dtype,
                       cJSON_GetObjectItemCaseSensitive(man, "environment"),
                       tol, sizeof tol);
    if (tol[0]) /* "tolerance for out: atol ..." */
        printf("tolerance:   %s\n", tol + strlen("tolerance") +
               (tol[strlen("tolerance")] == ':' ? 2 : 1));
    printf("generation:  %d\n", s->gen);
    printf("evaluations: %ld (", s->evals);
    for (int i = 0, first = 1; i < EVAL_OUTCOME_COUNT; i++)
        if (s->outcomes[i]) {
            printf("%s%s %ld", first ? "" : ", ", eval_outcome_name(i),
                   s->outcomes[i]);
            first = 0;
        }
    printf(")\n");
    if (best->has) {
        const struct rec_best *b = &best->best;
        progress_fmt_fitness(b->fitness, p ? p->work_unit : "", fit,
                             sizeof fit);
        cJSON *po = cJSON_CreateObject();
        for (int i = 0; po && i < b->n_params; i++)
            cJSON_AddNumberToObject(po, b->names[i], (double)b->vals[i]);
        char *params = cJSON_PrintUnformatted(po);
        cJSON_Delete(po);
        char tq[4 * sizeof b->tpl]; /* the journal's: no escape sequence */
        printf("best:        %s  %s %s", fit, quote_term(b->tpl, tq, sizeof tq),
               params ? params : "");
        print_ratios(man, b);
        printf("\n");
        free(params);
    } else {
        printf("best:        none yet\n");
    }
    if (s->evals && s->last_t > 0)
        printf("throughput:  %.0f evaluations/min; mean per candidate: "
               "compile %.1f ms, check %.1f ms, timing %.1f ms\n",
               s->evals * 60.0 / s->last_t, s->ms[0] / (double)s->evals,
               s->ms[1] / (double)s->evals, s->ms[2] / (double)s->evals);
    if (s->fill)
        printf("fill:        %ld evaluations (%.0f %%) of launch-only "
               "neighbours, in the GPU's idle time: no compile\n", s->fill,
               100.0 * (double)s->fill / (double)s->evals);
    if (s->dropped)
        printf("             (and %ld optional ones not reached before the "
               "compiles ended: dropped)\n", s->dropped);
    if (s->deferred)
        printf("deferred:    %ld times a candidate whose compile had not "
               "ended went to the next generation\n", s->deferred);
    if (s->deferred_end)
        printf("unmeasured:  %ld candidates not measured by the time budget "
               "(deferred: a resume measures them first)\n",
               s->deferred_end);
    char busy[256];
    busy_fmt(&s->busy, s->last_t, busy, sizeof busy);
    if (busy[0])
        printf("gpu:         %s\n", busy);
    busy_jobs_fmt(&s->busy, busy, sizeof busy);
    if (busy[0])
        printf("jobs:        %s\n", busy);
    busy_drift_fmt(&s->span[0], &s->span[1], busy, sizeof busy);
    if (busy[0])
        printf("drift:       %s\n", busy);
    print_budget(sp, s);
    if (s->prof_note)
        printf("profiles:    %s\n", s->prof_note);
    else if (s->profiles)
        printf("profiles:    %d (%d new best%s, %d LLM parent%s), %.0f ms = "
               "%.2f %% of the run (budget 3 %%)\n", s->profiles,
               s->prof_best, s->prof_best == 1 ? "" : "s", s->prof_parent,
               s->prof_parent == 1 ? "" : "s", s->prof_ms,
               s->last_t > 0 ? s->prof_ms / 10.0 / s->last_t : 0);
    if (s->rewrites)
        printf("rewrites:    %d LLM rewrite%s over %d template version%s "
               "(each asked once, at its best point)\n", s->rewrites,
               s->rewrites == 1 ? "" : "s", s->rewrite_tpls,
               s->rewrite_tpls == 1 ? "" : "s");
}

/* How the last session ended, from the end.json the engine wrote
 * ("finished (time budget)"), if it is about the journal as it is (a
 * later session killed with -9 leaves an older one); NULL if none. */
static const char *recorded_end(const char *dir, const struct run_summary *s)
{
    static char text[128];
    char path[4096], *json = NULL;
    if (rundir_path(path, sizeof path, dir, "end.json") ||
        fs_read_file(path, &json, NULL))
        return NULL;
    cJSON *o = cJSON_Parse(json);
    free(json);
    const char *t = record_str(o, "text");
    int current = t && record_num(o, "evaluations", -1) == (double)s->evals;
    if (current)
        snprintf(text, sizeof text, "%s", t);
    cJSON_Delete(o);
    return current ? text : NULL;
}

static const char *run_state(const char *dir, const struct spec *sp,
                             const struct run_summary *s)
{
    const char *end;
    if (run_is_locked(dir))
        return "running";
    if ((end = recorded_end(dir, s)))
        return end;
    if ((sp->max_generations && s->gen + 1 >= sp->max_generations) ||
        (sp->max_evals && s->evals >= sp->max_evals))
        return "finished";
    return "stopped, resumable";
}

/* best.json if the run wrote one, else the best ok journal record. */
static void load_best(const char *dir, const struct run_records *rr,
                      struct status_best *b)
{
    char path[4096], *text, why[256];
    memset(b, 0, sizeof *b);
    if (!rundir_path(path, sizeof path, dir, "best.json") &&
        !fs_read_file(path, &text, NULL)) {
        cJSON *o = cJSON_Parse(text);
        free(text);
        b->has = o && !rec_best_parse(o, &b->best, why, sizeof why);
        cJSON_Delete(o);
        if (b->has)
            return;
    }
    for (int i = 0; i < rr->n_recs; i++) {
        const struct rec_eval *e = &rr->recs[i].u.eval;
        if (rr->recs[i].type == REC_EVAL && e->r.outcome == EVAL_OK &&
            (!b->eval || e->r.fitness > b->eval->r.fitness))
            b->eval = e;
    }
    if ((b->has = b->eval != NULL))
        rec_best_from_eval(b->eval, &b->best);
}

int cmd_status_main(int argc, char **argv)
{
    int json;
    if (want_help(argc, argv, &json)) {
        fputs(status_usage, stdout);
        return EXIT_DONE;
    }
    const char *dir = NULL;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--json"))
            dir = dir ? "" : argv[i];
    if (!dir || !*dir) {
        fprintf(stderr, "kevo status: expected one run directory (see "
                "--help)\n");
        return EXIT_USAGE;
    }
    struct spec sp;
    cJSON *records = NULL, *ck = NULL, *man = NULL;
    char err[1024], damage[1024] = "";
    int not_started = 0;
    int rc = rundir_load_manifest(dir, &sp, &man, err, sizeof err);
    if (!rc)
        rc = rundir_read_journal(dir, &records, &not_started, err,
                                 sizeof err);
    if (!rc)
        rc = rundir_load_checkpoint(dir, &ck, err, sizeof err);
    if (rc) {
        fprintf(stderr, "kevo status: %s\n", err);
        cJSON_Delete(records);
        cJSON_Delete(man);
        return EXIT_ERROR;
    }
    /* a journal cut below its checkpoint: say so, not "resumable" */
    if (rundir_check_journal(dir, ck, cJSON_GetArraySize(records), damage,
                             sizeof damage))
        fprintf(stderr, "kevo status: %s\n", damage);
    cJSON_Delete(ck);
    struct run_records rr;
    int bad;
    if (rec_parse_all(records, 0, &rr.recs, &rr.n_recs, &bad, err,
                      sizeof err)) {
        fprintf(stderr, "kevo status: out of memory\n");
        cJSON_Delete(records);
        cJSON_Delete(man);
        return EXIT_ERROR;
    }
    struct run_summary s;
    summarize(&rr, &s);
    s.busy.compilers = run_compilers(&rr, s.last_t, man, &sp);
    struct status_best best;
    load_best(dir, &rr, &best);
    const char *state = damage[0] ? "damaged, cannot be resumed"
                        : not_started
                            ? "not started; 'kevo resume' starts it"
                            : run_state(dir, &sp, &s);
    if (json) {
        cJSON *o = status_json(dir, &sp, &s, &best, state);
        if (damage[0])
            cJSON_AddStringToObject(o, "damage", damage);
        outputs_print_json(o);
        cJSON_Delete(o);
    } else {
        print_status(dir, &sp, &s, &best, state, man);
    }
    cJSON_Delete(man);
    rec_release_all(rr.recs, rr.n_recs);
    cJSON_Delete(records);
    return EXIT_DONE;
}

/* -------------------------------------------------------------- list */

static const char list_usage[] =
    "usage: kevo list [--templates-dir DIR] [--problems-dir DIR] [--json]\n"
    "\n"
    "Lists the problems kevo can optimize (built in, then the user-defined\n"
    "ones: DIR/*.problem and DIR/*/*.problem, DIR from --problems-dir, else\n"
    "$KEVO_PROBLEMS, else ./problems, else examples/problems; their\n"
    "templates are the *.cu next to each file), the templates with the size of\n"
    "their parameter space (valid points / all combinations) and, for one\n"
    "that kevo promote added, where it comes from (its provenance lines:\n"
    "run, model, prompt, answer, GPU, shape, fitness, verify drift), and\n"
    "the mutators.\n";

/* Counting a space stops at SPACE_LIMIT valid points or SPACE_STEPS nodes
 * of the search tree (well under a second), whichever comes first: a template
 * whose constraints few points meet is bounded by work, not by points. */
#define SPACE_LIMIT 10000000ULL
#define SPACE_STEPS 5000000ULL

static uint64_t space_count(const struct tpl *t, int *exact)
{
    return tpl_space_count(t, &tpl_device_default, SPACE_LIMIT, SPACE_STEPS,
                           exact);
}

/* A promoted template's "// kevo: provenance" lines (kevo promote), one
 * per line under its entry. */
static void print_provenance(const struct tpl *t)
{
    cJSON *o = prov_read(t->text);
    const cJSON *x;
    cJSON_ArrayForEach(x, o)
    {
        char *q = quote_term_dup(x->valuestring ? x->valuestring : "");
        printf("           %-9s %s\n", x->string, q ? q : "");
        free(q);
    }
    cJSON_Delete(o);
}

/* User-defined problems found by load_user_problems (any number; the
 * problems live for the process, so the list is never freed). */
static const struct problem **user_probs;
static int n_user_probs, cap_user_probs;

static int add_user_prob(const struct problem *p)
{
    if (n_user_probs == cap_user_probs) {
        int nc = cap_user_probs ? cap_user_probs * 2 : 16;
        const struct problem **np = realloc(user_probs,
                                            (size_t)nc * sizeof *np);
        if (!np)
            return KEVO_ENOMEM;
        user_probs = np;
        cap_user_probs = nc;
    }
    user_probs[n_user_probs++] = p;
    return KEVO_OK;
}

/* The params no code names (tpl.h): their values share one compile. */
static void print_launch_only(const struct tpl *t, int w)
{
    int any = 0;
    for (int i = 0; i < t->n_params; i++) {
        if (!t->params[i].launch_only)
            continue;
        if (!any++)
            printf("  %-*s %-22s launch-only (one compile for all values): ",
                   w, "", "");
        else
            printf(", ");
        printf("%s", t->params[i].name);
    }
    if (any)
        printf("\n");
}

static void list_text(struct tpl **t, int n)
{
    printf("problems:\n");
    for (int i = 0; problem_builtin(i); i++) {
        const struct problem *p = problem_builtin(i);
        printf("  %-10s %s\n", p->name, p->summary);
    }
    for (int i = 0; i < n_user_probs; i++)
        printf("  %-10s %s\n  %-10s (user problem: %s)\n",
               user_probs[i]->name, user_probs[i]->summary, "",
               user_probs[i]->file_path);
    printf("templates:\n");
    int w = 8; /* the problem column: as wide as the longest name */
    for (int i = 0; i < n; i++)
        if ((int)strlen(t[i]->problem) > w)
            w = (int)strlen(t[i]->problem);
    for (int i = 0; i < n; i++) {
        int exact;
        uint64_t valid = space_count(t[i], &exact);
        printf("  %-*s %-22s %2d params, %s%llu valid points of %.0f%s\n",
               w, t[i]->problem, t[i]->name, t[i]->n_params, exact ? "" : ">=",
               (unsigned long long)valid, tpl_space_raw(t[i]),
               exact || valid >= SPACE_LIMIT ? ""
                                             : " (counting stopped after "
                                               "5M steps)");
        print_launch_only(t[i], w);
        print_provenance(t[i]);
    }
    printf("mutators:\n");
    for (int i = 0; kevo_mutators[i]; i++)
        printf("  %-14s %s\n", kevo_mutators[i]->name,
               kevo_mutators[i]->summary);
    for (int i = 0; kevo_llm_mutators[i]; i++)
        printf("  %-14s %s\n",
               kevo_llm_mutators[i]->name, kevo_llm_mutators[i]->summary);
}

static void list_json(struct tpl **t, int n)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *ps = cJSON_AddArrayToObject(o, "problems");
    for (int i = 0; problem_builtin(i); i++) {
        cJSON *p = cJSON_CreateObject();
        cJSON_AddStringToObject(p, "name", problem_builtin(i)->name);
        cJSON_AddStringToObject(p, "summary", problem_builtin(i)->summary);
        cJSON_AddStringToObject(p, "abi", problem_builtin(i)->abi);
        cJSON_AddItemToArray(ps, p);
    }
    for (int i = 0; i < n_user_probs; i++) {
        cJSON *p = cJSON_CreateObject();
        cJSON_AddStringToObject(p, "name", user_probs[i]->name);
        cJSON_AddStringToObject(p, "summary", user_probs[i]->summary);
        cJSON_AddStringToObject(p, "abi", user_probs[i]->abi);
        cJSON_AddStringToObject(p, "file", user_probs[i]->file_path);
        cJSON_AddItemToArray(ps, p);
    }
    cJSON *ts = cJSON_AddArrayToObject(o, "templates");
    for (int i = 0; i < n; i++) {
        cJSON *p = cJSON_CreateObject();
        cJSON_AddStringToObject(p, "name", t[i]->name);
        cJSON_AddStringToObject(p, "problem", t[i]->problem);
        cJSON_AddNumberToObject(p, "params", t[i]->n_params);
        int exact;
        cJSON_AddNumberToObject(p, "valid_points",
                                (double)space_count(t[i], &exact));
        /* false: valid_points is a lower bound */
        cJSON_AddBoolToObject(p, "valid_points_exact", exact);
        cJSON_AddNumberToObject(p, "all_points", tpl_space_raw(t[i]));
        /* params no code names: one compile for all their values */
        cJSON *lo = cJSON_AddArrayToObject(p, "launch_only");
        for (int k = 0; lo && k < t[i]->n_params; k++)
            if (t[i]->params[k].launch_only)
                cJSON_AddItemToArray(lo, cJSON_CreateString(
                                             t[i]->params[k].name));
        /* {KEY: VALUE} of a promoted template, else {} */
        cJSON *pv = prov_read(t[i]->text);
        cJSON_AddItemToObject(p, "provenance", pv ? pv
                                                  : cJSON_CreateObject());
        cJSON_AddItemToArray(ts, p);
    }
    cJSON *ms = cJSON_AddArrayToObject(o, "mutators");
    for (int i = 0; kevo_mutators[i]; i++)
        cJSON_AddItemToArray(ms, cJSON_CreateString(kevo_mutators[i]->name));
    for (int i = 0; kevo_llm_mutators[i]; i++)
        cJSON_AddItemToArray(ms,
                             cJSON_CreateString(kevo_llm_mutators[i]->name));
    outputs_print_json(o);
    cJSON_Delete(o);
}

/* Appends the templates next to problem file path to *t. */
static int add_flat_templates(const char *path, struct tpl ***t, int *n,
                              char *err, size_t errcap)
{
    char dir[4096];
    struct tpl **more = NULL;
    int k = 0;
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = '\0'; /* path is DIR/x.problem or DIR/y/x.problem */
    int rc = tpl_load_flat(dir, &more, &k, err, errcap);
    struct tpl **all = rc ? NULL : realloc(*t, (size_t)(*n + k + 1) *
                                                   sizeof *all);
    if (!rc && !all)
        rc = KEVO_ENOMEM;
    for (int i = 0; i < k; i++) {
        if (rc)
            tpl_free(more[i]);
        else
            all[(*n)++] = more[i];
    }
    free(more);
    if (all)
        *t = all;
    return rc;
}

/* Loads every user problem in the problems directory (kevo list) and
 * their templates; a bad file is reported and makes the exit non-zero. */
static int load_user_problems(const char *given, struct tpl ***t, int *n)
{
    char dir[4096], pat[4200], err[1024];
    if (cli_problems_dir(given, dir, sizeof dir)) {
        if (!given)
            return KEVO_OK; /* none here */
        fprintf(stderr, "kevo list: problems directory '%s' not found\n",
                given);
        return KEVO_ENOENT;
    }
    int bad = 0;
    for (int level = 0; level < 2; level++) {
        glob_t g;
        snprintf(pat, sizeof pat, "%s/%s*.problem", dir, level ? "*/" : "");
        if (glob(pat, 0, NULL, &g))
            continue;
        for (size_t i = 0; i < g.gl_pathc; i++) {
            const struct problem *p;
            if (problem_load_file(g.gl_pathv[i], &p, err, sizeof err) ||
                add_flat_templates(g.gl_pathv[i], t, n, err, sizeof err)) {
                fprintf(stderr, "kevo list: %s\n", err);
                bad = 1;
            } else if (add_user_prob(p)) {
                fprintf(stderr, "kevo list: out of memory\n");
                bad = 1;
            }
        }
        globfree(&g);
    }
    return bad ? KEVO_EPARSE : KEVO_OK;
}

int cmd_list_main(int argc, char **argv)
{
    int json;
    const char *tdir = NULL, *pdir = NULL;
    if (want_help(argc, argv, &json)) {
        fputs(list_usage, stdout);
        return EXIT_DONE;
    }
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--templates-dir") && i + 1 < argc)
            tdir = argv[++i];
        else if (!strcmp(argv[i], "--problems-dir") && i + 1 < argc)
            pdir = argv[++i];
        else if (strcmp(argv[i], "--json")) {
            fprintf(stderr, "kevo list: unknown argument '%s'\n", argv[i]);
            return EXIT_USAGE;
        }
    }
    char dir[4096], err[1024];
    struct tpl **t = NULL;
    int n = 0;
    int rc = cli_templates_dir(tdir, dir, sizeof dir);
    if (rc) {
        fprintf(stderr, "kevo list: template directory '%s': %s\n",
                tdir ? tdir : "templates", kevo_strerror(rc));
        return EXIT_ERROR;
    }
    if (tpl_load_dir(dir, &t, &n, err, sizeof err)) {
        fprintf(stderr, "kevo list: %s\n", err);
        return EXIT_ERROR;
    }
    int urc = load_user_problems(pdir, &t, &n);
    if (json)
        list_json(t, n);
    else
        list_text(t, n);
    for (int i = 0; i < n; i++)
        tpl_free(t[i]);
    free(t);
    return urc ? EXIT_ERROR : EXIT_DONE;
}
