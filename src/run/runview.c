/*
 * runview.c - the run loader every reader of a run directory shares
 * (report, leaderboard, export, verify, replay): reads its manifest,
 * journal, templates - the run's own copies and the ones born from LLM
 * answers - and winner into a struct run_view (see runview.h), each
 * journal record parsed once by the records codec (a bad one named by
 * file and line), best.json by its typed reader; plus the readers' small
 * accessors (evals, the fittest, outcome counts).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answer.h"
#include "eval.h"
#include "fsutil.h"
#include "hash.h"
#include "jnl.h"
#include "llm.h"
#include "llm_store.h"
#include "record.h"
#include "rundir.h"
#include "runview.h"

/* ------------------------------------------------------------ loader */

/* Parses every journal record once, with the records codec; a bad one
 * is named by its line and the codec's words. */
static int parse_records(struct run_view *v, const char *path, char *err,
                         size_t errcap)
{
    char why[256];
    int bad = 0;
    int rc = rec_parse_all(v->records, 1, &v->recs, &v->n_records, &bad,
                           why, sizeof why);
    if (rc == KEVO_EPARSE)
        snprintf(err, errcap, "%s:%d: %s", path, bad + 1, why);
    return rc;
}

const struct rec_eval *run_view_eval(const struct run_view *v, int i)
{
    return i >= 0 && i < v->n_records && v->recs[i].type == REC_EVAL
               ? &v->recs[i].u.eval : NULL;
}

const struct rec_eval *run_view_find_eval(const struct run_view *v,
                                          uint64_t h)
{
    const struct rec_eval *e, *first = NULL;
    for (int i = 0; i < v->n_records; i++) {
        if (!(e = run_view_eval(v, i)) || e->hash != h)
            continue;
        if (e->r.outcome == EVAL_OK)
            return e;
        if (!first)
            first = e;
    }
    return first;
}

const struct rec_eval *run_view_fittest(const struct run_view *v,
                                        const char *tpl)
{
    const struct rec_eval *e, *best = NULL;
    for (int i = 0; i < v->n_records; i++)
        if ((e = run_view_eval(v, i)) && e->r.outcome == EVAL_OK &&
            (!tpl || !strcmp(e->tpl, tpl)) &&
            (!best || e->r.fitness > best->r.fitness))
            best = e;
    return best;
}

long run_view_outcomes(const struct run_view *v,
                       long n[EVAL_OUTCOME_COUNT])
{
    const struct rec_eval *e;
    long total = 0;
    if (n)
        memset(n, 0, EVAL_OUTCOME_COUNT * sizeof *n);
    for (int i = 0; i < v->n_records; i++)
        if ((e = run_view_eval(v, i))) {
            total++;
            if (n)
                n[e->r.outcome]++;
        }
    return total;
}

const struct tpl *run_view_tpl(const struct run_view *v, const char *name)
{
    for (int i = 0; name && i < v->n_tpls; i++)
        if (!strcmp(v->tpls[i]->name, name))
            return v->tpls[i];
    for (int i = 0; name && i < v->n_llm_tpls; i++)
        if (!strcmp(v->llm_tpls[i]->name, name))
            return v->llm_tpls[i];
    return NULL;
}

void run_view_tpl_missing(const struct run_view *v, const char *name,
                          char *out, size_t cap)
{
    snprintf(out, cap, "template '%s' is neither in '%s/templates/%s/' nor "
             "among the run's LLM templates ('%s/llm/templates/')%s%s",
             name ? name : "?", v->dir, v->spec.problem, v->dir,
             v->llm_why[0] ? ": " : "", v->llm_why);
}

const cJSON *run_view_env(const struct run_view *v, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(v->manifest, "environment"), k);
}

const char *run_view_gpu(const struct run_view *v)
{
    const char *n = record_str(run_view_env(v, "device"), "name");
    return n ? n : "";
}

const cJSON *run_view_baselines(const struct run_view *v)
{
    const cJSON *b = run_view_env(v, "baselines");
    return cJSON_IsArray(b) ? b : NULL;
}

int run_view_n_baselines(const struct run_view *v)
{
    return cJSON_GetArraySize(run_view_baselines(v));
}

void run_view_baseline(const struct run_view *v, int i,
                       struct record_baseline *b)
{
    record_get_baseline(cJSON_GetArrayItem(run_view_baselines(v), i), b);
}

void run_view_point(const struct tpl *t, const struct rec_eval *e,
                    int64_t *vals)
{
    tpl_default_point(t, vals);
    for (int i = 0; i < t->n_params; i++)
        vals[i] = rec_eval_param(e, t->params[i].name, vals[i]);
}

static int read_json_file(const char *path, cJSON **out, char *err,
                          size_t errcap)
{
    char *text;
    *out = NULL;
    int rc = fs_read_file(path, &text, NULL);
    if (rc == KEVO_ENOENT)
        return KEVO_OK;
    if (rc) {
        snprintf(err, errcap, "cannot read '%s': %s", path, kevo_strerror(rc));
        return rc;
    }
    *out = cJSON_Parse(text);
    free(text);
    if (!*out || !cJSON_IsObject(*out)) {
        cJSON_Delete(*out);
        *out = NULL;
        snprintf(err, errcap, "%s: malformed JSON (expected an object)", path);
        return KEVO_EPARSE;
    }
    return KEVO_OK;
}

/* The device facts the run's expressions saw: the same defaults as
 * gpueval.c read_device() (a missing or non-positive fact is the H100's). */
static void device_facts(struct run_view *v)
{
    const cJSON *d = run_view_env(v, "device");
    v->dev = tpl_device_default;
    if (record_num(d, "sms", 0) > 0)
        v->dev.sms = record_i64(d, "sms", 0);
    if (record_num(d, "smem_optin", 0) > 0)
        v->dev.smem_optin = record_i64(d, "smem_optin", 0);
    if (record_num(d, "l2_bytes", 0) > 0)
        v->dev.l2_bytes = record_i64(d, "l2_bytes", 0);
}

/* ---------------------------------------------------- LLM templates */

static int safe_name(const char *s)
{
    size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                         "0123456789_");
    return n && n < TPL_NAME_MAX && !s[n];
}

/* LLM template name rebuilt from its answer in the transcript store, the
 * source of truth (engine_llm.c to_template() makes it the same way). */
static int from_answer(const struct run_view *v, const char *name,
                       const char *key, struct tpl **out, char *why,
                       size_t whycap)
{
    struct llm_ans a;
    char w[300] = "";
    *out = NULL;
    if (!key || !safe_name(key)) {
        snprintf(why, whycap, "its llm record names no transcript");
        return KEVO_EPARSE;
    }
    memset(&a, 0, sizeof a);
    int rc = llm_store_read(v->dir, key, &a);
    if (rc == KEVO_ENOMEM)
        return rc;
    if (rc || a.status != LLM_OK || !a.text) {
        llm_ans_release(&a);
        snprintf(why, whycap, "its answer '%s/llm/%s.json' cannot be read",
                 v->dir, key);
        return rc ? rc : KEVO_EPARSE;
    }
    struct answer_ctx ax = {v->prob, v->spec.dtype, &v->spec.shape, &v->dev,
                            name};
    char *src = NULL;
    enum answer_reject r = answer_parse(&ax, a.text, out, &src, w, sizeof w);
    free(src);
    llm_ans_release(&a);
    if (r != ANSWER_OK) {
        snprintf(why, whycap, "its answer '%s/llm/%s.json' no longer parses "
                 "(%s: %s)", v->dir, key, answer_reject_name(r), w);
        return KEVO_EPARSE;
    }
    return KEVO_OK;
}

/*
 * LLM template name: llm/templates/<name>.cu (saved for people), if it
 * still hashes to what the journal recorded, else rebuilt from its answer.
 * On failure why says what was tried.
 */
static int load_llm_tpl(const struct run_view *v, const char *name,
                        uint64_t hex, const char *key, struct tpl **out,
                        char *why, size_t whycap)
{
    char rel[TPL_NAME_MAX + 32], path[4096], e1[600], e2[600];
    snprintf(rel, sizeof rel, "llm/templates/%s.cu", name);
    int rc = rundir_path(path, sizeof path, v->dir, rel);
    if (!rc && !(rc = tpl_load(path, out, e1, sizeof e1))) {
        if ((*out)->hash == hex)
            return KEVO_OK;
        tpl_free(*out);
        *out = NULL;
        snprintf(e1, sizeof e1, "'%s' changed since the run made it", path);
    } else if (rc == KEVO_ENOENT) {
        snprintf(e1, sizeof e1, "'%s' is missing", path);
    }
    rc = from_answer(v, name, key, out, e2, sizeof e2);
    if (!rc && (*out)->hash != hex) {
        tpl_free(*out);
        *out = NULL;
        snprintf(e2, sizeof e2, "its answer '%s/llm/%s.json' makes another "
                 "template than the run's", v->dir, key);
        rc = KEVO_EPARSE;
    }
    if (rc)
        snprintf(why, whycap, "LLM template '%s': %s, and %s", name, e1, e2);
    return rc;
}

/* Every template the run's LLM answers made (the "llm" records with a
 * template). One that cannot be recovered is left out, its reason kept
 * in llm_why (the first one) for run_view_tpl_missing(): only a reader
 * that needs it fails. */
static int load_llm_tpls(struct run_view *v)
{
    for (int i = 0; i < v->n_records; i++) {
        const struct rec_llm *l = &v->recs[i].u.llm;
        char why[sizeof v->llm_why];
        struct tpl *t;
        if (v->recs[i].type != REC_LLM || !l->has_tpl ||
            run_view_tpl(v, l->tpl))
            continue;
        int rc = safe_name(l->tpl)
                     ? load_llm_tpl(v, l->tpl, l->tpl_hash, l->key, &t, why,
                                    sizeof why)
                     : (snprintf(why, sizeof why, "bad LLM template name "
                                 "'%.64s' in the journal", l->tpl),
                        KEVO_EPARSE);
        if (rc == KEVO_ENOMEM)
            return rc;
        if (rc) {
            if (!v->llm_why[0])
                snprintf(v->llm_why, sizeof v->llm_why, "%s", why);
            continue;
        }
        struct tpl **nt = realloc(v->llm_tpls, (size_t)(v->n_llm_tpls + 1) *
                                                   sizeof *nt);
        if (!nt) {
            tpl_free(t);
            return KEVO_ENOMEM;
        }
        v->llm_tpls = nt;
        v->llm_tpls[v->n_llm_tpls++] = t;
    }
    return KEVO_OK;
}

/* best.json (or the fittest ok record), its record and template. */
static int load_winner(struct run_view *v, char *err, size_t errcap)
{
    char path[4096], why[256];
    cJSON *b;
    if (rundir_path(path, sizeof path, v->dir, "best.json"))
        return KEVO_EINVAL;
    int rc = read_json_file(path, &b, err, errcap);
    if (rc)
        return rc;
    if (b) {
        rc = rec_best_parse(b, &v->best, why, sizeof why);
        cJSON_Delete(b);
        if (rc) {
            snprintf(err, errcap, "%s: %s", path, why);
            return rc;
        }
        v->has_best = 1;
    } else if (run_view_fittest(v, NULL)) {
        rec_best_from_eval(run_view_fittest(v, NULL), &v->best);
        v->has_best = 1;
    }
    if (!v->has_best)
        return KEVO_OK;
    hash_hex(v->best.hash, v->best_hex);
    v->best_eval = run_view_find_eval(v, v->best.hash);
    v->best_tpl = run_view_tpl(v, v->best.tpl);
    if (!v->best_tpl) {
        char miss[1500];
        run_view_tpl_missing(v, v->best.tpl, miss, sizeof miss);
        snprintf(err, errcap, "%s: best kernel's %s", path, miss);
        return KEVO_EPARSE;
    }
    tpl_default_point(v->best_tpl, v->best_vals);
    for (int i = 0; i < v->best_tpl->n_params; i++)
        v->best_vals[i] = rec_best_param(&v->best,
                                         v->best_tpl->params[i].name,
                                         v->best_vals[i]);
    return KEVO_OK;
}

int run_view_open(const char *dir, struct run_view *v, char *err,
                  size_t errcap)
{
    char path[4096];
    memset(v, 0, sizeof *v);
    if (snprintf(v->dir, sizeof v->dir, "%s", dir) >= (int)sizeof v->dir)
        return KEVO_EINVAL;
    int rc = rundir_load_manifest(dir, &v->spec, &v->manifest, err, errcap);
    if (!rc && !(v->prob = problem_find(v->spec.problem))) {
        snprintf(err, errcap, "'%s/manifest.json': unknown problem '%s'", dir,
                 v->spec.problem);
        rc = KEVO_EPARSE;
    }
    if (!rc && !(rc = rundir_path(path, sizeof path, dir, "journal.jsonl")))
        rc = jnl_read_all(path, &v->records, err, errcap);
    if (!rc)
        rc = parse_records(v, path, err, errcap);
    if (!rc) {
        rc = rundir_load_templates(dir, &v->tpls, &v->n_tpls, err, errcap);
    }
    if (!rc) {
        device_facts(v);
        rc = load_llm_tpls(v);
    }
    if (rc)
        run_view_release(v);
    return rc;
}

int run_view_load(const char *dir, struct run_view *v, char *err,
                  size_t errcap)
{
    char path[4096];
    int rc = run_view_open(dir, v, err, errcap);
    if (rc)
        return rc;
    cJSON *vf = NULL;
    rc = load_winner(v, err, errcap);
    if (!rc && !(rc = rundir_path(path, sizeof path, dir, "verify.json")))
        rc = read_json_file(path, &vf, err, errcap);
    if (!rc && vf)
        rc = vdoc_parse(vf, path, &v->verify, err, errcap);
    cJSON_Delete(vf);
    if (rc)
        run_view_release(v);
    return rc;
}

void run_view_release(struct run_view *v)
{
    cJSON_Delete(v->manifest);
    cJSON_Delete(v->records);
    rec_release_all(v->recs, v->n_records);
    vdoc_free(v->verify);
    for (int i = 0; i < v->n_tpls; i++)
        tpl_free(v->tpls[i]);
    free(v->tpls);
    for (int i = 0; i < v->n_llm_tpls; i++)
        tpl_free(v->llm_tpls[i]);
    free(v->llm_tpls);
    memset(v, 0, sizeof *v);
}

char *run_view_source(const struct run_view *v, char *rel, size_t cap)
{
    char path[4096], *text = NULL, sh[17];
    if (v->best_eval && v->best_eval->source) {
        hash_hex(v->best_eval->source, sh);
        snprintf(rel, cap, "sources/%s.cu", sh);
        if (!rundir_path(path, sizeof path, v->dir, rel) &&
            !fs_read_file(path, &text, NULL))
            return text;
    }
    snprintf(rel, cap, "best.cu");
    if (!rundir_path(path, sizeof path, v->dir, rel) &&
        !fs_read_file(path, &text, NULL))
        return text;
    rel[0] = '\0';
    return tpl_instantiate_hdr(v->best_tpl, v->best_vals, v->spec.dtype,
                               &v->spec.shape, v->spec.source_header);
}
