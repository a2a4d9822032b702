/*
 * torchtol.c - the tolerance of each output of a PyTorch problem (issue
 * 30): a module returning (sum, max) or (values, indices) gets one pair
 * per output, because one pair for all lets a wrong small output pass
 * under the tolerance a large one needs. Here: the problem hooks
 * (out_tolerance, tolerance, the kind's set_tolerance) and the user's
 * override KEVO_TORCH_ATOL / KEVO_TORCH_RTOL, per output or for all.
 * Calibration itself runs in the worker (torchprob_gpu.c, with
 * tp_selfcheck_calibrate in torchprob_helper.py).
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "torchprob.h"

#define EXACT_NOTE "exact: an integer output"

const struct tp_buf *tp_out_buf(const struct tprob *t, int k)
{
    for (int i = 0; i < t->n_bufs; i++)
        if (t->bufs[i].role != BUF_IN && k-- == 0)
            return &t->bufs[i];
    return NULL;
}

void tp_out_tolerance(const struct problem *p, const struct shape *s,
                      enum dtype dt, int k, struct out_tol *out)
{
    const struct tprob *t = (const struct tprob *)p;
    const struct tp_buf *b = tp_out_buf(t, k);
    (void)s;
    memset(out, 0, sizeof *out);
    if (k >= 0 && k < t->n_out && t->tol[k].set) {
        const struct tp_tol *u = &t->tol[k];
        *out = (struct out_tol){u->atol, u->rtol, u->used, u->source,
                                u->note};
    } else if (b && b->dtype != TP_FLOAT) { /* indices, masks: exact */
        *out = (struct out_tol){0, 0, 0, "exact", EXACT_NOTE};
    } else { /* before calibration (kevo list, the coordinator): a guess */
        double g = dt == DTYPE_FP32 ? 1e-4 : dt == DTYPE_FP16 ? 1e-2 : 5e-2;
        *out = (struct out_tol){g, g, 0, "dtype", ""};
    }
}

void tp_tolerance(const struct problem *p, const struct shape *s,
                  enum dtype dt, double *atol, double *rtol)
{
    struct out_tol o;
    tp_out_tolerance(p, s, dt, 0, &o);
    *atol = o.atol;
    *rtol = o.rtol;
}

/* p.tolerance_note: output 0's note, NULL when it has none (by dtype). */
static void sync_note(struct tprob *t)
{
    struct out_tol o;
    tp_out_tolerance(&t->p, NULL, DTYPE_FP32, 0, &o);
    t->p.tolerance_note = o.note[0] ? o.note : NULL;
}

static void set_one(struct tp_tol *u, const struct out_tol *o)
{
    u->set = 1;
    u->atol = o->atol;
    u->rtol = o->rtol;
    u->used = o->used;
    snprintf(u->source, sizeof u->source, "%s", o->source ? o->source : "");
    snprintf(u->note, sizeof u->note, "%s", o->note ? o->note : "");
}

/* The coordinator's copy takes the tolerance the worker (or a manifest)
 * reports. */
void tp_set_tolerance(struct problem *p, int k, const struct out_tol *o)
{
    struct tprob *t = (struct tprob *)p;
    for (int i = 0; i < t->n_out; i++)
        if (k < 0 || k == i)
            set_one(&t->tol[i], o);
    sync_note(t);
}

/* ---- KEVO_TORCH_ATOL / KEVO_TORCH_RTOL */

struct given {
    int has[PROB_MAX_BUFS];    /* output k named */
    double v[PROB_MAX_BUFS];
    int has_all;               /* a bare VALUE */
    double all;
};

/* "out0, out1" */
static void out_names(const struct tprob *t, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = '\0';
    for (int k = 0; k < t->n_out && n < cap; k++)
        n += (size_t)snprintf(out + n, cap - n, "%s%s", k ? ", " : "",
                              tp_out_buf(t, k)->name);
}

static int number(const char *s, double *v)
{
    char *end = NULL;
    if (!*s || isspace((unsigned char)*s))
        return -1;
    *v = strtod(s, &end);
    return *end || !(*v >= 0) || *v > 1e30 ? -1 : 0;
}

/* One item of var's list: NAME=VALUE or VALUE. */
static int given_item(const struct tprob *t, const char *var, char *item,
                      struct given *g, char *err, size_t errcap)
{
    char names[512];
    char *eq = strchr(item, '=');
    double v;
    out_names(t, names, sizeof names);
    if (eq)
        *eq = '\0';
    const char *val = eq ? eq + 1 : item;
    if (number(val, &v)) {
        snprintf(err, errcap, "%s: %s: '%s' is not a number >= 0 (the value "
                 "is VALUE for every output or NAME=VALUE, comma-separated)",
                 t->path, var, val);
        return KEVO_EINVAL;
    }
    if (!eq) {
        if (g->has_all) {
            snprintf(err, errcap, "%s: %s: two values for every output "
                     "(%.17g and '%s'); name the outputs: NAME=VALUE",
                     t->path, var, g->all, val);
            return KEVO_EINVAL;
        }
        g->has_all = 1;
        g->all = v;
        return KEVO_OK;
    }
    for (int k = 0; k < t->n_out; k++) {
        if (strcmp(tp_out_buf(t, k)->name, item))
            continue;
        if (g->has[k]) {
            snprintf(err, errcap, "%s: %s: output '%s' is given twice",
                     t->path, var, item);
            return KEVO_EINVAL;
        }
        g->has[k] = 1;
        g->v[k] = v;
        return KEVO_OK;
    }
    snprintf(err, errcap, "%s: %s: '%s' is not an output of %s (its "
             "outputs: %s)", t->path, var, item, t->name, names);
    return KEVO_EINVAL;
}

/* var's list into g. */
static int given_list(const struct tprob *t, const char *var,
                      const char *text, struct given *g, char *err,
                      size_t errcap)
{
    char buf[1024];
    memset(g, 0, sizeof *g);
    if (strlen(text) >= sizeof buf) {
        snprintf(err, errcap, "%s: %s: longer than %zu characters", t->path,
                 var, sizeof buf - 1);
        return KEVO_EINVAL;
    }
    snprintf(buf, sizeof buf, "%s", text);
    for (char *item = buf, *next; item; item = next) {
        next = strchr(item, ',');
        if (next)
            *next++ = '\0';
        int rc = given_item(t, var, item, g, err, errcap);
        if (rc)
            return rc;
    }
    return KEVO_OK;
}

int tp_tol_given(struct tprob *t, char *err, size_t errcap)
{
    const char *at = getenv("KEVO_TORCH_ATOL"), *rt = getenv("KEVO_TORCH_RTOL");
    int has_a = at && *at, has_r = rt && *rt;
    struct given a, r;
    if (!has_a && !has_r)
        return KEVO_OK;
    if (has_a != has_r) {
        snprintf(err, errcap, "%s: KEVO_TORCH_ATOL and KEVO_TORCH_RTOL go "
                 "together: set both or neither", t->path);
        return KEVO_EINVAL;
    }
    int rc = given_list(t, "KEVO_TORCH_ATOL", at, &a, err, errcap);
    if (!rc)
        rc = given_list(t, "KEVO_TORCH_RTOL", rt, &r, err, errcap);
    if (rc)
        return rc;
    for (int k = 0; k < t->n_out; k++) {
        int ha = a.has[k] || a.has_all, hr = r.has[k] || r.has_all;
        const char *nm = tp_out_buf(t, k)->name;
        if (ha != hr) {
            snprintf(err, errcap, "%s: %s gives no %s for output '%s' (%s "
                     "gives its %s): give each output both or neither",
                     t->path, ha ? "KEVO_TORCH_RTOL" : "KEVO_TORCH_ATOL",
                     ha ? "rtol" : "atol", nm,
                     ha ? "KEVO_TORCH_ATOL" : "KEVO_TORCH_RTOL",
                     ha ? "atol" : "rtol");
            return KEVO_EINVAL;
        }
        if (!ha)
            continue; /* calibrated */
        struct tp_tol *u = &t->tol[k];
        u->set = u->given = 1;
        u->atol = a.has[k] ? a.v[k] : a.all;
        u->rtol = r.has[k] ? r.v[k] : r.all;
        snprintf(u->source, sizeof u->source, "given");
        snprintf(u->note, sizeof u->note, "given by KEVO_TORCH_ATOL/"
                 "KEVO_TORCH_RTOL");
    }
    sync_note(t);
    return KEVO_OK;
}
