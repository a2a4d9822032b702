/*
 * simtable.c - recorded tables and the simulated evaluator (see
 * simtable.h).
 */
#include "simtable.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "genome.h"
#include "hash.h"
#include "jnl.h"
#include "record.h"
#include "records.h"
#include "rundir.h"
#include "runview.h"

void simtable_free(struct simtable *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->n_tpls; i++) {
        tpl_free(t->tpls[i]);
        pointset_release(&t->pts[i]);
    }
    free(t->tpls);
    free(t->pts);
    free(t->p);
    free(t->slots);
    free(t);
}

long simtable_find(const struct simtable *t, uint64_t h)
{
    if (!t->n_slots)
        return -1;
    for (long s = (long)(h & (uint64_t)(t->n_slots - 1));;
         s = (s + 1) & (t->n_slots - 1)) {
        long i = t->slots[s];
        if (i < 0 || t->p[i].hash == h)
            return i;
    }
}

int simtable_tpl_index(const struct simtable *t, const char *name)
{
    for (int i = 0; i < t->n_tpls; i++)
        if (!strcmp(t->tpls[i]->name, name))
            return i;
    return -1;
}

double simtable_best(const struct simtable *t, const unsigned char *keep)
{
    double best = 0;
    for (long i = 0; i < t->n; i++)
        if (t->p[i].outcome == EVAL_OK && (!keep || keep[t->p[i].tpl]) &&
            t->p[i].fitness > best)
            best = t->p[i].fitness;
    return best;
}

/* Sizes the hash index for n points (a power of two, at most half full). */
static int index_points(struct simtable *t)
{
    long n = 16;
    while (n < 2 * t->n)
        n *= 2;
    free(t->slots);
    if (!(t->slots = malloc(sizeof *t->slots * (size_t)n)))
        return KEVO_ENOMEM;
    t->n_slots = n;
    for (long s = 0; s < n; s++)
        t->slots[s] = -1;
    for (long i = 0; i < t->n; i++) {
        long s = (long)(t->p[i].hash & (uint64_t)(n - 1));
        while (t->slots[s] >= 0)
            s = (s + 1) & (n - 1);
        t->slots[s] = i;
    }
    return KEVO_OK;
}

static int set_templates(struct simtable *t, struct tpl **tpls, int n)
{
    t->tpls = tpls;
    t->n_tpls = n;
    t->pts = calloc((size_t)n + 1, sizeof *t->pts);
    if (!t->pts)
        return KEVO_ENOMEM;
    for (int i = 0; i < n; i++)
        pointset_init(&t->pts[i], tpls[i]->n_params);
    return KEVO_OK;
}

/* Adds a point (ignores one already there: the first measurement
 * stands). */
static int add_point(struct simtable *t, int tpl, const int64_t *vals,
                     enum eval_outcome o, double f, double ns, double ratio,
                     long *cap)
{
    uint64_t h = genome_hash(t->tpls[tpl], vals);
    if (simtable_find(t, h) >= 0)
        return KEVO_OK;
    if (t->n == *cap) {
        long c = *cap ? *cap * 2 : 1024;
        void *p = realloc(t->p, sizeof *t->p * (size_t)c);
        if (!p)
            return KEVO_ENOMEM;
        t->p = p;
        *cap = c;
    }
    int rc = pointset_add(&t->pts[tpl], t->tpls[tpl], vals);
    if (rc)
        return rc;
    t->p[t->n++] = (struct sim_point){h, tpl, t->pts[tpl].n - 1, o, f, ns,
                                      ratio};
    /* keep the index current (rebuilt when half full) */
    if (2 * t->n > t->n_slots)
        return index_points(t);
    long s = (long)(h & (uint64_t)(t->n_slots - 1));
    while (t->slots[s] >= 0)
        s = (s + 1) & (t->n_slots - 1);
    t->slots[s] = t->n - 1;
    return KEVO_OK;
}

static void read_device(struct simtable *t, const cJSON *d)
{
    t->dev = tpl_device_default;
    if (!d)
        return;
    t->dev.sms = record_i64(d, "sms", t->dev.sms);
    t->dev.smem_optin = record_i64(d, "smem_optin", t->dev.smem_optin);
    t->dev.l2_bytes = record_i64(d, "l2_bytes", t->dev.l2_bytes);
    const char *name = record_str(d, "name");
    snprintf(t->gpu, sizeof t->gpu, "%s", name ? name : "");
}

/* The point of eval record e. 1 = taken, 0 = not a point of a known
 * template, <0 = error. */
static int journal_point(struct simtable *t, const struct rec_eval *e,
                         long *cap, int *rc)
{
    int ti = simtable_tpl_index(t, e->tpl);
    int64_t vals[TPL_MAX_PARAMS] = {0};
    *rc = KEVO_OK;
    if (ti < 0)
        return 0; /* e.g. a template an LLM wrote: not in templates/ */
    const struct tpl *tp = t->tpls[ti];
    for (int i = 0; i < tp->n_params; i++) {
        vals[i] = rec_eval_param(e, tp->params[i].name, INT64_MIN);
        if (vals[i] == INT64_MIN || tpl_value_index(tp, i, vals[i]) < 0)
            return -1;
    }
    *rc = add_point(t, ti, vals, e->r.outcome, e->r.fitness, e->r.median_ns,
                    e->r.ratio, cap);
    return *rc ? -1 : 1;
}

/* A run directory through the run view (its templates move into t). */
static int open_run(struct simtable *t, const char *dir, char *err,
                    size_t errcap)
{
    struct run_view v;
    int rc = run_view_open(dir, &v, err, errcap);
    if (rc)
        return rc;
    if ((rc = set_templates(t, v.tpls, v.n_tpls))) {
        t->tpls = NULL;
        t->n_tpls = 0;
        run_view_release(&v);
        return rc;
    }
    v.tpls = NULL; /* now t's */
    v.n_tpls = 0;
    snprintf(t->problem, sizeof t->problem, "%s", v.spec.problem);
    t->dtype = v.spec.dtype;
    t->shape = v.spec.shape;
    t->dev = v.dev;
    snprintf(t->gpu, sizeof t->gpu, "%s", run_view_gpu(&v));
    snprintf(t->source, sizeof t->source, "%s", dir);
    long cap = 0;
    for (int k = 0; !rc && k < v.n_records; k++) {
        const struct record *r = &v.recs[k];
        if (r->type == REC_EVAL &&
            journal_point(t, &r->u.eval, &cap, &rc) < 0 && !rc) {
            snprintf(err, errcap, "%s/journal.jsonl:%d: evaluation record "
                     "with a point outside its template", dir, k + 1);
            rc = KEVO_EPARSE;
        }
    }
    run_view_release(&v);
    return rc;
}

/* ------------------------------------------------------- compact form */

static int compact_header(struct simtable *t, const char *path,
                          const cJSON *o, char *why, size_t cap)
{
    const char *pr = record_str(o, "problem"), *dt = record_str(o, "dtype");
    const char *sh = record_str(o, "shape"), *src = record_str(o, "source");
    const char *pf = record_str(o, "problem_file");
    const struct problem *p = NULL;
    /* a user problem's table carries its .problem text: nothing else is
     * needed to read it (the same text twice is one problem) */
    if (pf && problem_load_text(path, pf, &p, why, cap))
        return KEVO_EPARSE;
    if (pr && (!p || strcmp(p->name, pr)))
        p = problem_find(pr);
    if (!p) {
        snprintf(why, cap, pr ? "unknown problem '%s' (a table of a user "
                 "problem made before tables carried its file: load it with "
                 "--problem-file)" : "missing 'problem'", pr ? pr : "");
        return KEVO_EPARSE;
    }
    if (!dt || dtype_parse(dt, &t->dtype)) {
        snprintf(why, cap, "unknown or missing 'dtype'");
        return KEVO_EPARSE;
    }
    if (!sh || problem_parse_shape(p, sh, &t->shape, why, cap))
        return KEVO_EPARSE;
    snprintf(t->problem, sizeof t->problem, "%s", pr);
    snprintf(t->source, sizeof t->source, "%s", src ? src : "");
    read_device(t, cJSON_GetObjectItemCaseSensitive(o, "device"));
    return KEVO_OK;
}

static int compact_template(struct simtable *t, const cJSON *o, char *why,
                            size_t cap)
{
    const char *name = record_str(o, "name"), *text = record_str(o, "text");
    struct tpl *tp;
    if (!name || !text) {
        snprintf(why, cap, "a template needs 'name' and 'text'");
        return KEVO_EPARSE;
    }
    if (simtable_tpl_index(t, name) >= 0) {
        snprintf(why, cap, "template '%s' is listed twice", name);
        return KEVO_EPARSE;
    }
    if (tpl_parse(name, NULL, text, &tp, why, cap))
        return KEVO_EPARSE;
    void *p1 = realloc(t->tpls, sizeof *t->tpls * (size_t)(t->n_tpls + 1));
    void *p2 = p1 ? realloc(t->pts, sizeof *t->pts * (size_t)(t->n_tpls + 1))
                  : NULL;
    if (p1)
        t->tpls = p1;
    if (p2)
        t->pts = p2;
    if (!p2) {
        tpl_free(tp);
        return KEVO_ENOMEM;
    }
    pointset_init(&t->pts[t->n_tpls], tp->n_params);
    t->tpls[t->n_tpls++] = tp;
    return KEVO_OK;
}

static int compact_point(struct simtable *t, const cJSON *o, long *cap,
                         char *why, size_t wcap)
{
    int ti = record_int(o, "t", -1);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "v");
    const char *oc = record_str(o, "o");
    enum eval_outcome out;
    int64_t vals[TPL_MAX_PARAMS] = {0};
    if (ti < 0 || ti >= t->n_tpls) {
        snprintf(why, wcap, "'t' is not the index of a template above");
        return KEVO_EPARSE;
    }
    const struct tpl *tp = t->tpls[ti];
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != tp->n_params) {
        snprintf(why, wcap, "'v' must hold %d values of %s", tp->n_params,
                 tp->name);
        return KEVO_EPARSE;
    }
    for (int i = 0; i < tp->n_params; i++) {
        const cJSON *x = cJSON_GetArrayItem(v, i);
        if (!cJSON_IsNumber(x) ||
            tpl_value_index(tp, i, (int64_t)x->valuedouble) < 0) {
            snprintf(why, wcap, "value %d is not a value of %s's %s", i + 1,
                     tp->name, tp->params[i].name);
            return KEVO_EPARSE;
        }
        vals[i] = (int64_t)x->valuedouble;
    }
    if (!oc || eval_outcome_parse(oc, &out)) {
        snprintf(why, wcap, "'o' must be an outcome (ok, wrong, ...)");
        return KEVO_EPARSE;
    }
    return add_point(t, ti, vals, out, record_num(o, "f", 0),
                     record_num(o, "ns", 0), record_num(o, "r", 0), cap);
}

static int load_compact(struct simtable *t, const char *path, char *text,
                        char *err, size_t errcap)
{
    long line = 0, cap = 0;
    int rc = KEVO_OK;
    char why[512] = "";
    for (char *s = text, *nl; !rc && s && *s; s = nl ? nl + 1 : NULL) {
        nl = strchr(s, '\n');
        if (nl)
            *nl = '\0';
        line++;
        if (!*s)
            continue;
        cJSON *o = cJSON_Parse(s);
        const char *type = record_str(o, "type");
        if (!o) {
            snprintf(why, sizeof why, "malformed JSON");
            rc = KEVO_EPARSE;
        } else if (line == 1) {
            rc = type && !strcmp(type, "table")
                     ? compact_header(t, path, o, why, sizeof why)
                     : (snprintf(why, sizeof why, "not a kevo table (no "
                                 "\"type\":\"table\" header)"), KEVO_EPARSE);
        } else if (type && !strcmp(type, "template")) {
            rc = compact_template(t, o, why, sizeof why);
        } else {
            rc = compact_point(t, o, &cap, why, sizeof why);
        }
        cJSON_Delete(o);
    }
    if (rc == KEVO_EPARSE)
        snprintf(err, errcap, "%s:%ld: %s", path, line, why);
    else if (rc)
        snprintf(err, errcap, "%s: %s", path, kevo_strerror(rc));
    return rc;
}

/* Puts each template's points in lexicographic order of their value
 * indices: the order an enumeration of the template lists them in, so a
 * simulated run (which enumerates the points the table admits) and a
 * user of the table's lists (bench-search, replay) see the same lists. */
static const uint8_t *sort_rows;
static int sort_width;

static int row_cmp(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return memcmp(sort_rows + (size_t)x * (size_t)sort_width,
                  sort_rows + (size_t)y * (size_t)sort_width,
                  (size_t)sort_width);
}

static int sort_points(struct simtable *t)
{
    for (int k = 0; k < t->n_tpls; k++) {
        struct pointset *ps = &t->pts[k];
        size_t w = (size_t)ps->n_params;
        if (ps->n < 2 || !w)
            continue;
        long *ord = malloc(sizeof *ord * (size_t)ps->n);
        long *inv = malloc(sizeof *inv * (size_t)ps->n);
        uint8_t *idx = malloc((size_t)ps->n * w);
        if (!ord || !inv || !idx) {
            free(ord);
            free(inv);
            free(idx);
            return KEVO_ENOMEM;
        }
        for (long i = 0; i < ps->n; i++)
            ord[i] = i;
        sort_rows = ps->idx;
        sort_width = (int)w;
        qsort(ord, (size_t)ps->n, sizeof *ord, row_cmp);
        for (long i = 0; i < ps->n; i++) {
            memcpy(idx + (size_t)i * w, ps->idx + (size_t)ord[i] * w, w);
            inv[ord[i]] = i;
        }
        for (long i = 0; i < t->n; i++)
            if (t->p[i].tpl == k)
                t->p[i].row = inv[t->p[i].row];
        free(ps->idx);
        ps->idx = idx;
        ps->cap = ps->n;
        free(ord);
        free(inv);
    }
    return KEVO_OK;
}

int simtable_load(const char *path, struct simtable **out, char *err,
                  size_t errcap)
{
    struct simtable *t = calloc(1, sizeof *t);
    char dir[4096];
    int rc;
    if (!t || index_points(t)) {
        free(t);
        return KEVO_ENOMEM;
    }
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (fs_is_dir(path)) {
        rc = open_run(t, path, err, errcap);
    } else if (!strcmp(base, "journal.jsonl")) {
        snprintf(dir, sizeof dir, "%.*s", (int)(base - path), path);
        if (!dir[0])
            snprintf(dir, sizeof dir, ".");
        rc = open_run(t, dir, err, errcap);
    } else {
        char *text = NULL;
        rc = fs_read_file(path, &text, NULL);
        if (rc)
            snprintf(err, errcap, "cannot read table '%s': %s", path,
                     kevo_strerror(rc));
        else
            rc = load_compact(t, path, text, err, errcap);
        free(text);
    }
    if (!rc && t->n == 0) {
        snprintf(err, errcap, "table '%s' has no measured point", path);
        rc = KEVO_EPARSE;
    }
    if (!rc)
        rc = sort_points(t);
    if (rc) {
        simtable_free(t);
        return rc;
    }
    *out = t;
    return KEVO_OK;
}

/* Writes one JSON line (takes o). */
static int put_line(FILE *f, cJSON *o)
{
    char *s = o ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    if (!s)
        return KEVO_ENOMEM;
    int bad = fprintf(f, "%s\n", s) < 0;
    free(s);
    return bad ? KEVO_EIO : KEVO_OK;
}

int simtable_write(const struct simtable *t, FILE *f)
{
    char shape[64];
    problem_format_shape(&t->shape, shape, sizeof shape);
    const struct problem *p = problem_find(t->problem);
    cJSON *h = cJSON_CreateObject();
    cJSON_AddStringToObject(h, "type", "table");
    cJSON_AddStringToObject(h, "problem", t->problem);
    cJSON_AddStringToObject(h, "dtype", dtype_name(t->dtype));
    cJSON_AddStringToObject(h, "shape", shape);
    cJSON *d = cJSON_AddObjectToObject(h, "device");
    cJSON_AddStringToObject(d, "name", t->gpu);
    cJSON_AddNumberToObject(d, "sms", (double)t->dev.sms);
    cJSON_AddNumberToObject(d, "smem_optin", (double)t->dev.smem_optin);
    cJSON_AddNumberToObject(d, "l2_bytes", (double)t->dev.l2_bytes);
    cJSON_AddStringToObject(h, "unit", p ? p->work_unit : "");
    if (p && p->file_text) /* a user problem: the table stands alone */
        cJSON_AddStringToObject(h, "problem_file", p->file_text);
    cJSON_AddStringToObject(h, "source", t->source);
    cJSON_AddNumberToObject(h, "points", (double)t->n);
    int rc = put_line(f, h);
    for (int i = 0; !rc && i < t->n_tpls; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "type", "template");
        cJSON_AddStringToObject(o, "name", t->tpls[i]->name);
        cJSON_AddStringToObject(o, "text", t->tpls[i]->text);
        rc = put_line(f, o);
    }
    for (long i = 0; !rc && i < t->n; i++) {
        const struct sim_point *x = &t->p[i];
        const struct tpl *tp = t->tpls[x->tpl];
        int64_t vals[TPL_MAX_PARAMS];
        pointset_get(&t->pts[x->tpl], tp, x->row, vals);
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "t", x->tpl);
        cJSON *v = cJSON_AddArrayToObject(o, "v");
        for (int k = 0; k < tp->n_params; k++)
            cJSON_AddItemToArray(v, cJSON_CreateNumber((double)vals[k]));
        cJSON_AddStringToObject(o, "o", eval_outcome_name(x->outcome));
        if (x->outcome == EVAL_OK) {
            cJSON_AddNumberToObject(o, "f", x->fitness);
            cJSON_AddNumberToObject(o, "ns", x->median_ns);
            if (x->ratio > 0)
                cJSON_AddNumberToObject(o, "r", x->ratio);
        }
        rc = put_line(f, o);
    }
    return rc;
}

/* ------------------------------------------------ simulated evaluator */

struct simeval {
    struct simtable *t;
    int own;
};

long simtable_answer(const struct simtable *t, uint64_t h,
                     struct eval_result *r)
{
    long at = simtable_find(t, h);
    const struct sim_point *p = at >= 0 ? &t->p[at] : NULL;
    r->outcome = p ? p->outcome : EVAL_UNSUPPORTED;
    if (p && p->outcome == EVAL_OK) {
        r->fitness = p->fitness;
        r->median_ns = r->min_ns = p->median_ns;
        r->reps = 1;
        r->ratio = p->ratio;
    }
    return at;
}

int simtable_admits(const struct simtable *t, const struct tpl *tp,
                    const int64_t *vals)
{
    return simtable_find(t, genome_hash(tp, vals)) >= 0;
}

static int sim_batch(void *self, const struct candidate *const *c, int n,
                     eval_cb cb, void *ud)
{
    struct simeval *s = self;
    for (int i = 0; i < n; i++) {
        struct eval_result r;
        eval_result_init(&r);
        if (simtable_answer(s->t, c[i]->genome_hash, &r) < 0)
            snprintf(r.detail, sizeof r.detail, "simulated: not a point of "
                     "the table");
        else
            snprintf(r.detail, sizeof r.detail, "simulated: recorded %s",
                     eval_outcome_name(r.outcome));
        if (cb(ud, i, &r))
            return KEVO_ESTOPPED;
    }
    return KEVO_OK;
}

static int sim_admit(void *self, const struct tpl *t, const int64_t *vals)
{
    const struct simeval *s = self;
    return simtable_admits(s->t, t, vals);
}

static char *sim_environment(void *self)
{
    const struct simeval *s = self;
    char name[200];
    snprintf(name, sizeof name, "simulated (table recorded on %s)",
             s->t->gpu[0] ? s->t->gpu : "an unknown GPU");
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "evaluator", "simulate");
    cJSON_AddStringToObject(o, "table_source", s->t->source);
    cJSON_AddNumberToObject(o, "table_points", (double)s->t->n);
    cJSON *d = cJSON_AddObjectToObject(o, "device");
    cJSON_AddStringToObject(d, "name", name);
    cJSON_AddNumberToObject(d, "sms", (double)s->t->dev.sms);
    cJSON_AddNumberToObject(d, "smem_optin", (double)s->t->dev.smem_optin);
    cJSON_AddNumberToObject(d, "l2_bytes", (double)s->t->dev.l2_bytes);
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return text;
}

static void sim_destroy(void *self)
{
    struct simeval *s = self;
    if (s->own)
        simtable_free(s->t);
    free(s);
}

static const struct evaluator_ops sim_ops = {
    .name = "simulate",
    .eval_batch = sim_batch,
    .admit = sim_admit,
    .environment = sim_environment,
    .destroy = sim_destroy,
};

int simtable_evaluator(struct simtable *t, int own, struct evaluator *out)
{
    struct simeval *s = calloc(1, sizeof *s);
    if (!s)
        return KEVO_ENOMEM;
    s->t = t;
    s->own = own;
    out->ops = &sim_ops;
    out->self = s;
    return KEVO_OK;
}

static int sim_create(const struct spec *s, const struct problem *p,
                      struct evaluator *out, struct tpl_device *dev,
                      char *err, size_t errcap)
{
    struct simtable *t;
    char want[64], have[64];
    int rc = simtable_load(s->table, &t, err, errcap);
    if (rc)
        return rc;
    problem_format_shape(&s->shape, want, sizeof want);
    problem_format_shape(&t->shape, have, sizeof have);
    if (strcmp(t->problem, s->problem) || t->dtype != s->dtype ||
        strcmp(want, have)) {
        snprintf(err, errcap, "table '%s' was recorded for %s %s %s, not "
                 "%s %s %s", s->table, t->problem, dtype_name(t->dtype), have,
                 s->problem, dtype_name(s->dtype), want);
        simtable_free(t);
        return KEVO_EINVAL;
    }
    *dev = t->dev;
    if ((rc = simtable_evaluator(t, 1, out)))
        simtable_free(t);
    return rc;
}

const struct evaluator_factory simtable_factory = {"simulate", sim_create};

int simtable_setup_run(const char *path, struct spec *s, int shape_given,
                       struct tpl ***tpls, int *n, char *err, size_t errcap)
{
    struct simtable *t;
    char abs[PATH_MAX];
    int rc = simtable_load(path, &t, err, errcap);
    if (rc)
        return rc;
    if (s->problem[0] && strcmp(s->problem, t->problem)) {
        snprintf(err, errcap, "--simulate: table '%s' was recorded for %s, "
                 "not %s", path, t->problem, s->problem);
        simtable_free(t);
        return KEVO_EINVAL;
    }
    if (!realpath(path, abs) || strlen(abs) >= sizeof s->table) {
        snprintf(err, errcap, "--simulate: cannot resolve '%s'", path);
        simtable_free(t);
        return KEVO_EINVAL;
    }
    snprintf(s->table, sizeof s->table, "%s", abs);
    snprintf(s->evaluator, sizeof s->evaluator, "simulate");
    if (!s->llm[0]) /* no API calls unless asked: a table holds no LLM kernel */
        snprintf(s->llm, sizeof s->llm, "off");
    snprintf(s->problem, sizeof s->problem, "%s", t->problem);
    s->dtype = t->dtype;
    if (!shape_given)
        s->shape = t->shape;
    if (tpls) {
        *tpls = t->tpls;
        *n = t->n_tpls;
        for (int i = 0; i < t->n_tpls; i++)
            pointset_release(&t->pts[i]);
        t->tpls = NULL;
        t->n_tpls = 0;
    }
    simtable_free(t);
    return KEVO_OK;
}

int simtable_points_for(const struct simtable *t, struct tpl *const *tpls,
                        int n, struct pointset **out)
{
    struct pointset *p = calloc((size_t)n + 1, sizeof *p);
    if (!p)
        return KEVO_ENOMEM;
    for (int i = 0; i < n; i++) {
        pointset_init(&p[i], tpls[i]->n_params);
        for (int k = 0; k < t->n_tpls; k++)
            if (t->tpls[k]->hash == tpls[i]->hash)
                p[i] = t->pts[k];
    }
    *out = p;
    return KEVO_OK;
}
