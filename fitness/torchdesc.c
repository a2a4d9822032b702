/*
 * torchdesc.c - a PyTorch module's description read into a struct tprob:
 * the JSON the helper's describe writes (sizes, then each buffer's name,
 * role, dtype and dims, FLOPs), whether it comes straight from the helper
 * or from a run directory's record problem.torch/describe.json, which
 * anyone may have edited. So it is checked like any foreign input: types,
 * ranges, counts, names that are C identifiers used once, inputs before
 * outputs; an error names the file and the field ("buffers[2].dims[0]").
 * Runs nothing; builds nothing but the sizes and buffers (torchprob.c
 * derives the rest).
 */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <cJSON.h>

#include "torchprob.h"

#define TP_SIZE_MAX 2147483647.0   /* a size is passed as int */
#define TP_COEF_MAX 1099511627776.0 /* 2^40: a dim's numerator */

struct rd {
    const char *path; /* names the file in messages */
    char *err;
    size_t errcap;
};

static int fail(struct rd *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int fail(struct rd *r, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(r->err, r->errcap, "%s: %s", r->path, what);
    return KEVO_EPARSE;
}

/* A whole number in [lo, hi]. */
static int whole(const cJSON *j, double lo, double hi, int64_t *out)
{
    if (!cJSON_IsNumber(j) || !isfinite(j->valuedouble) ||
        j->valuedouble != floor(j->valuedouble) || j->valuedouble < lo ||
        j->valuedouble > hi)
        return -1;
    *out = (int64_t)j->valuedouble;
    return 0;
}

/* A C identifier shorter than TP_NAME_MAX (dots allowed for a module
 * state's dotted name). */
static int ident(const char *s, int dots)
{
    size_t n = s ? strlen(s) : 0;
    if (!n || n >= TP_NAME_MAX || isdigit((unsigned char)s[0]))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_' ||
              (dots && s[i] == '.')))
            return 0;
    return 1;
}

/* Whether name is already a size's or one of the first n buffers'. */
static int taken(const struct tprob *t, int n, const char *name)
{
    for (int i = 0; i < t->p.n_dims; i++)
        if (!strcmp(t->dim_names[i], name))
            return 1;
    for (int i = 0; i < n; i++)
        if (!strcmp(t->bufs[i].name, name))
            return 1;
    return 0;
}

static int read_sizes(struct rd *r, const cJSON *sizes, struct tprob *t)
{
    const cJSON *it;
    if (!cJSON_IsArray(sizes))
        return fail(r, "sizes: missing or not a list");
    if (cJSON_GetArraySize(sizes) > PROB_MAX_DIMS)
        return fail(r, "sizes: %d size constants, kevo takes at most %d",
                    cJSON_GetArraySize(sizes), PROB_MAX_DIMS);
    cJSON_ArrayForEach(it, sizes) {
        int i = t->p.n_dims;
        const char *nm = cJSON_GetStringValue(cJSON_GetArrayItem(it, 0));
        int64_t v;
        if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) != 2)
            return fail(r, "sizes[%d]: not a [name, value] pair", i);
        if (!ident(nm, 0) || taken(t, 0, nm))
            return fail(r, "sizes[%d]: name is not a C identifier of at "
                        "most %d characters used once", i, TP_NAME_MAX - 1);
        if (whole(cJSON_GetArrayItem(it, 1), 1, TP_SIZE_MAX, &v))
            return fail(r, "sizes[%d] (%s): value is not a whole number "
                        "from 1 to 2^31-1", i, nm);
        snprintf(t->dim_names[i], TP_NAME_MAX, "%s", nm);
        t->p.dim_names[i] = t->dim_names[i];
        t->file_shape.d[i] = v;
        t->p.n_dims = ++t->file_shape.n_dims;
    }
    return KEVO_OK;
}

/* One dim: [[size index...], numerator, denominator]. */
static int read_dim(struct rd *r, const cJSON *j, const struct tprob *t,
                    const char *where, struct tp_dim *d)
{
    const cJSON *use = cJSON_GetArrayItem(j, 0), *u;
    if (!cJSON_IsArray(j) || cJSON_GetArraySize(j) != 3 ||
        !cJSON_IsArray(use) || cJSON_GetArraySize(use) > PROB_MAX_DIMS)
        return fail(r, "%s: not [[size index...], numerator, denominator] "
                    "with at most %d indices", where, PROB_MAX_DIMS);
    d->n_use = 0;
    cJSON_ArrayForEach(u, use) {
        int64_t k;
        if (whole(u, 0, t->p.n_dims - 1, &k))
            return fail(r, "%s: size index is not one of 0 to %d", where,
                        t->p.n_dims - 1);
        d->use[d->n_use++] = (int)k;
    }
    if (whole(cJSON_GetArrayItem(j, 1), 0, TP_COEF_MAX, &d->num) ||
        whole(cJSON_GetArrayItem(j, 2), 1, TP_SIZE_MAX, &d->den))
        return fail(r, "%s: numerator (0 to 2^40) or denominator (1 to "
                    "2^31-1) is not a whole number in range", where);
    return KEVO_OK;
}

static int read_dtype(const char *s, enum tp_dtype *out)
{
    static const char *const names[] = {"float", "int32", "int64", "bool"};
    static const enum tp_dtype codes[] = {TP_FLOAT, TP_INT32, TP_INT64,
                                          TP_BOOL};
    for (int i = 0; s && i < 4; i++)
        if (!strcmp(s, names[i])) {
            *out = codes[i];
            return 0;
        }
    return -1;
}

static int read_buf(struct rd *r, const cJSON *j, struct tprob *t, int i)
{
    struct tp_buf *b = &t->bufs[i];
    const char *nm = cJSON_GetStringValue(cJSON_GetObjectItem(j, "name"));
    const char *role = cJSON_GetStringValue(cJSON_GetObjectItem(j, "role"));
    const char *dt = cJSON_GetStringValue(cJSON_GetObjectItem(j, "dtype"));
    const cJSON *st = cJSON_GetObjectItem(j, "state");
    const cJSON *dims = cJSON_GetObjectItem(j, "dims"), *d;
    char where[96];
    if (!cJSON_IsObject(j))
        return fail(r, "buffers[%d]: not an object", i);
    if (!ident(nm, 0) || taken(t, i, nm))
        return fail(r, "buffers[%d].name: not a C identifier of at most %d "
                    "characters, unused by the sizes and other buffers", i,
                    TP_NAME_MAX - 1);
    if (!role || (strcmp(role, "in") && strcmp(role, "out")))
        return fail(r, "buffers[%d].role (%s): not \"in\" or \"out\"", i,
                    nm);
    if (read_dtype(dt, &b->dtype))
        return fail(r, "buffers[%d].dtype (%s): not one of float, int32, "
                    "int64, bool", i, nm);
    if (st && !cJSON_IsNull(st) && !ident(cJSON_GetStringValue(st), 1))
        return fail(r, "buffers[%d].state (%s): not a module attribute "
                    "name", i, nm);
    if (!cJSON_IsArray(dims) || cJSON_GetArraySize(dims) > TP_MAX_RANK)
        return fail(r, "buffers[%d].dims (%s): not a list of at most %d "
                    "dims", i, nm, TP_MAX_RANK);
    snprintf(b->name, sizeof b->name, "%s", nm);
    snprintf(b->state, sizeof b->state, "%s",
             cJSON_IsString(st) ? st->valuestring : "");
    b->role = !strcmp(role, "in") ? BUF_IN : BUF_OUT;
    b->rank = 0;
    cJSON_ArrayForEach(d, dims) {
        snprintf(where, sizeof where, "buffers[%d].dims[%d] (%s)", i,
                 b->rank, nm);
        int rc = read_dim(r, d, t, where, &b->dims[b->rank++]);
        if (rc)
            return rc;
    }
    return KEVO_OK;
}

static int read_bufs(struct rd *r, const cJSON *bufs, struct tprob *t)
{
    const cJSON *it;
    int n_out = 0;
    if (!cJSON_IsArray(bufs))
        return fail(r, "buffers: missing or not a list");
    if (cJSON_GetArraySize(bufs) > PROB_MAX_BUFS)
        return fail(r, "buffers: %d tensors (inputs, parameters, outputs), "
                    "kevo takes at most %d", cJSON_GetArraySize(bufs),
                    PROB_MAX_BUFS);
    cJSON_ArrayForEach(it, bufs) {
        int rc = read_buf(r, it, t, t->n_bufs);
        if (rc)
            return rc;
        if (t->bufs[t->n_bufs].role == BUF_OUT)
            n_out++;
        else if (n_out)
            return fail(r, "buffers[%d] (%s): an input after an output "
                        "(the ABI lists inputs, then outputs)", t->n_bufs,
                        t->bufs[t->n_bufs].name);
        t->n_bufs++;
    }
    if (!n_out)
        return fail(r, "buffers: no output");
    t->n_out = n_out;
    return KEVO_OK;
}

int tp_desc_read(const char *path, const char *json, struct tprob *t,
                 char *err, size_t errcap)
{
    struct rd r = {path, err, errcap};
    cJSON *root = cJSON_Parse(json);
    if (!root || !cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return fail(&r, "not a JSON object");
    }
    const cJSON *fl = cJSON_GetObjectItem(root, "flops");
    int rc = read_sizes(&r, cJSON_GetObjectItem(root, "sizes"), t);
    if (!rc)
        rc = read_bufs(&r, cJSON_GetObjectItem(root, "buffers"), t);
    if (!rc && fl && !cJSON_IsNull(fl) &&
        (!cJSON_IsNumber(fl) || !isfinite(fl->valuedouble) ||
         fl->valuedouble < 0))
        rc = fail(&r, "flops: not a number >= 0 (or null)");
    if (!rc)
        t->flops = cJSON_IsNumber(fl) ? fl->valuedouble : 0;
    cJSON_Delete(root);
    return rc;
}
