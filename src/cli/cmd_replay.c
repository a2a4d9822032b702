/*
 * cmd_replay.c - `kevo replay <run-dir>`: re-executes a run's search with
 * the engine fed only the recorded results, and proves its decisions are
 * the recorded ones.
 *
 * How: a fresh engine (seed, spec, device facts and templates from the run
 * directory, no checkpoint) writes its journal into a temporary directory,
 * and its evaluator is a "replay evaluator" that answers each candidate
 * with the recorded result of the journal record at the engine's current
 * position, after checking that the record is the evaluation of that very
 * genome (confirmations likewise). Afterwards the produced journal is
 * compared with the recorded one record by record, member by member
 * (wall-clock members such as "t" aside): same children in the same order
 * with the same parents, mutators and islands, same confirmations, same
 * survivors and best in every "gen" record. Nothing is written into the
 * run directory; the engine needs no hook for this.
 *
 * LLM runs: the engine journals one "llm" record per answer (engine.h);
 * they are compared like the others (accounting members aside: tokens,
 * cost, cached, latency), with the answers given by the replay provider
 * (llm.h, "replay:<run>": the n-th request gets the run's n-th recorded
 * answer), never by a live API, and the prompts built from the run's own
 * gpu_facts.txt, so a different prompt is a divergence.
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
#include "genome.h"
#include "hash.h"
#include "jnl.h"
#include "llm.h"
#include "record.h"
#include "rundir.h"
#include "simtable.h"

#define SHOW_CHARS 240 /* of a JSON value in a message */

static const char usage[] =
    "usage: kevo replay <run-dir> [--json]\n"
    "\n"
    "Re-executes the run's search from its directory with the engine fed\n"
    "only the recorded results (no evaluator, no GPU, nothing written into\n"
    "the run directory) and checks that every decision is the recorded one:\n"
    "the same children in the same order, with the same parents, mutators\n"
    "and islands, the same confirmations, survivors and generation records.\n"
    "Also checks that every sources/<hash>.cu still hashes to its name.\n"
    "\n"
    "Prints 'identical: N evaluations, G generations', or the first\n"
    "divergent record (its line in journal.jsonl) with what the journal\n"
    "holds and what the engine produced.\n"
    "\n"
    "  --json    one JSON object on stdout\n"
    "\n"
    "exit status: 0 identical, 1 divergent or error, 2 usage\n";

/* members that are accounting, not decisions: wall clock, and for "llm"
 * records what the provider charged and where its transcript is */
static const char *const clock_members[] = {"t", "latency_ms", "cached",
                                            "tokens_in", "tokens_out",
                                            "cost_usd", "key"};

struct divergence {
    long index;            /* 0-based record index; -1 = none */
    char what[1024];       /* human text */
    cJSON *recorded;       /* the differing value in the journal, or NULL */
    cJSON *produced;       /* the engine's, or NULL */
};

struct replay {
    const char *dir;
    struct run_view rv;    /* the run: manifest, recorded records, its own
                              templates (the engine gets only those: it
                              remakes the LLM ones from the answers), device
                              facts; owned */
    const cJSON **rec;     /* rv.records by index */
    long n_rec;
    char tmp[4096];        /* scratch run directory; "" = none */
    struct jnl *out;       /* the engine's journal in tmp */
    struct divergence div; /* found by the replay evaluator */
    char err[1024];
};

static long count_type(const struct replay *r, const char *type)
{
    long n = 0;
    for (long i = 0; i < r->n_rec; i++) {
        const char *t = record_str(r->rec[i], "type");
        n += t && !strcmp(t, type);
    }
    return n;
}

/* "<hash> (<template> BM=128 ...)" of a candidate. */
static void describe(const struct candidate *c, char *out, size_t cap)
{
    char hex[17], params[300];
    struct genome g = {.tpl = 0};
    memcpy(g.vals, c->vals, sizeof g.vals[0] * (size_t)c->tpl->n_params);
    genome_format(&g, c->tpl, params, sizeof params);
    hash_hex(c->genome_hash, hex);
    snprintf(out, cap, "%s (%s %s)", hex, c->tpl->name, params);
}

/* What record i of the journal is, for messages. */
static void describe_record(const struct replay *r, long i, char *out,
                            size_t cap)
{
    const cJSON *x = r->rec[i];
    const char *type = record_str(x, "type");
    const char *h = record_str(x, "hash"), *t = record_str(x, "template");
    if (type && !strcmp(type, "eval"))
        snprintf(out, cap, "the evaluation of %s (%s)", h ? h : "?",
                 t ? t : "?");
    else if (type && !strcmp(type, "confirm"))
        snprintf(out, cap, "a confirmation of %s against %s",
                 record_str(x, "challenger") ? record_str(x, "challenger")
                                             : "?",
                 record_str(x, "incumbent") ? record_str(x, "incumbent")
                                            : "?");
    else
        snprintf(out, cap, "a '%s' record (generation %.0f)",
                 type ? type : "?", record_num(x, "gen", -1));
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

/* ------------------------------------------------- the replay evaluator */

/* The engine's position: every record it writes goes to r->out, so the
 * next record it writes has this index. */
static long position(const struct replay *r)
{
    return jnl_count(r->out);
}

static int rv_batch(void *self, const struct candidate *const *cands, int n,
                    eval_cb cb, void *ud)
{
    struct replay *r = self;
    char want[400], have[400];
    for (int i = 0; i < n; i++) {
        long pos = position(r);
        if (pos >= r->n_rec)
            return KEVO_ESTOPPED; /* the recording ends here */
        const cJSON *rec = r->rec[pos];
        const char *type = record_str(rec, "type"), *h = record_str(rec,
                                                                   "hash");
        uint64_t hash;
        if (!type || strcmp(type, "eval") || !h || hash_parse(h, &hash) ||
            hash != cands[i]->genome_hash) {
            describe(cands[i], want, sizeof want);
            describe_record(r, pos, have, sizeof have);
            return diverge(r, pos, "the journal holds %s here, but the "
                           "engine evaluates %s", have, want);
        }
        struct eval_result res;
        eval_result_init(&res);
        if (record_get_result(rec, &res)) {
            eval_result_release(&res);
            return diverge(r, pos, "malformed evaluation record");
        }
        int stop = cb(ud, i, &res);
        eval_result_release(&res);
        if (stop)
            return KEVO_ESTOPPED;
    }
    return KEVO_OK;
}

static int rv_confirm(void *self, const struct candidate *ch,
                      const struct candidate *in, int *accept, double *ratio,
                      double *noise)
{
    struct replay *r = self;
    long pos = position(r);
    if (pos >= r->n_rec)
        return KEVO_ESTOPPED;
    const cJSON *rec = r->rec[pos];
    const char *type = record_str(rec, "type");
    const char *hc = record_str(rec, "challenger"),
               *hi = record_str(rec, "incumbent");
    uint64_t c, i;
    if (!type || strcmp(type, "confirm") || !hc || hash_parse(hc, &c) ||
        c != ch->genome_hash || !hi || hash_parse(hi, &i) ||
        i != in->genome_hash) {
        char a[400], b[400], have[400];
        describe(ch, a, sizeof a);
        describe(in, b, sizeof b);
        describe_record(r, pos, have, sizeof have);
        return diverge(r, pos, "the journal holds %s here, but the engine "
                       "confirms the new best %s against %s", have, a, b);
    }
    *accept = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "accept"));
    *ratio = record_num(rec, "ratio", 0);
    *noise = record_num(rec, "noise", 0);
    return KEVO_OK;
}

static void rv_destroy(void *self)
{
    (void)self;
}

/* confirm() is offered only when the run had one: a run whose evaluator
 * had none has no "confirm" record, and one that had it but never needed
 * it behaves the same without it. */
static const struct evaluator_ops rv_ops = {
    .name = "replay", .eval_batch = rv_batch, .confirm = rv_confirm,
    .destroy = rv_destroy};
static const struct evaluator_ops rv_ops_noconfirm = {
    .name = "replay", .eval_batch = rv_batch, .destroy = rv_destroy};

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
            snprintf(hex, sizeof hex, "%016llx",
                     (unsigned long long)r->rv.tpls[i]->hash);
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

static int load_run(struct replay *r)
{
    int rc = run_view_open(r->dir, &r->rv, r->err, sizeof r->err);
    if (!rc)
        rc = check_templates(r);
    if (rc)
        return rc;
    r->n_rec = r->rv.n_records;
    r->rec = calloc((size_t)(r->n_rec ? r->n_rec : 1), sizeof *r->rec);
    if (!r->rec)
        return KEVO_ENOMEM;
    const cJSON *it;
    long i = 0;
    cJSON_ArrayForEach(it, r->rv.records) r->rec[i++] = it;
    return KEVO_OK;
}

/* ------------------------------------------------------- scratch dir */

static void remove_tmp(struct replay *r)
{
    if (r->tmp[0])
        fs_remove_tree(r->tmp);
    r->tmp[0] = '\0';
}

static int make_tmp(struct replay *r)
{
    const char *base = getenv("TMPDIR");
    char path[4200];
    snprintf(r->tmp, sizeof r->tmp, "%s/kevo-replay.XXXXXX",
             base && *base ? base : "/tmp");
    if (!mkdtemp(r->tmp)) {
        snprintf(r->err, sizeof r->err, "cannot create a scratch directory "
                 "'%s'", r->tmp);
        r->tmp[0] = '\0';
        return KEVO_EIO;
    }
    snprintf(path, sizeof path, "%s/sources", r->tmp);
    int rc = fs_mkdirs(path);
    snprintf(path, sizeof path, "%s/journal.jsonl", r->tmp);
    if (!rc)
        rc = jnl_create(path, &r->out);
    if (rc)
        snprintf(r->err, sizeof r->err, "cannot write the scratch journal "
                 "'%s': %s", path, kevo_strerror(rc));
    return rc;
}

/* ------------------------------------------------------- the replay */

/*
 * Runs the engine on the recorded results. Budgets: generations, time and
 * stagnation only say when to stop, so the end of the recording does that
 * here; the evaluation budget also shapes the last generation (fewer
 * children), so it is set to the number of recorded evaluations, which
 * reproduces a generation cut by the budget and changes nothing else.
 */
static int replay_engine(struct replay *r, struct engine_stats *st)
{
    struct spec s = r->rv.spec;
    s.max_generations = 0;
    s.max_time_s = 0;
    s.stagnation = 0;
    s.max_evals = count_type(r, "eval");
    struct evaluator ev = {count_type(r, "confirm") ? &rv_ops
                                                    : &rv_ops_noconfirm, r};
    struct engine_env env = {
        .spec = &s, .problem = r->rv.prob, .tpls = r->rv.tpls,
        .n_tpls = r->rv.n_tpls, .dev = r->rv.dev, .ev = ev, .run_dir = r->tmp,
        .jnl = r->out, .existing = NULL, .stop = NULL, .prog = NULL};
    struct engine *e;
    char err[512] = "", prompts[4096];
    char *facts = NULL;
    struct llm *llm = NULL;
    struct simtable *tab = NULL; /* a simulated run: its table's points */
    struct pointset *pts = NULL;
    int rc = s.table[0] ? simtable_load(s.table, &tab, err, sizeof err)
                        : KEVO_OK;
    if (tab && !(rc = simtable_points_for(tab, r->rv.tpls, r->rv.n_tpls,
                                          &pts)))
        env.points = pts;
    if (!rc && spec_llm_on(&s)) {
        struct llm_cfg c;
        char spec_text[1300];
        llm_cfg_defaults(&c);
        snprintf(spec_text, sizeof spec_text, "replay:%s", r->dir);
        if (!(rc = cli_llm_inputs(r->dir, prompts, sizeof prompts, &facts,
                                  err, sizeof err)) &&
            !(rc = llm_cfg_parse(spec_text, &c, err, sizeof err))) {
            rc = llm_new(&c, r->tmp, &llm, err, sizeof err);
        }
        env.llm_on = 1;
        env.llm = llm;
        env.prompts_dir = prompts;
        env.gpu_facts = facts;
    }
    if (!rc)
        rc = engine_new(&env, NULL, &e, err, sizeof err);
    if (rc) {
        snprintf(r->err, sizeof r->err, "%s", err);
        llm_free(llm);
        free(facts);
        free(pts);
        simtable_free(tab);
        return rc;
    }
    rc = engine_run(e, err, sizeof err);
    *st = *engine_stats(e);
    engine_free(e);
    llm_free(llm);
    free(facts);
    free(pts);
    simtable_free(tab);
    if (rc && rc != KEVO_ESTOPPED && (rc != KEVO_EDIVERGE ||
                                      r->div.index < 0))
        snprintf(r->err, sizeof r->err, "the engine stopped: %s", err);
    return rc == KEVO_ESTOPPED ? KEVO_OK : rc;
}

static int is_clock_member(const char *k)
{
    for (size_t i = 0; i < sizeof clock_members / sizeof *clock_members; i++)
        if (!strcmp(k, clock_members[i]))
            return 1;
    return 0;
}

/* The first member (other than clock members) in which a and b differ,
 * or NULL. */
static const char *first_difference(const cJSON *a, const cJSON *b)
{
    const cJSON *x;
    cJSON_ArrayForEach(x, a)
    {
        if (is_clock_member(x->string))
            continue;
        const cJSON *y = cJSON_GetObjectItemCaseSensitive(b, x->string);
        if (!y || !cJSON_Compare(x, y, 1))
            return x->string;
    }
    cJSON_ArrayForEach(x, b)
        if (!is_clock_member(x->string) &&
            !cJSON_GetObjectItemCaseSensitive(a, x->string))
            return x->string;
    return NULL;
}

static void show(const cJSON *v, char *out, size_t cap)
{
    char *s = v ? cJSON_PrintUnformatted(v) : NULL;
    snprintf(out, cap, "%s", s ? s : "(absent)");
    if (strlen(out) >= SHOW_CHARS)
        strcpy(out + SHOW_CHARS - 4, "...");
    free(s);
}

/* Compares the produced journal with the recorded one. */
static int compare(struct replay *r, const struct engine_stats *st,
                   int engine_rc)
{
    char path[4200], err[512];
    cJSON *prod = NULL;
    snprintf(path, sizeof path, "%s/journal.jsonl", r->tmp);
    int rc = jnl_read_all(path, &prod, err, sizeof err);
    if (rc) {
        snprintf(r->err, sizeof r->err, "%s", err);
        return rc;
    }
    long np = cJSON_GetArraySize(prod), i = 0;
    const cJSON *p = prod ? prod->child : NULL;
    for (; i < r->n_rec && i < np; i++, p = p->next) {
        const char *k = first_difference(r->rec[i], p);
        if (!k)
            continue;
        char a[SHOW_CHARS + 8], b[SHOW_CHARS + 8];
        const cJSON *va = cJSON_GetObjectItemCaseSensitive(r->rec[i], k),
                    *vb = cJSON_GetObjectItemCaseSensitive(p, k);
        show(va, a, sizeof a);
        show(vb, b, sizeof b);
        cJSON_Delete(r->div.recorded);
        cJSON_Delete(r->div.produced);
        r->div.recorded = va ? cJSON_Duplicate(va, 1) : NULL;
        r->div.produced = vb ? cJSON_Duplicate(vb, 1) : NULL;
        diverge(r, i, "'%s' differs: the journal has %s, the engine "
                "produced %s", k, a, b);
        cJSON_Delete(prod);
        return KEVO_EDIVERGE;
    }
    cJSON_Delete(prod);
    if (engine_rc == KEVO_EDIVERGE && r->div.index >= 0)
        return KEVO_EDIVERGE; /* the evaluator's finding, at np */
    if (engine_rc)
        return engine_rc;
    if (np < r->n_rec) {
        char have[400];
        describe_record(r, np, have, sizeof have);
        return diverge(r, np, "the engine stopped (%s) but the journal goes "
                       "on with %s and %ld more records",
                       engine_stop_text(st->stop), have, r->n_rec - np - 1);
    }
    return KEVO_OK;
}

/* Every sources/<h>.cu named by an evaluation must hash to h. */
static long check_sources(const struct replay *r, long *checked, char *bad,
                          size_t cap)
{
    long n_bad = 0;
    *checked = 0;
    bad[0] = '\0';
    for (long i = 0; i < r->n_rec; i++) {
        const char *type = record_str(r->rec[i], "type");
        const char *h = record_str(r->rec[i], "source");
        char rel[64], path[4200], *text = NULL, hex[17];
        if (!type || strcmp(type, "eval") || !h || strlen(h) != 16)
            continue;
        snprintf(rel, sizeof rel, "sources/%s.cu", h);
        snprintf(path, sizeof path, "%s/%s", r->dir, rel);
        (*checked)++;
        int rc = fs_read_file(path, &text, NULL);
        if (!rc)
            hash_hex(hash_final(hash_str(HASH_SEED, text)), hex);
        free(text);
        if (!rc && !strcmp(hex, h))
            continue;
        if (!n_bad++)
            snprintf(bad, cap, "%s %s", rel, rc ? "is missing"
                     : "does not hash to its name (edited?)");
    }
    return n_bad;
}

/* ------------------------------------------------------------ output */

static void print_result(const struct replay *r, int rc, long checked,
                         long n_bad, const char *bad, int json)
{
    long evals = count_type(r, "eval"), gens = count_type(r, "gen"),
         confs = count_type(r, "confirm");
    const cJSON *last = r->n_rec ? r->rec[r->n_rec - 1] : NULL;
    const char *lt = record_str(last, "type");
    int partial = last && (!lt || strcmp(lt, "gen"));
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
        cJSON_AddNumberToObject(s, "checked", (double)checked);
        cJSON_AddNumberToObject(s, "bad", (double)n_bad);
        if (n_bad)
            cJSON_AddStringToObject(s, "first_bad", bad);
        if (rc == KEVO_EDIVERGE && r->div.index >= 0) {
            cJSON *d = cJSON_AddObjectToObject(o, "divergence");
            const cJSON *x = r->div.index < r->n_rec ? r->rec[r->div.index]
                                                     : NULL;
            cJSON_AddNumberToObject(d, "record", (double)r->div.index + 1);
            cJSON_AddStringToObject(d, "type", record_str(x, "type")
                                    ? record_str(x, "type") : "");
            cJSON_AddNumberToObject(d, "gen", record_num(x, "gen", -1));
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
        const cJSON *x = r->div.index < r->n_rec ? r->rec[r->div.index]
                                                 : NULL;
        printf("divergent at record %ld (line %ld of journal.jsonl; %s, "
               "generation %.0f): %s\n", r->div.index + 1,
               r->div.index + 1, record_str(x, "type") ? record_str(x,
               "type") : "?", record_num(x, "gen", -1), r->div.what);
    } else if (rc == KEVO_OK) {
        printf("identical: %ld evaluations, %ld generations (%ld "
               "confirmations, %ld records)%s\n", evals, gens, confs,
               r->n_rec, partial ? "; the journal ends inside a "
               "generation (the run was stopped there)" : "");
    }
    if (n_bad)
        printf("sources: %ld of %ld differ from their hash; first: %s\n",
               n_bad, checked, bad);
    else
        printf("sources: %ld files match their hashes\n", checked);
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
    long checked = 0, n_bad = 0;
    char bad[300] = "";
    int rc = load_run(&r);
    if (!rc && !(rc = make_tmp(&r))) {
        int erc = replay_engine(&r, &st);
        jnl_close(r.out);
        r.out = NULL;
        rc = erc && erc != KEVO_EDIVERGE ? erc : compare(&r, &st, erc);
    }
    remove_tmp(&r);
    if (!rc || rc == KEVO_EDIVERGE) {
        n_bad = check_sources(&r, &checked, bad, sizeof bad);
        print_result(&r, rc, checked, n_bad, bad, json);
    } else {
        fprintf(stderr, "kevo replay: %s\n", r.err[0] ? r.err
                                                      : kevo_strerror(rc));
    }
    run_view_release(&r.rv);
    free(r.rec);
    cJSON_Delete(r.div.recorded);
    cJSON_Delete(r.div.produced);
    jnl_close(r.out);
    return rc || n_bad ? EXIT_ERROR : EXIT_DONE;
}
