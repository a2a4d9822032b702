/*
 * runview.c - the run loader the output commands (report, leaderboard,
 * export) share: reads a run directory's manifest, journal, templates and
 * winner into a struct run_view (see cmd_outputs.h), checking each record
 * enough to trust it, with errors naming the file and line; plus their small
 * output helpers.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_outputs.h"
#include "cmd_run.h"
#include "eval.h"
#include "fsutil.h"
#include "jnl.h"
#include "record.h"
#include "rundir.h"

/* ------------------------------------------------------------ loader */

/* Checks each record enough for the output commands to trust it. */
static int check_records(const cJSON *records, const char *path, char *err,
                         size_t errcap)
{
    const cJSON *r;
    int line = 0;
    cJSON_ArrayForEach(r, records)
    {
        const char *type = record_str(r, "type"), *what = NULL, *oc;
        enum eval_outcome o;
        line++;
        if (!type) {
            what = "record has no 'type'";
        } else if (!strcmp(type, "eval")) {
            oc = record_str(r, "outcome");
            if (!record_str(r, "hash"))
                what = "eval record has no 'hash'";
            else if (!record_str(r, "template"))
                what = "eval record has no 'template'";
            else if (!oc || eval_outcome_parse(oc, &o))
                what = "eval record has no valid 'outcome'";
            else if (!cJSON_IsObject(cJSON_GetObjectItem(r, "params")))
                what = "eval record has no 'params' object";
            else if (!cJSON_IsNumber(cJSON_GetObjectItem(r, "fitness")))
                what = "eval record has no numeric 'fitness'";
        } else if (!strcmp(type, "gen") &&
                   !cJSON_IsNumber(cJSON_GetObjectItem(r, "gen"))) {
            what = "gen record has no numeric 'gen'";
        }
        if (what) {
            snprintf(err, errcap, "%s:%d: %s", path, line, what);
            return KEVO_EPARSE;
        }
    }
    return KEVO_OK;
}

const cJSON *run_view_find_eval(const struct run_view *v, const char *hash)
{
    const cJSON *r, *first = NULL;
    cJSON_ArrayForEach(r, v->records)
    {
        const char *h = record_str(r, "hash"), *t = record_str(r, "type");
        if (!t || strcmp(t, "eval") || !h || strcmp(h, hash))
            continue;
        const char *oc = record_str(r, "outcome");
        if (oc && !strcmp(oc, "ok"))
            return r;
        if (!first)
            first = r;
    }
    return first;
}

const struct tpl *run_view_tpl(const struct run_view *v, const char *name)
{
    for (int i = 0; name && i < v->n_tpls; i++)
        if (!strcmp(v->tpls[i]->name, name))
            return v->tpls[i];
    return NULL;
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

void run_view_point(const struct tpl *t, const cJSON *params, int64_t *vals)
{
    tpl_default_point(t, vals);
    for (int i = 0; i < t->n_params; i++) {
        const cJSON *it = cJSON_GetObjectItemCaseSensitive(params,
                                                           t->params[i].name);
        if (cJSON_IsNumber(it))
            vals[i] = (int64_t)it->valuedouble;
    }
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

static cJSON *fittest_ok(const cJSON *records)
{
    const cJSON *r, *best = NULL;
    cJSON_ArrayForEach(r, records)
    {
        const char *oc = record_str(r, "outcome");
        if (oc && !strcmp(oc, "ok") &&
            (!best || record_num(r, "fitness", 0) >
                          record_num(best, "fitness", 0)))
            best = r;
    }
    return best ? cJSON_Duplicate(best, 1) : NULL;
}

static void device_facts(struct run_view *v)
{
    const cJSON *d = run_view_env(v, "device");
    v->dev = tpl_device_default;
    v->dev.sms = (int64_t)record_num(d, "sms", (double)v->dev.sms);
    v->dev.smem_optin = (int64_t)record_num(d, "smem_optin",
                                            (double)v->dev.smem_optin);
    v->dev.l2_bytes = (int64_t)record_num(d, "l2_bytes",
                                          (double)v->dev.l2_bytes);
}

/* best.json (or the fittest ok record), its record and template. */
static int load_winner(struct run_view *v, char *err, size_t errcap)
{
    char path[4096];
    if (rundir_path(path, sizeof path, v->dir, "best.json"))
        return KEVO_EINVAL;
    int rc = read_json_file(path, &v->best, err, errcap);
    if (rc)
        return rc;
    if (!v->best)
        v->best = fittest_ok(v->records);
    if (!v->best)
        return KEVO_OK;
    const char *h = record_str(v->best, "hash"),
               *t = record_str(v->best, "template");
    if (!h || !t) {
        snprintf(err, errcap, "%s: best kernel has no 'hash' or 'template'",
                 path);
        return KEVO_EPARSE;
    }
    v->best_eval = run_view_find_eval(v, h);
    v->best_tpl = run_view_tpl(v, t);
    if (!v->best_tpl) {
        snprintf(err, errcap, "%s: best kernel's template '%s' is not in "
                 "'%s/templates'", path, t, v->dir);
        return KEVO_EPARSE;
    }
    run_view_point(v->best_tpl, cJSON_GetObjectItem(v->best, "params"),
                   v->best_vals);
    return KEVO_OK;
}

int run_view_load(const char *dir, struct run_view *v, char *err,
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
        rc = check_records(v->records, path, err, errcap);
    if (!rc) {
        v->n_records = cJSON_GetArraySize(v->records);
        rc = rundir_load_templates(dir, &v->tpls, &v->n_tpls, err, errcap);
    }
    if (!rc) {
        device_facts(v);
        rc = load_winner(v, err, errcap);
    }
    if (!rc && !(rc = rundir_path(path, sizeof path, dir, "verify.json")))
        rc = read_json_file(path, &v->verify, err, errcap);
    if (rc)
        run_view_release(v);
    return rc;
}

void run_view_release(struct run_view *v)
{
    cJSON_Delete(v->manifest);
    cJSON_Delete(v->records);
    cJSON_Delete(v->best);
    cJSON_Delete(v->verify);
    for (int i = 0; i < v->n_tpls; i++)
        tpl_free(v->tpls[i]);
    free(v->tpls);
    memset(v, 0, sizeof *v);
}

int outputs_write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return KEVO_EIO;
    size_t n = strlen(text);
    int bad = fwrite(text, 1, n, f) != n;
    bad |= fclose(f) != 0;
    return bad ? KEVO_EIO : KEVO_OK;
}

void outputs_print_json(const cJSON *o)
{
    char *t = cJSON_Print(o);
    if (t)
        printf("%s\n", t);
    free(t);
}

char *run_view_source(const struct run_view *v, char *rel, size_t cap)
{
    char path[4096], *text = NULL;
    const char *sh = v->best_eval ? record_str(v->best_eval, "source") : NULL;
    if (sh) {
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
    return tpl_instantiate(v->best_tpl, v->best_vals, v->spec.dtype);
}
