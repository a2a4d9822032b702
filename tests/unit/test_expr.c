/*
 * test_expr.c - unit tests of src/util/expr.c: C precedence and semantics on
 * int64, every operator and function, short-circuit, failures at
 * evaluation (division by zero, overflow) and every parse error; the same
 * language on reals (a .problem file's tolerances and work models).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "expr.h"

static const char *const names[] = {"M", "N", "K", "BM", "ZERO", "BIG"};
static const int64_t vals[] = {4096, 1000, 64, 128, 0, INT64_MAX};
#define N_NAMES 6

/* Compiles and evaluates text; returns eval's status, value in *out. */
static int run(const char *text, int64_t *out)
{
    char err[256] = "";
    struct expr *e;
    int rc = expr_compile(text, names, N_NAMES, &e, err, sizeof err);
    CHECK_MSG(rc == KEVO_OK, "'%s': %s", text, err);
    if (rc)
        return -2;
    CHECK(!strcmp(expr_text(e), text));
    rc = expr_eval(e, vals, out);
    expr_free(e);
    return rc;
}

/* Checks that text evaluates to want. */
static void is(const char *text, int64_t want)
{
    int64_t v = -12345;
    int rc = run(text, &v);
    CHECK_MSG(rc == 0 && v == want, "'%s' = %lld (rc %d), want %lld", text,
              (long long)v, rc, (long long)want);
}

/* Checks that text compiles but fails to evaluate, leaving *out alone. */
static void fails(const char *text)
{
    int64_t v = 777;
    int rc = run(text, &v);
    CHECK_MSG(rc == -1 && v == 777, "'%s' should fail, got rc %d value %lld",
              text, rc, (long long)v);
}

/* Checks that text does not compile and the error contains want. */
static void bad(const char *text, const char *want)
{
    char err[256] = "";
    struct expr *e = (struct expr *)1;
    int rc = expr_compile(text, names, N_NAMES, &e, err, sizeof err);
    CHECK_MSG(rc == KEVO_EPARSE && e == NULL, "'%s' compiled", text);
    CHECK_MSG(strstr(err, want) != NULL, "'%s': got '%s', want '%s'", text, err,
              want);
}

static void test_precedence(void)
{
    is("1 + 2 * 3", 7);
    is("(1 + 2) * 3", 9);
    is("10 - 4 - 3", 3); /* left associative */
    is("64 / 4 / 2", 8);
    is("1 << 2 + 1", 8); /* + binds tighter than << */
    is("1 < 2 == 1", 1); /* < binds tighter than == */
    is("6 & 3 == 3", 0); /* == binds tighter than & (C's trap) */
    is("1 | 6 ^ 3 & 5", 1 | (6 ^ (3 & 5)));
    is("1 || 0 && 0", 1); /* && binds tighter than || */
    is("-2 * -3", 6);
    is("!0 + 1", 2);
    is("-M % 1000", -96); /* unary binds tighter than % */
    is("2 + 3 > 4 ? 10 : 20", 10);
    is("0 ? 1 : 0 ? 2 : 3", 3); /* ?: is right associative */
    is("1 ? 0 ? 5 : 6 : 7", 6);
    is("M / BM * 2", 64);
}

static void test_operators(void)
{
    is("7 / 2", 3);
    is("-7 / 2", -3); /* C truncates toward zero */
    is("-7 % 2", -1);
    is("7 % 3", 1);
    is("5 - 8", -3);
    is("3 << 4", 48);
    is("-16 >> 2", -4);
    is("256 >> 8", 1);
    is("3 < 3", 0);
    is("3 <= 3", 1);
    is("4 > 3", 1);
    is("3 >= 4", 0);
    is("3 != 4", 1);
    is("3 == 4", 0);
    is("12 & 10", 8);
    is("12 | 10", 14);
    is("12 ^ 10", 6);
    is("~0", -1);
    is("!5", 0);
    is("+5", 5);
    is("- -5", 5);
    is("2 && 3", 1); /* && and || yield 0 or 1 */
    is("0 || 7", 1);
    is("0 || 0", 0);
    is("0x10 + 0XfF", 16 + 255);
    is("9223372036854775807", INT64_MAX);
    is("M * N * K", 4096LL * 1000 * 64);
    is("  K  ", 64);
}

static void test_functions(void)
{
    is("cdiv(10, 3)", 4);
    is("cdiv(9, 3)", 3);
    is("cdiv(N, BM)", 8);
    is("min(3, -2)", -2);
    is("max(3, -2)", 3);
    is("log2(1)", 0);
    is("log2(1023)", 9);
    is("log2(1024)", 10);
    is("log2(BIG)", 62);
    is("ispow2(64)", 1);
    is("ispow2(96)", 0);
    is("ispow2(0)", 0);
    is("ispow2(-4)", 0);
    is("align(1000, 128)", 1024);
    is("align(1024, 128)", 1024);
    is("max(min(M, N), cdiv(K, 2)) + 1", 1001);
    is("min(M > N ? 3 : 4, 5)", 3);
}

static void test_short_circuit(void)
{
    is("0 && 1 / ZERO", 0);
    is("1 || 1 / ZERO", 1);
    is("ZERO != 0 && M / ZERO > 1", 0);
    is("ZERO ? M / ZERO : 5", 5);
    is("1 ? 5 : M % ZERO", 5);
    is("0 && BIG + 1 || 1", 1);
    fails("1 && 1 / ZERO");
    fails("0 || 1 % ZERO");
    fails("ZERO ? 1 : 1 / ZERO");
}

static void test_failures(void)
{
    fails("M / ZERO");
    fails("M % 0");
    fails("cdiv(M, ZERO)");
    fails("align(M, 0)");
    fails("BIG + 1");
    fails("-BIG - 2");
    fails("BIG * 2");
    fails("-(-BIG - 1)");
    fails("(-BIG - 1) / -1");
    fails("(-BIG - 1) % -1");
    fails("cdiv(BIG, 2)"); /* a + b - 1 overflows */
    fails("1 << 63");      /* sign bit lost */
    fails("3 << 62");
    fails("1 << 64");
    fails("1 >> -1");
    fails("log2(0)");
    fails("log2(-8)");
    is("-1 << 63", INT64_MIN);
}

static void test_parse_errors(void)
{
    bad("", "column 1: empty expression");
    bad("   ", "column 1: empty expression");
    bad("M + BQ", "column 5: unknown name 'BQ'");
    bad("M +* 2", "column 4: unexpected '*'");
    bad("M +", "column 4: unexpected end of expression");
    bad("(M + 1", "column 7: missing ')' at end of expression");
    bad("(M + 1 2", "column 8: missing ')' before '2'");
    bad("12abc", "column 1: bad number '12abc'");
    bad("0x", "column 1: bad number '0x'");
    bad("99999999999999999999", "column 1: bad number");
    bad("cdiv(1)", "column 1: cdiv() takes 2 arguments, got 1");
    bad("log2(1, 2)", "column 1: log2() takes 1 argument, got 2");
    bad("max()", "max() takes 2 arguments, got 0");
    bad("foo(1)", "column 1: unknown function 'foo'");
    bad("M N", "column 3: unexpected 'N' after the expression");
    bad("M + 1)", "column 6: unexpected ')' after the expression");
    bad("M $ 1", "column 3: unexpected character '$'");
    bad("1 ? 2", "column 6: expected ':' before end of expression");
    bad("1 ? 2 , 3", "column 7: expected ':' before ','");
    bad("min(1,)", "column 7: unexpected ')'");
}

static void test_limits(void)
{
    char deep[400] = "";
    for (int i = 0; i < 100; i++)
        strcat(deep, "(");
    bad(deep, "nested too deeply");
    char wide[400] = "";
    for (int i = 0; i < 40; i++) /* two slots per level, 40 levels */
        strcat(wide, "1+2*(");
    strcat(wide, "1");
    for (int i = 0; i < 40; i++)
        strcat(wide, ")");
    bad(wide, "expression too complex");
}

static void test_uses(void)
{
    char err[256];
    struct expr *e;
    int rc = expr_compile("K % BM == 0 && M > 0 ? 1 : M", names, N_NAMES, &e,
                          err, sizeof err);
    CHECK(rc == KEVO_OK);
    if (rc)
        return;
    CHECK(expr_uses(e) == ((1u << 2) | (1u << 3) | (1u << 0)));
    expr_free(e);
    rc = expr_compile("1 + 2", names, N_NAMES, &e, err, sizeof err);
    CHECK(rc == KEVO_OK);
    if (rc)
        return;
    CHECK(expr_uses(e) == 0);
    expr_free(e);
}

static const double rvals[] = {4096, 1000, 64, 128, 0, 1e300};

/* Checks that real text evaluates to want (within 1e-12 relative). */
static void ris(const char *text, double want)
{
    char err[256] = "";
    struct expr *e;
    int rc = expr_compile_real(text, names, N_NAMES, &e, err, sizeof err);
    CHECK_MSG(rc == KEVO_OK, "'%s': %s", text, err);
    if (rc)
        return;
    CHECK(!strcmp(expr_text(e), text));
    double v = expr_eval_real(e, rvals);
    CHECK_MSG(v == want || fabs(v - want) <= 1e-12 * fabs(want),
              "'%s' = %.17g, want %.17g", text, v, want);
    expr_free(e);
}

/* Checks that real text does not compile and the error contains want. */
static void rbad(const char *text, const char *want)
{
    char err[256] = "";
    struct expr *e = (struct expr *)1;
    int rc = expr_compile_real(text, names, N_NAMES, &e, err, sizeof err);
    CHECK_MSG(rc == KEVO_EPARSE && e == NULL, "'%s' compiled", text);
    CHECK_MSG(strstr(err, want) != NULL, "'%s': got '%s', want '%s'", text, err,
              want);
}

static void test_real(void)
{
    ris("1e-6", 1e-6);
    ris(".5 + 2.25", 2.75);
    ris("2*M*N*K", 2.0 * 4096 * 1000 * 64);
    ris("1 / 3", 1.0 / 3);  /* real division, not 0 */
    ris("7 / 2 * 2", 7.0);
    ris("-M + -(-2)", -4094);
    ris("1e-3 * sqrt(K)", 8e-3);
    ris("log2(1000)", log2(1000.0)); /* real, not floor */
    ris("min(0.5, 0.25) + max(M, 1e4)", 10000.25);
    ris("M > 100 ? 1.5 : 2.5", 1.5);
    ris("ZERO && 1 / ZERO", 0);   /* short-circuit as in C */
    ris("BIG * BIG", INFINITY);    /* IEEE: the caller decides */
    ris("1 / ZERO", INFINITY);
}

static void test_real_errors(void)
{
    rbad("1e-6*Q", "column 6: unknown name 'Q'");
    rbad("sqrt(M", "column 7: missing ')' at end of expression");
    rbad("3*N*+", "column 6: unexpected end of expression");
    rbad("2 2", "column 3: unexpected '2' after the expression");
    rbad("2e", "column 1: bad number '2e'");
    rbad("M % 2", "column 3: '%' is for integer expressions");
    rbad("M << 1", "column 3: '<<' is for integer expressions");
    rbad("~M", "column 1: '~' is for integer expressions");
    rbad("cdiv(M, 2)", "column 1: cdiv() is for integer expressions");
    rbad("ispow2(M)", "column 1: ispow2() is for integer expressions");
    bad("sqrt(M)", "column 1: sqrt() is for real expressions");
    bad("1.5", "column 2: unexpected character '.'"); /* stays integer */
}

int main(void)
{
    RUN(test_precedence, "binary operators follow C precedence");
    RUN(test_operators, "every operator has C semantics on int64");
    RUN(test_functions, "cdiv min max log2 ispow2 align compute");
    RUN(test_short_circuit, "&& || and ?: skip the untaken side");
    RUN(test_failures, "division by zero and overflow fail evaluation");
    RUN(test_parse_errors, "each parse error names the column and token");
    RUN(test_limits, "too deep or too wide expressions are rejected");
    RUN(test_uses, "expr_uses reports the names read");
    RUN(test_real, "real expressions compute on doubles with C semantics");
    RUN(test_real_errors, "real expressions refuse integer-only operators");
    TEST_DONE();
}
