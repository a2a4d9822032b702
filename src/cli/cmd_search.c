/*
 * cmd_search.c - `kevo table` and `kevo bench-search` (see cmd_search.h).
 */
#include "cmd_search.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_run.h"
#include "engine.h"
#include "outpath.h"
#include "progress.h"
#include "simtable.h"

/* ----------------------------------------------------------- kevo table */

static const char table_usage[] =
    "usage: kevo table RUN [--out FILE]\n"
    "\n"
    "Writes the measured points of RUN (a run directory, e.g. a kevo run\n"
    "--strategy sweep; or a table) as a compact table: one JSON line per\n"
    "template (its text) and per point (outcome, fitness, median time), to\n"
    "FILE or stdout. 'kevo run --simulate FILE' searches it without a GPU.\n";

int cmd_table_main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"out", 1, 0, 'o'}, {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
    const char *out = NULL;
    char err[1024] = "";
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
        if (c == 'h') {
            fputs(table_usage, stdout);
            return EXIT_DONE;
        }
        if (c != 'o') {
            fprintf(stderr, "kevo table: unknown option '%s' (see kevo "
                    "table --help)\n", argv[optind - 1]);
            return EXIT_USAGE;
        }
        out = optarg;
    }
    if (optind != argc - 1) {
        fprintf(stderr, "kevo table: expected one run directory (see kevo "
                "table --help)\n");
        return EXIT_USAGE;
    }
    struct simtable *t;
    if (simtable_load(argv[optind], &t, err, sizeof err)) {
        fprintf(stderr, "kevo table: %s\n", err);
        return EXIT_ERROR;
    }
    FILE *f = out ? fopen(out, "w") : stdout;
    if (!f) {
        char why[4200];
        outpath_why(out, errno, why, sizeof why);
        fprintf(stderr, "kevo table: cannot write '%s': %s\n", out, why);
        simtable_free(t);
        return EXIT_ERROR;
    }
    int rc = simtable_write(t, f);
    if (f && f != stdout && fclose(f))
        rc = KEVO_EIO;
    else if (f == stdout && fflush(f))
        rc = KEVO_EIO;
    if (rc)
        fprintf(stderr, "kevo table: cannot write '%s': %s\n",
                out ? out : "stdout", kevo_strerror(rc));
    else
        fprintf(stderr, "kevo table: %ld points of %d templates (%s %s) "
                "from %s\n", t->n, t->n_tpls, t->problem,
                dtype_name(t->dtype), argv[optind]);
    simtable_free(t);
    return rc ? EXIT_ERROR : EXIT_DONE;
}

/* ---------------------------------------------------- kevo bench-search */

static const char bench_usage[] =
    "usage: kevo bench-search TABLE [--seeds N] [--budget N] [--template T]\n"
    "                         [--compare] [--out FILE]\n"
    "\n"
    "Compares search strategies on a recorded table (see kevo table) without\n"
    "a GPU: for seeds 1..N (default 10) it runs kevo's default strategy and\n"
    "random search (a seeded sweep) on the simulated table and reports how\n"
    "many evaluations each needed to come within 1 % and 2 % of the table's\n"
    "best. Each run stops at 1 % or after the budget (default: the table's\n"
    "points, at most 2000). The search space is the table's points only.\n"
    "  --template T   only template T's points (repeatable)\n"
    "  --compare      also kevo without the surrogate, and kevo as before\n"
    "                 issue 13 (random first generation, no surrogate)\n"
    "  --out FILE     also write the Markdown table to FILE\n";

#define BENCH_MAX_SEEDS 1000

/* The evaluator of one benchmark run: the table's answers, counting
 * evaluations until the thresholds are reached (then it asks the engine
 * to stop). */
struct bench_ev {
    const struct simtable *t;
    double at1, at2;          /* fitness within 1 % and 2 % of the best */
    long n, hit1, hit2;       /* evaluations; first reaching each (0 = not) */
    volatile sig_atomic_t stop;
};

static int bench_batch(void *self, const struct candidate *const *c, int n,
                       eval_cb cb, void *ud)
{
    struct bench_ev *b = self;
    for (int i = 0; i < n; i++) {
        struct eval_result r;
        eval_result_init(&r);
        simtable_answer(b->t, c[i]->genome_hash, &r);
        b->n++;
        if (!b->hit2 && r.fitness >= b->at2)
            b->hit2 = b->n;
        if (!b->hit1 && r.fitness >= b->at1) {
            b->hit1 = b->n;
            b->stop = 1;
        }
        if (cb(ud, i, &r))
            return KEVO_ESTOPPED;
    }
    return KEVO_OK;
}

static int bench_admit(void *self, const struct tpl *t, const int64_t *vals)
{
    const struct bench_ev *b = self;
    return simtable_admits(b->t, t, vals);
}

static void bench_destroy(void *self)
{
    (void)self;
}

static const struct evaluator_ops bench_ops = {
    .name = "bench-search",
    .eval_batch = bench_batch,
    .admit = bench_admit,
    .destroy = bench_destroy,
};

struct bench_cfg {
    const struct simtable *t;
    struct tpl **tpls;               /* the templates searched */
    struct pointset *pts;            /* their points (borrowed copies) */
    int n_tpls;
    long budget;
    double best;
};

/* A strategy to compare: spec settings over the defaults. */
struct strategy {
    const char *label;
    const char *strategy; /* spec strategy */
    const char *init;     /* NULL = default */
    int surrogate;        /* -1 = default */
};

static const struct strategy strategies[] = {
    {"kevo default (evolve)", "evolve", NULL, -1},
    {"random search (sweep)", "sweep", NULL, -1},
    /* --compare: what each part of the default is worth */
    {"kevo without surrogate", "evolve", NULL, 0},
    {"kevo before issue 13 (random init, no surrogate)", "evolve", "random",
     0},
};

/* One run of strategy st with seed; *hit1 and *hit2 get
 * the evaluations needed (0 = not within the budget). */
static int bench_run(const struct bench_cfg *c, const struct strategy *st,
                     uint64_t seed, long *hit1, long *hit2, char *err,
                     size_t errcap)
{
    struct spec s;
    spec_defaults(&s);
    snprintf(s.name, sizeof s.name, "bench-search");
    snprintf(s.problem, sizeof s.problem, "%s", c->t->problem);
    s.dtype = c->t->dtype;
    s.shape = c->t->shape;
    s.seed = seed;
    s.max_evals = c->budget;
    s.max_generations = 0;
    snprintf(s.strategy, sizeof s.strategy, "%s", st->strategy);
    if (st->init)
        snprintf(s.init, sizeof s.init, "%s", st->init);
    if (st->surrogate >= 0)
        s.surrogate = st->surrogate;
    snprintf(s.llm, sizeof s.llm, "off");
    s.fill0 = 0; /* as kevo run --simulate: a table cannot drop (set_drop) */
    s.fill_spare = 0;
    s.fill_compile = 0;
    struct bench_ev b = {.t = c->t, .at1 = 0.99 * c->best,
                         .at2 = 0.98 * c->best};
    struct runlog_cfg lc = {.live = 1, .ev = {&bench_ops, &b}};
    struct runlog *log;
    int rc = runlog_new(&lc, &log);
    if (rc)
        return rc;
    struct engine_env env = {
        .spec = &s, .problem = problem_find(s.problem), .tpls = c->tpls,
        .n_tpls = c->n_tpls, .dev = c->t->dev, .log = log,
        .run_dir = "/nonexistent", .stop = &b.stop, .points = c->pts};
    struct engine *e;
    rc = engine_new(&env, NULL, &e, err, errcap);
    if (rc) {
        runlog_free(log);
        return rc;
    }
    rc = engine_run(e, err, errcap);
    engine_free(e);
    runlog_free(log);
    if (rc == KEVO_ESTOPPED && b.stop)
        rc = KEVO_OK; /* stopped at 1 % */
    *hit1 = b.hit1;
    *hit2 = b.hit2;
    return rc;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* "median (min-max)" of the evaluations needed; a run that did not get
 * there counts as more than the budget. */
static void summarize(long *v, int n, long budget, char *out, size_t cap,
                      int *reached)
{
    long w[BENCH_MAX_SEEDS];
    *reached = 0;
    for (int i = 0; i < n; i++) {
        w[i] = v[i] ? v[i] : budget + 1;
        *reached += v[i] > 0;
    }
    qsort(w, (size_t)n, sizeof *w, cmp_long);
    double med = n % 2 ? (double)w[n / 2]
                       : 0.5 * (double)(w[n / 2 - 1] + w[n / 2]);
    char m[32], lo[32], hi[32];
    if (med > (double)budget)
        snprintf(m, sizeof m, ">%ld", budget);
    else
        snprintf(m, sizeof m, "%.*f", med == (long)med ? 0 : 1, med);
    snprintf(lo, sizeof lo, w[0] > budget ? ">%ld" : "%ld",
             w[0] > budget ? budget : w[0]);
    snprintf(hi, sizeof hi, w[n - 1] > budget ? ">%ld" : "%ld",
             w[n - 1] > budget ? budget : w[n - 1]);
    snprintf(out, cap, "%s (%s-%s)", m, lo, hi);
}

/* Points within frac of the best among the searched templates. */
static long count_within(const struct bench_cfg *c, const unsigned char *keep,
                         double frac)
{
    long q = 0;
    for (long i = 0; i < c->t->n; i++)
        q += keep[c->t->p[i].tpl] && c->t->p[i].outcome == EVAL_OK &&
             c->t->p[i].fitness >= (1 - frac) * c->best;
    return q;
}

struct bench_args {
    const char *table, *out;
    int seeds;
    long budget;
    int n_only, compare;
    const char *only[SPEC_MAX_TEMPLATES];
};

static int parse_bench_args(int argc, char **argv, struct bench_args *a)
{
    static const struct option opts[] = {
        {"seeds", 1, 0, 's'}, {"budget", 1, 0, 'b'}, {"template", 1, 0, 't'},
        {"out", 1, 0, 'o'}, {"compare", 0, 0, 'c'}, {"help", 0, 0, 'h'},
        {0, 0, 0, 0}};
    int c;
    char *end;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'h': fputs(bench_usage, stdout); return -1;
        case 's':
            a->seeds = (int)strtol(optarg, &end, 10);
            if (*end || a->seeds < 1 || a->seeds > BENCH_MAX_SEEDS) {
                fprintf(stderr, "kevo bench-search: --seeds: '%s' is not an "
                        "integer in [1, %d]\n", optarg, BENCH_MAX_SEEDS);
                return EXIT_USAGE;
            }
            break;
        case 'b':
            a->budget = strtol(optarg, &end, 10);
            if (*end || a->budget < 1) {
                fprintf(stderr, "kevo bench-search: --budget: '%s' is not a "
                        "positive integer\n", optarg);
                return EXIT_USAGE;
            }
            break;
        case 't':
            if (a->n_only == SPEC_MAX_TEMPLATES)
                return EXIT_USAGE;
            a->only[a->n_only++] = optarg;
            break;
        case 'o': a->out = optarg; break;
        case 'c': a->compare = 1; break;
        default:
            fprintf(stderr, "kevo bench-search: unknown option '%s' (see "
                    "kevo bench-search --help)\n", argv[optind - 1]);
            return EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "kevo bench-search: expected one table (see kevo "
                "bench-search --help)\n");
        return EXIT_USAGE;
    }
    a->table = argv[optind];
    return 0;
}

/* Selects the templates to search (all, or --template ones) into c. */
static int select_bench(struct bench_cfg *c, const struct bench_args *a,
                        unsigned char *keep)
{
    for (int i = 0; i < a->n_only; i++) {
        int k = simtable_tpl_index(c->t, a->only[i]);
        if (k < 0) {
            fprintf(stderr, "kevo bench-search: no template '%s' in table "
                    "'%s'\n", a->only[i], a->table);
            return EXIT_USAGE;
        }
        keep[k] = 1;
    }
    for (int i = 0; i < c->t->n_tpls; i++) {
        if (a->n_only && !keep[i])
            continue;
        keep[i] = 1;
        c->tpls[c->n_tpls] = c->t->tpls[i];
        c->pts[c->n_tpls++] = c->t->pts[i];
    }
    return 0;
}

static int bench_all(const struct bench_cfg *c, const struct bench_args *a,
                     FILE *md)
{
    int n_st = a->compare ? 4 : 2;
    long (*hit)[2][BENCH_MAX_SEEDS] = calloc(4, sizeof *hit);
    char err[1024] = "";
    if (!hit)
        return EXIT_ERROR;
    for (int k = 0; k < n_st; k++)
        for (int s = 0; s < a->seeds; s++)
            if (bench_run(c, &strategies[k], (uint64_t)s + 1, &hit[k][0][s],
                          &hit[k][1][s], err, sizeof err)) {
                fprintf(stderr, "kevo bench-search: %s, seed %d: %s\n",
                        strategies[k].label, s + 1, err);
                free(hit);
                return EXIT_ERROR;
            }
    fprintf(md, "| strategy | evaluations to within 1 %%: median (min-max) "
            "| reached | to within 2 %%: median (min-max) | reached |\n"
            "|---|---|---|---|---|\n");
    for (int k = 0; k < n_st; k++) {
        char s1[64], s2[64];
        int r1, r2;
        summarize(hit[k][0], a->seeds, c->budget, s1, sizeof s1, &r1);
        summarize(hit[k][1], a->seeds, c->budget, s2, sizeof s2, &r2);
        fprintf(md, "| %s | %s | %d/%d | %s | %d/%d |\n", strategies[k].label,
                s1, r1, a->seeds, s2, r2, a->seeds);
    }
    fprintf(md, "\nPer seed (1 %%, 2 %%; 0 = not within the budget):\n\n");
    for (int k = 0; k < n_st; k++) {
        fprintf(md, "- %s:", strategies[k].label);
        for (int s = 0; s < a->seeds; s++)
            fprintf(md, " %ld/%ld", hit[k][0][s], hit[k][1][s]);
        fprintf(md, "\n");
    }
    free(hit);
    return 0;
}

int cmd_bench_search_main(int argc, char **argv)
{
    struct bench_args a = {.seeds = 10};
    int rc = parse_bench_args(argc, argv, &a);
    if (rc)
        return rc < 0 ? EXIT_DONE : rc;
    struct simtable *t;
    char err[1024] = "";
    if (simtable_load(a.table, &t, err, sizeof err)) {
        fprintf(stderr, "kevo bench-search: %s\n", err);
        return EXIT_ERROR;
    }
    struct bench_cfg c = {.t = t};
    unsigned char *keep = calloc((size_t)t->n_tpls + 1, 1);
    c.tpls = calloc((size_t)t->n_tpls + 1, sizeof *c.tpls);
    c.pts = calloc((size_t)t->n_tpls + 1, sizeof *c.pts);
    rc = keep && c.tpls && c.pts ? select_bench(&c, &a, keep) : EXIT_ERROR;
    long n_pts = 0;
    for (long i = 0; !rc && i < t->n; i++)
        n_pts += keep[t->p[i].tpl];
    c.best = rc ? 0 : simtable_best(t, keep);
    if (!rc && c.best <= 0) {
        fprintf(stderr, "kevo bench-search: table '%s' has no correct point "
                "to search for\n", a.table);
        rc = EXIT_ERROR;
    }
    c.budget = a.budget ? a.budget : n_pts < 2000 ? n_pts : 2000;
    FILE *md = NULL;
    if (!rc && a.out && !(md = fopen(a.out, "w"))) {
        char why[4200];
        outpath_why(a.out, errno, why, sizeof why);
        fprintf(stderr, "kevo bench-search: cannot write '%s': %s\n", a.out,
                why);
        rc = EXIT_ERROR;
    }
    if (!rc) {
        char best[64], shape[64];
        progress_fmt_fitness(c.best, problem_find(t->problem)->work_unit, best,
                             sizeof best);
        problem_format_shape(&t->shape, shape, sizeof shape);
        char head[2048];
        long q1 = count_within(&c, keep, 0.01), q2 = count_within(&c, keep,
                                                                  0.02);
        snprintf(head, sizeof head,
                 "Simulated on table %s: %s %s %s, %ld points of %d "
                 "template(s), recorded on %s; best %s. The search space is "
                 "the table's points only. %d seeds, at most %ld "
                 "evaluations per run. %ld points are within 1 %% of the "
                 "best and %ld within 2 %% (random search needs (N+1)/(q+1) "
                 "= %.1f and %.1f evaluations on average).\n\n",
                 a.table, t->problem, dtype_name(t->dtype), shape, n_pts,
                 c.n_tpls, t->gpu[0] ? t->gpu : "an unknown GPU", best,
                 a.seeds, c.budget, q1, q2,
                 (double)(n_pts + 1) / (double)(q1 + 1),
                 (double)(n_pts + 1) / (double)(q2 + 1));
        fputs(head, stdout);
        if (md)
            fputs(head, md);
        char *buf = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&buf, &len);
        rc = mem ? bench_all(&c, &a, mem) : EXIT_ERROR;
        if (mem)
            fclose(mem);
        if (!rc) {
            fputs(buf, stdout);
            if (md)
                fputs(buf, md);
        }
        free(buf);
    }
    if (md && fclose(md) && !rc) {
        fprintf(stderr, "kevo bench-search: cannot write '%s'\n", a.out);
        rc = EXIT_ERROR;
    }
    free(keep);
    free(c.tpls);
    free(c.pts);
    simtable_free(t);
    return rc;
}
