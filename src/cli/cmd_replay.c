/*
 * cmd_replay.c - `kevo replay <run-dir>`: re-executes a run's search with
 * the engine fed only the recorded results, and proves its decisions are
 * the recorded ones.
 *
 * How: a fresh engine (seed, spec, device facts and templates from the run
 * directory, no checkpoint) runs on a recording-only run log (runlog.h):
 * the same mechanism as a resume, with every record recorded and nothing
 * live. Each result, confirmation and LLM answer is the recorded one, once
 * the record is checked to be about the very candidate or request the
 * engine has; each record the engine makes is compared with the recorded
 * one on its decisions (accounting members such as "t", tokens, cost and
 * transcript keys aside): same children in the same order with the same
 * parents, mutators and islands, same confirmations, same survivors and
 * best in every "gen" record. The first difference is reported with the
 * record's line. Nothing is written anywhere.
 *
 * LLM runs: answers come from the run's own transcripts, never from an
 * API, and the prompts are built from the run's own gpu_facts.txt, so a
 * different prompt is a divergence.
 */
#include "cmd_repro.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd_outputs.h"
#include "cmd_run.h"
#include "engine.h"
#include "fsutil.h"
#include "hash.h"
#include "record.h"
#include "records.h"
#include "rundir.h"
#include "runlog.h"
#include "seen.h"
#include "simtable.h"
#include "tolerance.h"

static const char usage[] =
    "usage: kevo replay <run-dir> [--json]\n"
    "\n"
    "Re-executes the run's search from its directory with the engine fed\n"
    "only the recorded results (no evaluator, no GPU, nothing written into\n"
    "the run directory) and checks that every decision is the recorded one:\n"
    "the same children in the same order, with the same parents, mutators\n"
    "and islands, the same confirmations, survivors and generation records.\n"
    "Also checks that every sources/<hash>.cu present still hashes to its\n"
    "name (absent ones are counted: each candidate's source is instantiated\n"
    "again from the run's templates and must match its recorded hash).\n"
    "\n"
    "Prints 'identical: N evaluations, G generations', or the first\n"
    "divergent record (its line in journal.jsonl) with what the journal\n"
    "holds and what the engine produced.\n"
    "\n"
    "  --json    one JSON object on stdout\n"
    "\n"
    "exit status: 0 identical, 1 divergent or error, 2 usage\n";

struct replay {
    const char *dir;
    struct run_view rv;    /* the run: manifest, recorded records, its own
                              templates (the engine gets only those: it
                              remakes the LLM ones from the answers), device
                              facts; owned */
    long n_rec;            /* rv.n_records */
    struct runlog_divergence div; /* the first difference (index -1: none) */
    char err[1024];
};

static long count_type(const struct replay *r, enum rec_type type)
{
    long n = 0;
    for (long i = 0; i < r->n_rec; i++)
        n += r->rv.recs[i].type == type;
    return n;
}

/* Children the journal deferred and never measured after (a "defer"
 * record with no later record of the same genome): the last generation's
 * own, and those it carried and had not measured where the journal ends
 * (engine_defer.c). They were children, not evaluations. */
static long unmeasured_defers(const struct replay *r)
{
    struct seen later; /* genomes of the records after i */
    long n = 0;
    if (seen_init(&later))
        return -1;
    for (long i = r->n_rec - 1; i >= 0; i--) {
        const struct record *x = &r->rv.recs[i];
        if (x->type != REC_DEFER && x->type != REC_EVAL)
            continue;
        uint64_t h = x->type == REC_DEFER ? x->u.defer.hash : x->u.eval.hash;
        n += x->type == REC_DEFER && !x->u.defer.dropped &&
             !seen_has(&later, h); /* (a dropped one was never a child the
                                       budget cut) */
        if (seen_add(&later, h)) {
            n = -1;
            break;
        }
    }
    seen_release(&later);
    return n;
}

/* The most children any generation had, counted as the evaluations
 * before it plus its own records (evaluations, deferrals and drops: each
 * a child it bred or carried). A generation with optional children
 * (engine_fill.c) bred some that the evaluator dropped: they were
 * children the budget allowed, though never evaluations. */
static long generation_need(const struct replay *r)
{
    long most = 0, before = 0, evals = 0, n = 0;
    int gen = -1;
    for (long i = 0; i < r->n_rec; i++) {
        const struct record *x = &r->rv.recs[i];
        if (x->type != REC_DEFER && x->type != REC_EVAL)
            continue;
        int g = x->type == REC_EVAL ? x->u.eval.gen : x->u.defer.gen;
        if (g > gen) {
            before += evals;
            evals = n = 0;
            gen = g;
        }
        n++;
        evals += x->type == REC_EVAL;
        if (before + n > most)
            most = before + n;
    }
    return most;
}

/* 1 if the journal ends inside a generation (the run was stopped there):
 * a result or deferral of a generation whose gen record is not there. */
static int ends_inside(const struct replay *r)
{
    int last = -1, last_gen = -1;
    for (long i = 0; i < r->n_rec; i++) {
        const struct record *x = &r->rv.recs[i];
        if (x->type == REC_EVAL)
            last = x->u.eval.gen;
        else if (x->type == REC_DEFER)
            last = x->u.defer.gen;
        else if (x->type == REC_GEN)
            last_gen = x->u.gen.gen;
    }
    return last > last_gen;
}

static int diverge(struct replay *r, long index, const char *fmt, ...)
    KEVO_PRINTF(3, 4);
static int diverge(struct replay *r, long index, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    r->div.index = index;
    vsnprintf(r->div.what, sizeof r->div.what, fmt, ap);
    va_end(ap);
    return KEVO_EDIVERGE;
}

/* ------------------------------------------------------------ loading */

/* The run's own templates must be the ones it started with. */
static int check_templates(struct replay *r)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(r->rv.manifest,
                                                         "templates"), *m;
    cJSON_ArrayForEach(m, list)
    {
        const char *name = record_str(m, "name"), *h = record_str(m, "hash");
        int found = 0;
        for (int i = 0; name && h && i < r->rv.n_tpls; i++) {
            if (strcmp(r->rv.tpls[i]->name, name))
                continue;
            char hex[17];
            hash_hex(r->rv.tpls[i]->hash, hex);
            if (strcmp(hex, h)) {
                snprintf(r->err, sizeof r->err, "'%s/templates/%s/%s.cu' "
                         "changed since the run started (hash %s, the "
                         "manifest says %s)", r->dir, r->rv.spec.problem,
                         name, hex, h);
                return KEVO_EPARSE;
            }
            found = 1;
        }
        if (!found) {
            snprintf(r->err, sizeof r->err, "template '%s' of the manifest "
                     "is missing from '%s/templates/%s/'", name ? name : "?",
                     r->dir, r->rv.spec.problem);
            return KEVO_ENOENT;
        }
    }
    return KEVO_OK;
}

/* A journal cut below its checkpoint replays "identical" up to the cut:
 * refused, as status and resume do (after the replay, so that a record
 * deleted in the middle is still reported where it diverges). */
static int check_cut(struct replay *r)
{
    cJSON *ck = NULL;
    int rc = rundir_load_checkpoint(r->dir, &ck, r->err, sizeof r->err);
    if (!rc)
        rc = rundir_check_journal(r->dir, ck, r->rv.n_records, r->err,
                                  sizeof r->err);
    cJSON_Delete(ck);
    return rc;
}

static int open_run(struct replay *r)
{
    int rc = run_view_open(r->dir, &r->rv, r->err, sizeof r->err);
    if (!rc) /* the prompts state the tolerance the run recorded */
        cli_tolerance_adopt(r->rv.prob, r->rv.spec.dtype,
                            cJSON_GetObjectItemCaseSensitive(r->rv.manifest,
                                                             "environment"));
    if (!rc)
        rc = check_templates(r);
    if (rc)
        return rc;
    r->n_rec = r->rv.n_records;
    return KEVO_OK;
}

/* ------------------------------------------------------- the replay */

/*
 * Runs the engine on the recorded results. Budgets: generations, time and
 * stagnation only say when to stop, so the end of the recording does that
 * here; the evaluation budget also shapes the last generation (fewer
 * children), so it is set to the number of recorded evaluations, plus
 * the deferred children never measured after (children, not
 * evaluations), which reproduces a generation cut by the budget and
 * changes nothing else; or, if more, the most children a generation had
 * (generation_need: one whose optional children were dropped had more
 * children than it recorded evaluations). A journal that ends inside a
 * generation is replayed with the run's own budget.
 */
static int replay_engine(struct replay *r, struct engine_stats *st,
                         long *pos)
{
    struct spec s = r->rv.spec;
    s.max_generations = 0;
    s.max_time_s = 0;
    s.stagnation = 0;
    long unmeasured = unmeasured_defers(r);
    if (unmeasured < 0)
        return KEVO_ENOMEM;
    long need = generation_need(r);
    s.max_evals = count_type(r, REC_EVAL) + unmeasured;
    if (need > s.max_evals)
        s.max_evals = need;
    /* a journal that ends inside a generation: the run bred that one
     * with its own budget, so the replay does too (capped at what was
     * recorded, its fill came from a smaller pool of candidates: not the
     * recorded ones); the journal's end stops the replay there */
    if (ends_inside(r))
        s.max_evals = r->rv.spec.max_evals;
    struct runlog_cfg lc = {.records = r->rv.records, .live = 0,
                            .llm_dir = r->dir};
    struct runlog *log = NULL;
    struct engine_env env = {
        .spec = &s, .problem = r->rv.prob, .tpls = r->rv.tpls,
        .n_tpls = r->rv.n_tpls, .dev = r->rv.dev, .run_dir = r->dir};
    struct engine *e = NULL;
    char err[512] = "", prompts[4096];
    char *facts = NULL;
    struct simtable *tab = NULL; /* a simulated run: its table's points */
    struct pointset *pts = NULL;
    int rc = s.table[0] ? simtable_load(s.table, &tab, err, sizeof err)
                        : KEVO_OK;
    if (tab && !(rc = simtable_points_for(tab, r->rv.tpls, r->rv.n_tpls,
                                          &pts)))
        env.points = pts;
    if (!rc && spec_llm_on(&s) &&
        !(rc = cli_llm_inputs(r->dir, prompts, sizeof prompts, &facts, err,
                              sizeof err))) {
        env.llm_on = 1;
        env.prompts_dir = prompts;
        env.gpu_facts = facts;
    }
    if (!rc && (rc = runlog_new(&lc, &log)))
        snprintf(err, sizeof err, "out of memory");
    env.log = log;
    if (!rc)
        rc = engine_new(&env, NULL, &e, err, sizeof err);
    if (!rc) {
        rc = engine_run(e, err, sizeof err);
        *st = *engine_stats(e);
        *pos = runlog_pos(log);
        const struct runlog_divergence *d = runlog_divergence(log);
        if (rc == KEVO_EDIVERGE && d->index >= 0) {
            r->div.index = d->index;
            snprintf(r->div.what, sizeof r->div.what, "%s", d->what);
            r->div.recorded = cJSON_Duplicate(d->recorded, 1);
            r->div.produced = cJSON_Duplicate(d->produced, 1);
        }
    }
    if (rc && rc != KEVO_ESTOPPED && (rc != KEVO_EDIVERGE ||
                                      r->div.index < 0))
        snprintf(r->err, sizeof r->err, "the engine stopped: %s", err);
    engine_free(e);
    runlog_free(log);
    free(facts);
    free(pts);
    simtable_free(tab);
    return rc == KEVO_ESTOPPED ? KEVO_OK : rc;
}

/* After the engine: it must have taken every recorded record. */
static int check_end(struct replay *r, const struct engine_stats *st,
                     long pos)
{
    if (pos >= r->n_rec)
        return KEVO_OK;
    char have[400];
    rec_describe(cJSON_GetArrayItem(r->rv.records, (int)pos), have,
                 sizeof have);
    return diverge(r, pos, "the engine stopped (%s) but the journal goes on "
                   "with %s and %ld more records", engine_stop_text(st->stop),
                   have, r->n_rec - pos - 1);
}

/* Every sources/<h>.cu named by an evaluation that is present must hash to
 * h; each file counts and is read once (points that differ only in
 * launch-only params share one). An absent one is no error: the engine re-instantiated every
 * candidate's source from the run's templates and its hash matched the
 * record's "source" (a difference is a divergence), so the files are a
 * convenience for people, and a run directory may be pruned of them. */
struct src_check {
    long checked, absent, bad;
    char first_bad[300];
};

static void check_sources(const struct replay *r, struct src_check *sc)
{
    memset(sc, 0, sizeof *sc);
    struct seen done;
    int mem = seen_init(&done);
    for (long i = 0; i < r->n_rec; i++) {
        const struct rec_eval *e = run_view_eval(&r->rv, (int)i);
        char rel[64], path[4200], *text = NULL, hex[17], h[17];
        if (!e || !e->source)
            continue;
        if (!mem && seen_has(&done, e->source))
            continue;
        if (!mem)
            mem = seen_add(&done, e->source); /* out of memory: count all */
        hash_hex(e->source, h);
        snprintf(rel, sizeof rel, "sources/%s.cu", h);
        snprintf(path, sizeof path, "%s/%s", r->dir, rel);
        if (!fs_exists(path)) {
            sc->absent++;
            continue;
        }
        sc->checked++;
        int rc = fs_read_file(path, &text, NULL);
        if (!rc)
            hash_hex(hash_final(hash_str(HASH_SEED, text)), hex);
        free(text);
        if (!rc && !strcmp(hex, h))
            continue;
        if (!sc->bad++)
            snprintf(sc->first_bad, sizeof sc->first_bad, "%s %s", rel,
                     rc ? "cannot be read"
                        : "does not hash to its name (edited?)");
    }
    seen_release(&done);
}

/* ------------------------------------------------------------ output */

static void print_result(const struct replay *r, int rc,
                         const struct src_check *sc, int json)
{
    long evals = count_type(r, REC_EVAL), gens = count_type(r, REC_GEN),
         confs = count_type(r, REC_CONFIRM);
    int partial = r->n_rec && r->rv.recs[r->n_rec - 1].type != REC_GEN;
    /* the record where the replay diverged (NULL: past the recording) */
    const struct record *x = rc == KEVO_EDIVERGE && r->div.index >= 0 &&
                                     r->div.index < r->n_rec
                                 ? &r->rv.recs[r->div.index]
                                 : NULL;
    if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "run", r->dir);
        cJSON_AddBoolToObject(o, "identical", rc == KEVO_OK);
        cJSON_AddNumberToObject(o, "records", (double)r->n_rec);
        cJSON_AddNumberToObject(o, "evaluations", (double)evals);
        cJSON_AddNumberToObject(o, "generations", (double)gens);
        cJSON_AddNumberToObject(o, "confirmations", (double)confs);
        cJSON_AddBoolToObject(o, "last_generation_incomplete", partial);
        cJSON *s = cJSON_AddObjectToObject(o, "sources");
        cJSON_AddNumberToObject(s, "checked", (double)sc->checked);
        cJSON_AddNumberToObject(s, "absent", (double)sc->absent);
        cJSON_AddNumberToObject(s, "bad", (double)sc->bad);
        if (sc->bad)
            cJSON_AddStringToObject(s, "first_bad", sc->first_bad);
        if (rc == KEVO_EDIVERGE && r->div.index >= 0) {
            cJSON *d = cJSON_AddObjectToObject(o, "divergence");
            cJSON_AddNumberToObject(d, "record", (double)r->div.index + 1);
            cJSON_AddStringToObject(d, "type",
                                    x ? rec_type_name(x->type) : "");
            cJSON_AddNumberToObject(d, "gen", x ? rec_generation(x) : -1);
            cJSON_AddStringToObject(d, "what", r->div.what);
            if (r->div.recorded)
                cJSON_AddItemToObject(d, "recorded",
                                      cJSON_Duplicate(r->div.recorded, 1));
            if (r->div.produced)
                cJSON_AddItemToObject(d, "produced",
                                      cJSON_Duplicate(r->div.produced, 1));
        }
        char *t = cJSON_PrintUnformatted(o);
        if (t)
            puts(t);
        free(t);
        cJSON_Delete(o);
        return;
    }
    if (rc == KEVO_EDIVERGE && r->div.index >= 0) {
        printf("divergent at record %ld (line %ld of journal.jsonl; %s, "
               "generation %d): %s\n", r->div.index + 1, r->div.index + 1,
               x ? rec_type_name(x->type) : "?", x ? rec_generation(x) : -1,
               r->div.what);
        if (x && x->type == REC_LLM)
            printf("(the LLM prompts are rebuilt from '%s/gpu_facts.txt' "
                   "and the prompt files: a changed one changes the "
                   "requests)\n", r->dir);
    } else if (rc == KEVO_OK) {
        printf("identical: %ld evaluations, %ld generations (%ld "
               "confirmations, %ld records)%s\n", evals, gens, confs,
               r->n_rec, partial ? "; the journal ends inside a "
               "generation (the run was stopped there)" : "");
    }
    if (sc->bad)
        printf("sources: %ld of %ld differ from their hash; first: %s\n",
               sc->bad, sc->checked, sc->first_bad);
    else
        printf("sources: %ld files match their hashes\n", sc->checked);
    if (sc->absent)
        printf("sources: %ld absent (each candidate's source was "
               "re-instantiated from the run's templates and matched its "
               "recorded hash)\n", sc->absent);
}

int cmd_replay_main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", 0, 0, 'j'}, {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
    int c, json = 0;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 'h') {
            fputs(usage, stdout);
            return EXIT_DONE;
        }
        if (c == 'j') {
            json = 1;
            continue;
        }
        fprintf(stderr, "kevo replay: unknown option '%s' (see kevo replay "
                "--help)\n", argv[optind - 1]);
        return EXIT_USAGE;
    }
    if (optind != argc - 1) {
        fprintf(stderr, "kevo replay: expected one run directory (see kevo "
                "replay --help)\n");
        return EXIT_USAGE;
    }
    struct replay r;
    memset(&r, 0, sizeof r);
    r.dir = argv[optind];
    r.div.index = -1;
    struct engine_stats st = {.gen = -1};
    struct src_check sc = {0};
    long pos = 0;
    int rc = open_run(&r);
    if (!rc && !(rc = replay_engine(&r, &st, &pos)) &&
        !(rc = check_end(&r, &st, pos)))
        rc = check_cut(&r);
    if (!rc || rc == KEVO_EDIVERGE) {
        check_sources(&r, &sc);
        print_result(&r, rc, &sc, json);
    } else {
        fprintf(stderr, "kevo replay: %s\n", r.err[0] ? r.err
                                                      : kevo_strerror(rc));
    }
    run_view_release(&r.rv);
    cJSON_Delete(r.div.recorded);
    cJSON_Delete(r.div.produced);
    return rc || sc.bad ? EXIT_ERROR : EXIT_DONE;
}
