/*
 * ident.h - whether a name a problem file gives a buffer or a size can be
 * a parameter of every kernel and every launcher kevo generates for it
 * (the kernel ABI, the harness, `kevo export`'s C and torch launchers).
 * Names only; the parser says where.
 */
#ifndef KEVO_IDENT_H
#define KEVO_IDENT_H

/* The prefix of every identifier kevo generates next to the problem's
 * names (export launchers, harness): no problem name may start with it,
 * in either case. */
#define IDENT_RESERVED_PREFIX "kevo_"

/*
 * NULL if name (already known to be [A-Za-z_][A-Za-z0-9_]*) can name a
 * kernel parameter; else a fixed reason to print after the name: a C or
 * C++ keyword, a name the ABI already uses (ws, elem_t), a CUDA built-in
 * variable, a reserved C identifier (__x, _X) or one starting with
 * IDENT_RESERVED_PREFIX.
 */
const char *ident_check(const char *name);

#endif
