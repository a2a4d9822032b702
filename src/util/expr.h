/*
 * expr.h - kevo's one expression language: integer expressions of template
 * parameters and problem sizes, and the same language on reals.
 *
 * Integer: constraints ("BM*BN/(TM*TN) <= 1024"), shape requirements
 * ("K % BK == 0") and launch plans (grid, block, shared memory, workspace).
 * Real (expr_compile_real): a .problem file's tolerances, flops and
 * min_bytes ("2*M*N*K", "1e-3*sqrt(K)").
 * Text is compiled once into a small stack program; evaluation is a loop
 * over it with no allocation (the engine evaluates constraints for every
 * mutation).
 *
 * Grammar (C precedence and semantics on int64_t):
 *   || && | ^ & == != < <= > >= << >> + - * / % unary - ! ~ ?: (...)
 *   functions: cdiv(a,b) (= (a+b-1)/b), min(a,b), max(a,b), log2(a) (floor),
 *              ispow2(a), align(a,b) (= cdiv(a,b)*b)
 *   identifiers: names passed to expr_compile (params, sizes, device facts)
 *   integer literals: decimal or 0x hex
 * Division or modulo by zero makes evaluation fail (never a crash), and so
 * do overflow, a shift count outside [0, 63] and log2 of a value <= 0.
 * && || and ?: evaluate only the side they need, as in C.
 *
 * Real expressions: the same grammar on double, with C's semantics on
 * double, so % << >> & ^ | ~ cdiv() align() ispow2() are refused at compile
 * time; literals as strtod reads them ("2", ".5", "1e-6"); log2(a) is the
 * real log2; sqrt(a) is only here. Evaluation follows IEEE 754: division by
 * zero gives Inf, sqrt(-1) NaN; the caller decides what to accept.
 */
#ifndef KEVO_EXPR_H
#define KEVO_EXPR_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

struct expr;

/*
 * Compiles text. Identifiers are resolved against names[0..n_names); at
 * evaluation, vals[i] is the value of names[i]. On error returns KEVO_EPARSE
 * and writes a one-line reason naming the column and the offending token
 * into err[errcap], e.g. "column 7: unknown name 'BQ'".
 * On success *out is a new expression; free with expr_free().
 */
int expr_compile(const char *text, const char *const *names, int n_names,
                 struct expr **out, char *err, size_t errcap) KEVO_WUR;
/*
 * Evaluates an integer expression e. Returns 0 and the value in *out, or -1 on division by zero,
 * overflow or a domain error (see top; then *out is untouched).
 */
int expr_eval(const struct expr *e, const int64_t *vals, int64_t *out);
/* The same for a real expression (see top); *out runs on doubles. */
int expr_compile_real(const char *text, const char *const *names,
                      int n_names, struct expr **out, char *err,
                      size_t errcap) KEVO_WUR;
/* Evaluates a real expression e (from expr_compile_real): vals[i] is the
 * value of names[i]. Never fails: IEEE results (Inf, NaN) pass through. */
double expr_eval_real(const struct expr *e, const double *vals);
/* The source text e was compiled from (owned by e). */
const char *expr_text(const struct expr *e);
/* Bitmask of the names (indices < 64) that e reads. */
uint64_t expr_uses(const struct expr *e);
void expr_free(struct expr *e);

#endif
