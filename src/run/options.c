/*
 * options.c - the table of a run's settings and its numeric parsers and
 * writer (see options.h). Text settings are only listed here.
 */
#include "options.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "duration.h"

#define OFF(f) offsetof(struct spec, f)
#define RR (OPTC_RUN | OPTC_RESUME)
/* integer, number, text, flag entries */
#define I(fl, k, t, f, lo, hi, d, c, a, h) \
    {fl, k, t, OFF(f), lo, hi, 0, 0, d, c, a, h}
#define N(fl, k, t, f, lo, hi, d, c, a, h) \
    {fl, k, t, OFF(f), 0, 0, lo, hi, d, c, a, h}
#define T(fl, k, c, a, h) {fl, k, OPTT_TEXT, 0, 0, 0, 0, 0, 0, c, a, h}
#define F(fl, c, h) {fl, NULL, OPTT_FLAG, 0, 0, 0, 0, 0, 0, c, NULL, h}

const struct kopt kevo_options[] = {
    T("spec", NULL, OPTC_RUN, "FILE",
      "read the run spec from a JSON file (flags override)"),
    T("problem", "problem", OPTC_RUN, "P", "gemm | softmax (see 'kevo list')"),
    T("problem-file", "problem_file", OPTC_RUN, "F",
      "a user-defined problem (README \"User-defined\nproblems\"); its "
      "templates: the *.cu next to F"),
    T("torch-problem", NULL, OPTC_RUN, "F",
      "a PyTorch module in KernelBench's format (F.py;\nREADME \"PyTorch "
      "problems\")"),
    T("set", NULL, OPTC_RUN, "NAME=VALUE",
      "one size by name (repeatable), e.g. a PyTorch\nmodule's "
      "batch_size=64; default: the module's"),
    T("dtype", "dtype", OPTC_RUN, "D", "fp32 | fp16 | bf16 (default fp32)"),
    T("shape", "shape", OPTC_RUN, "S",
      "e.g. 4096x4096x4096 (gemm MxNxK), 4096x4096\n(softmax ROWSxCOLS)"),
    T("name", "name", OPTC_RUN, "NAME",
      "run name (default <problem>-<dtype>-<shape>-<time>)"),
    T("runs-dir", NULL, OPTC_RUN, "DIR",
      "where run directories go (default runs)"),
    T("template", NULL, OPTC_RUN, "T",
      "use template T (repeatable; default all)"),
    T(NULL, "templates", 0, NULL, NULL),
    T("templates-dir", NULL, OPTC_RUN, "DIR",
      "template library (default ./templates)"),
    I("seed", "seed", OPTT_U64, seed, 0, UINT64_MAX, 1, OPTC_RUN, "N",
      "one seed fixes every random choice (default 1;\nany 64-bit "
      "unsigned integer)"),
    I("generations", "generations", OPTT_INT, max_generations, 0, 100000000,
      SPEC_GENERATIONS_UNSET, RR, "N",
      "stop after N generations (0 = no cap; default\n20, or no cap when "
      "--time or --evals is given)"),
    I("evals", "evals", OPTT_LONG, max_evals, 0, 1000000000, 0, RR, "N",
      "stop after N evaluations"),
    N("time", "time", OPTT_DURATION, max_time_s, 0, 1e12, 0, RR, "T",
      "stop after T of run time: 90s, 30m, 8h, 7h50m,\n1d2h"),
    I("stagnation", "stagnation", OPTT_INT, stagnation, 0, 100000000, 0, RR,
      "N", "stop after N generations without a new best"),
    I("islands", "islands", OPTT_INT, islands, 1, 64, 4, OPTC_RUN, "N",
      "islands (default 4)"),
    I("population", "population", OPTT_INT, population, 1, 100000, 16,
      OPTC_RUN, "N", "members per island (default 16)"),
    I("offspring", "offspring", OPTT_INT, offspring, 1, 100000, 32, OPTC_RUN,
      "N", "children per island per generation (default 32)"),
    I(NULL, "tournament", OPTT_INT, tournament, 1, 64, 3, 0, NULL, NULL),
    I(NULL, "migrate_every", OPTT_INT, migrate_every, 0, 1000000, 5, 0, NULL,
      NULL),
    I(NULL, "init_random", OPTT_INT, init_random, 0, 100000, 8, 0, NULL,
      NULL),
    N(NULL, "archive_prob", OPTT_NUM, archive_prob, 0, 1, 0.2, 0, NULL, NULL),
    N(NULL, "crossover_prob", OPTT_NUM, crossover_prob, 0, 1, 0.3, 0, NULL,
      NULL),
    I(NULL, "surrogate", OPTT_INT, surrogate, 0, 64, 8, 0, NULL, NULL),
    I(NULL, "tweak_repair", OPTT_INT, tweak_repair, 0, 1, 1, 0, NULL, NULL),
    I(NULL, "source_header", OPTT_INT, source_header, 0, 1, 1, 0, NULL,
      NULL),
    I("pipeline", "pipeline", OPTT_INT, pipeline, 0, 1, 0, OPTC_RUN, "0|1",
      "1: breed each generation from the results\nbefore the one being "
      "measured and compile it\nmeanwhile (no generation barrier; runs "
      "without\nLLM mutation); 0 (default): breed after every\ngeneration"),
    I("fill", "fill", OPTT_INT, fill, 0, 1, 1, OPTC_RUN, "0|1",
      "1 (default): each generation also measures\nlaunch-only neighbours of "
      "measured points (no\ncompile) in the GPU time the last one left "
      "idle;\n0: only the bred children"),
    I(NULL, "defer", OPTT_INT, defer, 0, 1, 1, 0, NULL, NULL),
    I("profile", "profile", OPTT_INT, profile, 0, 1, 1, OPTC_RUN, "0|1",
      "1 (default): profile each new best and LLM\nparent with the hardware "
      "counters (within 3 %\nof the run's time); 0: none (a run's "
      "timings\nwithout the profiler ever set up)"),
    I(NULL, "fill0", OPTT_INT, fill0, 0, 4, 2, 0, NULL, NULL),
    I(NULL, "fill_spare", OPTT_INT, fill_spare, 0, 4, 2, 0, NULL, NULL),
    I(NULL, "fill_compile", OPTT_INT, fill_compile, 0, 1, 1, 0, NULL, NULL),
    I(NULL, "fill_grid", OPTT_INT, fill_grid, 0, 1, 1, 0, NULL, NULL),
    I(NULL, "forest_apart", OPTT_INT, forest_apart, 0, 1, 1, 0, NULL, NULL),
    I(NULL, "fill_per_bred", OPTT_INT, fill_per_bred, 1, 64, 8, 0, NULL, NULL),
    T(NULL, "init", 0, NULL, NULL),
    T("simulate", NULL, OPTC_RUN, "TABLE",
      "no GPU: answer from a recorded table (a run\ndirectory, its "
      "journal.jsonl, or 'kevo table'\noutput); problem, dtype, shape and "
      "templates come\nfrom the table and the search space is the table's\n"
      "points only"),
    T(NULL, "table", 0, NULL, NULL),
    T("strategy", "strategy", OPTC_RUN, "S",
      "evolve (default) | sweep: every valid point of the\ntemplates once, "
      "in a seeded random order, up to the\nbudget (records a table for "
      "--simulate; random\nsearch)"),
    T("arch", "arch", OPTC_RUN, "A",
      "compile for A (default: read from the GPU)"),
    I("compilers", "compilers", OPTT_INT, compilers, 0, 1024, 0, OPTC_RUN,
      "N", "compiler processes (default: CPUs)"),
    I(NULL, "compile_timeout_ms", OPTT_INT, compile_timeout_ms, 1, 3600000,
      60000, 0, NULL, NULL),
    I(NULL, "kernel_timeout_ms", OPTT_INT, kernel_timeout_ms, 1, 3600000,
      10000, 0, NULL, NULL),
    T("evaluator", "evaluator", OPTC_RUN, NULL, NULL),
    T("gpus", "gpus", RR, "all|0,1,...",
      "one GPU worker per listed GPU, fed by one compile\npool (default: GPU "
      "0 alone); same decisions as one\nGPU for the same results (README: "
      "Several GPUs)"),
    T("llm", "llm", RR, "P",
      "LLM mutation: openai:MODEL[@BASE_URL],\nanthropic:MODEL[@BASE_URL], "
      "replay:RUN_DIR, off\n(default: from ANTHROPIC_API_KEY / "
      "OPENAI_API_KEY,\nelse off)"),
    T("llm-key-env", "llm_key_env", OPTC_RUN, "VAR",
      "read the API key from VAR (never from a flag)"),
    T("llm-budget", NULL, OPTC_RUN, "B",
      "stop asking past B tokens (200k, 2M) or USD ($5)"),
    N(NULL, "llm_budget_tokens", OPTT_NUM, llm_budget_tokens, 0, HUGE_VAL, 0,
      0, NULL, NULL),
    N(NULL, "llm_budget_usd", OPTT_NUM, llm_budget_usd, 0, HUGE_VAL, 0, 0,
      NULL, NULL),
    T("llm-price", NULL, OPTC_RUN, "IN,OUT",
      "USD per million input,output tokens"),
    N(NULL, "llm_price_in", OPTT_NUM, llm_price_in, 0, HUGE_VAL, 0, 0, NULL,
      NULL),
    N(NULL, "llm_price_out", OPTT_NUM, llm_price_out, 0, HUGE_VAL, 0, 0, NULL,
      NULL),
    I("llm-per-gen", "llm_per_gen", OPTT_INT, llm_per_gen, 0, 100000, 4,
      OPTC_RUN, "N", "LLM requests per generation at most (default 4)"),
    I(NULL, "llm_propose", OPTT_INT, llm_propose, 0, 100000, 4, 0, NULL,
      NULL),
    I(NULL, "llm_repairs", OPTT_INT, llm_repairs, 0, 100, 1, 0, NULL, NULL),
    N(NULL, "llm_cost", OPTT_NUM, llm_cost, 0, HUGE_VAL, 20, 0, NULL, NULL),
    F("quiet", RR, "print nothing but errors"),
    F("json", RR, "print progress as JSON lines (one object per event,\n"
      "with fields)"),
    F("help", RR, NULL),
    {NULL, NULL, OPTT_FLAG, 0, 0, 0, 0, 0, 0, 0, NULL, NULL},
};

const struct kopt *opt_by_flag(const char *flag)
{
    for (const struct kopt *o = kevo_options; o->flag || o->key; o++)
        if (o->flag && !strcmp(o->flag, flag))
            return o;
    return NULL;
}

const struct kopt *opt_by_key(const char *key)
{
    for (const struct kopt *o = kevo_options; o->flag || o->key; o++)
        if (o->key && !strcmp(o->key, key))
            return o;
    return NULL;
}

static int is_integer(enum opt_type t)
{
    return t == OPTT_INT || t == OPTT_LONG || t == OPTT_U64;
}

static void *member(const struct kopt *o, struct spec *s)
{
    return (char *)s + o->off;
}

static void set_int(const struct kopt *o, struct spec *s, uint64_t v)
{
    if (o->type == OPTT_INT)
        *(int *)member(o, s) = (int)v;
    else if (o->type == OPTT_LONG)
        *(long *)member(o, s) = (long)v;
    else
        *(uint64_t *)member(o, s) = v;
}

void opt_defaults(struct spec *s)
{
    for (const struct kopt *o = kevo_options; o->flag || o->key; o++) {
        if (o->type == OPTT_INT)
            *(int *)member(o, s) = (int)o->dflt;
        else if (o->type == OPTT_LONG)
            *(long *)member(o, s) = (long)o->dflt;
        else if (o->type == OPTT_U64)
            *(uint64_t *)member(o, s) = (uint64_t)o->dflt;
        else if (o->type == OPTT_NUM || o->type == OPTT_DURATION)
            *(double *)member(o, s) = o->dflt;
    }
}

/* An unsigned decimal integer (digits only, no sign or space) in o's
 * range into *v; -1 if it is not one. */
static int digits_in_range(const struct kopt *o, const char *text,
                           uint64_t *v)
{
    if (!(*text >= '0' && *text <= '9'))
        return -1;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(text, &end, 10);
    if (errno || *end || x < o->lo || x > o->hi)
        return -1;
    *v = (uint64_t)x;
    return 0;
}

int opt_parse_text(const struct kopt *o, const char *text, struct spec *s,
                   char *why, size_t whycap)
{
    if (is_integer(o->type)) {
        uint64_t v;
        if (digits_in_range(o, text, &v)) {
            snprintf(why, whycap, "'%s' is not an integer in [%llu, %llu]",
                     text, (unsigned long long)o->lo,
                     (unsigned long long)o->hi);
            return KEVO_EINVAL;
        }
        set_int(o, s, v);
        return KEVO_OK;
    }
    double v;
    char reason[160] = "";
    if (o->type == OPTT_DURATION) {
        if (dur_parse(text, &v, reason, sizeof reason) == KEVO_OK &&
            v >= o->dlo && v <= o->dhi) {
            *(double *)member(o, s) = v;
            return KEVO_OK;
        }
        snprintf(why, whycap, "'%s' is not a duration%s%s (e.g. "
                 DUR_EXAMPLES ")", text, reason[0] ? ": " : "", reason);
        return KEVO_EINVAL;
    }
    char *end;
    v = o->type == OPTT_NUM ? strtod(text, &end) : 0;
    if (o->type != OPTT_NUM || end == text || *end || !isfinite(v) ||
        v < o->dlo || v > o->dhi) {
        snprintf(why, whycap, "'%s' is not a number in [%g, %g]", text,
                 o->dlo, o->dhi);
        return KEVO_EINVAL;
    }
    *(double *)member(o, s) = v;
    return KEVO_OK;
}

static int json_integer(const struct kopt *o, const cJSON *it, uint64_t *v)
{
    if (cJSON_IsString(it)) /* exact, for any 64-bit value */
        return o->type == OPTT_INT ? -1
                                   : digits_in_range(o, it->valuestring, v);
    if (!cJSON_IsNumber(it))
        return -1;
    double d = it->valuedouble;
    /* from 2^53 on, the reader may already have rounded the number
     * (9007199254740993 reads as 2^53): only a string is exact there */
    if (d != floor(d) || d < (double)o->lo || d > (double)o->hi ||
        d >= (double)OPT_JSON_EXACT)
        return -1;
    *v = (uint64_t)d;
    return 0;
}

int opt_parse_json(const struct kopt *o, const cJSON *it, struct spec *s,
                   char *why, size_t whycap)
{
    if (is_integer(o->type)) {
        uint64_t v;
        if (json_integer(o, it, &v)) {
            snprintf(why, whycap, "'%s' must be an integer in [%llu, %llu]%s",
                     o->key, (unsigned long long)o->lo,
                     (unsigned long long)o->hi,
                     o->hi > OPT_JSON_EXACT ? " (past 2^53 as a string of "
                                              "digits, e.g. "
                                              "\"9007199254740993\")"
                                            : "");
            return KEVO_EPARSE;
        }
        set_int(o, s, v);
        return KEVO_OK;
    }
    if (o->type == OPTT_DURATION && cJSON_IsString(it)) {
        char reason[160];
        if (opt_parse_text(o, it->valuestring, s, reason, sizeof reason)) {
            snprintf(why, whycap, "'%s': %s", o->key, reason);
            return KEVO_EPARSE;
        }
        return KEVO_OK;
    }
    if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble) ||
        it->valuedouble < o->dlo || it->valuedouble > o->dhi) {
        if (o->type == OPTT_DURATION)
            snprintf(why, whycap, "'%s' must be a duration such as \"8h\", "
                     "\"7h50m\" or 90", o->key);
        else if (isinf(o->dhi))
            snprintf(why, whycap, "'%s' must be a non-negative number",
                     o->key);
        else
            snprintf(why, whycap, "'%s' must be a number in [%g, %g]",
                     o->key, o->dlo, o->dhi);
        return KEVO_EPARSE;
    }
    *(double *)member(o, s) = it->valuedouble;
    return KEVO_OK;
}

void opt_add_json(const struct kopt *o, const struct spec *s, cJSON *obj)
{
    const char *m = (const char *)s + o->off;
    uint64_t v;
    switch (o->type) {
    case OPTT_INT: v = (uint64_t)(int64_t)*(const int *)m; break;
    case OPTT_LONG: v = (uint64_t)(int64_t)*(const long *)m; break;
    case OPTT_U64: v = *(const uint64_t *)m; break;
    case OPTT_NUM:
    case OPTT_DURATION:
        cJSON_AddNumberToObject(obj, o->key, *(const double *)m);
        return;
    default: return;
    }
    /* digits, not cJSON's number printer: it keeps 15 significant
     * digits when they read back within a relative epsilon, which turns
     * 9007199254740991 into 9.00719925474099e+15 */
    char digits[24];
    if (o->type == OPTT_U64)
        snprintf(digits, sizeof digits, "%llu", (unsigned long long)v);
    else /* int and long members may hold -1 (unset) */
        snprintf(digits, sizeof digits, "%lld", (long long)(int64_t)v);
    if (o->type == OPTT_U64 && v > OPT_JSON_NUMBER_MAX)
        cJSON_AddStringToObject(obj, o->key, digits);
    else
        cJSON_AddRawToObject(obj, o->key, digits);
}

void opt_print_help(FILE *f, unsigned cmd)
{
    for (const struct kopt *o = kevo_options; o->flag || o->key; o++) {
        if (!o->flag || !o->help || !(o->cmds & cmd))
            continue;
        char head[64];
        int n = snprintf(head, sizeof head, "  --%s%s%s", o->flag,
                         o->arg ? " " : "", o->arg ? o->arg : "");
        fputs(head, f);
        const char *p = o->help;
        int col = n;
        while (*p) {
            const char *nl = strchr(p, '\n');
            int len = nl ? (int)(nl - p) : (int)strlen(p);
            if (col >= 23) { /* a long flag: the text on the next line */
                fputc('\n', f);
                col = 0;
            }
            fprintf(f, "%*s%.*s\n", 23 - col, "", len, p);
            col = 0;
            p += len + (nl != NULL);
        }
    }
}
