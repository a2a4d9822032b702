/*
 * spec.c - run specification: defaults, JSON in and out, validation (see
 * spec.h).
 */
#include "spec.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "llm.h"

void spec_defaults(struct spec *s)
{
    memset(s, 0, sizeof *s);
    s->dtype = DTYPE_FP32;
    s->seed = 1;
    /* 4 x 32 = 128 children per generation: enough to keep the GPU busy
     * while the next candidates compile (on the H100, 2 x 16 left the GPU
     * waiting on the first compiles of every generation: 657 evals/min) */
    s->islands = 4;
    s->population = 16;
    s->offspring = 32;
    s->tournament = 3;
    s->migrate_every = 5;
    s->init_random = 8;
    s->archive_prob = 0.2;
    s->crossover_prob = 0.3;
    snprintf(s->strategy, sizeof s->strategy, "evolve");
    snprintf(s->init, sizeof s->init, "lhs");
    s->surrogate = 8; /* kevo bench-search: 8 beat 2, 4 and 16 */
    s->tweak_repair = 1;
    s->max_generations = SPEC_GENERATIONS_UNSET;
    snprintf(s->evaluator, sizeof s->evaluator, "gpu");
    s->compile_timeout_ms = 60000;
    s->kernel_timeout_ms = 10000;
    s->llm_per_gen = 4;
    s->llm_propose = 4;
    s->llm_repairs = 1;
    s->llm_cost = 20;
}

void spec_legacy_search(struct spec *s)
{
    snprintf(s->init, sizeof s->init, "random");
    s->surrogate = 0;
    s->tweak_repair = 0;
}

void spec_resolve_budgets(struct spec *s)
{
    if (s->max_generations == SPEC_GENERATIONS_UNSET)
        s->max_generations = s->max_time_s > 0 || s->max_evals > 0
                                 ? 0
                                 : SPEC_GENERATIONS_DEFAULT;
}

cJSON *spec_budgets_json(const struct spec *s)
{
    cJSON *o = cJSON_CreateObject();
    if (s->max_generations > 0)
        cJSON_AddNumberToObject(o, "generations", s->max_generations);
    if (s->max_evals > 0)
        cJSON_AddNumberToObject(o, "evals", (double)s->max_evals);
    if (s->max_time_s > 0)
        cJSON_AddNumberToObject(o, "time_s", s->max_time_s);
    if (s->stagnation > 0)
        cJSON_AddNumberToObject(o, "stagnation", s->stagnation);
    return o;
}

int spec_name_ok(const char *name)
{
    return name[0] && !strchr(name, '/') && strcmp(name, ".") &&
           strcmp(name, "..");
}

int spec_llm_on(const struct spec *s)
{
    return s->llm[0] && strcmp(s->llm, "off") && strcmp(s->llm, "none");
}

/* Line number of the byte at off in text (1-based). */
static int line_of(const char *text, size_t off)
{
    int line = 1;
    for (size_t i = 0; i < off && text[i]; i++)
        line += text[i] == '\n';
    return line;
}

/* Line of member key in text: the first line where "key" appears
 * followed by a colon; a good-enough locator for messages. */
static int line_of_key(const char *text, const char *key)
{
    char pat[80];
    snprintf(pat, sizeof pat, "\"%s\"", key);
    const char *p = strstr(text, pat);
    return p ? line_of(text, (size_t)(p - text)) : 1;
}

#define BAD(...)                                                             \
    do {                                                                     \
        int n_ = snprintf(err, errcap, "%s:%d: ", path,                      \
                          line_of_key(text, it->string));                   \
        snprintf(err + n_, errcap - (size_t)n_, __VA_ARGS__);                \
        return KEVO_EPARSE;                                                  \
    } while (0)

static int get_int(const cJSON *it, long lo, long hi, long *out)
{
    if (!cJSON_IsNumber(it) || it->valuedouble != floor(it->valuedouble) ||
        it->valuedouble < (double)lo || it->valuedouble > (double)hi)
        return -1;
    *out = (long)it->valuedouble;
    return 0;
}

struct int_member {
    const char *key;
    size_t off;   /* offsetof in struct spec */
    int is_long;
    long lo, hi;
};

#define IM(k, f, lo, hi) {k, offsetof(struct spec, f), 0, lo, hi}
static const struct int_member int_members[] = {
    IM("islands", islands, 1, 64),
    IM("population", population, 1, 100000),
    IM("offspring", offspring, 1, 100000),
    IM("tournament", tournament, 1, 64),
    IM("migrate_every", migrate_every, 0, 1000000),
    IM("init_random", init_random, 0, 100000),
    IM("generations", max_generations, 0, 100000000),
    IM("stagnation", stagnation, 0, 100000000),
    IM("compilers", compilers, 0, 1024),
    IM("compile_timeout_ms", compile_timeout_ms, 1, 3600000),
    IM("kernel_timeout_ms", kernel_timeout_ms, 1, 3600000),
    IM("llm_per_gen", llm_per_gen, 0, 100000),
    IM("llm_propose", llm_propose, 0, 100000),
    IM("llm_repairs", llm_repairs, 0, 100),
    IM("surrogate", surrogate, 0, 64),
    IM("tweak_repair", tweak_repair, 0, 1),
    {"evals", offsetof(struct spec, max_evals), 1, 0, 1000000000L},
};

static int parse_int_member(struct spec *s, const cJSON *it, const char *text,
                            const char *path, char *err, size_t errcap,
                            int *matched)
{
    *matched = 0;
    for (size_t i = 0; i < sizeof int_members / sizeof *int_members; i++) {
        const struct int_member *m = &int_members[i];
        if (strcmp(it->string, m->key))
            continue;
        long v;
        *matched = 1;
        if (get_int(it, m->lo, m->hi, &v))
            BAD("'%s' must be an integer in [%ld, %ld]", m->key, m->lo,
                m->hi);
        if (m->is_long)
            *(long *)((char *)s + m->off) = v;
        else
            *(int *)((char *)s + m->off) = (int)v;
    }
    return KEVO_OK;
}

static int copy_str(const cJSON *it, char *dst, size_t cap)
{
    if (!cJSON_IsString(it) || strlen(it->valuestring) >= cap ||
        !it->valuestring[0])
        return -1;
    memcpy(dst, it->valuestring, strlen(it->valuestring) + 1);
    return 0;
}

static int parse_templates(struct spec *s, const cJSON *it, const char *text,
                           const char *path, char *err, size_t errcap)
{
    if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) > SPEC_MAX_TEMPLATES)
        BAD("'templates' must be an array of at most %d names",
            SPEC_MAX_TEMPLATES);
    s->n_templates = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, it)
    {
        if (copy_str(e, s->templates[s->n_templates], 64))
            BAD("'templates' entries must be template names");
        s->n_templates++;
    }
    return KEVO_OK;
}

static int parse_member(struct spec *s, const cJSON *it, const char *text,
                        const char *path, char *err, size_t errcap)
{
    const char *k = it->string;
    int matched, rc;
    if ((rc = parse_int_member(s, it, text, path, err, errcap, &matched)) ||
        matched)
        return rc;
    if (!strcmp(k, "name")) {
        if (copy_str(it, s->name, sizeof s->name) ||
            !spec_name_ok(it->valuestring))
            BAD("'name' must be a plain name (no '/', not '.' or '..')");
    } else if (!strcmp(k, "problem")) {
        if (copy_str(it, s->problem, sizeof s->problem))
            BAD("'problem' must be a string");
    } else if (!strcmp(k, "problem_file")) { /* a user-defined problem */
        const struct problem *up;
        if (!cJSON_IsString(it))
            BAD("'problem_file' must be a string (a .problem file)");
        if ((rc = problem_load_file(it->valuestring, &up, err, errcap)))
            return rc;
        snprintf(s->problem, sizeof s->problem, "%s", up->name);
    } else if (!strcmp(k, "dtype")) {
        if (!cJSON_IsString(it) || dtype_parse(it->valuestring, &s->dtype))
            BAD("'dtype' must be one of fp32, fp16, bf16");
    } else if (!strcmp(k, "shape")) {
        const struct problem *p = problem_find(s->problem);
        if (!p)
            BAD("'shape' needs a known 'problem' before it");
        char why[256];
        if (!cJSON_IsString(it) ||
            problem_parse_shape(p, it->valuestring, &s->shape, why,
                                sizeof why))
            BAD("%s", cJSON_IsString(it) ? why : "'shape' must be a string");
    } else if (!strcmp(k, "templates")) {
        return parse_templates(s, it, text, path, err, errcap);
    } else if (!strcmp(k, "seed")) {
        long v;
        if (get_int(it, 0, 1L << 53, &v))
            BAD("'seed' must be a non-negative integer");
        s->seed = (uint64_t)v;
    } else if (!strcmp(k, "time")) {
        double t = cJSON_IsString(it) ? spec_parse_duration(it->valuestring)
                   : cJSON_IsNumber(it) ? it->valuedouble : -1;
        if (!(t >= 0) || !isfinite(t))
            BAD("'time' must be a duration such as \"8h\", \"30m\" or 90");
        s->max_time_s = t;
    } else if (!strcmp(k, "archive_prob") || !strcmp(k, "crossover_prob")) {
        if (!cJSON_IsNumber(it) || it->valuedouble < 0 || it->valuedouble > 1)
            BAD("'%s' must be a number in [0, 1]", k);
        *(k[0] == 'a' ? &s->archive_prob : &s->crossover_prob) =
            it->valuedouble;
    } else if (!strcmp(k, "llm")) {
        if (copy_str(it, s->llm, sizeof s->llm))
            BAD("'llm' must be a string such as \"openai:gpt-5\", "
                "\"anthropic:MODEL\", \"replay:runs/X\" or \"off\"");
    } else if (!strcmp(k, "llm_key_env")) {
        if (copy_str(it, s->llm_key_env, sizeof s->llm_key_env))
            BAD("'llm_key_env' must be the name of an environment variable");
    } else if (!strcmp(k, "llm_budget_tokens") ||
               !strcmp(k, "llm_budget_usd") || !strcmp(k, "llm_price_in") ||
               !strcmp(k, "llm_price_out") || !strcmp(k, "llm_cost")) {
        if (!cJSON_IsNumber(it) || it->valuedouble < 0 ||
            !isfinite(it->valuedouble))
            BAD("'%s' must be a non-negative number", k);
        double *d = !strcmp(k, "llm_budget_tokens") ? &s->llm_budget_tokens
                    : !strcmp(k, "llm_budget_usd")  ? &s->llm_budget_usd
                    : !strcmp(k, "llm_price_in")    ? &s->llm_price_in
                    : !strcmp(k, "llm_price_out")   ? &s->llm_price_out
                                                    : &s->llm_cost;
        *d = it->valuedouble;
    } else if (!strcmp(k, "strategy")) {
        if (!cJSON_IsString(it) || (strcmp(it->valuestring, "evolve") &&
                                    strcmp(it->valuestring, "sweep")))
            BAD("'strategy' must be \"evolve\" or \"sweep\"");
        snprintf(s->strategy, sizeof s->strategy, "%s", it->valuestring);
    } else if (!strcmp(k, "init")) {
        if (!cJSON_IsString(it) || (strcmp(it->valuestring, "lhs") &&
                                    strcmp(it->valuestring, "random")))
            BAD("'init' must be \"lhs\" or \"random\"");
        snprintf(s->init, sizeof s->init, "%s", it->valuestring);
    } else if (!strcmp(k, "table")) {
        if (copy_str(it, s->table, sizeof s->table))
            BAD("'table' must be the path of a recorded table");
    } else if (!strcmp(k, "evaluator")) {
        if (copy_str(it, s->evaluator, sizeof s->evaluator))
            BAD("'evaluator' must be a string");
    } else if (!strcmp(k, "arch")) {
        if (copy_str(it, s->arch, sizeof s->arch))
            BAD("'arch' must be a string such as \"sm_90a\"");
    } else if (!strcmp(k, "gpus")) {
        int ids[SPEC_MAX_GPUS];
        char why[300];
        if (copy_str(it, s->gpus, sizeof s->gpus) ||
            spec_gpu_list(s->gpus, 0, ids, SPEC_MAX_GPUS, why, sizeof why) < 0)
            BAD("'gpus' must be \"all\" or a list such as \"0,1,3\"");
    } else {
        BAD("unknown member '%s'", k);
    }
    return KEVO_OK;
}

int spec_parse_json(struct spec *s, const char *text, const char *path,
                    char *err, size_t errcap)
{
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithOpts(text, &end, 1);
    if (!root) {
        const char *at = cJSON_GetErrorPtr();
        size_t off = at && at >= text ? (size_t)(at - text) : 0;
        snprintf(err, errcap, "%s:%d: malformed JSON near '%.20s'", path,
                 line_of(text, off), at ? at : "");
        return KEVO_EPARSE;
    }
    int rc = KEVO_OK;
    if (!cJSON_IsObject(root)) {
        snprintf(err, errcap, "%s:1: a spec must be a JSON object", path);
        rc = KEVO_EPARSE;
    }
    /* problem first: shape parsing depends on it */
    const cJSON *pf = cJSON_GetObjectItemCaseSensitive(root, "problem_file");
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(root, "problem");
    if (!rc && pf)
        rc = parse_member(s, pf, text, path, err, errcap);
    if (!rc && pf && p &&
        (!cJSON_IsString(p) || strcmp(p->valuestring, s->problem))) {
        snprintf(err, errcap, "%s:%d: 'problem' names another problem than "
                 "'problem_file' (%s)", path,
                 line_of_key(text, "problem"), s->problem);
        rc = KEVO_EPARSE;
    }
    if (!rc && p)
        rc = parse_member(s, p, text, path, err, errcap);
    const cJSON *it;
    cJSON_ArrayForEach(it, root)
    {
        if (rc)
            break;
        if (it != p && it != pf)
            rc = parse_member(s, it, text, path, err, errcap);
    }
    cJSON_Delete(root);
    return rc;
}

int spec_load(struct spec *s, const char *path, char *err, size_t errcap)
{
    char *text;
    int rc = fs_read_file(path, &text, NULL);
    if (rc) {
        snprintf(err, errcap, "cannot read spec '%s': %s", path,
                 kevo_strerror(rc));
        return rc;
    }
    rc = spec_parse_json(s, text, path, err, errcap);
    free(text);
    return rc;
}

int spec_validate(const struct spec *s, char *err, size_t errcap)
{
    const struct problem *p = problem_find(s->problem);
    if (!s->problem[0]) {
        snprintf(err, errcap, "no problem given (--problem gemm|softmax)");
        return KEVO_EINVAL;
    }
    if (!p) {
        snprintf(err, errcap, "unknown problem '%s' (see 'kevo list')",
                 s->problem);
        return KEVO_EINVAL;
    }
    if (!(p->dtype_mask & 1u << s->dtype)) {
        snprintf(err, errcap, "problem %s does not support dtype %s",
                 p->name, dtype_name(s->dtype));
        return KEVO_EINVAL;
    }
    if (s->shape.n_dims != p->n_dims) {
        snprintf(err, errcap, "no shape given for %s (--shape, e.g. %s)",
                 p->name, p->n_dims == 3 ? "4096x4096x4096" : "4096x4096");
        return KEVO_EINVAL;
    }
    if (s->tournament > s->population) {
        snprintf(err, errcap, "tournament (%d) larger than population (%d)",
                 s->tournament, s->population);
        return KEVO_EINVAL;
    }
    if (!s->name[0]) {
        snprintf(err, errcap, "no run name given (--name)");
        return KEVO_EINVAL;
    }
    return KEVO_OK;
}

cJSON *spec_to_json(const struct spec *s)
{
    cJSON *o = cJSON_CreateObject();
    char shape[64];
    problem_format_shape(&s->shape, shape, sizeof shape);
    cJSON_AddStringToObject(o, "name", s->name);
    cJSON_AddStringToObject(o, "problem", s->problem);
    cJSON_AddStringToObject(o, "dtype", dtype_name(s->dtype));
    cJSON_AddStringToObject(o, "shape", shape);
    if (s->n_templates) {
        cJSON *a = cJSON_AddArrayToObject(o, "templates");
        for (int i = 0; i < s->n_templates; i++)
            cJSON_AddItemToArray(a, cJSON_CreateString(s->templates[i]));
    }
    cJSON_AddNumberToObject(o, "seed", (double)s->seed);
    for (size_t i = 0; i < sizeof int_members / sizeof *int_members; i++) {
        const struct int_member *m = &int_members[i];
        const char *base = (const char *)s + m->off;
        double v = m->is_long ? (double)*(const long *)base
                              : (double)*(const int *)base;
        cJSON_AddNumberToObject(o, m->key, v);
    }
    cJSON_AddNumberToObject(o, "time", s->max_time_s);
    cJSON_AddNumberToObject(o, "archive_prob", s->archive_prob);
    cJSON_AddNumberToObject(o, "crossover_prob", s->crossover_prob);
    cJSON_AddStringToObject(o, "strategy", s->strategy);
    cJSON_AddStringToObject(o, "init", s->init);
    if (s->table[0])
        cJSON_AddStringToObject(o, "table", s->table);
    cJSON_AddStringToObject(o, "evaluator", s->evaluator);
    if (s->arch[0])
        cJSON_AddStringToObject(o, "arch", s->arch);
    if (s->gpus[0])
        cJSON_AddStringToObject(o, "gpus", s->gpus);
    if (s->llm[0]) { /* never a credential of the URL */
        char llm[sizeof s->llm];
        llm_redact(s->llm, llm, sizeof llm);
        cJSON_AddStringToObject(o, "llm", llm);
    }
    if (s->llm_key_env[0])
        cJSON_AddStringToObject(o, "llm_key_env", s->llm_key_env);
    cJSON_AddNumberToObject(o, "llm_budget_tokens", s->llm_budget_tokens);
    cJSON_AddNumberToObject(o, "llm_budget_usd", s->llm_budget_usd);
    cJSON_AddNumberToObject(o, "llm_price_in", s->llm_price_in);
    cJSON_AddNumberToObject(o, "llm_price_out", s->llm_price_out);
    cJSON_AddNumberToObject(o, "llm_cost", s->llm_cost);
    return o;
}

int spec_gpu_list(const char *text, int n_avail, int *ids, int max,
                  char *err, size_t errcap)
{
    int n = 0;
    if (!strcmp(text, "all")) {
        if (n_avail <= 0) /* checked again once the count is known */
            return 0;
        if (n_avail > max) {
            snprintf(err, errcap, "gpus 'all': %d GPUs, at most %d are used",
                     n_avail, max);
            return -1;
        }
        for (; n < n_avail; n++)
            ids[n] = n;
        return n;
    }
    for (const char *p = text;; p++) {
        char *end;
        errno = 0;
        long v = *p >= '0' && *p <= '9' ? strtol(p, &end, 10) : -1;
        if (v < 0 || errno || v > 1023 || (*end && *end != ',')) {
            snprintf(err, errcap, "gpus '%s': expected 'all' or GPU numbers "
                     "separated by commas, e.g. 0,1,3", text);
            return -1;
        }
        if (n_avail > 0 && v >= n_avail) {
            snprintf(err, errcap, "gpus '%s': there is no GPU %ld (%d found: "
                     "0 to %d)", text, v, n_avail, n_avail - 1);
            return -1;
        }
        for (int i = 0; i < n; i++)
            if (ids[i] == v) {
                snprintf(err, errcap, "gpus '%s': GPU %ld is named twice",
                         text, v);
                return -1;
            }
        if (n == max) {
            snprintf(err, errcap, "gpus '%s': more than %d GPUs", text, max);
            return -1;
        }
        ids[n++] = (int)v;
        if (!*end)
            return n;
        p = end;
    }
}

double spec_parse_duration(const char *text)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || v < 0 || !isfinite(v))
        return -1;
    double mul = 1;
    if (!strcmp(end, "h"))
        mul = 3600;
    else if (!strcmp(end, "m"))
        mul = 60;
    else if (!strcmp(end, "s") || !*end)
        mul = 1;
    else if (!strcmp(end, "d"))
        mul = 86400;
    else
        return -1;
    return isfinite(v * mul) ? v * mul : -1;
}
