/*
 * problem.c - dtype names, the problem registry lookup and shape parsing
 * shared by every problem (see problem.h).
 */
#include "problem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const dtype_names[DTYPE_COUNT] = {"fp32", "fp16", "bf16"};
static const size_t dtype_sizes[DTYPE_COUNT] = {4, 2, 2};

const char *dtype_name(enum dtype dt)
{
    return (unsigned)dt < DTYPE_COUNT ? dtype_names[dt] : "?";
}

int dtype_parse(const char *s, enum dtype *out)
{
    for (int i = 0; i < DTYPE_COUNT; i++)
        if (!strcmp(s, dtype_names[i])) {
            *out = (enum dtype)i;
            return 0;
        }
    return -1;
}

size_t dtype_size(enum dtype dt)
{
    return (unsigned)dt < DTYPE_COUNT ? dtype_sizes[dt] : 0;
}

const char *problem_prelude_std(enum dtype dt)
{
    switch (dt) {
    case DTYPE_FP16:
        return "#include <cuda_fp16.h>\n"
               "typedef __half elem_t;\n"
               "#define TO_F32(x) __half2float(x)\n"
               "#define FROM_F32(x) __float2half_rn(x)\n";
    case DTYPE_BF16:
        return "#include <cuda_bf16.h>\n"
               "typedef __nv_bfloat16 elem_t;\n"
               "#define TO_F32(x) __bfloat162float(x)\n"
               "#define FROM_F32(x) __float2bfloat16_rn(x)\n";
    default:
        return "typedef float elem_t;\n"
               "#define TO_F32(x) (x)\n"
               "#define FROM_F32(x) (x)\n";
    }
}

const struct problem *problem_find(const char *name)
{
    for (int i = 0; kevo_problems[i]; i++)
        if (!strcmp(kevo_problems[i]->name, name))
            return kevo_problems[i];
    return NULL;
}

int problem_parse_shape(const struct problem *p, const char *text,
                        struct shape *out, char *err, size_t errcap)
{
    struct shape s = {.n_dims = 0};
    const char *q = text;
    while (*q) {
        if (s.n_dims == p->n_dims)
            goto bad;
        char *end;
        errno = 0;
        long long v = strtoll(q, &end, 10);
        if (end == q || errno || v <= 0 || v > (1LL << 31) - 1)
            goto bad;
        s.d[s.n_dims++] = v;
        q = end;
        if (*q == 'x' || *q == 'X')
            q++;
        else if (*q)
            goto bad;
    }
    if (s.n_dims != p->n_dims)
        goto bad;
    if (p->check_shape && p->check_shape(&s, err, errcap))
        return KEVO_EINVAL;
    *out = s;
    return KEVO_OK;
bad:;
    char names[64] = "";
    for (int i = 0; i < p->n_dims; i++) {
        strcat(names, i ? "x" : "");
        strcat(names, p->dim_names[i]);
    }
    snprintf(err, errcap,
             "bad shape '%s' for %s: expected %s, each a positive integer",
             text, p->name, names);
    return KEVO_EINVAL;
}

void problem_format_shape(const struct shape *s, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = '\0';
    for (int i = 0; i < s->n_dims && n < cap; i++)
        n += (size_t)snprintf(out + n, cap - n, "%s%lld", i ? "x" : "",
                              (long long)s->d[i]);
}
