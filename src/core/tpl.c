/*
 * tpl.c - kernel templates (see tpl.h): parses the "// kevo:" directives
 * of a .cu file, checks them, and answers questions about points of the
 * parameter space (valid? supported for a shape? launch plan? source?).
 *
 * Parsing is two passes over the lines. Pass 1 reads problem, dtypes,
 * param and nondeterministic, so that the variable table (params, sizes,
 * device facts) is complete; pass 2 compiles the expression directives
 * in file order. PCRE2 matches directive lines and kernel definitions.
 * Nothing here compiles or runs CUDA.
 */
#include "tpl.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <glob.h>
#include <pcre2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "hash.h"

#define TPL_MAX_VARS (TPL_MAX_PARAMS + PROB_MAX_DIMS + TPL_N_DEVICE_VARS)
#define TPL_LINE_MAX 1024 /* longest directive argument text */

/* H100 SXM: 132 SMs, 227 KiB opt-in shared memory per block, 50 MiB L2. */
const struct tpl_device tpl_device_default = {
    .sms = 132,
    .smem_optin = 227 * 1024,
    .l2_bytes = 50 * 1024 * 1024,
};

static const char *const device_var_names[TPL_N_DEVICE_VARS] = {
    "SMS", "SMEM_OPTIN", "L2_BYTES"};

/* A directive line: "// kevo: <word> <arguments>". */
static const char directive_re[] = "^\\s*//\\s*kevo:\\s*(\\S*)\\s*(.*?)\\s*$";
/*
 * A kernel definition: extern "C" __global__ [__launch_bounds__(...)] void
 * [__launch_bounds__(...)] NAME ( -- the bounds may nest parentheses, so
 * group 1 matches balanced ones recursively. Group 2 is the name.
 */
static const char kernel_re[] =
    "extern\\s+\"C\"\\s+__global__\\s+"
    "(?:__launch_bounds__\\s*(\\((?:[^()]++|(?1))*\\))\\s*)?void\\s+"
    "(?:__launch_bounds__\\s*(?1)\\s*)?([A-Za-z_]\\w*)\\s*\\(";

/* State of one tpl_parse. */
struct tparse {
    struct tpl *t;                  /* being built, owned */
    const struct problem *prob;     /* from the problem directive */
    const char *where;              /* path or name, for messages */
    const char *want_problem;       /* folder name, or NULL */
    pcre2_code *directive;          /* compiled directive_re */
    pcre2_code *kernel;             /* compiled kernel_re */
    pcre2_match_data *md;           /* for both */
    int line;                       /* current line, 1-based */
    int param_line[TPL_MAX_PARAMS]; /* where each param was declared */
    uint64_t used;                  /* params read anywhere (bit i) */
    int problem_line, dtypes_line;  /* 0 = not seen */
    int workspace_line;             /* 0 = not seen */
    char *err;
    size_t errcap;
};

static int perr(struct tparse *tp, const char *fmt, ...) KEVO_PRINTF(2, 3);

/* Writes "<where>:<line>: <what>" and returns KEVO_EPARSE. */
static int perr(struct tparse *tp, const char *fmt, ...)
{
    int n = snprintf(tp->err, tp->errcap, "%s:%d: ", tp->where, tp->line);
    if (n >= 0 && (size_t)n < tp->errcap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(tp->err + n, tp->errcap - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return KEVO_EPARSE;
}

static int is_ident(const char *s)
{
    if (!isalpha((unsigned char)*s) && *s != '_')
        return 0;
    while (isalnum((unsigned char)*s) || *s == '_')
        s++;
    return *s == '\0';
}

/* Parses a whole decimal or 0x hex integer, optionally negative. */
static int parse_int(const char *s, int64_t *out)
{
    const char *d = s + (*s == '-');
    int base = d[0] == '0' && (d[1] == 'x' || d[1] == 'X') ? 16 : 10;
    if (!isxdigit((unsigned char)d[base == 16 ? 2 : 0]))
        return -1;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, base);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

/* Splits s in place at whitespace into words[0..cap); returns the count,
 * or cap + 1 if there are more words. */
static int split_words(char *s, char **words, int cap)
{
    int n = 0;
    char *save;
    for (char *w = strtok_r(s, " \t", &save); w;
         w = strtok_r(NULL, " \t", &save)) {
        if (n == cap)
            return cap + 1;
        words[n++] = w;
    }
    return n;
}

/* ---- regular expressions ---- */

static pcre2_code *rx_compile(const char *pattern)
{
    int code;
    PCRE2_SIZE off;
    return pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, 0, &code,
                         &off, NULL);
}

static int rx_init(struct tparse *tp)
{
    tp->directive = rx_compile(directive_re);
    tp->kernel = rx_compile(kernel_re);
    tp->md = pcre2_match_data_create(4, NULL);
    if (tp->directive && tp->kernel && tp->md)
        return KEVO_OK;
    snprintf(tp->err, tp->errcap, "cannot set up template regexes");
    return KEVO_ENOMEM; /* the patterns are fixed: only memory can fail */
}

static void rx_release(struct tparse *tp)
{
    pcre2_match_data_free(tp->md);
    pcre2_code_free(tp->kernel);
    pcre2_code_free(tp->directive);
}

/* Copies capture group g of the last match into out[cap]; -1 if longer. */
static int rx_group(struct tparse *tp, const char *subj, int g, char *out,
                    size_t cap)
{
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(tp->md);
    size_t n = ov[2 * g + 1] - ov[2 * g];
    if (n >= cap)
        return -1;
    memcpy(out, subj + ov[2 * g], n);
    out[n] = '\0';
    return 0;
}

/* 1 if the text defines extern "C" __global__ void name(...). */
static int kernel_defined(struct tparse *tp, const char *name)
{
    const char *text = tp->t->text;
    size_t len = strlen(text);
    PCRE2_SIZE at = 0;
    while (pcre2_match(tp->kernel, (PCRE2_SPTR)text, len, at, 0, tp->md, NULL) >
           0) {
        char found[TPL_NAME_MAX];
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(tp->md);
        if (!rx_group(tp, text, 2, found, sizeof found) && !strcmp(found, name))
            return 1;
        at = ov[1];
    }
    return 0;
}

/* ---- pass 1: problem, dtypes, param, nondeterministic ---- */

static int d_problem(struct tparse *tp, char *args)
{
    if (tp->problem_line)
        return perr(tp, "duplicate 'problem' directive (first on line %d)",
                    tp->problem_line);
    if (!is_ident(args))
        return perr(tp, "'problem' takes one name, got '%s'", args);
    tp->prob = problem_find(args);
    if (!tp->prob)
        return perr(tp, "unknown problem '%s' (a user-defined problem is "
                    "known once its file is loaded: --problem-file F or "
                    "--problem NAME)", args);
    if (tp->want_problem && strcmp(args, tp->want_problem))
        return perr(tp, "problem '%s' does not match its folder '%s'", args,
                    tp->want_problem);
    snprintf(tp->t->problem, sizeof tp->t->problem, "%s", args);
    tp->problem_line = tp->line;
    return KEVO_OK;
}

static int d_dtypes(struct tparse *tp, char *args)
{
    if (tp->dtypes_line)
        return perr(tp, "duplicate 'dtypes' directive (first on line %d)",
                    tp->dtypes_line);
    char *words[DTYPE_COUNT];
    int n = split_words(args, words, DTYPE_COUNT);
    if (n == 0)
        return perr(tp, "'dtypes' needs at least one dtype");
    if (n > DTYPE_COUNT)
        return perr(tp, "'dtypes' lists more than %d dtypes", DTYPE_COUNT);
    for (int i = 0; i < n; i++) {
        enum dtype dt;
        if (dtype_parse(words[i], &dt))
            return perr(tp, "unknown dtype '%s'", words[i]);
        tp->t->dtype_mask |= 1u << dt;
    }
    tp->dtypes_line = tp->line;
    return KEVO_OK;
}

static int param_index(const struct tpl *t, const char *name)
{
    for (int i = 0; i < t->n_params; i++)
        if (!strcmp(t->params[i].name, name))
            return i;
    return -1;
}

int tpl_set_param(const struct tpl *t, int64_t *vals, const char *assign)
{
    const char *eq = strchr(assign, '=');
    if (!eq)
        return -1;
    const size_t n = (size_t)(eq - assign);
    for (int k = 0; k < t->n_params; k++)
        if (strlen(t->params[k].name) == n &&
            !strncmp(t->params[k].name, assign, n)) {
            vals[k] = strtoll(eq + 1, NULL, 0);
            return k;
        }
    return -1;
}

/* Checks that a new param's name is free in the variable table. */
static int check_param_name(struct tparse *tp, const char *name)
{
    const struct tpl *t = tp->t;
    if (!is_ident(name) || strlen(name) >= sizeof t->params[0].name)
        return perr(tp, "bad param name '%s'", name);
    int i = param_index(t, name);
    if (i >= 0)
        return perr(tp, "duplicate param '%s' (first on line %d)", name,
                    tp->param_line[i]);
    for (int d = 0; d < tp->prob->n_dims; d++)
        if (!strcmp(tp->prob->dim_names[d], name))
            return perr(tp, "param '%s' collides with a size of problem '%s'",
                        name, tp->prob->name);
    for (int d = 0; d < TPL_N_DEVICE_VARS; d++)
        if (!strcmp(device_var_names[d], name))
            return perr(tp, "param '%s' collides with a device fact", name);
    return KEVO_OK;
}

static int value_index(const struct tpl_param *p, int64_t v)
{
    for (int i = 0; i < p->n_values; i++)
        if (p->values[i] == v)
            return i;
    return -1;
}

/* Reads the values and the default=v of a param from words[0..n). */
static int parse_values(struct tparse *tp, struct tpl_param *p, char **words,
                        int n, const char *list)
{
    int64_t def = 0;
    int has_def = 0;
    for (int i = 0; i < n; i++) {
        int is_def = !strncmp(words[i], "default=", 8);
        int64_t v;
        if (parse_int(words[i] + (is_def ? 8 : 0), &v))
            return perr(tp, "bad value list '%s' for param '%s'", list,
                        p->name);
        if (is_def && has_def++)
            return perr(tp, "param '%s' has two defaults", p->name);
        if (is_def) {
            def = v;
            continue;
        }
        if (value_index(p, v) >= 0)
            return perr(tp, "param '%s' lists value %lld twice", p->name,
                        (long long)v);
        if (p->n_values == TPL_MAX_VALUES)
            return perr(tp, "param '%s' has more than %d values", p->name,
                        TPL_MAX_VALUES);
        p->values[p->n_values++] = v;
    }
    if (p->n_values == 0)
        return perr(tp, "param '%s' has no values", p->name);
    p->def = has_def ? value_index(p, def) : 0;
    if (p->def < 0)
        return perr(tp, "default %lld of param '%s' is not one of its values",
                    (long long)def, p->name);
    return KEVO_OK;
}

static int d_param(struct tparse *tp, char *args)
{
    struct tpl *t = tp->t;
    if (t->n_params == TPL_MAX_PARAMS)
        return perr(tp, "too many params (max %d)", TPL_MAX_PARAMS);
    char list[TPL_LINE_MAX];
    char *words[TPL_MAX_VALUES + 2];
    int n = split_words(args, words, TPL_MAX_VALUES + 2);
    if (n == 0)
        return perr(tp, "'param' needs a name and values");
    int rc = check_param_name(tp, words[0]);
    if (rc)
        return rc;
    struct tpl_param *p = &t->params[t->n_params];
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", words[0]);
    if (n > TPL_MAX_VALUES + 2)
        return perr(tp, "param '%s' has more than %d values", p->name,
                    TPL_MAX_VALUES);
    list[0] = '\0';
    for (int i = 1; i < n; i++) /* the list as written, for messages */
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                 i > 1 ? " " : "", words[i]);
    rc = parse_values(tp, p, words + 1, n - 1, list);
    if (rc)
        return rc;
    tp->param_line[t->n_params++] = tp->line;
    return KEVO_OK;
}

static int d_nondeterministic(struct tparse *tp, char *args)
{
    if (*args)
        return perr(tp, "'nondeterministic' takes no arguments");
    tp->t->nondeterministic = 1;
    return KEVO_OK;
}

/* "provenance KEY VALUE": where a template promoted from a run comes from
 * (kevo promote writes these lines, kevo list shows them; provenance.h
 * reads them). Checked for form only; nothing of the template depends on
 * them. */
static int d_provenance(struct tparse *tp, char *args)
{
    char *value = args + strcspn(args, " \t");
    char key[32];
    size_t n = (size_t)(value - args);
    value += strspn(value, " \t");
    snprintf(key, sizeof key, "%.*s", (int)(n < sizeof key ? n : 0), args);
    if (!*key || !is_ident(key) || !*value)
        return perr(tp, "'provenance' takes a KEY (a name of at most %d "
                    "characters) and a VALUE, got '%s'", (int)sizeof key - 1,
                    args);
    return KEVO_OK;
}

/* ---- pass 2: expression directives ---- */

/* Compiles text as the expression of directive kind, for the template. */
static int compile(struct tparse *tp, const char *kind, const char *text,
                   struct expr **out)
{
    struct tpl *t = tp->t;
    char why[256];
    int rc = expr_compile(text, t->var_names, t->n_vars, out, why, sizeof why);
    if (rc == KEVO_EPARSE)
        return perr(tp, "%s '%s': %s", kind, text, why);
    if (rc) {
        perr(tp, "%s", why);
        return rc;
    }
    uint64_t params = (1ULL << t->n_params) - 1;
    tp->used |= expr_uses(*out) & params;
    return KEVO_OK;
}

/* Mask of the variable-table bits that hold the problem's sizes. */
static uint64_t size_bits(const struct tpl *t)
{
    int n_dims = t->n_vars - t->n_params - TPL_N_DEVICE_VARS;
    return ((1ULL << n_dims) - 1) << t->n_params;
}

static int d_constraint(struct tparse *tp, char *args)
{
    struct tpl *t = tp->t;
    if (t->n_constraints == TPL_MAX_CONSTRAINTS)
        return perr(tp, "too many constraints (max %d)", TPL_MAX_CONSTRAINTS);
    struct tpl_cond *c = &t->constraints[t->n_constraints];
    int rc = compile(tp, "constraint", args, &c->e);
    if (rc)
        return rc;
    c->line = tp->line;
    t->n_constraints++; /* owned by t from here on */
    uint64_t sizes = expr_uses(c->e) & size_bits(t);
    if (sizes) {
        const char *dim = t->var_names[__builtin_ctzll(sizes)];
        return perr(tp,
                    "constraint '%s' uses size '%s': use 'requires' for "
                    "conditions on the shape",
                    args, dim);
    }
    return KEVO_OK;
}

static int d_requires(struct tparse *tp, char *args)
{
    struct tpl *t = tp->t;
    if (t->n_requires == TPL_MAX_CONSTRAINTS)
        return perr(tp, "too many requires (max %d)", TPL_MAX_CONSTRAINTS);
    struct tpl_cond *c = &t->requires_[t->n_requires];
    int rc = compile(tp, "requires", args, &c->e);
    if (rc)
        return rc;
    c->line = tp->line;
    t->n_requires++;
    return KEVO_OK;
}

/* Cuts the first whitespace-separated word off *p (NUL-terminating it) and
 * moves *p past the blanks after it; NULL when none is left. */
static char *next_word(char **p)
{
    char *w = *p + strspn(*p, " \t");
    if (!*w)
        return NULL;
    char *end = w + strcspn(w, " \t");
    *p = end + strspn(end, " \t");
    *end = '\0';
    return w;
}

/* Where name is taken already (a var, fact, tensor map or arg), or NULL. */
static const char *name_taken(const struct tpl *t, const char *name)
{
    for (int i = 0; i < t->n_vars; i++)
        if (!strcmp(t->var_names[i], name))
            return i < t->n_params                        ? "a param"
                   : i < t->n_vars - TPL_N_DEVICE_VARS ? "a size"
                                                          : "a device fact";
    for (int i = 0; i < t->n_facts; i++)
        if (!strcmp(t->facts[i].name, name))
            return "a fact";
    for (int i = 0; i < t->n_tmaps; i++)
        if (!strcmp(t->tmaps[i].name, name))
            return "a tensormap";
    for (int i = 0; i < t->n_args; i++)
        if (!strcmp(t->args[i].name, name))
            return "another arg";
    return NULL;
}

static int d_fact(struct tparse *tp, char *args)
{
    struct tpl *t = tp->t;
    if (t->n_facts == TPL_MAX_FACTS)
        return perr(tp, "too many facts (max %d)", TPL_MAX_FACTS);
    char *rest = args, *name = next_word(&rest);
    if (!name || !*rest)
        return perr(tp, "'fact' needs a NAME and an expression");
    if (!is_ident(name) || strlen(name) >= sizeof t->facts[0].name)
        return perr(tp, "bad fact name '%s'", name);
    for (int i = 0; i < t->n_facts; i++)
        if (!strcmp(t->facts[i].name, name))
            return perr(tp, "duplicate fact '%s' (first on line %d)", name,
                        t->facts[i].line);
    const char *taken = name_taken(t, name);
    if (taken)
        return perr(tp, "fact '%s' collides with %s", name, taken);
    struct tpl_fact *f = &t->facts[t->n_facts];
    int rc = compile(tp, "fact", rest, &f->e);
    if (rc)
        return rc;
    snprintf(f->name, sizeof f->name, "%s", name);
    f->line = tp->line;
    t->n_facts++;
    uint64_t device = ((1ULL << TPL_N_DEVICE_VARS) - 1)
                      << (t->n_vars - TPL_N_DEVICE_VARS);
    if (expr_uses(f->e) & device)
        return perr(tp, "fact '%s' uses a device fact: facts are of the "
                    "shape (params and sizes only)", f->name);
    return KEVO_OK;
}

static int d_arg(struct tparse *tp, char *args)
{
    struct tpl *t = tp->t;
    if (t->n_args == TPL_MAX_ARGS)
        return perr(tp, "too many args (max %d)", TPL_MAX_ARGS);
    char *rest = args, *name = next_word(&rest);
    if (!name || !*rest)
        return perr(tp, "'arg' needs a NAME and an expression");
    if (!is_ident(name) || strlen(name) >= sizeof t->args[0].name)
        return perr(tp, "bad arg name '%s'", name);
    const char *taken = name_taken(t, name);
    if (taken)
        return perr(tp, "arg '%s' collides with %s", name, taken);
    struct tpl_arg *a = &t->args[t->n_args];
    int rc = compile(tp, "arg", rest, &a->e);
    if (rc)
        return rc;
    snprintf(a->name, sizeof a->name, "%s", name);
    a->line = tp->line;
    t->n_args++;
    return KEVO_OK;
}

static int d_launch(struct tparse *tp, char *args)
{
    struct tpl *t = tp->t;
    if (t->n_launches == TPL_MAX_LAUNCHES)
        return perr(tp, "too many launches (max %d)", TPL_MAX_LAUNCHES);
    struct tpl_launch *l = &t->launches[t->n_launches];
    if (!is_ident(args) || strlen(args) >= sizeof l->kernel)
        return perr(tp, "'launch' takes one kernel name, got '%s'", args);
    if (!kernel_defined(tp, args))
        return perr(tp,
                    "kernel '%s' is not defined as extern \"C\" __global__ "
                    "in the text",
                    args);
    memset(l, 0, sizeof *l);
    snprintf(l->kernel, sizeof l->kernel, "%s", args);
    l->line = tp->line;
    t->n_launches++;
    return KEVO_OK;
}

/* The launch that a grid/block/smem/cluster line belongs to, or NULL. */
static struct tpl_launch *current_launch(struct tparse *tp, const char *kind)
{
    struct tpl *t = tp->t;
    if (t->n_launches == 0) {
        perr(tp, "'%s' before any 'launch'", kind);
        return NULL;
    }
    return &t->launches[t->n_launches - 1];
}

/* Splits s in place at commas outside parentheses; returns the count. */
static int split_commas(char *s, char **parts, int cap)
{
    int n = 0, depth = 0;
    parts[n++] = s;
    for (; *s; s++) {
        depth += (*s == '(') - (*s == ')');
        if (*s != ',' || depth > 0)
            continue;
        *s = '\0';
        if (n == cap)
            return cap + 1;
        parts[n++] = s + 1;
    }
    return n;
}

/* Reads 1-3 comma-separated expressions into slot[0..3) of launch l. */
static int dims(struct tparse *tp, const char *kind, char *args,
                const struct tpl_launch *l, struct expr **slot)
{
    if (slot[0])
        return perr(tp, "duplicate '%s' for launch '%s'", kind, l->kernel);
    char *parts[3];
    int n = split_commas(args, parts, 3);
    if (n > 3)
        return perr(tp, "'%s' takes 1 to 3 expressions", kind);
    for (int i = 0; i < n; i++) {
        int rc =
            compile(tp, kind, parts[i] + strspn(parts[i], " \t"), &slot[i]);
        if (rc)
            return rc;
    }
    return KEVO_OK;
}

static int d_grid(struct tparse *tp, char *args)
{
    struct tpl_launch *l = current_launch(tp, "grid");
    return l ? dims(tp, "grid", args, l, l->grid) : KEVO_EPARSE;
}

static int d_block(struct tparse *tp, char *args)
{
    struct tpl_launch *l = current_launch(tp, "block");
    return l ? dims(tp, "block", args, l, l->block) : KEVO_EPARSE;
}

static int d_cluster(struct tparse *tp, char *args)
{
    struct tpl_launch *l = current_launch(tp, "cluster");
    return l ? dims(tp, "cluster", args, l, l->cluster) : KEVO_EPARSE;
}

static int d_pdl(struct tparse *tp, char *args)
{
    struct tpl_launch *l = current_launch(tp, "pdl");
    if (!l)
        return KEVO_EPARSE;
    if (*args)
        return perr(tp, "'pdl' takes no arguments");
    if (l->pdl)
        return perr(tp, "duplicate 'pdl' for launch '%s'", l->kernel);
    if (tp->t->n_launches == 1)
        return perr(tp, "'pdl' on the first launch '%s': only a later "
                    "launch may overlap the one in front of it",
                    l->kernel);
    l->pdl = 1;
    return KEVO_OK;
}

static int d_smem(struct tparse *tp, char *args)
{
    struct tpl_launch *l = current_launch(tp, "smem");
    if (!l)
        return KEVO_EPARSE;
    if (l->smem)
        return perr(tp, "duplicate 'smem' for launch '%s'", l->kernel);
    return compile(tp, "smem", args, &l->smem);
}

static int d_workspace(struct tparse *tp, char *args)
{
    if (tp->workspace_line)
        return perr(tp, "duplicate 'workspace' directive (first on line %d)",
                    tp->workspace_line);
    tp->workspace_line = tp->line;
    return compile(tp, "workspace", args, &tp->t->workspace);
}

/* The index of the problem's buffer called name, or -1; *two_d = 1 when
 * it has a 2-D shape (sizes of 1 stand in for the real shape). */
static int buffer_index(const struct problem *p, const char *name, int *two_d)
{
    struct shape one = {.n_dims = p->n_dims};
    struct buf_desc d[PROB_MAX_BUFS];
    for (int i = 0; i < p->n_dims; i++)
        one.d[i] = 1;
    int n = p->buffers(p, &one, DTYPE_FP32, d);
    for (int i = 0; i < n; i++)
        if (!strcmp(d[i].name, name)) {
            *two_d = d[i].rows > 0 && d[i].cols > 0;
            return i;
        }
    return -1;
}

/* The trailing "swizzle=..." and "l2=EXPR" words of args, in any order:
 * cut off and parsed into *bytes (default 0) and *l2 (the expression's
 * text, NULL if absent). Another key=value word is an error. */
static int tmap_options(struct tparse *tp, char *args, int *bytes,
                        char **l2)
{
    static const struct { const char *name; int bytes; } sw[] = {
        {"none", 0}, {"32", 32}, {"64", 64}, {"128", 128}};
    int seen_sw = 0;
    *bytes = 0;
    *l2 = NULL;
    for (;;) {
        char *end = args + strlen(args);
        while (end > args && strchr(" \t", end[-1]))
            *--end = '\0';
        char *last = end;
        while (last > args && !strchr(" \t", last[-1]))
            last--;
        size_t key = strspn(last, "abcdefghijklmnopqrstuvwxyz_0123456789");
        if (!key || last[key] != '=' || last[key + 1] == '=')
            return KEVO_OK; /* part of an expression */
        if (!strncmp(last, "l2=", 3) && !*l2) {
            if (!last[3])
                return perr(tp, "tensormap option 'l2=' needs a value "
                            "(0, 64, 128 or 256, or an expression)");
            *l2 = last + 3;
        } else if (!strncmp(last, "swizzle=", 8) && !seen_sw) {
            size_t i = 0;
            while (i < sizeof sw / sizeof sw[0] && strcmp(last + 8,
                                                          sw[i].name))
                i++;
            if (i == sizeof sw / sizeof sw[0])
                return perr(tp, "bad swizzle '%s' (expected 128, 64, 32 or "
                            "none)", last + 8);
            *bytes = sw[i].bytes;
            seen_sw = 1;
        } else {
            return perr(tp, "%s tensormap option '%s' (expected "
                        "swizzle=128|64|32|none, l2=EXPR)",
                        !strncmp(last, "l2=", 3) ||
                        !strncmp(last, "swizzle=", 8) ? "repeated"
                        : "unknown", last);
        }
        *last = '\0';
    }
}

static int d_tensormap(struct tparse *tp, char *args)
{
    struct tpl *t = tp->t;
    if (t->n_tmaps == TPL_MAX_TMAPS)
        return perr(tp, "too many tensor maps (max %d)", TPL_MAX_TMAPS);
    char *rest = args, *name = next_word(&rest), *buf = next_word(&rest);
    if (!name || !buf || !*rest)
        return perr(tp, "'tensormap' takes NAME BUFFER INNER, OUTER "
                    "[swizzle=...] [l2=...]");
    struct tpl_tmap *m = &t->tmaps[t->n_tmaps];
    if (!is_ident(name) || strlen(name) >= sizeof m->name)
        return perr(tp, "bad tensormap name '%s'", name);
    for (int i = 0; i < t->n_tmaps; i++)
        if (!strcmp(t->tmaps[i].name, name))
            return perr(tp, "duplicate tensormap '%s' (first on line %d)",
                        name, t->tmaps[i].line);
    const char *taken = name_taken(t, name);
    if (taken)
        return perr(tp, "tensormap '%s' collides with %s", name, taken);
    int two_d = 0, bi = buffer_index(tp->prob, buf, &two_d);
    if (bi < 0)
        return perr(tp, "problem '%s' has no buffer '%s'", tp->prob->name,
                    buf);
    if (!two_d)
        return perr(tp, "buffer '%s' of problem '%s' has no 2-D shape", buf,
                    tp->prob->name);
    char *l2;
    int swizzle, rc = tmap_options(tp, rest, &swizzle, &l2);
    if (rc)
        return rc;
    char *parts[2];
    int n = split_commas(rest, parts, 2);
    if (n != 2)
        return perr(tp, "tensormap '%s' needs two box expressions (inner, "
                    "outer)", name);
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "%s", name);
    m->buf = bi;
    m->swizzle = swizzle;
    m->line = tp->line;
    t->n_tmaps++; /* owned by t from here on */
    for (int i = 0; i < 2; i++) {
        rc = compile(tp, "tensormap box", parts[i] + strspn(parts[i], " \t"),
                     &m->box[i]);
        if (rc)
            return rc;
    }
    if (l2)
        return compile(tp, "tensormap l2", l2, &m->l2);
    return KEVO_OK;
}

static const struct directive {
    const char *name;
    int pass; /* 1: defines the variable table; 2: uses it */
    int (*fn)(struct tparse *tp, char *args);
} directives[] = {
    {"problem", 1, d_problem},
    {"dtypes", 1, d_dtypes},
    {"param", 1, d_param},
    {"nondeterministic", 1, d_nondeterministic},
    {"provenance", 1, d_provenance},
    {"constraint", 2, d_constraint},
    {"requires", 2, d_requires},
    {"fact", 2, d_fact},
    {"launch", 2, d_launch},
    {"grid", 2, d_grid},
    {"block", 2, d_block},
    {"smem", 2, d_smem},
    {"cluster", 2, d_cluster},
    {"pdl", 2, d_pdl},
    {"workspace", 2, d_workspace},
    {"tensormap", 2, d_tensormap},
    {"arg", 2, d_arg},
};

/* ---- the line scanner ---- */

static int is_word_char(int c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* 1 if w occurs in s[0..len) as a whole word. */
static int has_word(const char *s, size_t len, const char *w)
{
    size_t wl = strlen(w);
    for (const char *end = s + len, *p = s;
         (p = memmem(p, (size_t)(end - p), w, wl)); p++)
        if ((p == s || !is_word_char(p[-1])) &&
            (p + wl == end || !is_word_char(p[wl])))
            return 1;
    return 0;
}

/* 1 if the identifier w occurs in the C/C++ text s as code: outside
 * comments (so outside the "// kevo:" directives), string and character
 * literals. */
static int code_names(const char *s, const char *w)
{
    size_t wl = strlen(w);
    while (*s) {
        if (s[0] == '/' && s[1] == '/') {
            s += strcspn(s, "\n");
        } else if (s[0] == '/' && s[1] == '*') {
            const char *e = strstr(s + 2, "*/");
            s = e ? e + 2 : s + strlen(s);
        } else if (*s == '"' || *s == '\'') {
            char q = *s++;
            while (*s && *s != q && *s != '\n')
                s += s[0] == '\\' && s[1] ? 2 : 1;
            s += *s == q;
        } else if (is_word_char(*s)) {
            size_t n = 1;
            while (is_word_char(s[n]))
                n++;
            if (n == wl && !memcmp(s, w, wl))
                return 1;
            s += n;
        } else {
            s++;
        }
    }
    return 0;
}

/* Marks the params that neither the template's code nor the problem's
 * prelude (for any of its dtypes) names. */
static void mark_launch_only(struct tparse *tp)
{
    struct tpl *t = tp->t;
    const struct problem *p = tp->prob;
    for (int i = 0; i < t->n_params; i++) {
        const char *name = t->params[i].name;
        int used = code_names(t->text, name);
        for (int d = 0; !used && p && d < DTYPE_COUNT; d++)
            if (t->dtype_mask & 1u << d)
                used = code_names(p->prelude(p, (enum dtype)d), name);
        t->params[i].launch_only = !used;
    }
}

static void mark_used_in_code(struct tparse *tp, const char *s, size_t len)
{
    for (int i = 0; i < tp->t->n_params; i++)
        if (!(tp->used >> i & 1) && has_word(s, len, tp->t->params[i].name))
            tp->used |= 1ULL << i;
}

/* Runs the directive on line s[0..len) if it belongs to this pass. */
static int scan_directive(struct tparse *tp, const char *s, int pass)
{
    char word[TPL_LINE_MAX], args[TPL_LINE_MAX];
    if (rx_group(tp, s, 1, word, sizeof word) ||
        rx_group(tp, s, 2, args, sizeof args))
        return perr(tp, "directive longer than %d characters",
                    TPL_LINE_MAX - 1);
    for (size_t i = 0; i < sizeof directives / sizeof directives[0]; i++) {
        const struct directive *d = &directives[i];
        if (strcmp(d->name, word))
            continue;
        if (pass == 1 && !tp->prob && strcmp(word, "problem") &&
            strcmp(word, "dtypes") && strcmp(word, "nondeterministic") &&
            strcmp(word, "provenance"))
            return perr(tp, "'%s' before the 'problem' directive", word);
        return d->pass == pass ? d->fn(tp, args) : KEVO_OK;
    }
    if (!*word)
        return perr(tp, "empty 'kevo:' directive");
    return perr(tp, "unknown directive '%s'", word);
}

static int scan_line(struct tparse *tp, const char *s, size_t len, int pass)
{
    if (pcre2_match(tp->directive, (PCRE2_SPTR)s, len, 0, 0, tp->md, NULL) > 0)
        return scan_directive(tp, s, pass);
    if (pass == 2)
        mark_used_in_code(tp, s, len);
    return KEVO_OK;
}

/* Calls scan_line for every line of the text. */
static int scan(struct tparse *tp, int pass)
{
    const char *s = tp->t->text;
    for (tp->line = 1;; tp->line++) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        int rc = scan_line(tp, s, len, pass);
        if (rc || !nl)
            return rc;
        s = nl + 1;
    }
}

/* ---- checks between and after the passes ---- */

/* Requires problem and dtypes, then builds the variable table. */
static int after_pass1(struct tparse *tp)
{
    struct tpl *t = tp->t;
    tp->line = 1;
    if (!tp->prob)
        return perr(tp, "missing 'problem' directive");
    if (!tp->dtypes_line)
        return perr(tp, "missing 'dtypes' directive");
    tp->line = tp->dtypes_line;
    unsigned extra = t->dtype_mask & ~tp->prob->dtype_mask;
    if (extra)
        return perr(tp, "problem '%s' has no dtype '%s'", tp->prob->name,
                    dtype_name((enum dtype)__builtin_ctz(extra)));
    t->n_vars = 0;
    for (int i = 0; i < t->n_params; i++)
        t->var_names[t->n_vars++] = t->params[i].name;
    for (int i = 0; i < tp->prob->n_dims; i++)
        t->var_names[t->n_vars++] = tp->prob->dim_names[i];
    for (int i = 0; i < TPL_N_DEVICE_VARS; i++)
        t->var_names[t->n_vars++] = device_var_names[i];
    return KEVO_OK;
}

/* Values of the variable table: params, sizes (0 without a shape), device. */
static void fill_vars(const struct tpl *t, const int64_t *vals,
                      const struct shape *s, const struct tpl_device *dev,
                      int64_t *v)
{
    int n_dims = t->n_vars - t->n_params - TPL_N_DEVICE_VARS;
    if (!dev)
        dev = &tpl_device_default;
    memcpy(v, vals, (size_t)t->n_params * sizeof *v);
    for (int i = 0; i < n_dims; i++)
        v[t->n_params + i] = s ? s->d[i] : 0;
    v[t->n_params + n_dims] = dev->sms;
    v[t->n_params + n_dims + 1] = dev->smem_optin;
    v[t->n_params + n_dims + 2] = dev->l2_bytes;
}

/* 1 if word occurs as a whole word on a line that is not a directive. */
static int used_in_code(struct tparse *tp, const char *word)
{
    for (const char *s = tp->t->text;;) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        if (has_word(s, len, word) &&
            pcre2_match(tp->directive, (PCRE2_SPTR)s, len, 0, 0, tp->md,
                        NULL) <= 0)
            return 1;
        if (!nl)
            return 0;
        s = nl + 1;
    }
}

static int after_pass2(struct tparse *tp)
{
    struct tpl *t = tp->t;
    tp->line = 1;
    if (t->n_launches == 0)
        return perr(tp, "missing 'launch' directive");
    for (int i = 0; i < t->n_params; i++) {
        tp->line = tp->param_line[i];
        if (!(tp->used >> i & 1))
            return perr(tp,
                        "param '%s' is never used in the text or an "
                        "expression",
                        t->params[i].name);
    }
    for (int i = 0; i < t->n_tmaps; i++) {
        tp->line = t->tmaps[i].line;
        if (!used_in_code(tp, t->tmaps[i].name))
            return perr(tp, "tensormap '%s' is never used in the text",
                        t->tmaps[i].name);
    }
    for (int i = 0; i < t->n_facts; i++) {
        tp->line = t->facts[i].line;
        if (!used_in_code(tp, t->facts[i].name))
            return perr(tp, "fact '%s' is never used in the text",
                        t->facts[i].name);
    }
    mark_launch_only(tp);
    int64_t def[TPL_MAX_PARAMS], v[TPL_MAX_VARS], r;
    tpl_default_point(t, def);
    fill_vars(t, def, NULL, &tpl_device_default, v);
    for (int i = 0; i < t->n_args; i++) {
        const struct tpl_arg *a = &t->args[i];
        tp->line = a->line;
        if (!used_in_code(tp, a->name))
            return perr(tp, "arg '%s' is never used in the text", a->name);
        /* sizes are 0 here: only an expression of the params and device
         * facts is checked (a size may make it fail, as in a grid) */
        if (!(expr_uses(a->e) & size_bits(t)) &&
            (expr_eval(a->e, v, &r) || r < INT32_MIN || r > INT32_MAX))
            return perr(tp, "arg '%s = %s' is not an int at the default "
                        "point", a->name, expr_text(a->e));
    }
    for (int i = 0; i < t->n_constraints; i++) {
        const struct tpl_cond *c = &t->constraints[i];
        tp->line = c->line;
        if (expr_eval(c->e, v, &r))
            return perr(tp,
                        "constraint '%s' cannot be evaluated at the "
                        "default point",
                        expr_text(c->e));
        if (!r)
            return perr(tp, "default point violates constraint '%s'",
                        expr_text(c->e));
    }
    return KEVO_OK;
}

/* ---- parse, load ---- */

static int valid_name(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n >= TPL_NAME_MAX)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)name[i]) && !strchr("_-.", name[i]))
            return 0;
    return 1;
}

/* Allocates t with its name, path, text and hash. */
static int tpl_alloc(const char *name, const char *path, const char *text,
                     struct tpl **out)
{
    struct tpl *t = calloc(1, sizeof *t);
    if (!t)
        return KEVO_ENOMEM;
    snprintf(t->name, sizeof t->name, "%s", name);
    snprintf(t->path, sizeof t->path, "%s", path ? path : "");
    t->text = strdup(text);
    if (!t->text) {
        free(t);
        return KEVO_ENOMEM;
    }
    t->hash = hash_final(hash_str(HASH_SEED, text));
    *out = t;
    return KEVO_OK;
}

/* tpl_parse, with the problem the folder demands (want may be NULL). */
static int parse(const char *name, const char *path, const char *text,
                 const char *want, struct tpl **out, char *err, size_t errcap)
{
    struct tparse tp = {.where = path && *path ? path : name,
                        .want_problem = want,
                        .line = 1,
                        .err = err,
                        .errcap = errcap};
    *out = NULL;
    if (!valid_name(name))
        return perr(&tp, "bad template name '%s'", name);
    int rc = tpl_alloc(name, path, text, &tp.t);
    if (rc) {
        perr(&tp, "out of memory");
        return rc;
    }
    rc = rx_init(&tp);
    if (!rc)
        rc = scan(&tp, 1);
    if (!rc)
        rc = after_pass1(&tp);
    if (!rc)
        rc = scan(&tp, 2);
    if (!rc)
        rc = after_pass2(&tp);
    rx_release(&tp);
    if (rc)
        tpl_free(tp.t);
    else
        *out = tp.t;
    return rc;
}

int tpl_parse(const char *name, const char *path, const char *text,
              struct tpl **out, char *err, size_t errcap)
{
    return parse(name, path, text, NULL, out, err, errcap);
}

/* tpl_load, with the problem the folder demands (want may be NULL). */
static int load(const char *path, const char *want, struct tpl **out, char *err,
                size_t errcap)
{
    char name[TPL_NAME_MAX + 8];
    const char *base = strrchr(path, '/');
    snprintf(name, sizeof name, "%s", base ? base + 1 : path);
    size_t n = strlen(name);
    if (n > 3 && !strcmp(name + n - 3, ".cu"))
        name[n - 3] = '\0';
    char *text;
    size_t len;
    *out = NULL;
    int rc = fs_read_file(path, &text, &len);
    if (rc) {
        snprintf(err, errcap, "cannot read '%s': %s", path, kevo_strerror(rc));
        return rc;
    }
    if (strlen(text) != len) {
        snprintf(err, errcap, "%s: contains a NUL byte", path);
        rc = KEVO_EPARSE;
    } else {
        rc = parse(name, path, text, want, out, err, errcap);
    }
    free(text);
    return rc;
}

int tpl_load(const char *path, struct tpl **out, char *err, size_t errcap)
{
    return load(path, NULL, out, err, errcap);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The folder name of "<dir>/<folder>/<file>" into out[cap]. */
static void folder_of(const char *path, char *out, size_t cap)
{
    const char *end = strrchr(path, '/'), *start = end;
    while (start > path && start[-1] != '/')
        start--;
    snprintf(out, cap, "%.*s", (int)(end - start), start);
}

/* Loads the sorted paths into arr; on error frees what it loaded. */
static int load_all(char **paths, size_t n, int check_folder,
                    struct tpl **arr, char *err, size_t errcap)
{
    for (size_t i = 0; i < n; i++) {
        char folder[64];
        folder_of(paths[i], folder, sizeof folder);
        int rc = load(paths[i], check_folder ? folder : NULL, &arr[i], err,
                      errcap);
        if (rc) {
            while (i > 0)
                tpl_free(arr[--i]);
            return rc;
        }
    }
    return KEVO_OK;
}

/* Loads every file matching dir/glob_rest (see tpl_load_dir). */
static int load_glob(const char *dir, const char *glob_rest,
                     int check_folder, struct tpl ***out, int *n, char *err,
                     size_t errcap)
{
    char pattern[600];
    *out = NULL;
    *n = 0;
    if (!fs_exists(dir)) {
        snprintf(err, errcap, "cannot open templates directory '%s'", dir);
        return KEVO_ENOENT;
    }
    if (fs_join(pattern, sizeof pattern, dir, glob_rest)) {
        snprintf(err, errcap, "templates path too long: '%s'", dir);
        return KEVO_EINVAL;
    }
    glob_t g;
    int grc = glob(pattern, GLOB_NOSORT, NULL, &g);
    if (grc == GLOB_NOMATCH)
        return KEVO_OK; /* g is empty, nothing to free */
    if (grc) {
        snprintf(err, errcap, "cannot list '%s'", pattern);
        return grc == GLOB_NOSPACE ? KEVO_ENOMEM : KEVO_EIO;
    }
    /* glob sorts with strcoll; strcmp keeps the order locale-free */
    qsort(g.gl_pathv, g.gl_pathc, sizeof *g.gl_pathv, cmp_str);
    struct tpl **arr = calloc(g.gl_pathc, sizeof *arr);
    int rc =
        arr ? load_all(g.gl_pathv, g.gl_pathc, check_folder, arr, err, errcap)
            : KEVO_ENOMEM;
    if (rc == KEVO_ENOMEM && !arr)
        snprintf(err, errcap, "out of memory");
    if (rc) {
        free(arr);
    } else {
        *out = arr;
        *n = (int)g.gl_pathc;
    }
    globfree(&g);
    return rc;
}

int tpl_load_dir(const char *dir, struct tpl ***out, int *n, char *err,
                 size_t errcap)
{
    return load_glob(dir, "*/*.cu", 1, out, n, err, errcap);
}

int tpl_load_flat(const char *dir, struct tpl ***out, int *n, char *err,
                  size_t errcap)
{
    return load_glob(dir, "*.cu", 0, out, n, err, errcap);
}

void tpl_free(struct tpl *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->n_constraints; i++)
        expr_free(t->constraints[i].e);
    for (int i = 0; i < t->n_requires; i++)
        expr_free(t->requires_[i].e);
    for (int i = 0; i < t->n_launches; i++) {
        struct tpl_launch *l = &t->launches[i];
        for (int d = 0; d < 3; d++) {
            expr_free(l->grid[d]);
            expr_free(l->block[d]);
            expr_free(l->cluster[d]);
        }
        expr_free(l->smem);
    }
    for (int i = 0; i < t->n_tmaps; i++) {
        expr_free(t->tmaps[i].box[0]);
        expr_free(t->tmaps[i].box[1]);
        expr_free(t->tmaps[i].l2);
    }
    for (int i = 0; i < t->n_facts; i++)
        expr_free(t->facts[i].e);
    for (int i = 0; i < t->n_args; i++)
        expr_free(t->args[i].e);
    expr_free(t->workspace);
    free(t->text);
    free(t);
}

/* ---- points of the space ---- */

void tpl_default_point(const struct tpl *t, int64_t *vals)
{
    for (int i = 0; i < t->n_params; i++)
        vals[i] = t->params[i].values[t->params[i].def];
}

int tpl_value_index(const struct tpl *t, int i, int64_t v)
{
    assert(i >= 0 && i < t->n_params);
    return value_index(&t->params[i], v);
}

/* 1 if condition c holds at v; a failed evaluation does not hold. */
static int holds(const struct tpl_cond *c, const int64_t *v)
{
    int64_t r;
    return !expr_eval(c->e, v, &r) && r != 0;
}

int tpl_point_valid(const struct tpl *t, const int64_t *vals,
                    const struct tpl_device *dev)
{
    int64_t v[TPL_MAX_VARS];
    for (int i = 0; i < t->n_params; i++)
        if (tpl_value_index(t, i, vals[i]) < 0)
            return 0;
    fill_vars(t, vals, NULL, dev, v);
    for (int i = 0; i < t->n_constraints; i++)
        if (!holds(&t->constraints[i], v))
            return 0;
    return 1;
}

/* 1 if cuTensorMapEncodeTiled can take every map of plan for shape s:
 * 16-byte row strides, box rows a multiple of 16 bytes and within the
 * swizzle span (cuda.h, cuTensorMapEncodeTiled). */
static int tmaps_fit(const struct tpl *t, const struct launch_plan *pl,
                     enum dtype dt, const struct shape *s, char *why,
                     size_t whycap)
{
    struct buf_desc d[PROB_MAX_BUFS];
    if (pl->n_tmaps == 0)
        return 1;
    {
        const struct problem *tp = problem_find(t->problem);
        tp->buffers(tp, s, dt, d);
    }
    for (int i = 0; i < pl->n_tmaps; i++) {
        const struct tmap_plan *m = &pl->tm[i];
        const struct buf_desc *b = &d[m->buf];
        int64_t es = (int64_t)dtype_size(b->dtype), row = b->cols * es,
                inner = (int64_t)m->box[0] * es;
        const char *name = t->tmaps[i].name;
        if (row % 16) {
            snprintf(why, whycap, "tensormap '%s': a row of %s is %lld "
                     "bytes, not a multiple of 16", name, b->name,
                     (long long)row);
            return 0;
        }
        if (inner % 16) {
            snprintf(why, whycap, "tensormap '%s': a box row is %lld bytes, "
                     "not a multiple of 16", name, (long long)inner);
            return 0;
        }
        if (m->swizzle && inner > m->swizzle) {
            snprintf(why, whycap, "tensormap '%s': a box row is %lld bytes, "
                     "more than the %d-byte swizzle", name, (long long)inner,
                     m->swizzle);
            return 0;
        }
    }
    return 1;
}

int tpl_prepare(const struct tpl *t, const int64_t *vals, enum dtype dt,
                const struct shape *s, const struct tpl_device *dev,
                struct launch_plan *plan, char *why, size_t whycap)
{
    if ((unsigned)dt >= DTYPE_COUNT || !(t->dtype_mask >> dt & 1)) {
        snprintf(why, whycap, "dtype '%s' is not in the template's dtypes",
                 dtype_name(dt));
        return KEVO_EINVAL;
    }
    int64_t v[TPL_MAX_VARS], r;
    fill_vars(t, vals, s, dev, v);
    for (int i = 0; i < t->n_requires; i++) {
        const struct expr *e = t->requires_[i].e;
        int bad = expr_eval(e, v, &r);
        if (!bad && r)
            continue;
        if (whycap) { /* (0: no message wanted) */
            char shape[128]; /* (formatted only here: per point) */
            problem_format_shape(s, shape, sizeof shape);
            snprintf(why, whycap, bad ? "requires '%s' cannot be evaluated "
                     "for %s" : "requires '%s' fails for %s", expr_text(e),
                     shape);
        }
        return KEVO_EINVAL;
    }
    int64_t facts[TPL_MAX_FACTS];
    if (tpl_facts(t, vals, s, facts, why, whycap))
        return KEVO_EINVAL;
    struct launch_plan own;
    if (!plan)
        plan = &own;
    if (tpl_plan(t, vals, s, dev, plan, why, whycap))
        return KEVO_EINVAL;
    return tmaps_fit(t, plan, dt, s, why, whycap) ? KEVO_OK : KEVO_EINVAL;
}

/* ---- counting the space ---- */

struct walk {
    const struct tpl *t;
    int64_t v[TPL_MAX_VARS];        /* params assigned so far + rest */
    int level[TPL_MAX_CONSTRAINTS]; /* params a constraint needs */
    uint64_t count, limit;          /* valid points found / cap */
    uint64_t steps, max_steps;      /* nodes visited / cap on the work */
};

/* 1 if every constraint that needs exactly the first d params holds. */
static int holds_at(const struct walk *w, int d)
{
    for (int i = 0; i < w->t->n_constraints; i++)
        if (w->level[i] == d && !holds(&w->t->constraints[i], w->v))
            return 0;
    return 1;
}

/* Depth-first over the values of param d, pruning as soon as possible. */
static void walk_from(struct walk *w, int d)
{
    if (w->count >= w->limit || ++w->steps > w->max_steps || !holds_at(w, d))
        return;
    if (d == w->t->n_params) {
        w->count++;
        return;
    }
    const struct tpl_param *p = &w->t->params[d];
    for (int i = 0; i < p->n_values && w->count < w->limit; i++) {
        w->v[d] = p->values[i];
        walk_from(w, d + 1);
    }
}

uint64_t tpl_space_size(const struct tpl *t, const struct tpl_device *dev,
                        uint64_t limit)
{
    return tpl_space_count(t, dev, limit, UINT64_MAX, NULL);
}

uint64_t tpl_space_count(const struct tpl *t, const struct tpl_device *dev,
                         uint64_t limit, uint64_t max_steps, int *complete)
{
    struct walk w = {.t = t, .limit = limit, .max_steps = max_steps};
    int64_t def[TPL_MAX_PARAMS];
    tpl_default_point(t, def);
    fill_vars(t, def, NULL, dev, w.v);
    uint64_t params = (1ULL << t->n_params) - 1;
    for (int i = 0; i < t->n_constraints; i++) {
        uint64_t u = expr_uses(t->constraints[i].e) & params;
        w.level[i] = u ? 64 - __builtin_clzll(u) : 0;
    }
    walk_from(&w, 0);
    if (complete)
        *complete = w.count < w.limit && w.steps <= w.max_steps;
    return w.count;
}

double tpl_space_raw(const struct tpl *t)
{
    double n = 1;
    for (int i = 0; i < t->n_params; i++)
        n *= t->params[i].n_values;
    return n;
}

/* ---- launch plan ---- */

struct plan_ctx {
    const char *kernel; /* for messages; NULL = not a launch */
    const int64_t *v;   /* variable values */
    char *err;
    size_t errcap;
};

/* 1 if e (NULL = def) evaluates within [lo, hi], into *out. */
static int value_ok(const struct plan_ctx *pc, const struct expr *e,
                    int64_t def, int64_t lo, int64_t hi, int64_t *out)
{
    *out = def;
    return !(e && expr_eval(e, pc->v, out)) && *out >= lo && *out <= hi;
}

/* value_ok, with a message on a failure: what names the value, with axis
 * ("grid" 'x' reads "grid.x"; 0: what alone). Messages are formatted only
 * then (a search checks millions of points that pass); a caller whose
 * name costs a printf asks value_ok first and formats it only on a
 * failure. */
static int plan_value(const struct plan_ctx *pc, const char *what, char axis,
                      const struct expr *e, int64_t def, int64_t lo, int64_t hi,
                      int64_t *out)
{
    if (value_ok(pc, e, def, lo, hi, out))
        return KEVO_OK;
    if (!pc->errcap)
        return KEVO_EINVAL; /* no message wanted */
    *out = def;
    int bad_eval = e && expr_eval(e, pc->v, out);
    char in[TPL_NAME_MAX + 16] = "", name[96]; /* which launch, if any */
    if (pc->kernel)
        snprintf(in, sizeof in, "launch '%s': ", pc->kernel);
    if (axis)
        snprintf(name, sizeof name, "%s.%c", what, axis);
    else
        snprintf(name, sizeof name, "%s", what);
    if (bad_eval)
        snprintf(pc->err, pc->errcap,
                 "%s%s '%s' cannot be evaluated (division by zero or "
                 "overflow)",
                 in, name, expr_text(e));
    else
        snprintf(pc->err, pc->errcap, "%s%s = %lld is outside [%lld, %lld]",
                 in, name, (long long)*out, (long long)lo, (long long)hi);
    return KEVO_EINVAL;
}

/* Evaluates three dims named kind.x/y/z, each within [1, max[i]]. */
static int plan_dims(const struct plan_ctx *pc, const char *kind,
                     struct expr *const *e, const int64_t *max, uint32_t *out)
{
    static const char xyz[] = "xyz";
    for (int i = 0; i < 3; i++) {
        int64_t r;
        int rc = plan_value(pc, kind, xyz[i], e[i], 1, 1, max[i], &r);
        if (rc)
            return rc;
        out[i] = (uint32_t)r;
    }
    return KEVO_OK;
}

/* Cluster dims: at most 16 blocks, each dim dividing the grid's. */
static int plan_cluster(const struct plan_ctx *pc, const struct tpl_launch *l,
                        struct launch_dims *d)
{
    static const int64_t max[3] = {16, 16, 16};
    if (!l->cluster[0] && !l->cluster[1] && !l->cluster[2])
        return KEVO_OK; /* no cluster attribute: all 0 */
    int rc = plan_dims(pc, "cluster", l->cluster, max, d->cluster);
    if (rc)
        return rc;
    uint32_t *c = d->cluster, *g = d->grid;
    if (c[0] * c[1] * c[2] > 16) {
        snprintf(pc->err, pc->errcap,
                 "launch '%s': cluster %ux%ux%u has "
                 "more than 16 blocks",
                 pc->kernel, c[0], c[1], c[2]);
        return KEVO_EINVAL;
    }
    if (g[0] % c[0] || g[1] % c[1] || g[2] % c[2]) {
        snprintf(pc->err, pc->errcap,
                 "launch '%s': cluster %ux%ux%u does not divide grid %ux%ux%u",
                 pc->kernel, c[0], c[1], c[2], g[0], g[1], g[2]);
        return KEVO_EINVAL;
    }
    return KEVO_OK;
}

/* CUDA limits: grid x < 2^31, y/z <= 65535; block x/y <= 1024, z <= 64
 * and at most 1024 threads in all (CUDA C++ Programming Guide, table
 * "Technical Specifications per Compute Capability"). */
static int plan_launch(const struct plan_ctx *pc, const struct tpl_launch *l,
                       int64_t smem_optin, struct launch_dims *d)
{
    static const int64_t grid_max[3] = {INT32_MAX, 65535, 65535};
    static const int64_t block_max[3] = {1024, 1024, 64};
    int64_t smem;
    memset(d, 0, sizeof *d);
    size_t kn = strnlen(l->kernel, sizeof d->kernel - 1); /* (no printf:
                                                             per point) */
    memcpy(d->kernel, l->kernel, kn);
    int rc = plan_dims(pc, "grid", l->grid, grid_max, d->grid);
    if (!rc)
        rc = plan_dims(pc, "block", l->block, block_max, d->block);
    if (rc)
        return rc;
    uint32_t threads = d->block[0] * d->block[1] * d->block[2];
    if (threads > 1024) {
        snprintf(pc->err, pc->errcap,
                 "launch '%s': block has %u threads (max 1024)", pc->kernel,
                 threads);
        return KEVO_EINVAL;
    }
    rc = plan_value(pc, "smem", 0, l->smem, 0, 0, smem_optin, &smem);
    if (rc)
        return rc;
    d->smem_bytes = (uint32_t)smem;
    d->pdl = (uint32_t)l->pdl;
    return plan_cluster(pc, l, d);
}

int tpl_plan(const struct tpl *t, const int64_t *vals, const struct shape *s,
             const struct tpl_device *dev, struct launch_plan *out, char *err,
             size_t errcap)
{
    int64_t v[TPL_MAX_VARS], ws;
    fill_vars(t, vals, s, dev, v);
    int64_t smem_optin = v[t->n_vars - 2];
    memset(out, 0, sizeof *out);
    for (int i = 0; i < t->n_launches; i++) {
        struct plan_ctx pc = {t->launches[i].kernel, v, err, errcap};
        int rc = plan_launch(&pc, &t->launches[i], smem_optin, &out->l[i]);
        if (rc)
            return rc;
    }
    out->n = t->n_launches;
    struct plan_ctx pc = {NULL, v, err, errcap};
    int rc = plan_value(&pc, "workspace", 0, t->workspace, 0, 0, INT64_MAX,
                        &ws);
    if (rc)
        return rc;
    out->workspace_bytes = (uint64_t)ws;
    for (int i = 0; i < t->n_tmaps; i++) {
        const struct tpl_tmap *m = &t->tmaps[i];
        struct tmap_plan *p = &out->tm[i];
        for (int d = 0; d < 2; d++) {
            char what[64];
            int64_t box;
            if (!value_ok(&pc, m->box[d], 1, 1, 256, &box)) {
                snprintf(what, sizeof what, "tensormap '%s' box %s", m->name,
                         d ? "outer" : "inner");
                return plan_value(&pc, what, 0, m->box[d], 1, 1, 256, &box);
            }
            p->box[d] = (uint32_t)box;
        }
        p->buf = m->buf;
        p->swizzle = m->swizzle;
        p->l2 = 256;
        if (m->l2) {
            char what[64];
            int64_t l2;
            if (!value_ok(&pc, m->l2, 0, 0, 256, &l2)) {
                snprintf(what, sizeof what, "tensormap '%s' l2", m->name);
                return plan_value(&pc, what, 0, m->l2, 0, 0, 256, &l2);
            }
            if (l2 != 0 && l2 != 64 && l2 != 128 && l2 != 256) {
                snprintf(err, errcap, "tensormap '%s' l2 is %lld (expected "
                         "0, 64, 128 or 256)", m->name, (long long)l2);
                return KEVO_EINVAL;
            }
            p->l2 = (int)l2;
        }
    }
    out->n_tmaps = t->n_tmaps;
    for (int i = 0; i < t->n_args; i++) {
        char what[64];
        int64_t a;
        if (!value_ok(&pc, t->args[i].e, 0, INT32_MIN, INT32_MAX, &a)) {
            snprintf(what, sizeof what, "arg '%s'", t->args[i].name);
            return plan_value(&pc, what, 0, t->args[i].e, 0, INT32_MIN,
                              INT32_MAX, &a);
        }
        out->args[i] = (int32_t)a;
    }
    out->n_args = t->n_args;
    return KEVO_OK;
}

/* ---- instantiation ---- */

int tpl_facts(const struct tpl *t, const int64_t *vals, const struct shape *s,
              int64_t *out, char *why, size_t whycap)
{
    int64_t v[TPL_MAX_VARS];
    fill_vars(t, vals, s, NULL, v);
    for (int i = 0; i < t->n_facts; i++)
        if (!s || expr_eval(t->facts[i].e, v, &out[i])) {
            char shape[128] = "no shape";
            if (s)
                problem_format_shape(s, shape, sizeof shape);
            snprintf(why, whycap, "fact '%s = %s' cannot be evaluated for %s",
                     t->facts[i].name, expr_text(t->facts[i].e), shape);
            return KEVO_EINVAL;
        }
    return KEVO_OK;
}

char *tpl_instantiate(const struct tpl *t, const int64_t *vals, enum dtype dt,
                      const struct shape *s)
{
    return tpl_instantiate_hdr(t, vals, dt, s, 1);
}

char *tpl_instantiate_hdr(const struct tpl *t, const int64_t *vals,
                          enum dtype dt, const struct shape *s,
                          int compiled_only)
{
    const struct problem *p = problem_find(t->problem);
    assert(p); /* tpl_parse resolved it */
    int64_t facts[TPL_MAX_FACTS];
    char why[256];
    if (tpl_facts(t, vals, s, facts, why, sizeof why))
        return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    fprintf(f, "// kevo: %s", t->name);
    for (int i = 0; i < t->n_params; i++)
        if (!compiled_only || !t->params[i].launch_only)
            fprintf(f, " %s=%lld", t->params[i].name, (long long)vals[i]);
    const char *prelude = p->prelude(p, dt);
    size_t n = strlen(prelude);
    fprintf(f, " dtype=%s\n%s%s", dtype_name(dt), prelude,
            n && prelude[n - 1] != '\n' ? "\n" : "");
    for (int i = 0; i < t->n_params; i++)
        if (!t->params[i].launch_only)
            fprintf(f, "#define %s %lld\n", t->params[i].name,
                    (long long)vals[i]);
    for (int i = 0; i < t->n_facts; i++)
        fprintf(f, "#define %s %lld\n", t->facts[i].name,
                (long long)facts[i]);
    /* the name is checked to hold no quote or backslash (valid_name) */
    fprintf(f, "#line 1 \"%s.cu\"\n%s", t->name, t->text);
    n = strlen(t->text);
    if (n && t->text[n - 1] != '\n')
        fputc('\n', f);
    int bad = ferror(f);
    if (fclose(f) || bad) {
        free(buf);
        return NULL;
    }
    return buf;
}
