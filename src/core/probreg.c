/*
 * probreg.c - the problem registry (see probreg.h): the built-in problems
 * handed in at start-up, the kinds of problems read from files with the GPU
 * hooks attached to them, and the problems loaded from files in this
 * process. Fixed-size tables: a process knows a handful of problems.
 */
#include "probreg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "probfile.h"
#include "quote.h"

#define MAX_BUILTIN 16

static const struct problem *builtin[MAX_BUILTIN];
static int n_builtin;

/* The kinds read from files, first match by suffix; the last one with no
 * suffix takes any other name. Core's own .problem kind, then the ones
 * plug-ins add at start-up (problem_kind_add: the PyTorch kind). */
#define MAX_KINDS 4
static struct {
    const struct problem_kind *kind;
    const struct problem_gpu *gpu; /* attached at start-up; NULL: none */
} kinds[MAX_KINDS] = {
    {&probfile_kind, NULL},
};
static int n_kinds = 1;
#define N_KINDS n_kinds

int problem_kind_add(const struct problem_kind *kind)
{
    for (int i = 0; i < N_KINDS; i++)
        if (!strcmp(kinds[i].kind->name, kind->name))
            return kinds[i].kind == kind ? KEVO_OK : KEVO_EEXIST;
    if (n_kinds == MAX_KINDS)
        return KEVO_ENOMEM;
    kinds[n_kinds].kind = kind;
    kinds[n_kinds++].gpu = NULL;
    return KEVO_OK;
}

/* Every problem loaded in this process, kept for its life (no cap: a
 * problems directory may hold any number). */
static struct problem **loaded;
static int n_loaded, cap_loaded;

int problem_register(const struct problem *p)
{
    if (problem_find(p->name))
        return KEVO_EEXIST;
    if (n_builtin == MAX_BUILTIN)
        return KEVO_ENOMEM;
    builtin[n_builtin++] = p;
    return KEVO_OK;
}

int problem_kind_attach(const char *kind, const struct problem_gpu *gpu)
{
    for (int i = 0; i < N_KINDS; i++)
        if (!strcmp(kinds[i].kind->name, kind)) {
            kinds[i].gpu = gpu;
            return KEVO_OK;
        }
    return KEVO_EINVAL;
}

const struct problem *problem_builtin(int i)
{
    return i >= 0 && i < n_builtin ? builtin[i] : NULL;
}

const struct problem *problem_find_user(const char *name)
{
    for (int i = 0; i < n_loaded; i++)
        if (!strcmp(loaded[i]->name, name))
            return loaded[i];
    return NULL;
}

void problem_set_tolerance(const struct problem *p, int k,
                           const struct out_tol *t)
{
    for (int i = 0; i < n_loaded; i++)
        if (loaded[i] == p && p->kind && p->kind->set_tolerance)
            p->kind->set_tolerance(loaded[i], k, t);
}

const struct problem *problem_find(const char *name)
{
    for (int i = 0; i < n_builtin; i++)
        if (!strcmp(builtin[i]->name, name))
            return builtin[i];
    return problem_find_user(name);
}

/* The kind whose suffix ends path, else the catch-all one. */
static int kind_for(const char *path)
{
    size_t n = strlen(path);
    int any = -1;
    for (int i = 0; i < N_KINDS; i++) {
        const char *sx = kinds[i].kind->suffix;
        if (!sx)
            any = i;
        else if (n >= strlen(sx) && !strcmp(path + n - strlen(sx), sx))
            return i;
    }
    return any;
}

int problem_parse_file_text(const char *path, const char *text,
                            struct problem **out, char *err, size_t errcap)
{
    int k = kind_for(path);
    if (k < 0) {
        snprintf(err, errcap, "%s: no kind of problem reads this file", path);
        return KEVO_EINVAL;
    }
    return kinds[k].kind->parse(path, text, kinds[k].gpu, out, err, errcap);
}

void problem_free_user(struct problem *p)
{
    if (p)
        p->kind->free(p);
}

/* Registers p (taken: freed on failure, or when the same text is loaded
 * already, which *out then is). */
static int add_loaded(const char *path, struct problem *p,
                      const struct problem **out, char *err, size_t errcap)
{
    for (int i = 0; i < n_loaded; i++) {
        if (strcmp(loaded[i]->name, p->name))
            continue;
        if (strcmp(loaded[i]->file_text, p->file_text)) {
            snprintf(err, errcap, "%s: problem '%s' is already loaded from "
                     "'%s' with a different text", path, p->name,
                     loaded[i]->file_path);
            problem_free_user(p);
            return KEVO_EEXIST;
        }
        problem_free_user(p);
        *out = loaded[i];
        return KEVO_OK;
    }
    if (n_loaded == cap_loaded) {
        int nc = cap_loaded ? cap_loaded * 2 : 16;
        struct problem **nl = realloc(loaded, (size_t)nc * sizeof *nl);
        if (!nl) {
            problem_free_user(p);
            return KEVO_ENOMEM;
        }
        loaded = nl;
        cap_loaded = nc;
    }
    loaded[n_loaded++] = p;
    *out = p;
    return KEVO_OK;
}

int problem_load_text(const char *path, const char *text,
                      const struct problem **out, char *err, size_t errcap)
{
    struct problem *p;
    int r = problem_parse_file_text(path, text, &p, err, errcap);
    return r ? r : add_loaded(path, p, out, err, errcap);
}

int problem_load_record(const char *path, const char *text,
                        const char *rec_path, const char *record,
                        const struct problem **out, char *err,
                        size_t errcap)
{
    struct problem *p;
    int k = kind_for(path);
    if (k < 0 || !kinds[k].kind->parse_record) {
        snprintf(err, errcap, "%s: no kind of problem rebuilds this file "
                 "from a record", path);
        return KEVO_EINVAL;
    }
    int r = kinds[k].kind->parse_record(path, text, rec_path, record,
                                        kinds[k].gpu, &p, err, errcap);
    return r ? r : add_loaded(path, p, out, err, errcap);
}

int problem_load_file(const char *path, const struct problem **out, char *err,
                      size_t errcap)
{
    char *text = NULL;
    size_t len = 0;
    int r = fs_read_file(path, &text, &len);
    if (r) {
        snprintf(err, errcap, "cannot read problem file '%s': %s", path,
                 kevo_strerror(r));
        return r;
    }
    int line; /* a NUL would cut the text short: refused here */
    const char *why = quote_check_text(text, len, &line);
    if (why)
        snprintf(err, errcap, "%s:%d: %s", path, line, why);
    r = why ? KEVO_EPARSE : problem_load_text(path, text, out, err, errcap);
    free(text);
    return r;
}
