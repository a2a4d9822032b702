/*
 * codescan.c - the compiled-code rules of the judge (see codescan.h): one
 * pass over the PTX NVRTC emitted, identifier by identifier. Inline asm
 * reaches the PTX verbatim (string literals already joined, macros already
 * expanded), and calls to the heap, printf and the device runtime appear
 * as .extern .func declarations and call targets, so every spelling in
 * the source ends up as the same PTX token. Knows nothing of NVRTC.
 */
#include "codescan.h"

#include <stdio.h>
#include <string.h>

struct banned {
    const char *token;   /* a PTX identifier */
    int prefix;          /* 1: any identifier starting with token */
    const char *what;    /* completes "the compiled code " */
    const char *why;     /* why that is not allowed */
};

#define HEAP_WHY "device heap memory outlives a launch; use the workspace"
#define TIMER_WHY "a kernel could tell timed runs apart"
#define LAUNCH_WHY "work the timer does not see"

/* Measured with NVRTC 13.0 -arch=sm_90a: malloc(n) and free(p) become
 * .extern .func malloc / free, __nv_aligned_device_malloc becomes
 * __cuda_syscall_aligned_malloc; the global timer is mov.u64 %rd,
 * %globaltimer. printf (vprintf) is not here: the worker refuses it from
 * the cubin's import table (worker.c job_load), compiled code too. */
static const struct banned banned[] = {
    {"%globaltimer", 0, "reads the global timer", TIMER_WHY},
    {"%globaltimer_lo", 0, "reads the global timer", TIMER_WHY},
    {"%globaltimer_hi", 0, "reads the global timer", TIMER_WHY},
    {"malloc", 0, "allocates on the device heap", HEAP_WHY},
    {"free", 0, "frees device heap memory", HEAP_WHY},
    {"__nv_aligned_device_malloc", 0, "allocates on the device heap",
     HEAP_WHY},
    {"__cuda_syscall", 1, "makes a device system call", HEAP_WHY},
    {"cudaLaunchDevice", 1, "launches kernels from the device", LAUNCH_WHY},
    {"cudaGetParameterBuffer", 1, "launches kernels from the device",
     LAUNCH_WHY},
};

/* PTX identifier characters (PTX ISA 4.4: [a-zA-Z][a-zA-Z0-9_$]* or
 * [_$%][a-zA-Z0-9_$]+). */
static int ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_' || c == '$' || c == '%';
}

/* Past a comment or string literal starting at p, else p. */
static const char *skip_noncode(const char *p)
{
    if (p[0] == '/' && p[1] == '/')
        return p + strcspn(p, "\n");
    if (p[0] == '/' && p[1] == '*') {
        const char *e = strstr(p + 2, "*/");
        return e ? e + 2 : p + strlen(p);
    }
    if (p[0] == '"') {
        const char *q = p + 1;
        while (*q && *q != '"' && *q != '\n')
            q += (q[0] == '\\' && q[1]) ? 2 : 1;
        return *q == '"' ? q + 1 : q;
    }
    return p;
}

/* The banned entry the identifier tok[0..n) matches, or NULL. */
static const struct banned *match(const char *tok, size_t n)
{
    if (!strchr("%mf_c", *tok)) /* the first letters of banned[]: most */
        return NULL;            /* tokens are registers, opcodes, labels */
    for (size_t i = 0; i < sizeof banned / sizeof *banned; i++) {
        size_t m = strlen(banned[i].token);
        if (banned[i].prefix ? n >= m && !memcmp(tok, banned[i].token, m)
                             : n == m && !memcmp(tok, banned[i].token, m))
            return &banned[i];
    }
    return NULL;
}

int codescan_ptx(const char *ptx, char *why, size_t cap)
{
    const char *p = ptx;
    while (*p) {
        const char *q = skip_noncode(p);
        if (q != p) {
            p = q;
            continue;
        }
        if (!ident_char(*p)) {
            p++;
            continue;
        }
        q = p;
        while (ident_char(*q))
            q++;
        const struct banned *b = match(p, (size_t)(q - p));
        if (b) {
            snprintf(why, cap, "policy: the compiled code %s ('%.*s' in "
                     "the PTX): %s", b->what, (int)(q - p > 64 ? 64 : q - p),
                     p, b->why);
            return 1;
        }
        p = q;
    }
    return 0;
}
