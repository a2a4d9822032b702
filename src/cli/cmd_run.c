/*
 * cmd_run.c - `kevo run`, `kevo resume`, `kevo status`, `kevo list` (see
 * cmd_run.h). Parses options into a spec, prepares templates, evaluator,
 * run directory and journal, and hands over to the engine. Signals: the
 * first SIGINT/SIGTERM asks the engine to stop after the current
 * evaluation (everything is journaled, the run is resumable); a second
 * one exits at once, which is still resumable because every finished
 * record is already on disk.
 */
#include "cmd_run.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"
#include "fanout.h"
#include "fsutil.h"
#include "genome.h"
#include "hash.h"
#include "jit.h"
#include "jnl.h"
#include "llm.h"
#include "mpijob.h"
#include "mutator.h"
#include "options.h"
#include "record.h"
#include "records.h"
#include "rundir.h"
#include "sample.h"
#include "simtable.h"
#include "tolerance.h"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
    if (stop_requested) {
        static const char msg[] = "\nkevo: stopped at once; the run is "
                                  "resumable with 'kevo resume'\n";
        ssize_t w = write(2, msg, sizeof msg - 1);
        (void)w;
        _exit(EXIT_STOPPED);
    }
    stop_requested = 1;
    static const char msg[] = "\nkevo: stopping after the current evaluation "
                              "(again to stop at once)\n";
    ssize_t w = write(2, msg, sizeof msg - 1);
    (void)w;
}

static void install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

static void free_tpls(struct tpl **t, int n)
{
    for (int i = 0; i < n; i++)
        tpl_free(t[i]);
    free(t);
}

/* Keeps the templates of the spec's problem (and names, if given). */
static int select_templates(const struct spec *s, struct tpl ***tpls, int *n,
                            char *err, size_t errcap)
{
    int k = 0;
    for (int i = 0; i < *n; i++) {
        struct tpl *t = (*tpls)[i];
        int keep = !strcmp(t->problem, s->problem);
        if (keep && s->n_templates) {
            keep = 0;
            for (int j = 0; j < s->n_templates; j++)
                keep |= !strcmp(s->templates[j], t->name);
        }
        if (keep)
            (*tpls)[k++] = t;
        else
            tpl_free(t);
    }
    *n = k;
    for (int j = 0; j < s->n_templates; j++) {
        int found = 0;
        for (int i = 0; i < k; i++)
            found |= !strcmp(s->templates[j], (*tpls)[i]->name);
        if (!found) {
            snprintf(err, errcap, "no template '%s' for problem %s",
                     s->templates[j], s->problem);
            return KEVO_ENOENT;
        }
    }
    if (k == 0 && !spec_llm_on(s)) {
        snprintf(err, errcap, "no templates for problem %s (an LLM can "
                 "propose some: --llm)", s->problem);
        return KEVO_ENOENT;
    }
    return KEVO_OK;
}

static const struct evaluator_factory *
find_factory(const struct evaluator_factory *f, const char *name)
{
    for (; f && f->name; f++)
        if (!strcmp(f->name, name))
            return f;
    return NULL;
}

static int exit_for(int rc)
{
    switch (rc) {
    case KEVO_OK: return EXIT_DONE;
    case KEVO_ENODEV: return EXIT_NOGPU;
    case KEVO_ESTOPPED: return EXIT_STOPPED;
    case KEVO_EINVAL: return EXIT_USAGE;
    default: return EXIT_ERROR;
    }
}

/* ------------------------------------------------------------- session */

struct session {
    struct spec spec;
    const struct problem *problem;
    struct tpl **tpls;
    int n_tpls;
    struct tpl_device dev;
    struct evaluator ev;
    int have_ev;
    char dir[4096];
    struct jnl *jnl;
    cJSON *existing;
    cJSON *checkpoint;
    struct progress prog;
    struct llm *llm;
    char prompts[4096];
    char *gpu_facts;
    int no_journal;      /* resume: the run never wrote its journal */
    int compilers;       /* this session's compile processes (0 = not
                            one pool: MPI ranks) */
};

static void session_release(struct session *ss)
{
    llm_free(ss->llm);
    free(ss->gpu_facts);
    if (ss->have_ev)
        ss->ev.ops->destroy(ss->ev.self);
    free_tpls(ss->tpls, ss->n_tpls);
    jnl_close(ss->jnl);
    cJSON_Delete(ss->existing);
    cJSON_Delete(ss->checkpoint);
}

/* A fan-out's report (a GPU failed, was dropped): "kevo: ..." on stderr
 * once in every mode, and a {"event":"gpu"} line in JSON mode. */
static void gpu_report(void *ud, const char *line)
{
    struct progress *p = ud;
    char text[400];
    snprintf(text, sizeof text, "kevo: %s", line);
    if (p->mode == PROG_TTY || p->mode == PROG_PLAIN) { /* on stderr */
        progress_log(p, "gpu", text);
        return;
    }
    fprintf(stderr, "%s\n", text);
    progress_log(p, "gpu", line);
}

static int make_evaluator(struct session *ss,
                          const struct evaluator_factory *factories, char *err,
                          size_t errcap)
{
    const struct evaluator_factory *f =
        !strcmp(ss->spec.evaluator, "simulate")
            ? &simtable_factory
            : find_factory(factories, ss->spec.evaluator);
    if (!f) {
        snprintf(err, errcap, "unknown evaluator '%s'", ss->spec.evaluator);
        return KEVO_EINVAL;
    }
    ss->dev = tpl_device_default;
    /* under mpirun or srun every rank starts its evaluator at once and
     * rank 0 drives them all (mpijob.h); the spec records the run's own */
    struct spec local = ss->spec;
    int rc = mpijob_hello(&local, err, errcap);
    if (!rc)
        rc = f->create(&local, ss->problem, &ss->ev, &ss->dev, err, errcap);
    if (!rc)
        rc = mpijob_wrap(&ss->ev, &ss->dev, err, errcap);
    /* the pool as jit_pool_new sizes it: a resume on other CPUs has
     * another than the manifest's; under MPI every rank runs its own */
    ss->compilers = mpijob_ranks() > 1 ? 0 : jit_pool_procs(local.compilers);
    ss->have_ev = rc == KEVO_OK;
    if (!rc) /* several GPUs (or ranks): failures reach the progress */
        fanout_set_report(&ss->ev, gpu_report, &ss->prog);
    return rc;
}

/* Under mpirun or srun every rank but 0 serves rank 0 and ends here
 * (mpijob.h): returns 1 with the exit code in *code. */
static int mpi_served(const char *cmd, const struct evaluator_factory *f,
                      int *code)
{
    char err[1024] = "";
    int served, rc = mpijob_enter(f, &served, err, sizeof err);
    if (rc)
        fprintf(stderr, "kevo %s: %s\n", cmd, err[0] ? err : kevo_strerror(rc));
    if (rc && !served)
        mpijob_leave();
    *code = exit_for(rc);
    return served || rc;
}

static cJSON *best_record(struct session *ss, const struct engine *e,
                          char **source)
{
    const struct engine_stats *st = engine_stats(e);
    const struct tpl *t = engine_template(e, st->best_tpl);
    struct rec_best b = {.hash = st->best_hash, .n_params = t->n_params,
                         .fitness = st->best_fitness,
                         .median_ns = st->best_median_ns,
                         .ratio = st->best_ratio, .gen = st->best_gen};
    snprintf(b.tpl, sizeof b.tpl, "%s", t->name);
    snprintf(b.unit, sizeof b.unit, "%s", ss->problem->work_unit);
    for (int i = 0; i < t->n_params; i++) {
        snprintf(b.names[i], sizeof b.names[i], "%s", t->params[i].name);
        b.vals[i] = st->best_vals[i];
    }
    *source = tpl_instantiate_hdr(t, st->best_vals, ss->spec.dtype,
                                  &ss->spec.shape, ss->spec.source_header);
    return rec_best_json(&b);
}

static void print_summary(struct session *ss, const struct engine *e, int rc)
{
    const struct engine_stats *st = engine_stats(e);
    char line[1024], fit[64], ratio[48] = "";
    cJSON *f = engine_stats_json(e);
    if (st->best_tpl >= 0) {
        char params[256];
        struct genome g = {.tpl = st->best_tpl};
        memcpy(g.vals, st->best_vals, sizeof g.vals);
        genome_format(&g, engine_template(e, st->best_tpl), params,
                      sizeof params);
        progress_fmt_fitness(st->best_fitness, ss->problem->work_unit, fit,
                             sizeof fit);
        if (st->best_ratio > 0)
            snprintf(ratio, sizeof ratio, " (%.3gx baseline)",
                     st->best_ratio);
        snprintf(line, sizeof line, "best: %s%s  %s %s", fit, ratio,
                 engine_template(e, st->best_tpl)->name, params);
        cJSON *bf = cJSON_CreateObject();
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(f, "best");
        if (bf && b)
            cJSON_AddItemToObject(bf, "best", cJSON_Duplicate(b, 1));
        progress_event(&ss->prog, "best", line, bf);
        cJSON_Delete(bf);
    }
    /* a budget's end is a finish, and still resumable with a larger one */
    snprintf(line, sizeof line, "%s: %ld evaluations, %d generations, %.1f s; "
             "run directory %s", rc == KEVO_ESTOPPED ? "stopped"
             : engine_stop_text(st->stop), st->evals, st->gen + 1,
             st->elapsed_s, ss->dir);
    if (f) {
        cJSON_AddStringToObject(f, "run_dir", ss->dir);
        cJSON_AddBoolToObject(f, "resumable", 1);
    }
    progress_event(&ss->prog, "done", line, f);
    cJSON_Delete(f);
    if (rc == KEVO_ESTOPPED) {
        snprintf(line, sizeof line, "resume with: kevo resume %s", ss->dir);
        progress_log(&ss->prog, "resume", line);
    }
}

static int run_engine(struct session *ss, char *err, size_t errcap)
{
    struct runlog_cfg lc = {.records = ss->existing, .live = 1,
                            .jnl = ss->jnl, .ev = ss->ev, .llm = ss->llm,
                            .llm_dir = ss->dir};
    struct runlog *log;
    int rc = runlog_new(&lc, &log);
    if (rc) {
        snprintf(err, errcap, "out of memory");
        return rc;
    }
    struct engine_env env = {
        .spec = &ss->spec, .problem = ss->problem, .tpls = ss->tpls,
        .n_tpls = ss->n_tpls, .dev = ss->dev, .log = log,
        .run_dir = ss->dir, .stop = &stop_requested, .prog = &ss->prog,
        .compilers = ss->compilers,
        .llm_on = spec_llm_on(&ss->spec), .prompts_dir = ss->prompts,
        .gpu_facts = ss->gpu_facts};
    struct engine *e;
    rc = engine_new(&env, ss->checkpoint, &e, err, errcap);
    if (rc) {
        runlog_free(log);
        return rc;
    }
    install_signals();
    rc = engine_run(e, err, errcap);
    const struct engine_stats *st = engine_stats(e);
    if (st->best_tpl >= 0 && (!rc || rc == KEVO_ESTOPPED)) {
        char *src = NULL;
        cJSON *b = best_record(ss, e, &src);
        int wr = src ? rundir_write_best(ss->dir, b, src) : KEVO_ENOMEM;
        if (wr && !rc) {
            snprintf(err, errcap, "cannot write '%s/best.json' or best.cu: "
                     "%s", ss->dir, kevo_strerror(wr));
            rc = wr;
        }
        cJSON_Delete(b);
        free(src);
    }
    if (!rc || rc == KEVO_ESTOPPED)
        print_summary(ss, e, rc);
    engine_free(e);
    runlog_free(log);
    return rc;
}

/* ---------------------------------------------------------- kevo run */

static const char run_head[] =
    "usage: kevo run --problem P --shape S [options]\n"
    "\n"
    "Evolves kernels for one problem, dtype and shape on the GPU and writes\n"
    "a run directory (runs/<name>/) that 'kevo resume' can continue.\n"
    "\n";
static const char run_tail[] =
    "\n"
    "Ctrl-C stops after the current evaluation; twice stops at once. Either\n"
    "way 'kevo resume <run-dir>' continues with nothing lost or repeated.\n";

/* getopt's table from the options table (options.h): an option's value
 * is OPT_BASE + its index in kevo_options. */
#define OPT_BASE 256
#define OPT_MAX 96

static void getopt_table(struct option *out)
{
    int n = 0;
    for (int i = 0; kevo_options[i].flag || kevo_options[i].key; i++) {
        const struct kopt *o = &kevo_options[i];
        if (o->flag && n < OPT_MAX - 1)
            out[n++] = (struct option){o->flag, o->type != OPTT_FLAG, 0,
                                       OPT_BASE + i};
    }
    out[n] = (struct option){0, 0, 0, 0};
}

/* The entry of getopt value c, or NULL ('?', ':', 'h'). */
static const struct kopt *opt_of(int c)
{
    return c >= OPT_BASE ? &kevo_options[c - OPT_BASE] : NULL;
}

static int is_flag(const struct kopt *o, const char *flag)
{
    return o && o->flag && !strcmp(o->flag, flag);
}

/* getopt's '?' (unknown option) or ':' (option without its value). */
static int bad_option(int c, char **argv, const char *cmd, char *err,
                      size_t errcap)
{
    const char *opt = argv[optind - 1];
    if (c == ':')
        snprintf(err, errcap, "option '%s' needs a value (see kevo %s "
                 "--help)", opt, cmd);
    else
        snprintf(err, errcap, "unknown option '%s' (see kevo %s --help)",
                 opt, cmd);
    return KEVO_EINVAL;
}

#define MAX_SETS PROB_MAX_DIMS
struct run_flags {
    const char *runs_dir, *tdir, *shape, *simulate;
    const char *sets[MAX_SETS]; /* --set NAME=VALUE, in order */
    int n_sets;
    enum progress_mode mode;
};

static int llm_flag(const char *arg, struct spec *s, char *err,
                    size_t errcap)
{
    struct llm_cfg lc;
    llm_cfg_defaults(&lc);
    if (strlen(arg) >= sizeof s->llm) {
        snprintf(err, errcap, "--llm: too long");
        return KEVO_EINVAL;
    }
    int rc = llm_cfg_parse(arg, &lc, err, errcap);
    if (rc && rc != KEVO_ENOENT) /* ENOENT: "off" / "none" */
        return KEVO_EINVAL;
    snprintf(s->llm, sizeof s->llm, "%s", arg);
    return KEVO_OK;
}

static int llm_price_flag(const char *arg, struct spec *s, char *err,
                          size_t errcap)
{
    char *end;
    double in = strtod(arg, &end), out = -1;
    if (*end == ',')
        out = strtod(end + 1, &end);
    if (*end || !(in >= 0) || !(out >= 0) || !isfinite(in) ||
        !isfinite(out)) {
        snprintf(err, errcap, "--llm-price: '%s' is not IN,OUT, two finite "
                 "non-negative USD prices per million tokens (e.g. 3,15)",
                 arg);
        return KEVO_EINVAL;
    }
    s->llm_price_in = in;
    s->llm_price_out = out;
    return KEVO_OK;
}

static int gpus_flag(const char *arg, struct spec *s, char *err,
                     size_t errcap)
{
    int ids[SPEC_MAX_GPUS];
    char why[300];
    if (strlen(arg) >= sizeof s->gpus) {
        snprintf(err, errcap, "--gpus: too long");
        return KEVO_EINVAL;
    }
    if (spec_gpu_list(arg, 0, ids, SPEC_MAX_GPUS, why, sizeof why) < 0) {
        snprintf(err, errcap, "--%s", why);
        return KEVO_EINVAL;
    }
    snprintf(s->gpus, sizeof s->gpus, "%s", arg);
    return KEVO_OK;
}

static int name_flag(const char *arg, struct spec *s, char *err,
                     size_t errcap)
{
    if (!spec_name_ok(arg) || strlen(arg) >= sizeof s->name) {
        snprintf(err, errcap, "--name: '%s' must be a plain name (no '/', "
                 "not '.' or '..')", arg);
        return KEVO_EINVAL;
    }
    snprintf(s->name, sizeof s->name, "%s", arg);
    return KEVO_OK;
}

static int arch_flag(const char *arg, struct spec *s, char *err,
                     size_t errcap)
{
    const char *opts[16];
    if (strlen(arg) >= sizeof s->arch ||
        jit_default_options(arg, opts, 16) < 0) {
        snprintf(err, errcap, "--arch: '%s' is not a real arch "
                 "(sm_<digits>[a|f], e.g. sm_90a)", arg);
        return KEVO_EINVAL;
    }
    snprintf(s->arch, sizeof s->arch, "%s", arg);
    return KEVO_OK;
}

/* A text flag of the table (o->type OPTT_TEXT): its own check. */
static int text_flag(const struct kopt *o, const char *arg, struct spec *s,
                     struct run_flags *f, char *err, size_t errcap)
{
    const char *k = o->flag;
    int rc = KEVO_OK;
    if (!strcmp(k, "spec"))
        return spec_load(s, arg, err, errcap);
    if (!strcmp(k, "problem")) {
        snprintf(s->problem, sizeof s->problem, "%s", arg);
    } else if (!strcmp(k, "problem-file") || !strcmp(k, "torch-problem")) {
        const struct problem *up;
        if (!(rc = problem_load_file(arg, &up, err, errcap)))
            snprintf(s->problem, sizeof s->problem, "%s", up->name);
    } else if (!strcmp(k, "dtype")) {
        if (dtype_parse(arg, &s->dtype)) {
            snprintf(err, errcap, "--dtype: '%s' is not fp32, fp16 or bf16",
                     arg);
            rc = KEVO_EINVAL;
        }
    } else if (!strcmp(k, "shape")) {
        f->shape = arg;
    } else if (!strcmp(k, "set")) {
        if (f->n_sets == MAX_SETS) {
            snprintf(err, errcap, "--set: more than %d", MAX_SETS);
            return KEVO_EINVAL;
        }
        f->sets[f->n_sets++] = arg;
    } else if (!strcmp(k, "name")) {
        rc = name_flag(arg, s, err, errcap);
    } else if (!strcmp(k, "runs-dir")) {
        f->runs_dir = arg;
    } else if (!strcmp(k, "template")) {
        if (s->n_templates >= SPEC_MAX_TEMPLATES) {
            snprintf(err, errcap, "--template: too many");
            return KEVO_EINVAL;
        }
        snprintf(s->templates[s->n_templates++], 64, "%s", arg);
    } else if (!strcmp(k, "templates-dir")) {
        f->tdir = arg;
    } else if (!strcmp(k, "arch")) {
        rc = arch_flag(arg, s, err, errcap);
    } else if (!strcmp(k, "evaluator")) {
        snprintf(s->evaluator, sizeof s->evaluator, "%s", arg);
    } else if (!strcmp(k, "llm")) {
        rc = llm_flag(arg, s, err, errcap);
    } else if (!strcmp(k, "llm-key-env")) {
        if (!*arg || strlen(arg) >= sizeof s->llm_key_env) {
            snprintf(err, errcap, "--llm-key-env: '%s' is not a variable "
                     "name", arg);
            return KEVO_EINVAL;
        }
        snprintf(s->llm_key_env, sizeof s->llm_key_env, "%s", arg);
    } else if (!strcmp(k, "llm-budget")) {
        struct llm_cfg lc;
        llm_cfg_defaults(&lc);
        if (llm_budget_parse(arg, &lc, err, errcap))
            return KEVO_EINVAL;
        s->llm_budget_tokens = lc.budget_tokens;
        s->llm_budget_usd = lc.budget_usd;
    } else if (!strcmp(k, "llm-price")) {
        rc = llm_price_flag(arg, s, err, errcap);
    } else if (!strcmp(k, "strategy")) {
        if (strcmp(arg, "evolve") && strcmp(arg, "sweep")) {
            snprintf(err, errcap, "--strategy: '%s' is not evolve or sweep",
                     arg);
            return KEVO_EINVAL;
        }
        snprintf(s->strategy, sizeof s->strategy, "%s", arg);
    } else if (!strcmp(k, "simulate")) {
        f->simulate = arg;
    } else if (!strcmp(k, "gpus")) {
        rc = gpus_flag(arg, s, err, errcap);
    } else {
        snprintf(err, errcap, "--%s: not handled (a bug)", k);
        rc = KEVO_EINTERNAL;
    }
    return rc;
}

/* Option o of run or resume with value arg (NULL for flags). */
static int run_flag(const struct kopt *o, const char *arg, struct spec *s,
                    struct run_flags *f, char *err, size_t errcap)
{
    char why[512];
    switch (o->type) {
    case OPTT_FLAG:
        if (is_flag(o, "quiet"))
            f->mode = PROG_QUIET;
        else if (is_flag(o, "json"))
            f->mode = PROG_JSON;
        return KEVO_OK;
    case OPTT_TEXT: return text_flag(o, arg, s, f, err, errcap);
    default:
        if (opt_parse_text(o, arg, s, why, sizeof why)) {
            snprintf(err, errcap, "--%s: %s", o->flag, why);
            return KEVO_EINVAL;
        }
        return KEVO_OK;
    }
}

static void default_name(struct spec *s)
{
    char shape[64], ts[32];
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(ts, sizeof ts, "%Y%m%d-%H%M%S", &tm);
    problem_format_shape(&s->shape, shape, sizeof shape);
    snprintf(s->name, sizeof s->name, "%s-%s-%s-%s", s->problem,
             dtype_name(s->dtype), shape, ts);
}

static int parse_run_args(int argc, char **argv, struct session *ss,
                          struct run_flags *f, char *err, size_t errcap)
{
    int c, rc;
    struct option opts[OPT_MAX];
    getopt_table(opts);
    spec_defaults(&ss->spec);
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        const struct kopt *o = opt_of(c);
        if (c == 'h' || is_flag(o, "help")) {
            fputs(run_head, stdout);
            opt_print_help(stdout, OPTC_RUN);
            fputs(run_tail, stdout);
            return -1;
        }
        if (!o)
            return bad_option(c, argv, "run", err, errcap);
        if ((rc = run_flag(o, optarg, &ss->spec, f, err, errcap)))
            return rc;
    }
    if (optind < argc) {
        snprintf(err, errcap, "unexpected argument '%s'", argv[optind]);
        return KEVO_EINVAL;
    }
    if (f->simulate && ss->spec.gpus[0]) {
        snprintf(err, errcap, "--gpus and --simulate: a simulated run uses "
                 "no GPU (drop --gpus)");
        return KEVO_EINVAL;
    }
    if (f->simulate &&
        (rc = simtable_setup_run(f->simulate, &ss->spec, f->shape != NULL,
                                 NULL, NULL, err, errcap)))
        return rc;
    if (ss->spec.problem[0] && !problem_find(ss->spec.problem)) {
        rc = cli_user_problem(ss->spec.problem, err, errcap);
        if (rc && rc != KEVO_ENOENT)
            return rc; /* a bad problem file in the problems directory */
    }
    ss->problem = problem_find(ss->spec.problem);
    rc = KEVO_OK; /* no problem of that name: spec_validate says so */
    const char *shape = f->shape;
    if (!shape && ss->problem && ss->spec.shape.n_dims != ss->problem->n_dims)
        shape = problem_default_shape(ss->problem); /* a module's sizes */
    if (shape && ss->problem &&
        (rc = problem_parse_shape(ss->problem, shape, &ss->spec.shape, err,
                                  errcap)))
        return rc;
    for (int i = 0; i < f->n_sets && !rc; i++)
        rc = ss->problem ? problem_shape_set(ss->problem, &ss->spec.shape,
                                             f->sets[i], err, errcap)
                         : (snprintf(err, errcap, "--set needs a problem"),
                            KEVO_EINVAL);
    if (rc)
        return rc;
    if (!ss->spec.name[0] && ss->problem &&
        ss->spec.shape.n_dims == ss->problem->n_dims)
        default_name(&ss->spec);
    spec_resolve_budgets(&ss->spec);
    return spec_validate(&ss->spec, err, errcap);
}

static int load_library(struct session *ss, const char *tdir, char *err,
                        size_t errcap)
{
    char dir[4096];
    int rc;
    if (ss->spec.table[0]) { /* simulated: the table's templates */
        rc = simtable_setup_run(ss->spec.table, &ss->spec, 1, &ss->tpls,
                                &ss->n_tpls, err, errcap);
        return rc ? rc : select_templates(&ss->spec, &ss->tpls, &ss->n_tpls,
                                          err, errcap);
    }
    const struct problem *p = problem_find(ss->spec.problem);
    if (!tdir && p && p->file_path) { /* a user problem: the *.cu next to it */
        snprintf(dir, sizeof dir, "%s", p->file_path);
        char *slash = strrchr(dir, '/');
        if (slash)
            slash[slash == dir] = '\0'; /* "/x.problem": "/" */
        else
            snprintf(dir, sizeof dir, ".");
        rc = tpl_load_flat(dir, &ss->tpls, &ss->n_tpls, err, errcap);
        return rc ? rc : select_templates(&ss->spec, &ss->tpls, &ss->n_tpls,
                                          err, errcap);
    }
    rc = cli_templates_dir(tdir, dir, sizeof dir);
    if (rc) {
        snprintf(err, errcap, "template directory '%s': %s",
                 tdir ? tdir : "templates", kevo_strerror(rc));
        return rc;
    }
    rc = tpl_load_dir(dir, &ss->tpls, &ss->n_tpls, err, errcap);
    return rc ? rc : select_templates(&ss->spec, &ss->tpls, &ss->n_tpls, err,
                                      errcap);
}

/* A run without --llm uses the key it finds, else runs with the cheap
 * mutators only (returns 1: the caller says so once). The choice is
 * recorded in the spec. */
static int resolve_llm(struct session *ss)
{
    const char *a = getenv("ANTHROPIC_API_KEY"), *o = getenv("OPENAI_API_KEY");
    if (ss->spec.llm[0])
        return 0;
    if (a && *a)
        snprintf(ss->spec.llm, sizeof ss->spec.llm,
                 "anthropic:claude-sonnet-4-5");
    else if (o && *o)
        snprintf(ss->spec.llm, sizeof ss->spec.llm, "openai:gpt-5");
    else
        snprintf(ss->spec.llm, sizeof ss->spec.llm, "off");
    return !spec_llm_on(&ss->spec);
}

/* The GPU facts the prompts state, from the evaluator's environment. */
static char *compose_facts(const char *env_json, const struct spec *s)
{
    cJSON *j = env_json ? cJSON_Parse(env_json) : NULL;
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(j, "device");
    const char *name = record_str(d, "name"), *arch = record_str(j, "arch");
    char buf[2048];
    int n = snprintf(buf, sizeof buf,
                     "GPU: %s (%s), %.0f SMs, %.0f KB shared memory per block "
                     "(opt-in), %.0f MB L2",
                     name ? name : "unknown", arch ? arch : s->arch,
                     record_num(d, "sms", 0),
                     record_num(d, "smem_optin", 0) / 1024,
                     record_num(d, "l2_bytes", 0) / 1048576);
    if (record_num(d, "peak_bw", 0) > 0)
        n += snprintf(buf + n, sizeof buf - (size_t)n,
                      "; peak DRAM bandwidth %.2f TB/s, peak FP32 %.1f "
                      "TFLOP/s, peak FP16/BF16 tensor %.0f TFLOP/s",
                      record_num(d, "peak_bw", 0) / 1e12,
                      record_num(d, "peak_fp32", 0) / 1e12,
                      record_num(d, "peak_tensor16", 0) / 1e12);
    const cJSON *b, *bl = cJSON_GetObjectItemCaseSensitive(j, "baselines");
    cJSON_ArrayForEach(b, bl)
    {
        struct record_baseline x;
        record_get_baseline(b, &x);
        n += snprintf(buf + n, sizeof buf - (size_t)n,
                      "; measured baseline %s: %.4g %s",
                      x.name[0] ? x.name : "?", x.fitness,
                      problem_find(s->problem)->work_unit);
    }
    cJSON_Delete(j);
    return strdup(buf);
}

/* The LLM client settings a spec asks for. */
static int llm_cfg_of(const struct spec *s, struct llm_cfg *c, char *err,
                      size_t errcap)
{
    llm_cfg_defaults(c);
    int rc = llm_cfg_parse(s->llm, c, err, errcap);
    if (rc)
        return rc;
    if (s->llm_key_env[0])
        snprintf(c->key_env, sizeof c->key_env, "%s", s->llm_key_env);
    c->budget_tokens = s->llm_budget_tokens;
    c->budget_usd = s->llm_budget_usd;
    c->price_in = s->llm_price_in;
    c->price_out = s->llm_price_out;
    return KEVO_OK;
}

/* Checks what can fail in opening the LLM (a missing key, a bad URL, a
 * replay run that is not there) before anything is started or written. */
static int check_llm(const struct spec *s, char *err, size_t errcap)
{
    struct llm_cfg c;
    struct llm *l = NULL;
    if (!spec_llm_on(s))
        return KEVO_OK;
    int rc = llm_cfg_of(s, &c, err, errcap);
    if (!rc)
        rc = llm_new(&c, NULL, &l, err, errcap);
    llm_free(l);
    return rc;
}

/* Opens the LLM side of a run (fresh: writes gpu_facts.txt; resumed: reads
 * it, so prompts are the same as before the stop). */
static int open_llm(struct session *ss, const char *env_json, int fresh,
                    char *err, size_t errcap)
{
    if (!spec_llm_on(&ss->spec))
        return KEVO_OK;
    int rc;
    if (fresh) { /* the facts the prompts state, fixed for the run */
        char path[4096], *facts = compose_facts(env_json, &ss->spec);
        if (!facts)
            return KEVO_ENOMEM;
        if (!(rc = rundir_path(path, sizeof path, ss->dir, "gpu_facts.txt")) &&
            (rc = fs_write_atomic(path, facts, strlen(facts))))
            snprintf(err, errcap, "cannot write '%s': %s", path,
                     kevo_strerror(rc));
        free(facts);
        if (rc)
            return rc;
    }
    if ((rc = cli_llm_inputs(ss->dir, ss->prompts, sizeof ss->prompts,
                             &ss->gpu_facts, err, errcap)))
        return rc;
    struct llm_cfg c;
    if ((rc = llm_cfg_of(&ss->spec, &c, err, errcap)) ||
        (rc = llm_new(&c, ss->dir, &ss->llm, err, errcap)))
        return rc;
    char line[1400];
    snprintf(line, sizeof line, "LLM mutation: %s, up to %d requests per "
             "generation", llm_describe(ss->llm), ss->spec.llm_per_gen);
    progress_log(&ss->prog, "llm", line);
    return KEVO_OK;
}

/* A sweep enumerates every point of every template of the run's dtype:
 * one too large to enumerate is refused before the run directory exists
 * (after, it would be a run that can never resume). A table's runs sweep
 * the table's points instead. */
static int check_sweep(const struct session *ss, char *err, size_t errcap)
{
    if (strcmp(ss->spec.strategy, "sweep") || ss->spec.table[0])
        return KEVO_OK;
    for (int i = 0; i < ss->n_tpls; i++)
        if ((ss->tpls[i]->dtype_mask & (1u << ss->spec.dtype)) &&
            tpl_space_raw(ss->tpls[i]) > SAMPLE_ENUM_LIMIT) {
            snprintf(err, errcap, "--strategy sweep: template '%s' has too "
                     "many points to enumerate (%.3g raw, at most %.3g); "
                     "pick smaller templates with --template, or use "
                     "--strategy evolve", ss->tpls[i]->name,
                     tpl_space_raw(ss->tpls[i]), SAMPLE_ENUM_LIMIT);
            return KEVO_ETOOBIG;
        }
    return KEVO_OK;
}

/* The tolerance the checks use, at run start (tolerance.h). */
static void log_tolerance(struct session *ss, const char *env_json)
{
    cJSON *j = env_json ? cJSON_Parse(env_json) : NULL;
    char line[2048]; /* one pair per output */
    cli_tolerance_line(ss->problem, &ss->spec.shape, ss->spec.dtype, j, line,
                       sizeof line);
    if (line[0])
        progress_log(&ss->prog, "tolerance", line);
    cJSON_Delete(j);
}

static int start_run(struct session *ss, const struct run_flags *f,
                     const struct evaluator_factory *factories, char *err,
                     size_t errcap)
{
    int rc = load_library(ss, f->tdir, err, errcap);
    if (!rc)
        rc = check_sweep(ss, err, errcap);
    if (rc)
        return rc;
    snprintf(ss->dir, sizeof ss->dir, "%s/%s",
             f->runs_dir ? f->runs_dir : "runs", ss->spec.name);
    /* refuse before starting the GPU: nothing there may be touched */
    if ((rc = rundir_check_new(ss->dir, err, errcap)))
        return rc;
    int no_llm = resolve_llm(ss);
    if ((rc = check_llm(&ss->spec, err, errcap)) ||
        (rc = make_evaluator(ss, factories, err, errcap)))
        return rc;
    if (!ss->ev.ops->set_drop) { /* the optional fill needs it */
        ss->spec.fill0 = 0;
        ss->spec.fill_spare = 0;
        ss->spec.fill_compile = 0;
    }
    if (no_llm)
        progress_log(&ss->prog, "llm",
                     "no LLM: neither ANTHROPIC_API_KEY nor OPENAI_API_KEY is "
                     "set and no --llm given; running with the cheap "
                     "mutators only");
    char *env0 = ss->ev.ops->environment
                     ? ss->ev.ops->environment(ss->ev.self) : NULL;
    char *env = cli_tolerance_env(ss->problem, &ss->spec.shape,
                                  ss->spec.dtype, env0);
    free(env0);
    log_tolerance(ss, env);
    rc = rundir_create(ss->dir, &ss->spec, ss->tpls, ss->n_tpls, env, err,
                       errcap);
    if (!rc)
        rc = open_llm(ss, env, 1, err, errcap);
    free(env);
    char path[4096];
    if (!rc && !(rc = rundir_lock(ss->dir, err, errcap)) &&
        !(rc = rundir_path(path, sizeof path, ss->dir, "journal.jsonl")) &&
        (rc = jnl_create(path, &ss->jnl)))
        snprintf(err, errcap, "cannot create '%s': %s", path,
                 kevo_strerror(rc));
    if (!rc) {
        char line[4200];
        snprintf(line, sizeof line, "run %s: %d templates, seed %llu",
                 ss->dir, ss->n_tpls, (unsigned long long)ss->spec.seed);
        cJSON *sf = cJSON_CreateObject();
        if (sf) {
            cJSON_AddStringToObject(sf, "run_dir", ss->dir);
            cJSON_AddNumberToObject(sf, "templates", ss->n_tpls);
            opt_add_json(opt_by_key("seed"), &ss->spec, sf);
        }
        progress_event(&ss->prog, "start", line, sf);
        cJSON_Delete(sf);
        if (ss->spec.table[0]) {
            snprintf(line, sizeof line, "SIMULATED: no GPU; every result "
                     "comes from the table %s, and the search space is "
                     "restricted to the table's points", ss->spec.table);
            progress_log(&ss->prog, "simulate", line);
        }
        rc = run_engine(ss, err, errcap);
    }
    return rc;
}

/* What to do after a full disk stopped a run: everything journaled so far
 * stands, so free space and resume. "" for other errors. */
static const char *run_full_hint(const struct session *ss, int rc)
{
    static char hint[4200];
    if (rc != KEVO_ENOSPC || !ss->dir[0])
        return "";
    snprintf(hint, sizeof hint, "; free space and run 'kevo resume %s' "
             "(nothing journaled is lost)", ss->dir);
    return hint;
}

static int run_main(int argc, char **argv,
                    const struct evaluator_factory *factories)
{
    struct session ss;
    struct run_flags f = {.mode = PROG_AUTO};
    char err[1024] = "";
    memset(&ss, 0, sizeof ss);
    int rc = parse_run_args(argc, argv, &ss, &f, err, sizeof err);
    if (rc == -1)
        return EXIT_DONE;
    progress_init(&ss.prog, f.mode, f.mode == PROG_JSON ? stdout : stderr);
    if (!rc)
        rc = start_run(&ss, &f, factories, err, sizeof err);
    if (rc && rc != KEVO_ESTOPPED)
        fprintf(stderr, "kevo run: %s%s\n", err[0] ? err : kevo_strerror(rc),
                run_full_hint(&ss, rc));
    session_release(&ss);
    return exit_for(rc);
}

int cmd_run_main(int argc, char **argv,
                 const struct evaluator_factory *factories)
{
    int code;
    if (mpi_served("run", factories, &code))
        return code;
    code = run_main(argc, argv, factories);
    mpijob_leave();
    return code;
}

/* ------------------------------------------------------- kevo resume */

static const char resume_usage[] =
    "usage: kevo resume <run-dir> [--generations N] [--evals N] [--time T]\n"
    "                   [--stagnation N] [--llm P] [--gpus all|0,1,...]\n"
    "                   [--quiet | --json]\n"
    "\n"
    "Continues a run from its last checkpoint and journal after a stop, a\n"
    "crash or kill -9: no finished evaluation is lost or repeated. Budget\n"
    "flags replace the run's budgets for this session (e.g. to extend it);\n"
    "--time or --evals without --generations lifts the generation cap.\n"
    "--llm gives the run's LLM again, with the credential of its base URL\n"
    "(user:secret@host), which kevo never writes down. --gpus continues on\n"
    "other GPUs (the decisions do not depend on their number).\n"
    "\n";

static int parse_resume_args(int argc, char **argv, struct session *ss,
                             struct run_flags *f, const char **dir,
                             struct spec *over, char *err, size_t errcap)
{
    int c, rc;
    struct option opts[OPT_MAX];
    getopt_table(opts);
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        const struct kopt *o = opt_of(c);
        if (c == 'h' || is_flag(o, "help")) {
            fputs(resume_usage, stdout);
            opt_print_help(stdout, OPTC_RESUME);
            return -1;
        }
        if (!o)
            return bad_option(c, argv, "resume", err, errcap);
        if (!(o->cmds & OPTC_RESUME)) {
            snprintf(err, errcap, "unknown option '%s' (see kevo resume "
                     "--help)", argv[optind - 1]);
            return KEVO_EINVAL;
        }
        if ((rc = run_flag(o, optarg, over, f, err, errcap)))
            return rc;
    }
    if (optind != argc - 1) {
        snprintf(err, errcap, "expected one run directory (see kevo resume "
                 "--help)");
        return KEVO_EINVAL;
    }
    *dir = argv[optind];
    return KEVO_OK;
}

/* The LLM of a resumed run is the recorded one; a credential of its URL
 * was never recorded, so it must be given again (--llm, checked against
 * the record). */
static int resume_llm(struct spec *s, const char *given, char *err,
                      size_t errcap)
{
    char red[sizeof s->llm];
    if (given[0]) {
        llm_redact(given, red, sizeof red);
        if (strcmp(red, s->llm)) {
            snprintf(err, errcap, "--llm '%s' is not the LLM this run uses "
                     "('%s')", red, s->llm);
            return KEVO_EINVAL;
        }
        snprintf(s->llm, sizeof s->llm, "%s", given);
    } else if (strstr(s->llm, "://***@")) {
        snprintf(err, errcap, "this run's LLM base URL carries a credential, "
                 "which kevo never stores: give it again with --llm (the "
                 "run has '%s')", s->llm);
        return KEVO_EINVAL;
    }
    return KEVO_OK;
}

static int open_existing(struct session *ss, const char *dir, char *err,
                         size_t errcap)
{
    snprintf(ss->dir, sizeof ss->dir, "%s", dir);
    cJSON *man = NULL;
    int rc = rundir_load_manifest(dir, &ss->spec, &man, err, errcap);
    if (!rc && !(ss->problem = problem_find(ss->spec.problem))) {
        snprintf(err, errcap, "run '%s' is for unknown problem '%s'", dir,
                 ss->spec.problem);
        rc = KEVO_EPARSE;
    }
    if (!rc) /* the prompts state the tolerance the run started with */
        cli_tolerance_adopt(ss->problem, ss->spec.dtype,
                            cJSON_GetObjectItemCaseSensitive(man,
                                                             "environment"));
    cJSON_Delete(man);
    if (!rc)
        rc = rundir_load_templates(dir, &ss->tpls, &ss->n_tpls, err, errcap);
    if (!rc)
        rc = rundir_load_checkpoint(dir, &ss->checkpoint, err, errcap);
    if (!rc)
        rc = rundir_read_journal(dir, &ss->existing, &ss->no_journal, err,
                                 errcap);
    if (!rc)
        rc = rundir_check_journal(dir, ss->checkpoint,
                                  cJSON_GetArraySize(ss->existing), err,
                                  errcap);
    return rc;
}

/* The budget flags given to resume replace the recorded ones; as for a
 * new run, a time or evaluation budget without --generations lifts the
 * generation cap. */
static void apply_overrides(struct spec *s, const struct spec *over,
                            const struct spec *dflt)
{
    if (over->max_generations != dflt->max_generations)
        s->max_generations = over->max_generations;
    else if (over->max_evals != dflt->max_evals ||
             over->max_time_s != dflt->max_time_s)
        s->max_generations = 0;
    if (over->max_evals != dflt->max_evals)
        s->max_evals = over->max_evals;
    if (over->max_time_s != dflt->max_time_s)
        s->max_time_s = over->max_time_s;
    if (over->stagnation != dflt->stagnation)
        s->stagnation = over->stagnation;
    if (over->gpus[0]) /* resume --gpus: this session's GPUs */
        snprintf(s->gpus, sizeof s->gpus, "%s", over->gpus);
}

static int do_resume(struct session *ss, const char *dir,
                     const struct spec *over,
                     const struct evaluator_factory *factories, char *err,
                     size_t errcap)
{
    struct spec dflt;
    spec_defaults(&dflt);
    /* every check that can fail comes before the first write: reading the
     * run (a non-run directory gets no lock file), the lock, the LLM,
     * the GPU */
    char path[4096];
    rundir_run_problem_code(1); /* it evaluates: a PyTorch module runs */
    if (rundir_problem_code(dir, path, sizeof path))
        fprintf(stderr, "kevo resume: running this run's PyTorch module "
                "'%s' (Python, with your rights: read it first if the run "
                "came from someone else)\n", path);
    int rc = open_existing(ss, dir, err, errcap);
    if (!rc)
        rc = rundir_lock(dir, err, errcap);
    if (!rc)
        rc = resume_llm(&ss->spec, over->llm, err, errcap);
    if (rc)
        return rc;
    apply_overrides(&ss->spec, over, &dflt);
    if ((rc = check_llm(&ss->spec, err, errcap)) ||
        (rc = make_evaluator(ss, factories, err, errcap)) ||
        (rc = open_llm(ss, NULL, 0, err, errcap)) ||
        (rc = rundir_path(path, sizeof path, dir, "journal.jsonl")))
        return rc;
    /* killed between the manifest and the journal: it starts now */
    if (ss->no_journal && (rc = fs_write_new(path, "", 0, 1))) {
        snprintf(err, errcap, "cannot create '%s': %s", path,
                 kevo_strerror(rc));
        return rc;
    }
    /* reopen for appending: repairs a line torn by a crash */
    cJSON_Delete(ss->existing);
    ss->existing = NULL;
    if ((rc = jnl_open_resume(path, &ss->jnl, &ss->existing, err, errcap)) ||
        (rc = rundir_check_journal(dir, ss->checkpoint,
                                   cJSON_GetArraySize(ss->existing), err,
                                   errcap)))
        return rc;
    char line[4200];
    snprintf(line, sizeof line, "resuming %s: %d records in the journal, "
             "checkpoint at generation %d", dir,
             cJSON_GetArraySize(ss->existing),
             ss->checkpoint ? record_int(ss->checkpoint, "gen", -1) : -1);
    progress_log(&ss->prog, "resume", line);
    return run_engine(ss, err, errcap);
}

static int resume_main(int argc, char **argv,
                       const struct evaluator_factory *factories)
{
    struct session ss;
    struct run_flags f = {.mode = PROG_AUTO};
    struct spec over;
    const char *dir = NULL;
    char err[1024] = "";
    memset(&ss, 0, sizeof ss);
    spec_defaults(&over);
    int rc = parse_resume_args(argc, argv, &ss, &f, &dir, &over, err,
                               sizeof err);
    if (rc == -1)
        return EXIT_DONE;
    progress_init(&ss.prog, f.mode, f.mode == PROG_JSON ? stdout : stderr);
    if (!rc)
        rc = do_resume(&ss, dir, &over, factories, err, sizeof err);
    if (rc && rc != KEVO_ESTOPPED)
        fprintf(stderr, "kevo resume: %s%s\n",
                err[0] ? err : kevo_strerror(rc), run_full_hint(&ss, rc));
    session_release(&ss);
    return exit_for(rc);
}

int cmd_resume_main(int argc, char **argv,
                    const struct evaluator_factory *factories)
{
    int code;
    if (mpi_served("resume", factories, &code))
        return code;
    code = resume_main(argc, argv, factories);
    mpijob_leave();
    return code;
}
