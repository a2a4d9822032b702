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

#include "duration.h"
#include "fsutil.h"
#include "llm.h"
#include "options.h"

void spec_defaults(struct spec *s)
{
    memset(s, 0, sizeof *s);
    /* the numbers from the options table (options.c), which also says
     * why: e.g. 4 islands x 32 children keep the GPU busy while the next
     * candidates compile */
    opt_defaults(s);
    s->dtype = DTYPE_FP32;
    snprintf(s->strategy, sizeof s->strategy, "evolve");
    snprintf(s->init, sizeof s->init, "lhs");
    snprintf(s->evaluator, sizeof s->evaluator, "gpu");
}

void spec_legacy_search(struct spec *s)
{
    snprintf(s->init, sizeof s->init, "random");
    s->surrogate = 0;
    s->tweak_repair = 0;
    s->source_header = 0;
    s->pipeline = 0;
    s->fill = 0;
    s->fill0 = 0;
    s->fill_spare = 0;
    s->fill_compile = 0;
    s->fill_grid = 0;
    s->forest_apart = 0;
    s->defer = 0;
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

/* A numeric member of the options table (options.h); *matched = 0 if
 * it->string is not one. */
static int parse_number_member(struct spec *s, const cJSON *it,
                               const char *text, const char *path, char *err,
                               size_t errcap, int *matched)
{
    const struct kopt *o = opt_by_key(it->string);
    *matched = o && o->type != OPTT_TEXT && o->type != OPTT_FLAG;
    if (!*matched)
        return KEVO_OK;
    char why[300];
    if (opt_parse_json(o, it, s, why, sizeof why))
        BAD("%s", why);
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
    if ((rc = parse_number_member(s, it, text, path, err, errcap,
                                  &matched)) ||
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
    } else if (!strcmp(k, "llm")) {
        if (copy_str(it, s->llm, sizeof s->llm))
            BAD("'llm' must be a string such as \"openai:gpt-5\", "
                "\"anthropic:MODEL\", \"replay:runs/X\" or \"off\"");
    } else if (!strcmp(k, "llm_key_env")) {
        if (copy_str(it, s->llm_key_env, sizeof s->llm_key_env))
            BAD("'llm_key_env' must be the name of an environment variable");
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
    for (const struct kopt *k = kevo_options; k->flag || k->key; k++)
        if (k->key && k->type != OPTT_TEXT && k->type != OPTT_FLAG)
            opt_add_json(k, s, o);
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
    double s;
    char why[128];
    return dur_parse(text, &s, why, sizeof why) ? -1 : s;
}
