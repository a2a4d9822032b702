/*
 * probfile.c - the .problem file kind (see probfile.h): a .problem file
 * (README "User-defined problems") parsed into a `struct problem` whose
 * hooks read the parsed description through their `p` argument.
 *
 * CPU side, here: sizes, buffers with integer COUNT expressions, tolerance /
 * flops / min_bytes as real expressions (both expr.h), requires. The GPU
 * side (inputs drawn by kevo_up_gen, the user's fp64 kevo_reference run on
 * fp64 copies of the pristine inputs, the self-check and the copy baseline)
 * is fitness/userprob.c's, handed in through the registry (probreg.h); this
 * file does not know it. Loaded problems are kept by probreg.c.
 */
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"
#include "ident.h"
#include "probfile.h"
#include "probreg.h"
#include "quote.h"

#define UP_NAME_MAX 32
#define UP_LINE_MAX 4096
#define UP_MAX_REQUIRES 16
#define UP_DESCRIPTION_MAX (64 << 10) /* bytes; LLM prompts carry it */

/* in enum probfile_dist order */
static const char *const dist_names[] = {"uniform", "normal", "offset", "int",
                                         "const"};
static const int dist_nargs[] = {2, 2, 3, 2, 1};

struct up_buf {
    char name[UP_NAME_MAX];
    enum buf_role role;
    int type;             /* -1: the run dtype (elem), else enum dtype */
    struct expr *count;
    struct expr *rows;    /* NULL: flat */
    enum probfile_dist dist;
    float arg[3];
    int line;
};

struct up_req {
    struct expr *e;
    int line;
};

struct up_tol {
    struct expr *atol, *rtol; /* real expressions; NULL: no line */
    int line;
};

struct uprob {
    struct problem p;     /* first: hooks cast their p back */
    char path[1024];      /* as given, for messages */
    char name[UP_NAME_MAX];
    char *summary, *description, *reference, *text, *harness, *abi;
    int ref_line;         /* line of the reference's first source line */
    char dims[PROB_MAX_DIMS][UP_NAME_MAX];
    int n_bufs;
    struct up_buf b[PROB_MAX_BUFS];
    int n_req;
    struct up_req req[UP_MAX_REQUIRES];
    struct up_tol tol[DTYPE_COUNT + 1]; /* [DTYPE_COUNT]: '*' */
    int work_flops;
    struct expr *flops, *min_bytes; /* real; NULL: 0 / auto */
    int flops_line, min_bytes_line;
    int copy_baseline;
    struct expr *ref_grid, *ref_block; /* NULL: defaults */
    char *prelude[DTYPE_COUNT];
};

/* ---------------------------------------------------------------- errors */

struct upparse {
    struct uprob *u;
    const char *path;
    int line;
    char *err;
    size_t errcap;
    int seen[32];         /* line of each key's first use (see keys[]) */
};

static int perr(struct upparse *ps, const char *fmt, ...) KEVO_PRINTF(2, 3);
static int perr(struct upparse *ps, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(ps->err, ps->errcap, "%s:%d: %s", ps->path, ps->line, msg);
    return KEVO_EPARSE;
}

/* ------------------------------------------------------ real expressions */

/* The names a real expression may use: the sizes, then elem_bytes. */
static int real_names(const struct uprob *u, const char **names)
{
    int n = u->p.n_dims;
    for (int i = 0; i < n; i++)
        names[i] = u->dims[i];
    names[n] = "elem_bytes";
    return n + 1;
}

/* Real expression e at shape s and dtype dt (IEEE: may be Inf or NaN). */
static double real_of(const struct uprob *u, const struct expr *e,
                      const struct shape *s, enum dtype dt)
{
    double vals[PROB_MAX_DIMS + 1];
    int n = u->p.n_dims;
    for (int i = 0; i < n; i++)
        vals[i] = (double)s->d[i];
    vals[n] = (double)dtype_size(dt);
    return expr_eval_real(e, vals);
}

/* ------------------------------------------------------------ the hooks */

static const struct uprob *up_of(const struct problem *p)
{
    return (const struct uprob *)p;
}

static const char *up_prelude(const struct problem *p, enum dtype dt)
{
    return up_of(p)->prelude[dt];
}

static enum dtype buf_dtype(const struct up_buf *b, enum dtype dt)
{
    return b->type < 0 ? dt : (enum dtype)b->type;
}

static int64_t eval_or0(const struct expr *e, const struct shape *s)
{
    int64_t v = 0;
    if (expr_eval(e, s->d, &v))
        return 0;
    return v;
}

static int up_buffers(const struct problem *p, const struct shape *s,
                      enum dtype dt, struct buf_desc *out)
{
    const struct uprob *u = up_of(p);
    for (int i = 0; i < u->n_bufs; i++) {
        const struct up_buf *b = &u->b[i];
        int64_t n = eval_or0(b->count, s), rows = 0, cols = 0;
        if (b->rows) {
            rows = eval_or0(b->rows, s);
            cols = rows > 0 ? n / rows : 0;
        }
        out[i] = (struct buf_desc){b->name, b->role, n, buf_dtype(b, dt),
                                   rows, cols};
    }
    return u->n_bufs;
}

static double all_bytes(const struct uprob *u, const struct shape *s,
                        enum dtype dt)
{
    double sum = 0;
    for (int i = 0; i < u->n_bufs; i++) /* in place: read and written */
        sum += (double)eval_or0(u->b[i].count, s) *
               (double)dtype_size(buf_dtype(&u->b[i], dt)) *
               (u->b[i].role == BUF_INOUT ? 2 : 1);
    return sum;
}

static double up_min_bytes(const struct problem *p, const struct shape *s,
                           enum dtype dt)
{
    const struct uprob *u = up_of(p);
    return u->min_bytes ? real_of(u, u->min_bytes, s, dt) : all_bytes(u, s, dt);
}

static double up_flops(const struct problem *p, const struct shape *s,
                       enum dtype dt)
{
    const struct uprob *u = up_of(p);
    return u->flops ? real_of(u, u->flops, s, dt) : 0;
}

static double up_work(const struct problem *p, const struct shape *s,
                      enum dtype dt)
{
    return up_of(p)->work_flops ? up_flops(p, s, dt) : up_min_bytes(p, s, dt);
}

static const struct up_tol *tol_of(const struct uprob *u, enum dtype dt)
{
    return u->tol[dt].atol ? &u->tol[dt] : &u->tol[DTYPE_COUNT];
}

static void up_tolerance(const struct problem *p, const struct shape *s,
                         enum dtype dt, double *atol, double *rtol)
{
    const struct uprob *u = up_of(p);
    const struct up_tol *t = tol_of(u, dt);
    *atol = t->atol ? real_of(u, t->atol, s, dt) : NAN;
    *rtol = t->rtol ? real_of(u, t->rtol, s, dt) : NAN;
}

static int64_t out_max_elems(const struct uprob *u, const struct shape *s)
{
    int64_t m = 1;
    for (int i = 0; i < u->n_bufs; i++) {
        int64_t n = u->b[i].role != BUF_IN ? eval_or0(u->b[i].count, s) : 0;
        if (n > m)
            m = n;
    }
    return m;
}

/* The reference launch at shape s; -1 when out of range. */
static int ref_launch(const struct uprob *u, const struct shape *s,
                      int64_t *grid, int64_t *block)
{
    *block = 256;
    *grid = (out_max_elems(u, s) + 255) / 256;
    if (u->ref_block && expr_eval(u->ref_block, s->d, block))
        return -1;
    if (u->ref_grid && expr_eval(u->ref_grid, s->d, grid))
        return -1;
    return *block >= 1 && *block <= 1024 && *grid >= 1 &&
                   *grid <= 2147483647
               ? 0
               : -1;
}

/* Checks one real value of the shape for every supported dtype. */
static int check_real(const struct uprob *u, const char *what,
                      const struct expr *e, int line, const struct shape *s,
                      enum dtype dt, char *err, size_t errcap)
{
    double v = real_of(u, e, s, dt);
    if (isfinite(v) && v >= 0)
        return KEVO_OK;
    char sh[96];
    problem_format_shape(s, sh, sizeof sh);
    snprintf(err, errcap, "%s: %s '%s' is %g at shape %s, dtype %s (must be "
             "finite and >= 0) (%s:%d)", u->name, what, expr_text(e), v, sh,
             dtype_name(dt), u->path, line);
    return KEVO_EINVAL;
}

static int up_check_reals(const struct uprob *u, const struct shape *s,
                          char *err, size_t errcap)
{
    for (int d = 0; d < DTYPE_COUNT; d++) {
        if (!(u->p.dtype_mask & 1u << d))
            continue;
        const struct up_tol *t = tol_of(u, (enum dtype)d);
        int r = check_real(u, "atol", t->atol, t->line, s, (enum dtype)d, err,
                           errcap);
        if (!r)
            r = check_real(u, "rtol", t->rtol, t->line, s, (enum dtype)d, err,
                           errcap);
        if (!r && u->flops)
            r = check_real(u, "flops", u->flops, u->flops_line, s,
                           (enum dtype)d, err, errcap);
        if (!r && u->min_bytes)
            r = check_real(u, "min_bytes", u->min_bytes, u->min_bytes_line,
                           s, (enum dtype)d, err, errcap);
        if (r)
            return r;
    }
    return KEVO_OK;
}

static int up_check_shape(const struct problem *p, const struct shape *s,
                          char *err, size_t errcap)
{
    const struct uprob *u = up_of(p);
    char sh[96];
    problem_format_shape(s, sh, sizeof sh);
    for (int i = 0; i < u->n_req; i++) {
        int64_t v = 0;
        if (expr_eval(u->req[i].e, s->d, &v) || !v) {
            snprintf(err, errcap, "shape %s fails '%s' (%s:%d)", sh,
                     expr_text(u->req[i].e), u->path, u->req[i].line);
            return KEVO_EINVAL;
        }
    }
    for (int i = 0; i < u->n_bufs; i++) {
        const struct up_buf *b = &u->b[i];
        int64_t n = 0, rows = 1;
        int failed = expr_eval(b->count, s->d, &n);
        if (failed || n < 1 || n > PROB_MAX_BUF_ELEMS) {
            snprintf(err, errcap, "shape %s: buffer %s has %s elements "
                     "('%s' must be 1 to 2^48) (%s:%d)", sh, b->name,
                     failed ? "no number of" : "bad",
                     expr_text(b->count), u->path, b->line);
            return KEVO_EINVAL;
        }
        if (b->rows && (expr_eval(b->rows, s->d, &rows) || rows < 1 ||
                        n % rows)) {
            snprintf(err, errcap, "shape %s: buffer %s: rows '%s' does not "
                     "divide its %lld elements (%s:%d)", sh, b->name,
                     expr_text(b->rows), (long long)n, u->path, b->line);
            return KEVO_EINVAL;
        }
    }
    int64_t g, bl;
    if (ref_launch(u, s, &g, &bl)) {
        snprintf(err, errcap, "shape %s: the reference launch (grid %s, "
                 "block %s) is out of range (grid 1 to 2^31-1, block 1 to "
                 "1024) (%s)", sh,
                 u->ref_grid ? expr_text(u->ref_grid) : "default",
                 u->ref_block ? expr_text(u->ref_block) : "256", u->path);
        return KEVO_EINVAL;
    }
    return up_check_reals(u, s, err, errcap);
}

/* fp64 bytes of the input buffers (in = 1) or of the others (in = 0). */
static double bytes64(const struct uprob *u, const struct shape *s, int in)
{
    double n = 0;
    for (int i = 0; i < u->n_bufs; i++)
        if ((u->b[i].role == BUF_IN) == in)
            n += (double)eval_or0(u->b[i].count, s) * 8;
    return n;
}

/* fp64 input copies, or in the self-check two of them and two references
 * (the worker counts one reference), or the copy baseline's two buffers,
 * whichever is largest. */
static double up_ref_scratch(const struct problem *p, const struct shape *s,
                             enum dtype dt)
{
    const struct uprob *u = up_of(p);
    double ref = 2 * bytes64(u, s, 1) + bytes64(u, s, 0) + 64;
    double copy = u->copy_baseline ? 2 * ceil(up_min_bytes(p, s, dt) / 2) : 0;
    return ref > copy ? ref : copy;
}

/* ---------------------------------------------------------------- parser */

static int is_ident(const char *s, int upper_only)
{
    if (!(isalpha((unsigned char)*s) || *s == '_'))
        return 0;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_') ||
            (upper_only && islower((unsigned char)*s)))
            return 0;
    return 1;
}

static int is_problem_name(const char *s)
{
    if (!islower((unsigned char)*s) || strlen(s) >= UP_NAME_MAX)
        return 0;
    for (; *s; s++)
        if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) ||
              *s == '_'))
            return 0;
    return 1;
}

/* Splits s at blanks into at most max words (in place); returns the count,
 * or max + 1 when there are more. */
static int split(char *s, char **w, int max)
{
    int n = 0;
    for (;;) {
        while (*s == ' ' || *s == '\t')
            *s++ = '\0';
        if (!*s)
            return n;
        if (n == max)
            return max + 1;
        w[n++] = s;
        while (*s && *s != ' ' && *s != '\t')
            s++;
    }
}

static int compile_int(struct upparse *ps, const char *what, const char *text,
                       struct expr **out)
{
    const char *names[PROB_MAX_DIMS];
    char why[256];
    for (int i = 0; i < ps->u->p.n_dims; i++)
        names[i] = ps->u->dims[i];
    if (!ps->u->p.n_dims)
        return perr(ps, "%s before 'sizes'", what);
    if (expr_compile(text, names, ps->u->p.n_dims, out, why, sizeof why))
        return perr(ps, "%s '%s': %s", what, text, why);
    return KEVO_OK;
}

/* Compiles a real expression (tolerance, flops, min_bytes) into *out. */
static int compile_real(struct upparse *ps, const char *what,
                        const char *text, struct expr **out)
{
    const char *names[PROB_MAX_DIMS + 1];
    char why[256];
    if (!ps->u->p.n_dims)
        return perr(ps, "%s before 'sizes'", what);
    int n = real_names(ps->u, names);
    int r = expr_compile_real(text, names, n, out, why, sizeof why);
    if (r == KEVO_EPARSE)
        return perr(ps, "%s '%s': %s", what, text, why);
    return r;
}

static int parse_float(const char *s, float *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v) || fabs(v) > 3e38)
        return -1;
    *out = (float)v;
    return 0;
}

/* "uniform(-1,1)" */
static int parse_dist(struct upparse *ps, struct up_buf *b, const char *text)
{
    char name[16], args[256];
    const char *open = strchr(text, '(');
    size_t len = open ? (size_t)(open - text) : 0;
    size_t alen = open ? strlen(open + 1) : 0;
    if (!open || len >= sizeof name || alen < 1 || open[alen] != ')' ||
        alen >= sizeof args)
        return perr(ps, "buffer '%s': fill '%s' is not NAME(ARGS) (uniform, "
                    "normal, offset, int, const)", b->name, text);
    memcpy(name, text, len);
    name[len] = '\0';
    memcpy(args, open + 1, alen - 1);
    args[alen - 1] = '\0';
    int d = -1;
    for (int i = 0; i < 5; i++)
        if (!strcmp(name, dist_names[i]))
            d = i;
    if (d < 0)
        return perr(ps, "buffer '%s': unknown distribution '%s' (uniform, "
                    "normal, offset, int, const)", b->name, name);
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(args, ",", &save); t;
         t = strtok_r(NULL, ",", &save)) {
        if (n == 3 || parse_float(t, &b->arg[n]))
            return perr(ps, "buffer '%s': %s: '%s' is not a number",
                        b->name, name, n == 3 ? "too many arguments" : t);
        n++;
    }
    if (n != dist_nargs[d])
        return perr(ps, "buffer '%s': %s takes %d argument%s, got %d",
                    b->name, name, dist_nargs[d], dist_nargs[d] == 1 ? "" : "s",
                    n);
    b->dist = (enum probfile_dist)d;
    if ((d == PROBFILE_UNIFORM || d == PROBFILE_OFFSET) && !(b->arg[0] < b->arg[1]))
        return perr(ps, "buffer '%s': %s needs LO < HI", b->name, name);
    if (d == PROBFILE_NORMAL && !(b->arg[1] > 0))
        return perr(ps, "buffer '%s': normal needs STD > 0", b->name);
    if (d == PROBFILE_OFFSET && !(b->arg[2] >= 0))
        return perr(ps, "buffer '%s': offset needs SPREAD >= 0", b->name);
    if (d == PROBFILE_INT &&
        (b->arg[0] != floorf(b->arg[0]) || b->arg[1] != floorf(b->arg[1]) ||
         b->arg[0] > b->arg[1] || fabsf(b->arg[0]) > 16777216.0f ||
         fabsf(b->arg[1]) > 16777216.0f))
        return perr(ps, "buffer '%s': int needs integers LO <= HI, |LO|, "
                    "|HI| <= 2^24", b->name);
    return KEVO_OK;
}

static int k_buffer(struct upparse *ps, char **w, int n)
{
    struct uprob *u = ps->u;
    if (n < 4 || n > 6)
        return perr(ps, "'buffer' takes NAME ROLE TYPE COUNT [rows=EXPR] "
                    "[fill=DIST], got %d word%s", n, n == 1 ? "" : "s");
    if (u->n_bufs == PROB_MAX_BUFS)
        return perr(ps, "more than %d buffers", PROB_MAX_BUFS);
    struct up_buf *b = &u->b[u->n_bufs];
    memset(b, 0, sizeof *b);
    b->line = ps->line;
    b->dist = PROBFILE_UNIFORM;
    b->arg[0] = -1;
    b->arg[1] = 1;
    if (!is_ident(w[0], 0) || strlen(w[0]) >= UP_NAME_MAX)
        return perr(ps, "buffer name '%s' is not an identifier", w[0]);
    if (ident_check(w[0]))
        return perr(ps, "buffer name '%s' %s", w[0], ident_check(w[0]));
    for (int i = 0; i < u->n_bufs; i++)
        if (!strcmp(u->b[i].name, w[0]))
            return perr(ps, "duplicate buffer '%s' (first on line %d)", w[0],
                        u->b[i].line);
    for (int i = 0; i < u->p.n_dims; i++)
        if (!strcmp(u->dims[i], w[0]))
            return perr(ps, "buffer '%s' has the name of a size", w[0]);
    snprintf(b->name, sizeof b->name, "%s", w[0]);
    if (!strcmp(w[1], "in"))
        b->role = BUF_IN;
    else if (!strcmp(w[1], "out"))
        b->role = BUF_OUT;
    else if (!strcmp(w[1], "inout"))
        b->role = BUF_INOUT;
    else
        return perr(ps, "buffer '%s': unknown role '%s' (in, out or inout)",
                    b->name, w[1]);
    enum dtype dt;
    if (!strcmp(w[2], "elem"))
        b->type = -1;
    else if (!dtype_parse(w[2], &dt))
        b->type = (int)dt;
    else
        return perr(ps, "buffer '%s': unknown type '%s' (elem, fp32, fp16, "
                    "bf16)", b->name, w[2]);
    int r = compile_int(ps, "buffer count", w[3], &b->count);
    u->n_bufs++; /* owns its expressions from here on */
    for (int i = 4; i < n && !r; i++) {
        if (!strncmp(w[i], "rows=", 5) && !b->rows)
            r = compile_int(ps, "rows", w[i] + 5, &b->rows);
        else if (!strncmp(w[i], "fill=", 5) && b->role != BUF_OUT)
            r = parse_dist(ps, b, w[i] + 5);
        else if (!strncmp(w[i], "fill=", 5))
            r = perr(ps, "buffer '%s': fill= is for in and inout buffers "
                     "(outputs are poisoned, then written by the kernel)",
                     b->name);
        else
            r = perr(ps, "buffer '%s': unknown or repeated attribute '%s' "
                     "(rows=EXPR, fill=DIST)", b->name, w[i]);
    }
    return r;
}

static int k_sizes(struct upparse *ps, char **w, int n)
{
    struct uprob *u = ps->u;
    if (n < 1 || n > PROB_MAX_DIMS)
        return perr(ps, "'sizes' takes 1 to %d names, got %d", PROB_MAX_DIMS,
                    n);
    for (int i = 0; i < n; i++) {
        if (!is_ident(w[i], 1) || strlen(w[i]) >= UP_NAME_MAX ||
            !strcmp(w[i], "SMS") || !strcmp(w[i], "SMEM_OPTIN") ||
            !strcmp(w[i], "L2_BYTES"))
            return perr(ps, "size name '%s' must be upper case "
                        "[A-Z_][A-Z0-9_]* and not SMS, SMEM_OPTIN, L2_BYTES",
                        w[i]);
        if (ident_check(w[i]))
            return perr(ps, "size name '%s' %s", w[i], ident_check(w[i]));
        for (int j = 0; j < i; j++)
            if (!strcmp(w[i], w[j]))
                return perr(ps, "duplicate size '%s'", w[i]);
        snprintf(u->dims[i], sizeof u->dims[i], "%s", w[i]);
        u->p.dim_names[i] = u->dims[i];
    }
    u->p.n_dims = n;
    return KEVO_OK;
}

static int k_dtypes(struct upparse *ps, char **w, int n)
{
    if (n < 1)
        return perr(ps, "'dtypes' takes fp32, fp16 and/or bf16");
    for (int i = 0; i < n; i++) {
        enum dtype dt;
        if (dtype_parse(w[i], &dt))
            return perr(ps, "unknown dtype '%s' (fp32, fp16, bf16)", w[i]);
        ps->u->p.dtype_mask |= 1u << dt;
    }
    return KEVO_OK;
}

static int k_tolerance(struct upparse *ps, char **w, int n)
{
    struct uprob *u = ps->u;
    enum dtype dt = DTYPE_COUNT;
    if (n != 3)
        return perr(ps, "'tolerance' takes DTYPE|* atol=REAL rtol=REAL");
    if (strcmp(w[0], "*") && dtype_parse(w[0], &dt))
        return perr(ps, "tolerance: unknown dtype '%s' (fp32, fp16, bf16, *)",
                    w[0]);
    struct up_tol *t = &u->tol[dt];
    if (t->atol)
        return perr(ps, "duplicate tolerance for %s (first on line %d)", w[0],
                    t->line);
    t->line = ps->line;
    for (int i = 1; i < 3; i++) {
        struct expr **dst = !strncmp(w[i], "atol=", 5)   ? &t->atol
                     : !strncmp(w[i], "rtol=", 5) ? &t->rtol
                                                  : NULL;
        if (!dst || *dst)
            return perr(ps, "tolerance: expected atol=REAL and rtol=REAL, "
                        "got '%s'", w[i]);
        int r = compile_real(ps, i == 1 ? "atol" : "rtol", w[i] + 5, dst);
        if (r)
            return r;
    }
    return KEVO_OK;
}

/* One line of text (a key's rest of line, joined: summary, requires, ...). */
static int k_text(struct upparse *ps, const char *key, char *rest)
{
    struct uprob *u = ps->u;
    if (!*rest)
        return perr(ps, "'%s' needs a value", key);
    if (!strcmp(key, "summary"))
        return (u->summary = strdup(rest)) ? KEVO_OK : KEVO_ENOMEM;
    if (!strcmp(key, "requires")) {
        if (u->n_req == UP_MAX_REQUIRES)
            return perr(ps, "more than %d 'requires'", UP_MAX_REQUIRES);
        u->req[u->n_req].line = ps->line;
        int r = compile_int(ps, "requires", rest, &u->req[u->n_req].e);
        u->n_req += !r;
        return r;
    }
    if (!strcmp(key, "flops")) {
        u->flops_line = ps->line;
        return compile_real(ps, "flops", rest, &u->flops);
    }
    if (!strcmp(key, "min_bytes")) {
        u->min_bytes_line = ps->line;
        return strcmp(rest, "auto") ? compile_real(ps, "min_bytes", rest,
                                               &u->min_bytes)
                                    : KEVO_OK;
    }
    if (!strcmp(key, "reference_grid"))
        return compile_int(ps, "reference_grid", rest, &u->ref_grid);
    /* reference_block */
    return compile_int(ps, "reference_block", rest, &u->ref_block);
}

static int k_words(struct upparse *ps, const char *key, char *rest)
{
    char *w[16];
    int n = split(rest, w, 15);
    if (n > 15)
        return perr(ps, "'%s': too many words", key);
    if (!strcmp(key, "sizes"))
        return k_sizes(ps, w, n);
    if (!strcmp(key, "dtypes"))
        return k_dtypes(ps, w, n);
    if (!strcmp(key, "buffer"))
        return k_buffer(ps, w, n);
    if (!strcmp(key, "tolerance"))
        return k_tolerance(ps, w, n);
    if (!strcmp(key, "problem")) {
        if (n != 1 || !is_problem_name(w[0]))
            return perr(ps, "'problem' takes one name [a-z][a-z0-9_]* of at "
                        "most %d characters", UP_NAME_MAX - 1);
        for (int i = 0; problem_builtin(i); i++)
            if (!strcmp(problem_builtin(i)->name, w[0]))
                return perr(ps, "'%s' is a built-in problem", w[0]);
        snprintf(ps->u->name, sizeof ps->u->name, "%s", w[0]);
        return KEVO_OK;
    }
    if (!strcmp(key, "work")) {
        if (n != 1 || (strcmp(w[0], "bytes") && strcmp(w[0], "flops")))
            return perr(ps, "'work' takes bytes or flops");
        ps->u->work_flops = !strcmp(w[0], "flops");
        return KEVO_OK;
    }
    /* baseline */
    if (n != 1 || (strcmp(w[0], "copy") && strcmp(w[0], "none")))
        return perr(ps, "'baseline' takes copy or none");
    ps->u->copy_baseline = !strcmp(w[0], "copy");
    return KEVO_OK;
}

enum key_kind { KEY_WORDS, KEY_TEXT, KEY_BLOCK };
static const struct {
    const char *name;
    enum key_kind kind;
    int repeat;
} keys[] = {
    {"problem", KEY_WORDS, 0},       {"summary", KEY_TEXT, 0},
    {"description", KEY_BLOCK, 0},   {"sizes", KEY_WORDS, 0},
    {"dtypes", KEY_WORDS, 0},        {"buffer", KEY_WORDS, 1},
    {"requires", KEY_TEXT, 1},       {"tolerance", KEY_WORDS, 1},
    {"work", KEY_WORDS, 0},          {"flops", KEY_TEXT, 0},
    {"min_bytes", KEY_TEXT, 0},      {"baseline", KEY_WORDS, 0},
    {"reference", KEY_BLOCK, 0},     {"reference_grid", KEY_TEXT, 0},
    {"reference_block", KEY_TEXT, 0},
};
#define N_KEYS (int)(sizeof keys / sizeof keys[0])

static int key_index(const char *k)
{
    for (int i = 0; i < N_KEYS; i++)
        if (!strcmp(keys[i].name, k))
            return i;
    return -1;
}

/* Reads the lines of a <<TAG block after line *pos into *out. */
static int read_block(struct upparse *ps, char **lines, int n_lines, int *pos,
                      const char *key, const char *tag, char **out)
{
    int start = ps->line;
    size_t len = 0;
    for (int i = *pos + 1; i < n_lines; i++) {
        if (!strcmp(lines[i], tag)) {
            char *s = malloc(len + 1), *q = s;
            if (!s)
                return KEVO_ENOMEM;
            for (int j = *pos + 1; j < i; j++) {
                size_t l = strlen(lines[j]);
                memcpy(q, lines[j], l);
                q[l] = '\n';
                q += l + 1;
            }
            *q = '\0';
            *out = s;
            *pos = i;
            return KEVO_OK;
        }
        len += strlen(lines[i]) + 1;
    }
    ps->line = start;
    return perr(ps, "'%s <<%s' has no closing line '%s'", key, tag, tag);
}

static void trim_end(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = '\0';
}

static int parse_line(struct upparse *ps, char **lines, int n_lines, int *pos)
{
    char *s = lines[*pos];
    while (*s == ' ' || *s == '\t')
        s++;
    if (!*s || *s == '#')
        return KEVO_OK;
    if (strlen(s) >= UP_LINE_MAX)
        return perr(ps, "line longer than %d characters", UP_LINE_MAX - 1);
    char key[64];
    size_t kl = strcspn(s, " \t");
    if (kl >= sizeof key)
        kl = sizeof key - 1;
    memcpy(key, s, kl);
    key[kl] = '\0';
    char *rest = s + strcspn(s, " \t");
    while (*rest == ' ' || *rest == '\t')
        rest++;
    int k = key_index(key);
    if (k < 0)
        return perr(ps, "unknown key '%s'", key);
    if (ps->seen[k] && !keys[k].repeat)
        return perr(ps, "duplicate '%s' (first on line %d)", key, ps->seen[k]);
    if (!ps->seen[k])
        ps->seen[k] = ps->line;
    if (keys[k].kind == KEY_BLOCK) {
        if (strncmp(rest, "<<", 2) || !is_ident(rest + 2, 0))
            return perr(ps, "'%s' takes a block: %s <<TAG, its lines, then a "
                        "line TAG", key, key);
        char **dst = !strcmp(key, "reference") ? &ps->u->reference
                                               : &ps->u->description;
        if (dst == &ps->u->reference)
            ps->u->ref_line = ps->line + 1;
        return read_block(ps, lines, n_lines, pos, key, rest + 2, dst);
    }
    if (keys[k].kind == KEY_TEXT)
        return k_text(ps, key, rest);
    return k_words(ps, key, rest);
}

/* After the last line: what is required and how the parts fit together. */
static int parse_finish(struct upparse *ps)
{
    struct uprob *u = ps->u;
    static const char *const required[] = {"problem", "summary", "sizes",
                                           "dtypes", "buffer", "reference"};
    for (size_t i = 0; i < sizeof required / sizeof *required; i++)
        if (!ps->seen[key_index(required[i])])
            return perr(ps, "missing required key '%s'", required[i]);
    if (u->description && strlen(u->description) > UP_DESCRIPTION_MAX) {
        ps->line = ps->seen[key_index("description")];
        return perr(ps, "description longer than %d bytes (it goes into "
                    "every LLM prompt)", UP_DESCRIPTION_MAX);
    }
    int n_out = 0;
    for (int i = 0; i < u->n_bufs; i++)
        n_out += u->b[i].role != BUF_IN;
    if (!n_out)
        return perr(ps, "no output buffer (a buffer with role out or "
                    "inout)");
    for (int d = 0; d < DTYPE_COUNT; d++)
        if ((u->p.dtype_mask & 1u << d) && !u->tol[d].atol &&
            !u->tol[DTYPE_COUNT].atol)
            return perr(ps, "no tolerance for dtype %s (add 'tolerance %s "
                        "atol=... rtol=...' or 'tolerance * ...')",
                        dtype_name((enum dtype)d), dtype_name((enum dtype)d));
    if (u->work_flops && !u->flops)
        return perr(ps, "'work flops' needs a 'flops' expression");
    if (!strstr(u->reference, "kevo_reference")) {
        ps->line = u->ref_line - 1;
        return perr(ps, "the reference block defines no kevo_reference "
                    "kernel");
    }
    return KEVO_OK;
}

/* ------------------------------------------------------------- assembly */

static const char *type_name(int type)
{
    static const char *const n[DTYPE_COUNT] = {"float", "__half",
                                               "__nv_bfloat16"};
    return type < 0 ? "elem_t" : n[type];
}

static char *build_abi(const struct uprob *u)
{
    char buf[2048];
    size_t n = (size_t)snprintf(buf, sizeof buf,
                                "extern \"C\" __global__ void KERNEL(");
    for (int i = 0; i < u->n_bufs && n < sizeof buf; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s *__restrict__ "
                              "%s, ", u->b[i].role == BUF_IN ? "const " : "",
                              type_name(u->b[i].type), u->b[i].name);
    for (int i = 0; i < u->p.n_dims && n < sizeof buf; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "int %s, ",
                              u->dims[i]);
    if (n < sizeof buf)
        snprintf(buf + n, sizeof buf - n, "void *ws)");
    return strdup(buf);
}

static char *build_prelude(const struct uprob *u, enum dtype dt)
{
    int need[DTYPE_COUNT] = {0};
    for (int i = 0; i < u->n_bufs; i++)
        if (u->b[i].type >= 0 && u->b[i].type != (int)dt)
            need[u->b[i].type] = 1;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s%s%s",
             need[DTYPE_FP16] ? "#include <cuda_fp16.h>\n" : "",
             need[DTYPE_BF16] ? "#include <cuda_bf16.h>\n" : "",
             problem_prelude_std(NULL, dt));
    return strdup(buf);
}

/* The kind's generic harness (its GPU hooks'), then the reference with
 * #line pointing at the problem file. */
static char *build_harness(const struct uprob *u, const char *generic)
{
    char *s = NULL;
    size_t len;
    FILE *f = open_memstream(&s, &len);
    if (!f)
        return NULL;
    /* the path for compile errors only: a byte that could end the
     * directive's string, or reach the PTX's .file line, which NVRTC
     * copies unescaped ('"', '\\', a newline, non-ASCII), becomes '_' */
    fprintf(f, "%s\n#line %d \"", generic, u->ref_line);
    for (const unsigned char *c = (const unsigned char *)u->path; *c; c++)
        fputc(*c >= 0x20 && *c < 0x7f && *c != '"' && *c != '\\' ? *c : '_',
              f);
    fprintf(f, "\"\n%s", u->reference);
    if (fclose(f)) {
        free(s);
        return NULL;
    }
    return s;
}

static void up_free(struct uprob *u)
{
    if (!u)
        return;
    for (int i = 0; i < u->n_bufs; i++) {
        expr_free(u->b[i].count);
        expr_free(u->b[i].rows);
    }
    for (int i = 0; i < u->n_req; i++)
        expr_free(u->req[i].e);
    for (int i = 0; i <= DTYPE_COUNT; i++) {
        expr_free(u->tol[i].atol);
        expr_free(u->tol[i].rtol);
    }
    for (int i = 0; i < DTYPE_COUNT; i++)
        free(u->prelude[i]);
    expr_free(u->ref_grid);
    expr_free(u->ref_block);
    expr_free(u->flops);
    expr_free(u->min_bytes);
    free(u->summary);
    free(u->description);
    free(u->reference);
    free(u->text);
    free(u->harness);
    free(u->abi);
    free(u);
}

static int assemble(struct uprob *u, const struct problem_gpu *gpu)
{
    struct problem *p = &u->p;
    u->abi = build_abi(u);
    u->harness = build_harness(u, gpu ? gpu->harness_src : "");
    for (int d = 0; d < DTYPE_COUNT; d++)
        if (!(u->prelude[d] = build_prelude(u, (enum dtype)d)))
            return KEVO_ENOMEM;
    if (!u->abi || !u->harness)
        return KEVO_ENOMEM;
    p->kind = &probfile_kind;
    p->name = u->name;
    p->summary = u->summary;
    p->description = u->description;
    p->reference_src = u->reference;
    p->file_path = u->path;
    p->file_text = u->text;
    p->abi = u->abi;
    p->work_unit = u->work_flops ? "FLOP/s" : "B/s";
    p->prelude = up_prelude;
    p->buffers = up_buffers;
    p->work = up_work;
    p->flops = up_flops;
    p->min_bytes = up_min_bytes;
    p->tolerance = up_tolerance;
    p->check_shape = up_check_shape;
    p->ref_scratch_bytes = up_ref_scratch;
    p->harness_src = u->harness;
    if (gpu) {
        p->gen_inputs = gpu->gen_inputs;
        p->reference = gpu->reference;
        p->baseline = gpu->baseline;
    }
    return KEVO_OK;
}

/* Splits text into lines in place (\n; a trailing \r and blanks go). */
static char **split_lines(char *text, int *n)
{
    int cap = 1;
    for (const char *c = text; *c; c++)
        cap += *c == '\n';
    char **lines = malloc((size_t)cap * sizeof *lines);
    if (!lines)
        return NULL;
    int k = 0;
    for (char *s = text;;) {
        char *nl = strchr(s, '\n');
        if (nl)
            *nl = '\0';
        trim_end(s);
        lines[k++] = s;
        if (!nl)
            break;
        s = nl + 1;
    }
    *n = k;
    return lines;
}

static int parse_text(const char *path, const char *text,
                      const struct problem_gpu *gpu, struct uprob **out,
                      char *err, size_t errcap)
{
    int bad_line;
    const char *bad = quote_check_text(text, strlen(text), &bad_line);
    if (bad) { /* terminals, prompts and JSON bodies get text only */
        snprintf(err, errcap, "%s:%d: %s", path, bad_line, bad);
        return KEVO_EPARSE;
    }
    text += strncmp(text, "\xef\xbb\xbf", 3) ? 0 : 3; /* a UTF-8 BOM */
    struct uprob *u = calloc(1, sizeof *u);
    struct upparse ps = {u, path, 0, err, errcap, {0}};
    char *work = strdup(text);
    int n_lines = 0, r = KEVO_ENOMEM;
    char **lines = work ? split_lines(work, &n_lines) : NULL;
    if (!u || !lines || !(u->text = strdup(text))) {
        snprintf(err, errcap, "%s: out of memory", path);
        goto done;
    }
    snprintf(u->path, sizeof u->path, "%s", path);
    u->copy_baseline = 1;
    r = KEVO_OK;
    for (int i = 0; i < n_lines && !r; i++) {
        ps.line = i + 1;
        r = parse_line(&ps, lines, n_lines, &i);
    }
    if (!r) { /* the last line (a file ending in \n has an empty one) */
        ps.line = n_lines > 1 && !*lines[n_lines - 1] ? n_lines - 1 : n_lines;
        r = parse_finish(&ps);
    }
    if (!r && (r = assemble(u, gpu)))
        snprintf(err, errcap, "%s: out of memory", path);
    if (r == KEVO_ENOMEM && !*err)
        snprintf(err, errcap, "%s: out of memory", path);
done:
    free(lines);
    free(work);
    if (r) {
        up_free(u);
        return r;
    }
    *out = u;
    return KEVO_OK;
}

/* ------------------------------------------------------------- the kind */

static int pf_parse(const char *path, const char *text,
                    const struct problem_gpu *gpu, struct problem **out,
                    char *err, size_t errcap)
{
    struct uprob *u;
    int r = parse_text(path, text, gpu, &u, err, errcap);
    if (!r)
        *out = &u->p;
    return r;
}

static void pf_free(struct problem *p)
{
    up_free((struct uprob *)p);
}

const struct problem_kind probfile_kind = {
    .name = "file",
    .suffix = NULL, /* any name: .problem files predate kinds */
    .parse = pf_parse,
    .free = pf_free,
};

/* ---------------------------------------------- facts for the GPU hooks */

static const struct uprob *of_kind(const struct problem *p)
{
    assert(p->kind == &probfile_kind);
    return up_of(p);
}

enum probfile_dist probfile_fill(const struct problem *p, int buf,
                                 float arg[3])
{
    const struct up_buf *b = &of_kind(p)->b[buf];
    memcpy(arg, b->arg, sizeof b->arg);
    return b->dist;
}

int probfile_ref_launch(const struct problem *p, const struct shape *s,
                        int64_t *grid, int64_t *block)
{
    return ref_launch(of_kind(p), s, grid, block);
}

int probfile_copy_baseline(const struct problem *p)
{
    return of_kind(p)->copy_baseline;
}
