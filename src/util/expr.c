/*
 * expr.c - kevo's one expression language (see expr.h): a recursive-descent
 * parser that emits a small stack program, and two loops that run it, one on
 * int64 (constraints, launch plans, sizes) and one on double (a problem
 * file's tolerances and work models).
 *
 * The program is one allocation (struct, ops, source text). Evaluation
 * uses a fixed stack of EXPR_STACK slots; the compiler tracks the depth
 * each op reaches and rejects deeper programs, so the evaluator never
 * checks bounds. && || and ?: compile to jumps, so the untaken side is
 * never run (a division by zero there does not fail).
 */
#include "expr.h"

#include <assert.h>
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPR_STACK 64 /* value slots; enough for any sane constraint */
#define EXPR_NEST 64  /* parser recursion limit (parentheses, unary ops) */

enum opcode {
    OP_PUSH, /* push arg */
    OP_LOAD, /* push vals[arg] */
    OP_NEG,
    OP_NOT,
    OP_BNOT,
    OP_BOOL,
    OP_LOG2,
    OP_ISPOW2,
    OP_SQRT, /* real expressions only */
    OP_MUL,
    OP_DIV,
    OP_MOD,
    OP_ADD,
    OP_SUB,
    OP_SHL,
    OP_SHR,
    OP_LT,
    OP_LE,
    OP_GT,
    OP_GE,
    OP_EQ,
    OP_NE,
    OP_BAND,
    OP_BXOR,
    OP_BOR,
    OP_CDIV,
    OP_MIN,
    OP_MAX,
    OP_ALIGN,
    OP_JZ,  /* pop; jump to arg if it was zero */
    OP_JMP, /* jump to arg */
    OP_JZK, /* top zero: keep it and jump to arg; else pop (for &&) */
    OP_JNZK /* top nonzero: make it 1 and jump to arg; else pop (||) */
};

struct op {
    int32_t code; /* enum opcode */
    int64_t arg;  /* literal (a real's bits), variable index or jump target */
};

struct expr {
    char *text;    /* points into this allocation, after ops */
    uint64_t uses; /* bit i = reads names[i] (i < 64) */
    int real;      /* compiled by expr_compile_real: runs on doubles */
    int n_ops;
    struct op ops[]; /* the program */
};

/* ---- tokens ---- */

enum tok {
    T_END,
    T_NUM,
    T_NAME,
    T_LP,
    T_RP,
    T_COMMA,
    T_QUEST,
    T_COLON,
    T_NOT,
    T_BNOT,
    T_OROR,
    T_ANDAND,
    T_OR,
    T_XOR,
    T_AND,
    T_EQ,
    T_NE,
    T_LT,
    T_LE,
    T_GT,
    T_GE,
    T_SHL,
    T_SHR,
    T_PLUS,
    T_MINUS,
    T_STAR,
    T_SLASH,
    T_PCT,
    T_BAD
};

static const struct {
    const char *s;
    enum tok t;
} punct[] = {
    /* two-character tokens first, so that "<=" is not read as "<" */
    {"||", T_OROR}, {"&&", T_ANDAND}, {"==", T_EQ},   {"!=", T_NE},
    {"<=", T_LE},   {">=", T_GE},     {"<<", T_SHL},  {">>", T_SHR},
    {"(", T_LP},    {")", T_RP},      {",", T_COMMA}, {"?", T_QUEST},
    {":", T_COLON}, {"!", T_NOT},     {"~", T_BNOT},  {"|", T_OR},
    {"^", T_XOR},   {"&", T_AND},     {"<", T_LT},    {">", T_GT},
    {"+", T_PLUS},  {"-", T_MINUS},   {"*", T_STAR},  {"/", T_SLASH},
    {"%", T_PCT},
};

/* Binary operators by precedence level, 1 = loosest (C's table). */
static const struct {
    enum tok t;
    int prec;
    enum opcode op;
} binops[] = {
    {T_OROR, 1, OP_JNZK}, {T_ANDAND, 2, OP_JZK}, {T_OR, 3, OP_BOR},
    {T_XOR, 4, OP_BXOR},  {T_AND, 5, OP_BAND},   {T_EQ, 6, OP_EQ},
    {T_NE, 6, OP_NE},     {T_LT, 7, OP_LT},      {T_LE, 7, OP_LE},
    {T_GT, 7, OP_GT},     {T_GE, 7, OP_GE},      {T_SHL, 8, OP_SHL},
    {T_SHR, 8, OP_SHR},   {T_PLUS, 9, OP_ADD},   {T_MINUS, 9, OP_SUB},
    {T_STAR, 10, OP_MUL}, {T_SLASH, 10, OP_DIV}, {T_PCT, 10, OP_MOD},
};
#define PREC_MAX 10

/* Which expressions may use a function: both, int64 only, double only. */
enum mode { ANY, INT_ONLY, REAL_ONLY };

static const struct {
    const char *name;
    int n_args;
    enum opcode op;
    enum mode mode;
} funcs[] = {
    {"cdiv", 2, OP_CDIV, INT_ONLY},     {"min", 2, OP_MIN, ANY},
    {"max", 2, OP_MAX, ANY},            {"log2", 1, OP_LOG2, ANY},
    {"ispow2", 1, OP_ISPOW2, INT_ONLY}, {"align", 2, OP_ALIGN, INT_ONLY},
    {"sqrt", 1, OP_SQRT, REAL_ONLY},
};

/* ---- parser state ---- */

struct parser {
    const char *src;          /* whole text, for columns */
    const char *p;            /* next unread character */
    enum tok tok;             /* current token */
    const char *tok_at;       /* its first character */
    size_t tok_len;           /* its length in characters */
    int64_t num;              /* value of a T_NUM (a real's bits) */
    int real;                 /* expr_compile_real: numbers are doubles */
    const char *const *names; /* borrowed variable names */
    int n_names;
    struct op *ops; /* growing program, owned until the end */
    int n_ops, cap_ops;
    int depth;     /* stack slots in use after the last op */
    int nest;      /* current recursion depth */
    uint64_t uses; /* names read */
    int failed;    /* first error is in err */
    int oom;       /* the failure was out of memory */
    char *err;
    size_t errcap;
};

static void fail(struct parser *ps, const char *at, const char *fmt, ...)
    KEVO_PRINTF(3, 4);

static void fail(struct parser *ps, const char *at, const char *fmt, ...)
{
    if (ps->failed)
        return;
    ps->failed = 1;
    int n =
        snprintf(ps->err, ps->errcap, "column %d: ", (int)(at - ps->src) + 1);
    if (n < 0 || (size_t)n >= ps->errcap)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ps->err + n, ps->errcap - (size_t)n, fmt, ap);
    va_end(ap);
}

/* Fails with "unexpected <current token>" plus an optional context. */
static void fail_tok(struct parser *ps, const char *what)
{
    if (ps->tok == T_END)
        fail(ps, ps->tok_at, "%s end of expression", what);
    else
        fail(ps, ps->tok_at, "%s '%.*s'", what, (int)ps->tok_len, ps->tok_at);
}

/* Fails on an operator a real expression cannot use. */
static void fail_int_only(struct parser *ps)
{
    fail(ps, ps->tok_at, "'%.*s' is for integer expressions",
         (int)ps->tok_len, ps->tok_at);
}

static int is_name_char(int c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Reads a real literal (strtod's syntax: "2", ".5", "1e-6") at ps->p. */
static void lex_real(struct parser *ps)
{
    const char *s = ps->p;
    char *end;
    double v = strtod(s, &end);
    const char *q = end;
    int ok = q > s && isfinite(v);
    while (is_name_char(*q))
        q++, ok = 0; /* "2e", "1.5x": not a number */
    ps->tok = T_NUM;
    ps->tok_len = (size_t)(q - s);
    ps->p = q;
    memcpy(&ps->num, &v, sizeof v);
    if (!ok)
        fail(ps, s, "bad number '%.*s'", (int)ps->tok_len, s);
}

/* Reads a decimal or 0x hex literal at ps->p (a digit). */
static void lex_number(struct parser *ps)
{
    const char *s = ps->p, *q = s;
    int base = 10;
    uint64_t v = 0;
    int overflow = 0, digits = 0;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        q += 2;
    }
    for (; isxdigit((unsigned char)*q); q++, digits++) {
        int d = isdigit((unsigned char)*q)
                    ? *q - '0'
                    : (tolower((unsigned char)*q) - 'a' + 10);
        if (d >= base)
            break;
        overflow |= v > (uint64_t)(INT64_MAX - d) / (uint64_t)base;
        v = v * (uint64_t)base + (uint64_t)d;
    }
    while (is_name_char(*q))
        q++, digits = -1; /* "12abc", "0x", "0x1g": not a number */
    ps->tok = T_NUM;
    ps->tok_len = (size_t)(q - s);
    ps->p = q;
    ps->num = (int64_t)v;
    if (digits <= 0 || overflow)
        fail(ps, s, "bad number '%.*s'", (int)ps->tok_len, s);
}

static void lex_punct(struct parser *ps)
{
    for (size_t i = 0; i < sizeof punct / sizeof punct[0]; i++) {
        size_t n = strlen(punct[i].s);
        if (!strncmp(ps->p, punct[i].s, n)) {
            ps->tok = punct[i].t;
            ps->tok_len = n;
            ps->p += n;
            return;
        }
    }
    ps->tok = T_BAD;
    ps->tok_len = 1;
    fail(ps, ps->p, "unexpected character '%c'", *ps->p);
    ps->p++;
}

/* Advances to the next token. */
static void next(struct parser *ps)
{
    while (isspace((unsigned char)*ps->p))
        ps->p++;
    ps->tok_at = ps->p;
    if (!*ps->p) {
        ps->tok = T_END;
        ps->tok_len = 0;
    } else if (ps->real && (isdigit((unsigned char)*ps->p) ||
                            (*ps->p == '.' &&
                             isdigit((unsigned char)ps->p[1])))) {
        lex_real(ps);
    } else if (isdigit((unsigned char)*ps->p)) {
        lex_number(ps);
    } else if (isalpha((unsigned char)*ps->p) || *ps->p == '_') {
        while (is_name_char(*ps->p))
            ps->p++;
        ps->tok = T_NAME;
        ps->tok_len = (size_t)(ps->p - ps->tok_at);
    } else {
        lex_punct(ps);
    }
}

/* ---- code emission ---- */

/* Stack effect of each op on the straight-line path. */
static int stack_effect(enum opcode op)
{
    switch (op) {
    case OP_PUSH:
    case OP_LOAD:
        return 1;
    case OP_NEG:
    case OP_NOT:
    case OP_BNOT:
    case OP_BOOL:
    case OP_LOG2:
    case OP_ISPOW2:
    case OP_SQRT:
    case OP_JMP:
        return 0;
    default: /* binary ops, functions of two arguments, conditional jumps */
        return -1;
    }
}

/* Appends an op; returns its index (for patching jumps) or -1. */
static int emit(struct parser *ps, enum opcode op, int64_t arg)
{
    if (ps->failed)
        return -1;
    if (ps->n_ops == ps->cap_ops) {
        int cap = ps->cap_ops ? 2 * ps->cap_ops : 16;
        struct op *n = realloc(ps->ops, (size_t)cap * sizeof *n);
        if (!n) {
            fail(ps, ps->tok_at, "out of memory");
            ps->oom = 1;
            return -1;
        }
        ps->ops = n;
        ps->cap_ops = cap;
    }
    ps->depth += stack_effect(op);
    assert(ps->depth >= 0);
    if (ps->depth > EXPR_STACK)
        fail(ps, ps->tok_at, "expression too complex");
    ps->ops[ps->n_ops] = (struct op){op, arg};
    return ps->n_ops++;
}

/* Points jump at to the next op to be emitted. */
static void patch(struct parser *ps, int at)
{
    if (at >= 0 && !ps->failed)
        ps->ops[at].arg = ps->n_ops;
}

/* ---- grammar ---- */

static void parse_ternary(struct parser *ps);

/* Consumes the current token if it is t; returns 1 if it was. */
static int accept(struct parser *ps, enum tok t)
{
    if (ps->tok != t)
        return 0;
    next(ps);
    return 1;
}

static void expect_rparen(struct parser *ps)
{
    if (!accept(ps, T_RP))
        fail_tok(ps,
                 ps->tok == T_END ? "missing ')' at" : "missing ')' before");
}

static void parse_call(struct parser *ps, const char *at, size_t len)
{
    int f = -1;
    for (int i = 0; i < (int)(sizeof funcs / sizeof funcs[0]); i++)
        if (strlen(funcs[i].name) == len && !strncmp(funcs[i].name, at, len))
            f = i;
    if (f < 0) {
        fail(ps, at, "unknown function '%.*s'", (int)len, at);
        return;
    }
    if (funcs[f].mode == (ps->real ? INT_ONLY : REAL_ONLY)) {
        fail(ps, at, "%s() is for %s expressions", funcs[f].name,
             ps->real ? "integer" : "real");
        return;
    }
    next(ps); /* '(' */
    int n = 0;
    if (ps->tok != T_RP)
        do {
            parse_ternary(ps);
            n++;
        } while (!ps->failed && accept(ps, T_COMMA));
    expect_rparen(ps);
    if (n != funcs[f].n_args)
        fail(ps, at, "%s() takes %d argument%s, got %d", funcs[f].name,
             funcs[f].n_args, funcs[f].n_args == 1 ? "" : "s", n);
    emit(ps, funcs[f].op, 0);
}

static void parse_name(struct parser *ps)
{
    const char *at = ps->tok_at;
    size_t len = ps->tok_len;
    next(ps);
    if (ps->tok == T_LP) {
        parse_call(ps, at, len);
        return;
    }
    for (int i = 0; i < ps->n_names; i++)
        if (strlen(ps->names[i]) == len && !strncmp(ps->names[i], at, len)) {
            if (i < 64)
                ps->uses |= 1ULL << i;
            emit(ps, OP_LOAD, i);
            return;
        }
    fail(ps, at, "unknown name '%.*s'", (int)len, at);
}

static void parse_primary(struct parser *ps)
{
    if (ps->tok == T_NUM) {
        emit(ps, OP_PUSH, ps->num);
        next(ps);
    } else if (ps->tok == T_NAME) {
        parse_name(ps);
    } else if (accept(ps, T_LP)) {
        parse_ternary(ps);
        expect_rparen(ps);
    } else {
        fail_tok(ps, "unexpected");
    }
}

static void parse_unary(struct parser *ps)
{
    int op; /* enum opcode, or -1 for unary + (which changes nothing) */
    switch (ps->tok) {
    case T_MINUS:
        op = OP_NEG;
        break;
    case T_NOT:
        op = OP_NOT;
        break;
    case T_BNOT:
        op = OP_BNOT;
        if (ps->real) {
            fail_int_only(ps);
            return;
        }
        break;
    case T_PLUS:
        op = -1;
        break;
    default:
        parse_primary(ps);
        return;
    }
    if (++ps->nest > EXPR_NEST) {
        fail(ps, ps->tok_at, "expression nested too deeply");
        return;
    }
    next(ps);
    parse_unary(ps);
    if (op >= 0)
        emit(ps, (enum opcode)op, 0);
    ps->nest--;
}

static int binop_index(enum tok t)
{
    for (int i = 0; i < (int)(sizeof binops / sizeof binops[0]); i++)
        if (binops[i].t == t)
            return i;
    return -1;
}

/* Operators C defines on integers only (% << >> & ^ |). */
static int int_only(enum opcode op)
{
    return op == OP_MOD || op == OP_SHL || op == OP_SHR || op == OP_BAND ||
           op == OP_BXOR || op == OP_BOR;
}

/* Parses a chain of binary operators of precedence >= prec (left assoc). */
static void parse_binary(struct parser *ps, int prec)
{
    if (prec > PREC_MAX) {
        parse_unary(ps);
        return;
    }
    parse_binary(ps, prec + 1);
    for (;;) {
        int b = binop_index(ps->tok);
        if (ps->failed || b < 0 || binops[b].prec != prec)
            return;
        enum opcode op = binops[b].op;
        if (ps->real && int_only(op)) {
            fail_int_only(ps);
            return;
        }
        next(ps);
        if (op == OP_JZK || op == OP_JNZK) {
            int j = emit(ps, op, 0);
            parse_binary(ps, prec + 1);
            emit(ps, OP_BOOL, 0);
            patch(ps, j);
        } else {
            parse_binary(ps, prec + 1);
            emit(ps, op, 0);
        }
    }
}

/* cond ? a : b, right associative, below || (C's conditional-expression). */
static void parse_ternary(struct parser *ps)
{
    if (++ps->nest > EXPR_NEST) {
        fail(ps, ps->tok_at, "expression nested too deeply");
        return;
    }
    parse_binary(ps, 1);
    if (!ps->failed && accept(ps, T_QUEST)) {
        int jz = emit(ps, OP_JZ, 0);
        parse_ternary(ps);
        int jmp = emit(ps, OP_JMP, 0);
        ps->depth--; /* the else branch starts without the then value */
        patch(ps, jz);
        if (!ps->failed && !accept(ps, T_COLON))
            fail_tok(ps, "expected ':' before");
        parse_ternary(ps);
        patch(ps, jmp);
    }
    ps->nest--;
}

/* Builds the final single-allocation expression from a finished parse. */
static struct expr *finish(struct parser *ps, const char *text)
{
    size_t len = strlen(text);
    size_t ops_bytes = (size_t)ps->n_ops * sizeof(struct op);
    struct expr *e = malloc(sizeof *e + ops_bytes + len + 1);
    if (!e)
        return NULL;
    e->uses = ps->uses;
    e->real = ps->real;
    e->n_ops = ps->n_ops;
    memcpy(e->ops, ps->ops, ops_bytes);
    e->text = (char *)e->ops + ops_bytes;
    memcpy(e->text, text, len + 1);
    return e;
}

static int compile(const char *text, const char *const *names, int n_names,
                   int real, struct expr **out, char *err, size_t errcap)
{
    struct parser ps = {.src = text,
                        .p = text,
                        .names = names,
                        .n_names = n_names,
                        .real = real,
                        .err = err,
                        .errcap = errcap};
    *out = NULL;
    next(&ps);
    if (ps.tok == T_END)
        fail(&ps, text, "empty expression");
    if (!ps.failed)
        parse_ternary(&ps);
    if (!ps.failed && ps.tok != T_END)
        fail(&ps, ps.tok_at, "unexpected '%.*s' after the expression",
             (int)ps.tok_len, ps.tok_at);
    int rc = KEVO_OK;
    if (ps.failed) {
        rc = ps.oom ? KEVO_ENOMEM : KEVO_EPARSE;
    } else if (!(*out = finish(&ps, text))) {
        snprintf(err, errcap, "out of memory");
        rc = KEVO_ENOMEM;
    }
    free(ps.ops);
    return rc;
}

int expr_compile(const char *text, const char *const *names, int n_names,
                 struct expr **out, char *err, size_t errcap)
{
    return compile(text, names, n_names, 0, out, err, errcap);
}

int expr_compile_real(const char *text, const char *const *names,
                      int n_names, struct expr **out, char *err,
                      size_t errcap)
{
    return compile(text, names, n_names, 1, out, err, errcap);
}

/* ---- evaluation ---- */

/* Applies a one-operand op; -1 on overflow or a value outside its domain. */
static int unary(enum opcode op, int64_t a, int64_t *r)
{
    switch (op) {
    case OP_NEG:
        return __builtin_sub_overflow((int64_t)0, a, r) ? -1 : 0;
    case OP_NOT:
        *r = !a;
        return 0;
    case OP_BNOT:
        *r = ~a;
        return 0;
    case OP_BOOL:
        *r = a != 0;
        return 0;
    case OP_ISPOW2:
        *r = a > 0 && !(a & (a - 1));
        return 0;
    case OP_LOG2:
        if (a <= 0)
            return -1;
        *r = 63 - __builtin_clzll((unsigned long long)a);
        return 0;
    default:
        assert(!"not a unary op");
        return -1;
    }
}

/* Shifts of negative counts or counts >= 64 are undefined in C: fail. */
static int shift(enum opcode op, int64_t a, int64_t b, int64_t *r)
{
    if (b < 0 || b > 63)
        return -1;
    if (op == OP_SHR) {
        *r = a >> b; /* arithmetic on GCC/Clang, like the CUDA side */
        return 0;
    }
    *r = (int64_t)((uint64_t)a << b);
    return (*r >> b) == a ? 0 : -1; /* bits lost = overflow */
}

static int divide(enum opcode op, int64_t a, int64_t b, int64_t *r)
{
    if (b == 0 || (a == INT64_MIN && b == -1))
        return -1;
    *r = op == OP_DIV ? a / b : a % b;
    return 0;
}

/* cdiv(a, b) = (a + b - 1) / b, exactly as documented (also for b < 0). */
static int cdiv(int64_t a, int64_t b, int64_t *r)
{
    int64_t t;
    if (__builtin_add_overflow(a, b, &t) || __builtin_sub_overflow(t, 1, &t))
        return -1;
    return divide(OP_DIV, t, b, r);
}

/* Applies a two-operand op; -1 on division by zero or overflow. */
static int binary(enum opcode op, int64_t a, int64_t b, int64_t *r)
{
    switch (op) {
    case OP_ADD:
        return __builtin_add_overflow(a, b, r) ? -1 : 0;
    case OP_SUB:
        return __builtin_sub_overflow(a, b, r) ? -1 : 0;
    case OP_MUL:
        return __builtin_mul_overflow(a, b, r) ? -1 : 0;
    case OP_DIV:
    case OP_MOD:
        return divide(op, a, b, r);
    case OP_SHL:
    case OP_SHR:
        return shift(op, a, b, r);
    case OP_LT:
        *r = a < b;
        return 0;
    case OP_LE:
        *r = a <= b;
        return 0;
    case OP_GT:
        *r = a > b;
        return 0;
    case OP_GE:
        *r = a >= b;
        return 0;
    case OP_EQ:
        *r = a == b;
        return 0;
    case OP_NE:
        *r = a != b;
        return 0;
    case OP_BAND:
        *r = a & b;
        return 0;
    case OP_BXOR:
        *r = a ^ b;
        return 0;
    case OP_BOR:
        *r = a | b;
        return 0;
    case OP_MIN:
        *r = a < b ? a : b;
        return 0;
    case OP_MAX:
        *r = a > b ? a : b;
        return 0;
    case OP_CDIV:
        return cdiv(a, b, r);
    case OP_ALIGN:
        if (cdiv(a, b, r))
            return -1;
        return __builtin_mul_overflow(*r, b, r) ? -1 : 0;
    default:
        assert(!"not a binary op");
        return -1;
    }
}

int expr_eval(const struct expr *e, const int64_t *vals, int64_t *out)
{
    assert(!e->real);
    int64_t st[EXPR_STACK];
    int sp = 0;
    for (int pc = 0; pc < e->n_ops;) {
        const struct op *o = &e->ops[pc++];
        switch ((enum opcode)o->code) {
        case OP_PUSH:
            st[sp++] = o->arg;
            break;
        case OP_LOAD:
            st[sp++] = vals[o->arg];
            break;
        case OP_JMP:
            pc = (int)o->arg;
            break;
        case OP_JZ:
            if (!st[--sp])
                pc = (int)o->arg;
            break;
        case OP_JZK:
            if (!st[sp - 1])
                pc = (int)o->arg;
            else
                sp--;
            break;
        case OP_JNZK:
            if (st[sp - 1]) {
                st[sp - 1] = 1;
                pc = (int)o->arg;
            } else {
                sp--;
            }
            break;
        case OP_NEG:
        case OP_NOT:
        case OP_BNOT:
        case OP_BOOL:
        case OP_LOG2:
        case OP_ISPOW2:
            if (unary((enum opcode)o->code, st[sp - 1], &st[sp - 1]))
                return -1;
            break;
        default:
            sp--;
            if (binary((enum opcode)o->code, st[sp - 1], st[sp], &st[sp - 1]))
                return -1;
            break;
        }
    }
    assert(sp == 1);
    *out = st[0];
    return 0;
}

/* One real op; the parser let no integer-only op into a real program. */
static double real_op(enum opcode op, double a, double b)
{
    switch (op) {
    case OP_NEG:
        return -a;
    case OP_NOT:
        return !a;
    case OP_BOOL:
        return a != 0;
    case OP_LOG2:
        return log2(a);
    case OP_SQRT:
        return sqrt(a);
    case OP_ADD:
        return a + b;
    case OP_SUB:
        return a - b;
    case OP_MUL:
        return a * b;
    case OP_DIV:
        return a / b;
    case OP_LT:
        return a < b;
    case OP_LE:
        return a <= b;
    case OP_GT:
        return a > b;
    case OP_GE:
        return a >= b;
    case OP_EQ:
        return a == b;
    case OP_NE:
        return a != b;
    case OP_MIN:
        return fmin(a, b);
    case OP_MAX:
        return fmax(a, b);
    default:
        assert(!"not a real op");
        return NAN;
    }
}

double expr_eval_real(const struct expr *e, const double *vals)
{
    assert(e->real);
    double st[EXPR_STACK];
    int sp = 0;
    for (int pc = 0; pc < e->n_ops;) {
        const struct op *o = &e->ops[pc++];
        switch ((enum opcode)o->code) {
        case OP_PUSH:
            memcpy(&st[sp++], &o->arg, sizeof(double));
            break;
        case OP_LOAD:
            st[sp++] = vals[o->arg];
            break;
        case OP_JMP:
            pc = (int)o->arg;
            break;
        case OP_JZ:
            if (!st[--sp])
                pc = (int)o->arg;
            break;
        case OP_JZK:
            if (!st[sp - 1])
                pc = (int)o->arg;
            else
                sp--;
            break;
        case OP_JNZK:
            if (st[sp - 1]) {
                st[sp - 1] = 1;
                pc = (int)o->arg;
            } else {
                sp--;
            }
            break;
        case OP_NEG:
        case OP_NOT:
        case OP_BOOL:
        case OP_LOG2:
        case OP_SQRT:
            st[sp - 1] = real_op((enum opcode)o->code, st[sp - 1], 0);
            break;
        default:
            sp--;
            st[sp - 1] = real_op((enum opcode)o->code, st[sp - 1], st[sp]);
            break;
        }
    }
    assert(sp == 1);
    return st[0];
}

const char *expr_text(const struct expr *e)
{
    return e->text;
}

uint64_t expr_uses(const struct expr *e)
{
    return e->uses;
}

void expr_free(struct expr *e)
{
    free(e); /* ops and text live in the same allocation */
}
