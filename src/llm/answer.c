/*
 * answer.c - an LLM answer to a template, or a reason why not (see
 * answer.h). Steps, each with its own reject code: find the fenced code
 * block (PCRE2 over the fence lines), pre-read its problem directive,
 * parse it as a template (tpl_parse), check the dtype, every launched
 * kernel's signature against the problem's ABI (PCRE2 finds the
 * definitions in the text with comments blanked), the ALL_CAPS names of
 * #if lines, and the launch plan at the default point for the run.
 * Nothing here compiles CUDA; NVRTC and the GPU judge what passes.
 */
#include "answer.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <ctype.h>
#include <pcre2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ANSWER_TEXT_MAX (4u << 20)   /* longer answers are not read */
#define ANSWER_CODE_MAX (256u << 10) /* longest template accepted */
#define MAX_KPARAMS 32               /* kernel parameters looked at */
#define WORD_MAX 64

static const char *const reject_names[ANSWER_REJECT_COUNT] = {
    "ok",      "no_code",   "bad_template", "wrong_problem",
    "bad_abi", "bad_param", "bad_launch",
};

const char *answer_reject_name(enum answer_reject r)
{
    return (unsigned)r < ANSWER_REJECT_COUNT ? reject_names[r] : "?";
}

/* ---- regular expressions (compiled per answer: answers are rare) */

/* A fence line: group 1 the fence, 2 the language word, 3 the rest. */
static const char fence_re[] =
    "^ {0,3}(`{3,}|~{3,})[ \\t]*([^\\s`]*)([^\\n`]*)$";
/* A directive line, anywhere. */
static const char directive_re[] = "^[ \\t]*//[ \\t]*kevo:";
/* The problem directive; group 1 its argument. */
static const char problem_re[] =
    "^[ \\t]*//[ \\t]*kevo:[ \\t]*problem[ \\t]+(\\S+)";
/* A kernel definition, as tpl.c matches it; group 2 the name; the match
 * ends just after the '(' of the parameter list. */
static const char kernel_re[] =
    "extern\\s+\"C\"\\s+__global__\\s+"
    "(?:__launch_bounds__\\s*(\\((?:[^()]++|(?1))*\\))\\s*)?void\\s+"
    "(?:__launch_bounds__\\s*(?1)\\s*)?([A-Za-z_]\\w*)\\s*\\(";
/* A conditional preprocessor line; group 1 its condition. */
static const char ppif_re[] = "^[ \\t]*#[ \\t]*(?:if|ifdef|ifndef|elif|elifdef|"
                              "elifndef)\\b([^\\n]*)";
/* A #define; group 1 the macro name. */
static const char define_re[] = "^[ \\t]*#[ \\t]*define[ \\t]+([A-Za-z_]\\w*)";
/* An ALL_CAPS identifier (looks like a param or a size). */
static const char caps_re[] = "\\b[A-Z][A-Z0-9_]*\\b";

enum {
    RX_FENCE,
    RX_DIRECTIVE,
    RX_PROBLEM,
    RX_KERNEL,
    RX_PPIF,
    RX_DEFINE,
    RX_CAPS,
    RX_COUNT
};

struct rx {
    pcre2_code *re[RX_COUNT];
    pcre2_match_data *md;
};

static void rx_release(struct rx *x)
{
    pcre2_match_data_free(x->md);
    for (int i = 0; i < RX_COUNT; i++)
        pcre2_code_free(x->re[i]);
}

static int rx_init(struct rx *x)
{
    static const char *const pat[RX_COUNT] = {
        fence_re, directive_re, problem_re, kernel_re,
        ppif_re,  define_re,    caps_re};
    memset(x, 0, sizeof *x);
    for (int i = 0; i < RX_COUNT; i++) {
        int code;
        PCRE2_SIZE off;
        x->re[i] = pcre2_compile((PCRE2_SPTR)pat[i], PCRE2_ZERO_TERMINATED,
                                 PCRE2_MULTILINE, &code, &off, NULL);
        if (!x->re[i]) {
            rx_release(x);
            return KEVO_ENOMEM; /* the patterns are fixed */
        }
    }
    x->md = pcre2_match_data_create(4, NULL);
    if (!x->md) {
        rx_release(x);
        return KEVO_ENOMEM;
    }
    return KEVO_OK;
}

/* Matches pattern i in s[0..len) from at; 1 with the ovector, else 0
 * (no match, or PCRE2's match limit: treated alike). */
static int rx_match(struct rx *x, int i, const char *s, size_t len, size_t at,
                    PCRE2_SIZE **ov)
{
    if (at > len ||
        pcre2_match(x->re[i], (PCRE2_SPTR)s, len, at, 0, x->md, NULL) <= 0)
        return 0;
    *ov = pcre2_get_ovector_pointer(x->md);
    return 1;
}

static enum answer_reject reject(char *why, size_t whycap, enum answer_reject r,
                                 const char *fmt, ...) KEVO_PRINTF(4, 5);

static enum answer_reject reject(char *why, size_t whycap, enum answer_reject r,
                                 const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, whycap, fmt, ap);
    va_end(ap);
    return r;
}

static int line_at(const char *s, size_t off)
{
    int line = 1;
    for (size_t i = 0; i < off; i++)
        line += s[i] == '\n';
    return line;
}

/* ---- the fenced code block */

struct block {
    size_t start, len; /* content, between the fence lines */
    int line;          /* line of the opening fence */
    int closed;        /* 0: ran to the end of the answer */
    int directives;    /* 1: holds a "// kevo:" line */
};

/* 1 if the fence's language word names C/C++/CUDA (or is empty). */
static int code_language(const char *w, size_t n)
{
    static const char *const ok[] = {"",    "cuda", "cu", "cuh", "cpp", "c++",
                                     "cxx", "cc",   "c",  "h",   "hpp"};
    char low[16];
    if (n >= sizeof low)
        return 0;
    for (size_t i = 0; i < n; i++)
        low[i] = (char)tolower((unsigned char)w[i]);
    low[n] = '\0';
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
        if (!strcmp(low, ok[i]))
            return 1;
    return 0;
}

/* 1 if s[0..n) is only blanks. */
static int blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isspace((unsigned char)s[i]))
            return 0;
    return 1;
}

/* Keeps b as *best if it is a better pick: directives first, then size. */
static void consider(struct rx *x, const char *text, struct block *b,
                     struct block *best, int *found)
{
    PCRE2_SIZE *ov;
    b->directives = rx_match(x, RX_DIRECTIVE, text + b->start, b->len, 0, &ov);
    if (!*found || b->directives > best->directives ||
        (b->directives == best->directives && b->len > best->len)) {
        *best = *b;
        *found = 1;
    }
}

/*
 * Finds the code block to use; 0 if there is none. Candidates are blocks
 * tagged cuda, c++, cpp, c, ... or untagged (```python is not code for
 * us); of several, the one holding "// kevo:" lines wins, then the
 * longest, then the first. A block left open runs to the end of the
 * answer and stays a candidate, so a cut-off template is named as such.
 * Closing fences follow CommonMark: same character, at least as long.
 */
static int find_block(struct rx *x, const char *text, size_t len,
                      struct block *best)
{
    PCRE2_SIZE *ov;
    size_t at = 0, open_len = 0, counted = 0;
    char open_ch = 0;
    int found = 0, in = 0, lang = 0, line = 1;
    struct block b = {0};
    while (rx_match(x, RX_FENCE, text, len, at, &ov)) {
        /* consider() matches again: take what we need from ov first */
        size_t fl = ov[3] - ov[2], end = ov[1], line0 = ov[0];
        char ch = text[ov[2]];
        for (; counted < line0; counted++) /* lines so far, incrementally */
            line += text[counted] == '\n';
        if (!in) {
            in = 1;
            open_ch = ch;
            open_len = fl;
            lang = code_language(text + ov[4], ov[5] - ov[4]);
            b = (struct block){.start = end + (end < len), .line = line};
        } else if (ch == open_ch && fl >= open_len && ov[5] == ov[4] &&
                   blank(text + ov[6], ov[7] - ov[6])) {
            in = 0;
            b.len = line0 > b.start ? line0 - b.start : 0;
            b.closed = 1;
            if (lang)
                consider(x, text, &b, best, &found);
        }
        at = end + (end < len);
    }
    if (in && lang) {
        b.len = len > b.start ? len - b.start : 0;
        b.closed = 0;
        consider(x, text, &b, best, &found);
    }
    return found;
}

/* ---- comment blanking (for the signature and #if checks) */

/* A copy of s with comments replaced by spaces (newlines kept), so that
 * offsets and lines are those of s. String and char literals are kept. */
static char *blank_comments(const char *s)
{
    char *o = strdup(s);
    if (!o)
        return NULL;
    for (char *p = o; *p;) {
        if (p[0] == '/' && p[1] == '/') {
            while (*p && *p != '\n')
                *p++ = ' ';
        } else if (p[0] == '/' && p[1] == '*') {
            *p++ = ' ';
            *p++ = ' ';
            while (*p && !(p[0] == '*' && p[1] == '/')) {
                if (*p != '\n')
                    *p = ' ';
                p++;
            }
            for (int i = 0; i < 2 && *p; i++)
                *p++ = ' ';
        } else if (*p == '"' ||
                   (*p == '\'' && (p == o || !isalnum((unsigned char)p[-1])))) {
            char q = *p++;
            while (*p && *p != q && *p != '\n')
                p += (p[0] == '\\' && p[1]) ? 2 : 1;
            if (*p == q)
                p++;
        } else {
            p++;
        }
    }
    return o;
}

/* ---- kernel signatures */

struct kparam {
    int pointer;       /* '*' or '[' count */
    int ref;           /* '&' seen */
    int pointee_const; /* const before the first '*' */
    int grid_constant; /* __grid_constant__ seen */
    char type[WORD_MAX];
    char name[WORD_MAX];
    char text[96]; /* the declaration, blanks squeezed, for messages */
};

static int ident_start(int c)
{
    return isalpha(c) || c == '_';
}

static int ident_char(int c)
{
    return isalnum(c) || c == '_' || c == ':';
}

static int is_qualifier(const char *w)
{
    static const char *const q[] = {
        "const",    "volatile",          "__restrict__", "__restrict",
        "restrict", "__grid_constant__", "struct",       "class"};
    for (size_t i = 0; i < sizeof q / sizeof *q; i++)
        if (!strcmp(w, q[i]))
            return 1;
    return 0;
}

/* Skips a balanced "( ... )" at s[i] (if any); returns the index after. */
static size_t skip_parens(const char *s, size_t i, size_t n)
{
    while (i < n && isspace((unsigned char)s[i]))
        i++;
    if (i >= n || s[i] != '(')
        return i;
    for (int depth = 0; i < n; i++) {
        depth += (s[i] == '(') - (s[i] == ')');
        if (depth == 0)
            return i + 1;
    }
    return n;
}

/* Parses one declaration s[0..n) (no top-level commas). */
static void parse_kparam(const char *s, size_t n, struct kparam *kp)
{
    char words[8][WORD_MAX];
    int nw = 0;
    memset(kp, 0, sizeof *kp);
    size_t t = 0;
    for (size_t i = 0; i < n && t + 1 < sizeof kp->text; i++)
        if (!isspace((unsigned char)s[i]) || (t && kp->text[t - 1] != ' '))
            kp->text[t++] = isspace((unsigned char)s[i]) ? ' ' : s[i];
    while (t && kp->text[t - 1] == ' ')
        t--;
    kp->text[t] = '\0';
    for (size_t i = 0; i < n;) {
        int c = (unsigned char)s[i];
        if (ident_start(c)) {
            size_t j = i;
            while (j < n && ident_char((unsigned char)s[j]))
                j++;
            char w[WORD_MAX];
            snprintf(w, sizeof w, "%.*s", (int)(j - i), s + i);
            i = j;
            if (!strcmp(w, "__attribute__") || !strcmp(w, "__align__") ||
                !strcmp(w, "alignas")) {
                i = skip_parens(s, i, n);
            } else if (!strcmp(w, "const") && !kp->pointer) {
                kp->pointee_const = 1;
            } else if (!strcmp(w, "__grid_constant__")) {
                kp->grid_constant = 1;
            } else if (!is_qualifier(w) && nw < 8) {
                memcpy(words[nw++], w, sizeof w);
            }
            continue;
        }
        kp->pointer += c == '*' || c == '[';
        kp->ref |= c == '&';
        if (c == '=') /* a default argument: the rest is not the type */
            break;
        i++;
    }
    if (nw >= 2)
        snprintf(kp->name, sizeof kp->name, "%s", words[--nw]);
    for (int i = 0; i < nw; i++) {
        size_t l = strlen(kp->type);
        snprintf(kp->type + l, sizeof kp->type - l, "%s%s", i ? " " : "",
                 words[i]);
    }
}

/* Splits the parameter list that starts after the '(' at s[at] into
 * kp[]; returns the count (MAX_KPARAMS + 1 if more), or -1 if the list
 * is not closed. */
static int split_kparams(const char *s, size_t at, struct kparam *kp)
{
    int n = 0, depth = 0;
    size_t start = at, i;
    for (i = at; s[i]; i++) {
        char c = s[i];
        if (c == '(' || c == '<' || c == '[')
            depth++;
        else if ((c == ')' || c == '>' || c == ']') && depth > 0)
            depth--;
        else if ((c == ',' || c == ')') && depth == 0) {
            if (c == ')' && n == 0 && blank(s + start, i - start))
                return 0;
            if (n == MAX_KPARAMS)
                return MAX_KPARAMS + 1;
            parse_kparam(s + start, i - start, &kp[n++]);
            if (c == ')')
                return n == 1 && !strcmp(kp[0].type, "void") &&
                               !kp[0].pointer && !kp[0].name[0]
                           ? 0
                           : n;
            start = i + 1;
        }
    }
    return -1;
}

/* The last "::"-separated part of a type word. */
static const char *base_type(const char *t)
{
    const char *c = strrchr(t, ':');
    return c ? c + 1 : t;
}

static int int32_type(const char *t)
{
    static const char *const ok[] = {"int",      "signed",       "signed int",
                                     "unsigned", "unsigned int", "int32_t",
                                     "uint32_t"};
    t = base_type(t);
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
        if (!strcmp(t, ok[i]))
            return 1;
    return 0;
}

/* For a buffer element type: the dtype it fixes (DTYPE_COUNT: any, as
 * elem_t, void or a type we do not know; int, long long, bool: the integer
 * and bool buffers of PyTorch problems), or -1 if it can never be a
 * buffer element (double, unsigned, ...). */
static int buffer_type_dtype(const char *t)
{
    static const struct {
        const char *name;
        int dt;
    } tab[] = {
        {"elem_t", DTYPE_COUNT},
        {"void", DTYPE_COUNT},
        {"float", DTYPE_FP32},
        {"float2", DTYPE_FP32},
        {"float4", DTYPE_FP32},
        {"__half", DTYPE_FP16},
        {"half", DTYPE_FP16},
        {"__half2", DTYPE_FP16},
        {"half2", DTYPE_FP16},
        {"__nv_bfloat16", DTYPE_BF16},
        {"nv_bfloat16", DTYPE_BF16},
        {"__nv_bfloat162", DTYPE_BF16},
        {"nv_bfloat162", DTYPE_BF16},
        {"double", -1},
        {"int", DTYPE_I32},
        {"int32_t", DTYPE_I32},
        {"unsigned", -1},
        {"unsigned int", -1},
        {"char", -1},
        {"long", DTYPE_I64},
        {"long long", DTYPE_I64},
        {"int64_t", DTYPE_I64},
        {"short", -1},
        {"bool", DTYPE_BOOL},
    };
    t = base_type(t);
    for (size_t i = 0; i < sizeof tab / sizeof *tab; i++)
        if (!strcmp(t, tab[i].name))
            return tab[i].dt;
    return DTYPE_COUNT;
}

/* How a buffer of dtype dt is declared in a kernel's parameters. */
static const char *elem_decl(enum dtype dt)
{
    switch (dt) {
    case DTYPE_I32: return "int";
    case DTYPE_I64: return "long long";
    case DTYPE_BOOL: return "bool";
    default: return "elem_t";
    }
}

/* What the ABI expects, for messages and checks: buffers, sizes, ws,
 * then the template's tensor maps. */
struct abi {
    int n_bufs, n_dims, n;
    struct buf_desc bufs[PROB_MAX_BUFS];
    int n_tmaps, n_args;
    const char *names[PROB_MAX_BUFS + PROB_MAX_DIMS + 1 + TPL_MAX_TMAPS +
                      TPL_MAX_ARGS];
    char list[512]; /* "A, B, C, M, N, K, ws" */
};

static void abi_init(struct abi *a, const struct answer_ctx *ctx,
                     const struct tpl *t)
{
    const struct problem *p = ctx->problem;
    int n = 0;
    a->n_bufs = p->buffers(p, ctx->shape, ctx->dtype, a->bufs);
    a->n_dims = p->n_dims;
    for (int i = 0; i < a->n_bufs; i++)
        a->names[n++] = a->bufs[i].name;
    for (int i = 0; i < a->n_dims; i++)
        a->names[n++] = p->dim_names[i];
    a->names[n++] = "ws";
    for (int i = 0; i < t->n_tmaps; i++)
        a->names[n++] = t->tmaps[i].name;
    for (int i = 0; i < t->n_args; i++)
        a->names[n++] = t->args[i].name;
    a->n_tmaps = t->n_tmaps;
    a->n_args = t->n_args;
    a->n = n;
    a->list[0] = '\0';
    for (int i = 0; i < n; i++) {
        size_t l = strlen(a->list);
        snprintf(a->list + l, sizeof a->list - l, "%s%s", i ? ", " : "",
                 a->names[i]);
    }
}

/* Index of another ABI name that param i is called by, or -1. */
static int swapped_name(const struct abi *a, int i, const char *name)
{
    for (int j = 0; j < a->n; j++)
        if (j != i && !strcmp(a->names[j], name))
            return j;
    return -1;
}

/* Checks buffer parameter i of kernel k against every dtype of t. */
static enum answer_reject check_buf(const struct answer_ctx *ctx,
                                    const struct tpl *t, const struct abi *a,
                                    const char *k, int i,
                                    const struct kparam *kp, char *why,
                                    size_t whycap)
{
    const struct buf_desc *b = &a->bufs[i];
    if (!kp->pointer || kp->ref)
        return reject(why, whycap, ANSWER_BAD_ABI,
                      "kernel '%s' parameter %d '%s' must be a pointer to "
                      "buffer %s (elem_t *)",
                      k, i + 1, kp->text, b->name);
    if (b->role != BUF_IN && kp->pointee_const)
        return reject(why, whycap, ANSWER_BAD_ABI,
                      "kernel '%s' parameter %d '%s' is const, but %s is an "
                      "output buffer",
                      k, i + 1, kp->text, b->name);
    int want = buffer_type_dtype(kp->type);
    for (int dt = 0; dt < DTYPE_COUNT && want != DTYPE_COUNT; dt++) {
        struct buf_desc bufs[PROB_MAX_BUFS];
        if (!(t->dtype_mask >> dt & 1))
            continue;
        ctx->problem->buffers(ctx->problem, ctx->shape, (enum dtype)dt, bufs);
        if (want != (int)bufs[i].dtype)
            return reject(why, whycap, ANSWER_BAD_ABI,
                          "kernel '%s' parameter %d '%s': buffer %s holds %s "
                          "elements for dtype %s; declare it %s *",
                          k, i + 1, kp->text, b->name,
                          dtype_name(bufs[i].dtype),
                          dtype_name((enum dtype)dt),
                          elem_decl(bufs[i].dtype));
    }
    return ANSWER_OK;
}

/* Checks one parameter list against the ABI. */
static enum answer_reject check_params(const struct answer_ctx *ctx,
                                       const struct tpl *t, const struct abi *a,
                                       const char *k, const struct kparam *kp,
                                       int n, char *why, size_t whycap)
{
    int want = a->n, ws_at = a->n_bufs + a->n_dims;
    int args_at = ws_at + 1 + a->n_tmaps;
    /* a kernel may leave out the int args it does not read (tpl.h "arg") */
    if (n != want && (n < args_at || n > want)) {
        int ws_missing =
            want == ws_at + 1 && n == ws_at && (n == 0 || !kp[n - 1].pointer);
        return reject(why, whycap, ANSWER_BAD_ABI,
                      "kernel '%s' has %s%d parameters, the ABI has %d (%s)%s",
                      k, n > MAX_KPARAMS ? "more than " : "",
                      n > MAX_KPARAMS ? MAX_KPARAMS : n, want, a->list,
                      ws_missing ? ": the last one, void *ws, is missing" : "");
    }
    for (int i = 0; i < n; i++) {
        int j = kp[i].name[0] ? swapped_name(a, i, kp[i].name) : -1;
        if (j >= 0)
            return reject(why, whycap, ANSWER_BAD_ABI,
                          "kernel '%s' parameter %d is named '%s', but the "
                          "ABI has %s there and %s at position %d (%s)",
                          k, i + 1, kp[i].name, a->names[i], a->names[j], j + 1,
                          a->list);
        enum answer_reject r = ANSWER_OK;
        if (i < a->n_bufs)
            r = check_buf(ctx, t, a, k, i, &kp[i], why, whycap);
        else if (i < a->n_bufs + a->n_dims &&
                 (kp[i].pointer || kp[i].ref || !int32_type(kp[i].type)))
            r = reject(why, whycap, ANSWER_BAD_ABI,
                       "kernel '%s' parameter %d '%s' must be 'int %s' (a "
                       "size)",
                       k, i + 1, kp[i].text, a->names[i]);
        else if (i == ws_at && !kp[i].pointer)
            r = reject(why, whycap, ANSWER_BAD_ABI,
                       "kernel '%s' parameter %d '%s' must be 'void *ws' "
                       "(the workspace)",
                       k, i + 1, kp[i].text);
        else if (i >= args_at &&
                 (kp[i].pointer || kp[i].ref || !int32_type(kp[i].type)))
            r = reject(why, whycap, ANSWER_BAD_ABI,
                       "kernel '%s' parameter %d '%s' must be 'int %s' (an "
                       "arg)",
                       k, i + 1, kp[i].text, a->names[i]);
        else if (i > ws_at && i < args_at &&
                 (kp[i].pointer || kp[i].ref || !kp[i].grid_constant))
            r = reject(why, whycap, ANSWER_BAD_ABI,
                       "kernel '%s' parameter %d '%s' must be tensor map "
                       "'%s' by value: 'const __grid_constant__ T %s'",
                       k, i + 1, kp[i].text, a->names[i], a->names[i]);
        if (r)
            return r;
    }
    return ANSWER_OK;
}

/* Checks every definition of every launched kernel in the comment-free
 * code nc. */
static enum answer_reject check_abi(struct rx *x, const struct answer_ctx *ctx,
                                    const struct tpl *t, const char *nc,
                                    char *why, size_t whycap)
{
    struct abi a;
    struct kparam kp[MAX_KPARAMS];
    size_t len = strlen(nc);
    abi_init(&a, ctx, t);
    for (int l = 0; l < t->n_launches; l++) {
        const char *k = t->launches[l].kernel;
        PCRE2_SIZE *ov;
        int defs = 0;
        for (size_t at = 0; rx_match(x, RX_KERNEL, nc, len, at, &ov);
             at = ov[1]) {
            size_t nl = ov[5] - ov[4];
            if (nl != strlen(k) || memcmp(nc + ov[4], k, nl))
                continue;
            defs++;
            size_t open = ov[1];
            int n = split_kparams(nc, open, kp);
            if (n < 0)
                return reject(why, whycap, ANSWER_BAD_ABI,
                              "kernel '%s' (line %d): its parameter list is "
                              "not closed",
                              k, line_at(nc, open));
            enum answer_reject r =
                check_params(ctx, t, &a, k, kp, n, why, whycap);
            if (r)
                return r;
        }
        if (!defs)
            return reject(why, whycap, ANSWER_BAD_ABI,
                          "kernel '%s' (launch on line %d) is defined as "
                          "extern \"C\" __global__ only inside a comment",
                          k, t->launches[l].line);
    }
    return ANSWER_OK;
}

/* ---- names in #if lines */

/* Collects the names #defined in s (blank-separated, " A B " form). */
static void add_defines(struct rx *x, const char *s, char *out, size_t cap)
{
    PCRE2_SIZE *ov;
    size_t len = strlen(s);
    for (size_t at = 0; rx_match(x, RX_DEFINE, s, len, at, &ov); at = ov[1]) {
        size_t l = strlen(out);
        if (l + (ov[3] - ov[2]) + 2 >= cap)
            return;
        snprintf(out + l, cap - l, "%.*s ", (int)(ov[3] - ov[2]), s + ov[2]);
    }
}

static int in_list(const char *list, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = list; (p = strstr(p, w)); p++)
        if ((p == list || p[-1] == ' ') && p[n] == ' ')
            return 1;
    return 0;
}

/* Names every CUDA/NVRTC build may define. */
static int known_macro(const char *w)
{
    static const char *const prefix[] = {"CUDA", "NV_",  "NVRTC",
                                         "CUB_", "CCCL", "THRUST",
                                         "FLT_", "DBL_", "LIBCUDACXX"};
    static const char *const exact[] = {"NDEBUG", "INT_MAX", "INT_MIN",
                                        "UINT_MAX", "SIZE_MAX"};
    for (size_t i = 0; i < sizeof prefix / sizeof *prefix; i++)
        if (!strncmp(w, prefix[i], strlen(prefix[i])))
            return 1;
    for (size_t i = 0; i < sizeof exact / sizeof *exact; i++)
        if (!strcmp(w, exact[i]))
            return 1;
    return 0;
}

/* 1 if w is a size or device-fact name of t's variable table. */
static int expr_only_name(const struct tpl *t, const char *w)
{
    for (int i = t->n_params; i < t->n_vars; i++)
        if (!strcmp(t->var_names[i], w))
            return 1;
    return 0;
}

/* Every ALL_CAPS name in an #if/#ifdef/#elif line must be a param, a
 * macro the code (or the prelude) #defines, or a known CUDA macro. */
static enum answer_reject check_pp_names(struct rx *x,
                                         const struct answer_ctx *ctx,
                                         const struct tpl *t, const char *nc,
                                         char *why, size_t whycap)
{
    char defined[8192] = " ";
    PCRE2_SIZE *ov, *cv;
    size_t len = strlen(nc);
    add_defines(x, nc, defined, sizeof defined);
    for (int dt = 0; dt < DTYPE_COUNT; dt++)
        if (t->dtype_mask >> dt & 1)
            add_defines(x, ctx->problem->prelude(ctx->problem, (enum dtype)dt),
                        defined, sizeof defined);
    for (size_t at = 0; rx_match(x, RX_PPIF, nc, len, at, &ov);) {
        /* the inner matches reuse the match data: copy the offsets */
        size_t c0 = ov[2], c1 = ov[3], lstart = ov[0], lend = ov[1];
        at = lend;
        for (size_t c = c0; rx_match(x, RX_CAPS, nc, c1, c, &cv); c = cv[1]) {
            char w[WORD_MAX];
            snprintf(w, sizeof w, "%.*s", (int)(cv[1] - cv[0]), nc + cv[0]);
            int param = 0;
            for (int i = 0; i < t->n_params; i++)
                param |= !strcmp(t->params[i].name, w);
            if (param || in_list(defined, w) || known_macro(w))
                continue;
            int line = line_at(nc, lstart);
            while (lend > lstart && isspace((unsigned char)nc[lend - 1]))
                lend--;
            if (expr_only_name(t, w))
                return reject(why, whycap, ANSWER_BAD_PARAM,
                              "line %d: '%.*s' uses '%s', which is not a macro "
                              "in the code (sizes are kernel arguments; "
                              "sizes and device facts exist only in "
                              "directive expressions)",
                              line,
                              (int)(lend - lstart > 80 ? 80 : lend - lstart),
                              nc + lstart, w);
            return reject(why, whycap, ANSWER_BAD_PARAM,
                          "line %d: '%.*s' uses '%s', which is neither a "
                          "declared param nor #defined in the template: "
                          "declare it with '// kevo: param %s ...'",
                          line, (int)(lend - lstart > 80 ? 80 : lend - lstart),
                          nc + lstart, w, w);
        }
    }
    return ANSWER_OK;
}

/* ---- the template as a whole */

/* Maps a tpl_parse error to a reject code. */
static enum answer_reject parse_reject(const char *err)
{
    if (strstr(err, "unknown name '") ||
        strstr(err, "is never used in the text"))
        return ANSWER_BAD_PARAM;
    return ANSWER_BAD_TEMPLATE;
}

/* Pre-reads the problem directive so that another problem's template is
 * named as such, not as a parse error. */
static enum answer_reject check_problem(struct rx *x,
                                        const struct answer_ctx *ctx,
                                        const char *code, char *why,
                                        size_t whycap)
{
    PCRE2_SIZE *ov;
    size_t len = strlen(code);
    if (!rx_match(x, RX_DIRECTIVE, code, len, 0, &ov))
        return reject(why, whycap, ANSWER_BAD_TEMPLATE,
                      "the code block has no '// kevo:' directives (problem, "
                      "dtypes, param, launch, grid, block...)");
    if (!rx_match(x, RX_PROBLEM, code, len, 0, &ov))
        return ANSWER_OK; /* tpl_parse reports it missing */
    int n = (int)(ov[3] - ov[2]);
    if ((size_t)n != strlen(ctx->problem->name) ||
        memcmp(code + ov[2], ctx->problem->name, (size_t)n))
        return reject(why, whycap, ANSWER_WRONG_PROBLEM,
                      "the template is for problem '%.*s', this run solves "
                      "'%s'",
                      n > 40 ? 40 : n, code + ov[2], ctx->problem->name);
    return ANSWER_OK;
}

/* Steps after tpl_parse: dtype, ABI, #if names, launch plan. */
static enum answer_reject check_template(struct rx *x,
                                         const struct answer_ctx *ctx,
                                         const struct tpl *t, char *why,
                                         size_t whycap)
{
    if (!(t->dtype_mask >> ctx->dtype & 1)) {
        char have[64] = "";
        for (int dt = 0; dt < DTYPE_COUNT; dt++)
            if (t->dtype_mask >> dt & 1)
                snprintf(have + strlen(have), sizeof have - strlen(have),
                         "%s%s", *have ? " " : "", dtype_name((enum dtype)dt));
        return reject(why, whycap, ANSWER_WRONG_PROBLEM,
                      "the template's dtypes are '%s', this run's dtype is "
                      "'%s'",
                      have, dtype_name(ctx->dtype));
    }
    char *nc = blank_comments(t->text);
    if (!nc)
        return reject(why, whycap, ANSWER_BAD_TEMPLATE, "out of memory");
    enum answer_reject r = check_abi(x, ctx, t, nc, why, whycap);
    if (!r)
        r = check_pp_names(x, ctx, t, nc, why, whycap);
    free(nc);
    if (r)
        return r;
    int64_t def[TPL_MAX_PARAMS];
    char sup[256];
    tpl_default_point(t, def);
    if (!tpl_point_valid(t, def, ctx->dev))
        return reject(why, whycap, ANSWER_BAD_LAUNCH,
                      "the default point violates a constraint with this "
                      "GPU's device facts (SMS, SMEM_OPTIN, L2_BYTES)");
    if (tpl_prepare(t, def, ctx->dtype, ctx->shape, ctx->dev, NULL, sup,
                    sizeof sup))
        return reject(why, whycap, ANSWER_BAD_LAUNCH,
                      "at the default point for this run's shape: %s", sup);
    return ANSWER_OK;
}

/* The chosen block's text, with a final newline; NULL without memory. */
static char *block_text(const char *text, const struct block *b)
{
    char *s = malloc(b->len + 2);
    if (!s)
        return NULL;
    memcpy(s, text + b->start, b->len);
    size_t n = b->len;
    if (n && s[n - 1] == '\r')
        n--;
    if (!n || s[n - 1] != '\n')
        s[n++] = '\n';
    s[n] = '\0';
    return s;
}

/* Everything from the block to a parsed template; *t set on success. */
static enum answer_reject from_block(struct rx *x, const struct answer_ctx *ctx,
                                     const char *code, struct tpl **t,
                                     char *why, size_t whycap)
{
    char err[512];
    if (strlen(code) > ANSWER_CODE_MAX)
        return reject(why, whycap, ANSWER_BAD_TEMPLATE,
                      "the code block has %zu bytes, more than %u",
                      strlen(code), ANSWER_CODE_MAX);
    enum answer_reject r = check_problem(x, ctx, code, why, whycap);
    if (r)
        return r;
    int rc = tpl_parse(ctx->name, NULL, code, t, err, sizeof err);
    if (rc == KEVO_EPARSE) {
        r = parse_reject(err);
        return reject(why, whycap, r, "%s%s", err,
                      r == ANSWER_BAD_PARAM && strstr(err, "unknown name")
                          ? " (not a declared param, a size or a device fact)"
                          : "");
    }
    if (rc)
        return reject(why, whycap, ANSWER_BAD_TEMPLATE, "%s", err);
    r = check_template(x, ctx, *t, why, whycap);
    if (r) {
        tpl_free(*t);
        *t = NULL;
    }
    return r;
}

enum answer_reject answer_parse(const struct answer_ctx *ctx, const char *text,
                                struct tpl **out, char **source, char *why,
                                size_t whycap)
{
    struct rx x;
    struct block b;
    struct tpl *t = NULL;
    *out = NULL;
    *source = NULL;
    snprintf(why, whycap, "%s", "");
    size_t len = text ? strnlen(text, ANSWER_TEXT_MAX + 1) : 0;
    if (len > ANSWER_TEXT_MAX)
        return reject(why, whycap, ANSWER_BAD_TEMPLATE,
                      "the answer is longer than %u bytes", ANSWER_TEXT_MAX);
    if (rx_init(&x))
        return reject(why, whycap, ANSWER_BAD_TEMPLATE, "out of memory");
    enum answer_reject r = ANSWER_OK;
    char *code = NULL;
    if (!len || !find_block(&x, text, len, &b))
        r = reject(why, whycap, ANSWER_NO_CODE,
                   "no fenced code block (```cuda ... ```) in the answer");
    else if (!b.closed)
        r = reject(why, whycap, ANSWER_NO_CODE,
                   "the code block opened on line %d is not closed (the "
                   "answer was cut off?)",
                   b.line);
    else if (blank(text + b.start, b.len))
        r = reject(why, whycap, ANSWER_NO_CODE,
                   "the code block on line %d is empty", b.line);
    else if (!(code = block_text(text, &b)))
        r = reject(why, whycap, ANSWER_BAD_TEMPLATE, "out of memory");
    else
        r = from_block(&x, ctx, code, &t, why, whycap);
    rx_release(&x);
    if (r) {
        free(code);
        return r;
    }
    *out = t;
    *source = code;
    return ANSWER_OK;
}
