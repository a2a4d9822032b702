/*
 * test_userprob.c - user-defined problem files (fitness/userprob.c): the
 * shipped example parses into a problem whose buffers, ABI, tolerance,
 * work model and shape checks follow the file; every kind of bad input is
 * refused with "file:line: what"; loading registers the problem for
 * problem_find, and a different text under a loaded name is refused.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fsutil.h"
#include "jit.h"
#include "problem.h"
#include "tpl.h"

#define EXAMPLE "examples/problems/scale/scale.problem"

/* A small valid file; bad cases are edits of it. */
static const char good[] =
    "# comment\n"                                             /* 1 */
    "problem tiny\n"                                          /* 2 */
    "summary y = x * 2\n"                                     /* 3 */
    "sizes N M\n"                                             /* 4 */
    "dtypes fp32 bf16\n"                                      /* 5 */
    "buffer x in elem N*M rows=N fill=offset(-80,80,5)\n"     /* 6 */
    "buffer s in fp32 M fill=int(-3,3)\n"                     /* 7 */
    "buffer y out elem N*M rows=N\n"                          /* 8 */
    "buffer st out fp32 N\n"                                  /* 9 */
    "requires M % 2 == 0\n"                                   /* 10 */
    "tolerance fp32 atol=1e-6*sqrt(M) rtol=2e-6\n"            /* 11 */
    "tolerance * atol=1e-2 rtol=max(1e-2,1/M)\n"              /* 12 */
    "work flops\n"                                            /* 13 */
    "flops 3*N*M\n"                                           /* 14 */
    "min_bytes (N*M*2 + M)*elem_bytes\n"                      /* 15 */
    "reference <<END\n"                                       /* 16 */
    "extern \"C\" __global__ void kevo_reference(const double *x,\n"
    "  const double *s, double *y, double *st, int N, int M) {}\n"
    "END\n"                                                   /* 19 */
    "reference_grid cdiv(N*M, 256)\n"                         /* 20 */
    "reference_block 256\n";                                  /* 21 */

static char *slurp(const char *path)
{
    char *t = NULL;
    if (fs_read_file(path, &t, NULL))
        return NULL;
    return t;
}

static void test_example(void)
{
    char *text = slurp(EXAMPLE), err[512] = "";
    CHECK(text != NULL);
    if (!text)
        return;
    struct problem *p = NULL;
    int rc = problem_parse_file_text(EXAMPLE, text, &p, err, sizeof err);
    CHECK_MSG(rc == 0, "%s", err);
    if (!rc) {
        CHECK(!strcmp(p->name, "scale"));
        CHECK(p->n_dims == 2 && !strcmp(p->dim_names[1], "COLS"));
        CHECK(p->dtype_mask == 7);
        CHECK(!strcmp(p->work_unit, "B/s"));
        CHECK(p->description && strstr(p->description, "g[c]"));
        CHECK(!strcmp(p->abi, "extern \"C\" __global__ void KERNEL(const "
                              "elem_t *__restrict__ x, const elem_t "
                              "*__restrict__ g, elem_t *__restrict__ y, int "
                              "ROWS, int COLS, void *ws)"));
        struct shape s = {2, {100, 30}};
        struct buf_desc d[PROB_MAX_BUFS];
        CHECK(p->buffers(p, &s, DTYPE_BF16, d) == 3);
        CHECK(d[0].n_elems == 3000 && d[0].rows == 100 && d[0].cols == 30);
        CHECK(d[1].n_elems == 30 && d[1].rows == 0 && d[1].role == BUF_IN);
        CHECK(d[2].role == BUF_OUT && d[2].dtype == DTYPE_BF16);
        /* min_bytes auto: every buffer once */
        CHECK(p->work(p, &s, DTYPE_BF16) == (3000 + 30 + 3000) * 2.0);
        CHECK(p->flops(p, &s, DTYPE_FP32) == 3000);
        double atol, rtol;
        p->tolerance(p, &s, DTYPE_FP16, &atol, &rtol);
        CHECK(atol == 1e-3 && rtol == 2e-3);
        CHECK(p->check_shape(p, &s, err, sizeof err) == 0);
        CHECK(strstr(p->harness_src, "#line 25 \"" EXAMPLE "\""));
        CHECK(strstr(p->harness_src, "kevo_up_gen"));
        CHECK(!strcmp(p->file_text, text));
        problem_free_user(p);
    }
    free(text);
}

static void test_good(void)
{
    char err[512] = "";
    struct problem *p = NULL;
    int rc = problem_parse_file_text("t.problem", good, &p, err, sizeof err);
    CHECK_MSG(rc == 0, "%s", err);
    if (rc)
        return;
    struct shape s = {2, {10, 16}};
    double atol, rtol;
    p->tolerance(p, &s, DTYPE_FP32, &atol, &rtol);
    CHECK(fabs(atol - 4e-6) < 1e-18 && rtol == 2e-6);
    p->tolerance(p, &s, DTYPE_BF16, &atol, &rtol); /* '*' */
    CHECK(atol == 1e-2 && rtol == 1.0 / 16);
    CHECK(!strcmp(p->work_unit, "FLOP/s"));
    CHECK(p->work(p, &s, DTYPE_FP32) == 480);
    CHECK(p->min_bytes(p, &s, DTYPE_BF16) == (320 + 16) * 2.0);
    CHECK(strstr(p->abi, "const float *__restrict__ s, elem_t "
                         "*__restrict__ y, float *__restrict__ st, int N, "
                         "int M, void *ws)"));
    /* a fixed fp32 buffer needs no header; the bf16 prelude has its own */
    CHECK(strstr(p->prelude(p, DTYPE_BF16), "cuda_bf16.h"));
    CHECK(!strstr(p->prelude(p, DTYPE_FP32), "cuda_fp16.h"));
    struct shape odd = {2, {10, 15}};
    CHECK(p->check_shape(p, &odd, err, sizeof err) == KEVO_EINVAL);
    CHECK_MSG(strstr(err, "fails 'M % 2 == 0' (t.problem:10)"), "%s", err);
    problem_free_user(p);
}

/* Replaces line `line` (1-based) of good with repl (NULL: delete it). */
static char *edit(int line, const char *repl)
{
    size_t cap = sizeof good + strlen(repl ? repl : "") + 2;
    char *out = malloc(cap), *o = out;
    const char *s = good;
    for (int l = 1; *s; l++) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) + 1 : strlen(s);
        if (l != line) {
            memcpy(o, s, len);
            o += len;
        } else if (repl) {
            o += sprintf(o, "%s\n", repl);
        }
        s += len;
    }
    *o = '\0';
    return out;
}

static const struct {
    int line;
    const char *repl;  /* NULL: delete the line */
    const char *want;  /* in the error */
} bad[] = {
    {2, "problem Tiny", "t.problem:2: 'problem' takes one name"},
    {2, "problem gemm", "t.problem:2: 'gemm' is a built-in problem"},
    {2, NULL, "missing required key 'problem'"},
    {3, "bogus 1", "t.problem:3: unknown key 'bogus'"},
    {3, "summary", "t.problem:3: 'summary' needs a value"},
    {4, "sizes N n", "t.problem:4: size name 'n' must be upper case"},
    {4, "sizes N N", "t.problem:4: duplicate size 'N'"},
    {4, "sizes A B C D E F G H I", "t.problem:4: 'sizes' takes 1 to 8 names"},
    {5, "dtypes fp64", "t.problem:5: unknown dtype 'fp64'"},
    {6, "buffer x in elem", "t.problem:6: 'buffer' takes NAME ROLE TYPE"},
    {6, "buffer x input elem N", "t.problem:6: buffer 'x': unknown role "
                                 "'input' (in, out or inout)"},
    {6, "buffer x in int32 N", "t.problem:6: buffer 'x': unknown type "
                               "'int32'"},
    {6, "buffer x in elem N*Q", "t.problem:6: buffer count 'N*Q': column 3: "
                                "unknown name 'Q'"},
    {6, "buffer x in elem N fill=gauss(0,1)", "t.problem:6: buffer 'x': "
                                              "unknown distribution 'gauss'"},
    {6, "buffer x in elem N fill=uniform(1,0)", "t.problem:6: buffer 'x': "
                                                "uniform needs LO < HI"},
    {6, "buffer x in elem N fill=normal(0)", "t.problem:6: buffer 'x': normal "
                                             "takes 2 arguments, got 1"},
    {6, "buffer x in elem N fill=const(a)", "t.problem:6: buffer 'x': const: "
                                            "'a' is not a number"},
    {6, "buffer x in elem N fill=int(0.5,2)", "t.problem:6: buffer 'x': int "
                                              "needs integers"},
    {6, "buffer x in elem N color=red", "t.problem:6: buffer 'x': unknown or "
                                        "repeated attribute 'color=red'"},
    {8, "buffer x out elem N", "t.problem:8: duplicate buffer 'x' (first on "
                               "line 6)"},
    {6, "buffer N in elem N", "t.problem:6: buffer 'N' has the name of a size"},
    {8, "buffer y out elem N fill=const(1)", "t.problem:8: buffer 'y': fill= "
                                             "is for in and inout buffers"},
    {10, "requires M +", "t.problem:10: requires 'M +'"},
    {11, "tolerance fp32 atol=1e-6 rtol=2e-6 x", "t.problem:11: 'tolerance' "
                                                  "takes DTYPE|* atol=REAL "
                                                  "rtol=REAL"},
    {11, "tolerance fp64 atol=1 rtol=1", "t.problem:11: tolerance: unknown "
                                         "dtype 'fp64'"},
    /* real expressions: the one language of expr.h, its messages */
    {11, "tolerance fp32 atol=1e-6*Q rtol=1", "t.problem:11: atol '1e-6*Q': "
                                              "column 6: unknown name 'Q'"},
    {11, "tolerance fp32 atol=sqrt(M rtol=1", "t.problem:11: atol 'sqrt(M': "
                                              "column 7: missing ')'"},
    {11, "tolerance fp32 atol=M%2 rtol=1", "t.problem:11: atol 'M%2': column "
                                           "2: '%' is for integer "
                                           "expressions"},
    {11, "tolerance fp32 btol=1 rtol=1", "t.problem:11: tolerance: expected "
                                         "atol=REAL and rtol=REAL, got "
                                         "'btol=1'"},
    {12, "tolerance fp32 atol=1 rtol=1", "t.problem:12: duplicate tolerance "
                                         "for fp32 (first on line 11)"},
    {12, NULL, "no tolerance for dtype bf16"},
    {13, "work time", "t.problem:13: 'work' takes bytes or flops"},
    {14, NULL, "'work flops' needs a 'flops' expression"},
    {14, "flops 3*N*+", "t.problem:14: flops '3*N*+': column 6: unexpected "
                        "end of expression"},
    {15, "min_bytes 2 2", "t.problem:15: min_bytes '2 2': column 3: "
                          "unexpected '2' after the expression"},
    {16, "reference", "t.problem:16: 'reference' takes a block"},
    {19, "ENDX", "t.problem:16: 'reference <<END' has no closing line 'END'"},
    {17, "__global__ void ref(double *y) {", "t.problem:16: the reference "
                                             "block defines no kevo_reference "
                                             "kernel"},
    {20, "reference_grid N+", "t.problem:20: reference_grid 'N+'"},
    {21, "summary again", "t.problem:21: duplicate 'summary' (first on line "
                          "3)"},
    {21, "baseline cublas", "t.problem:21: 'baseline' takes copy or none"},
};

static void test_bad(void)
{
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *text = edit(bad[i].line, bad[i].repl), err[512] = "";
        const char *want = bad[i].want;
        struct problem *p = NULL;
        int rc = problem_parse_file_text("t.problem", text, &p, err,
                                         sizeof err);
        CHECK_MSG(rc != 0, "case %zu parsed: %s", i, text);
        CHECK_MSG(strstr(err, want), "case %zu: got '%s', want '%s'", i, err,
                  want);
        if (!rc)
            problem_free_user(p);
        free(text);
    }
    /* no output at all */
    static const char no_out[] =
        "problem q\nsummary s\nsizes N\ndtypes fp32\nbuffer x in elem N\n"
        "tolerance * atol=0 rtol=0\nreference <<E\nkevo_reference\nE\n";
    char err[512] = "";
    struct problem *p = NULL;
    CHECK(problem_parse_file_text("q.problem", no_out, &p, err, sizeof err));
    CHECK_MSG(strstr(err, "q.problem:9: no output buffer"), "%s", err);
}

/* y = a * x + y in place: the ABI, min_bytes, the floor and the memory
 * need count the in-place buffer as read and written, once live. */
static void test_inout(void)
{
    static const char axpy[] =
        "problem axpy\nsummary y += a x\nsizes N\ndtypes fp32 bf16\n"
        "buffer a in fp32 1 fill=uniform(0.5,2)\n"
        "buffer x in elem N\nbuffer y inout elem N fill=normal(0,1)\n"
        "tolerance * atol=1e-2 rtol=1e-2\nreference <<E\nkevo_reference\nE\n";
    char err[512] = "";
    struct problem *p = NULL;
    int rc = problem_parse_file_text("a.problem", axpy, &p, err, sizeof err);
    CHECK_MSG(rc == 0, "%s", err);
    if (rc)
        return;
    CHECK(strstr(p->abi, "(const float *__restrict__ a, const elem_t "
                         "*__restrict__ x, elem_t *__restrict__ y, int N, "
                         "void *ws)"));
    struct shape s = {1, {1000}};
    struct buf_desc d[PROB_MAX_BUFS];
    CHECK(p->buffers(p, &s, DTYPE_BF16, d) == 3 && d[2].role == BUF_INOUT);
    /* a once, x once, y read and written */
    CHECK(p->min_bytes(p, &s, DTYPE_BF16) == 4 + 2000 + 2 * 2000);
    struct sol_floor f;
    problem_floor(p, &s, DTYPE_BF16, 1e12, 1e12, 0, &f);
    CHECK(f.in_bytes == 4 + 2000 + 2000 && f.out_bytes == 2000);
    struct mem_need m;
    problem_mem_need(p, &s, DTYPE_BF16, 0, &m);
    CHECK(m.inputs == 4004 && m.outputs == 0 && m.pristine == 4004);
    CHECK(m.reference == 1000 * 8);
    problem_free_user(p);
}

/* Every prefix of a good file and of the example (a file cut anywhere):
 * each parses or fails with "file:line:", never anything else. */
static void test_truncated(void)
{
    char *ex = slurp(EXAMPLE);
    const char *texts[2] = {good, ex ? ex : good};
    int parsed = 0, refused = 0;
    for (int k = 0; k < 2; k++) {
        size_t n = strlen(texts[k]);
        char *cut = malloc(n + 1);
        for (size_t len = 0; len <= n; len++) {
            memcpy(cut, texts[k], len);
            cut[len] = '\0';
            char err[512] = "";
            struct problem *p = NULL;
            if (!problem_parse_file_text("t.problem", cut, &p, err,
                                         sizeof err)) {
                parsed++;
                problem_free_user(p);
            } else {
                refused++;
                CHECK_MSG(!strncmp(err, "t.problem:", 10), "cut at %zu: %s",
                          len, err);
            }
        }
        free(cut);
    }
    /* whole files parse; a cut inside the reference block cannot */
    CHECK(parsed >= 2 && refused > 100);
    free(ex);
}

static void test_shape_checks(void)
{
    char err[512] = "";
    struct problem *p = NULL;
    char *text = edit(11, "tolerance fp32 atol=1/(M-16) rtol=2e-6");
    int rc = problem_parse_file_text("t.problem", text, &p, err, sizeof err);
    CHECK_MSG(rc == 0, "%s", err);
    if (!rc) {
        struct shape s = {2, {10, 16}}, ok = {2, {10, 8}};
        CHECK(p->check_shape(p, &s, err, sizeof err) == KEVO_EINVAL);
        CHECK_MSG(strstr(err, "atol '1/(M-16)' is inf at shape 10x16") &&
                      strstr(err, "(t.problem:11)"),
                  "%s", err);
        CHECK(p->check_shape(p, &ok, err, sizeof err) == KEVO_EINVAL);
        CHECK_MSG(strstr(err, "atol '1/(M-16)' is -0.125"), "%s", err);
        problem_free_user(p);
    }
    free(text);
    /* flops negative at a shape: its own line */
    text = edit(14, "flops 3*N*M - 1000");
    rc = problem_parse_file_text("t.problem", text, &p, err, sizeof err);
    CHECK_MSG(rc == 0, "%s", err);
    if (!rc) {
        struct shape s = {2, {10, 16}};
        CHECK(p->check_shape(p, &s, err, sizeof err) == KEVO_EINVAL);
        CHECK_MSG(strstr(err, "flops '3*N*M - 1000' is -520 at shape 10x16, "
                              "dtype fp32 (must be finite and >= 0) "
                              "(t.problem:14)"),
                  "%s", err);
        problem_free_user(p);
    }
    free(text);
    /* rows that do not divide the count */
    text = edit(9, "buffer st out fp32 N rows=3");
    rc = problem_parse_file_text("t.problem", text, &p, err, sizeof err);
    CHECK_MSG(rc == 0, "%s", err);
    if (!rc) {
        struct shape s = {2, {10, 16}};
        CHECK(p->check_shape(p, &s, err, sizeof err) == KEVO_EINVAL);
        CHECK_MSG(strstr(err, "buffer st: rows '3' does not divide its 10 "
                             "elements (t.problem:9)"),
                  "%s", err);
        problem_free_user(p);
    }
    free(text);
}

static void test_registry(void)
{
    char err[512] = "";
    const struct problem *a = NULL, *b = NULL;
    CHECK(problem_find("tiny") == NULL);
    CHECK(problem_load_text("t.problem", good, &a, err, sizeof err) == 0);
    CHECK(a && problem_find("tiny") == a && problem_find_user("tiny") == a);
    CHECK(problem_load_text("u.problem", good, &b, err, sizeof err) == 0);
    CHECK(b == a);
    char *other = edit(3, "summary another text");
    CHECK(problem_load_text("v.problem", other, &b, err, sizeof err) ==
          KEVO_EEXIST);
    CHECK_MSG(strstr(err, "v.problem: problem 'tiny' is already loaded from "
                          "'t.problem' with a different text"),
              "%s", err);
    free(other);
    CHECK(problem_find("gemm") && !problem_find_user("gemm"));
    CHECK(problem_load_file("no/such.problem", &b, err, sizeof err) ==
          KEVO_ENOENT);
    CHECK_MSG(strstr(err, "cannot read problem file 'no/such.problem'"), "%s",
              err);
    struct shape s;
    CHECK(problem_parse_shape(a, "12x8", &s, err, sizeof err) == 0);
    CHECK(problem_parse_shape(a, "12x7", &s, err, sizeof err) == KEVO_EINVAL);
}

static void test_template(void)
{
    char err[512] = "";
    const struct problem *p = NULL;
    struct tpl *t = NULL;
    CHECK(tpl_load("examples/problems/scale/scale_vec.cu", &t, err,
                   sizeof err) == KEVO_EPARSE); /* problem not loaded yet */
    CHECK_MSG(strstr(err, "unknown problem 'scale'"), "%s", err);
    CHECK(problem_load_file(EXAMPLE, &p, err, sizeof err) == 0);
    int rc = tpl_load("examples/problems/scale/scale_vec.cu", &t, err,
                      sizeof err);
    CHECK_MSG(rc == 0, "%s", err);
    if (!rc) {
        CHECK(!strcmp(t->problem, "scale"));
        tpl_free(t);
    }
}

/* prelude + harness of p for dt through NVRTC (no GPU needed). */
static int compile_harness(const struct problem *p, enum dtype dt,
                           struct jit_output *o)
{
    const char *pre = p->prelude(p, dt);
    char *src = malloc(strlen(pre) + strlen(p->harness_src) + 1);
    strcpy(src, pre);
    strcat(src, p->harness_src);
    int rc = jit_compile(src, "userprob_test", "sm_90a", o);
    free(src);
    return rc;
}

static void test_harness_compiles(void)
{
    char *text = slurp(EXAMPLE), err[512] = "";
    struct problem *p = NULL;
    if (!text || problem_parse_file_text(EXAMPLE, text, &p, err, sizeof err)) {
        CHECK_MSG(0, "%s", err);
        free(text);
        return;
    }
    for (int dt = 0; dt < DTYPE_COUNT; dt++) {
        struct jit_output o;
        CHECK(compile_harness(p, (enum dtype)dt, &o) == 0);
        CHECK_MSG(o.ok, "%s: %s", dtype_name((enum dtype)dt), o.log);
        jit_output_release(&o);
    }
    problem_free_user(p);
    /* the GPU suite's in-place problem too */
    static const char axpy[] = "tests/gpu/userprob/axpy/axpy.problem";
    char *at_text = slurp(axpy);
    p = NULL;
    CHECK(at_text &&
          problem_parse_file_text(axpy, at_text, &p, err, sizeof err) == 0);
    if (at_text && p) {
        struct jit_output o;
        CHECK(compile_harness(p, DTYPE_BF16, &o) == 0);
        CHECK_MSG(o.ok, "axpy bf16: %s", o.log);
        jit_output_release(&o);
        problem_free_user(p);
    }
    free(at_text);
    /* a broken reference: NVRTC names the line of the problem file */
    char *broken = strdup(text), *at = strstr(broken, "y[i] = x[i] * g[i % COLS];");
    CHECK(at != NULL);
    if (at) {
        memcpy(at, "y[i] = x[i] * h[i % COLS];", 26);
        CHECK(problem_parse_file_text(EXAMPLE, broken, &p, err, sizeof err) == 0);
        struct jit_output o;
        CHECK(compile_harness(p, DTYPE_FP32, &o) == 0);
        CHECK(!o.ok);
        CHECK_MSG(strstr(o.log, EXAMPLE "(31): error: identifier \"h\" is "
                                "undefined"), "%s", o.log);
        jit_output_release(&o);
        problem_free_user(p);
    }
    free(broken);
    /* a path holding a quote and a newline is quoted in #line: the
     * harness still compiles */
    static const char odd[] = "odd\"dir\n/scale.problem";
    p = NULL;
    CHECK(problem_parse_file_text(odd, text, &p, err, sizeof err) == 0);
    if (p) {
        struct jit_output o;
        CHECK(compile_harness(p, DTYPE_FP32, &o) == 0);
        CHECK_MSG(o.ok, "a quoted path: %s", o.log);
        jit_output_release(&o);
        problem_free_user(p);
    }
    free(text);
}

int main(void)
{
    RUN(test_example, "the shipped example scale.problem parses: sizes, "
                      "buffers, ABI, auto min_bytes, tolerance, #line");
    RUN(test_good, "real expressions use sizes and elem_bytes; '*' covers "
                   "the other dtypes; fixed-type buffers; requires");
    RUN(test_bad, "every bad input is refused with file:line and what is "
                  "wrong");
    RUN(test_inout, "an inout buffer is drawn like an input, counted as read "
                    "and written, and live once");
    RUN(test_truncated, "a problem file cut at any byte parses or is refused "
                        "with file:line");
    RUN(test_shape_checks, "a tolerance negative at a shape and rows that do "
                           "not divide are refused at that shape, naming "
                           "the line");
    RUN(test_registry, "a loaded problem is found by name; the same text "
                       "loads once, another text under its name is refused");
    RUN(test_harness_compiles, "the example's harness and reference compile "
                               "with NVRTC for every dtype; a reference "
                               "error names the problem file's line");
    RUN(test_template, "the example's template parses once its problem is "
                       "loaded");
    TEST_DONE();
}
