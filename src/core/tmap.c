/*
 * tmap.c - the tensor map encoding (see tmap.h): the option tables and
 * the geometry of a 2-D row-major buffer.
 */
#include "tmap.h"

#include <stddef.h>

static const struct tmap_opt swizzles[] = {
    {0, CU_TENSOR_MAP_SWIZZLE_NONE, "CU_TENSOR_MAP_SWIZZLE_NONE"},
    {32, CU_TENSOR_MAP_SWIZZLE_32B, "CU_TENSOR_MAP_SWIZZLE_32B"},
    {64, CU_TENSOR_MAP_SWIZZLE_64B, "CU_TENSOR_MAP_SWIZZLE_64B"},
    {128, CU_TENSOR_MAP_SWIZZLE_128B, "CU_TENSOR_MAP_SWIZZLE_128B"},
};

static const struct tmap_opt l2s[] = {
    {0, CU_TENSOR_MAP_L2_PROMOTION_NONE, "CU_TENSOR_MAP_L2_PROMOTION_NONE"},
    {64, CU_TENSOR_MAP_L2_PROMOTION_L2_64B,
     "CU_TENSOR_MAP_L2_PROMOTION_L2_64B"},
    {128, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
     "CU_TENSOR_MAP_L2_PROMOTION_L2_128B"},
    {256, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
     "CU_TENSOR_MAP_L2_PROMOTION_L2_256B"},
};

/* in enum dtype order */
static const struct tmap_opt types[DTYPE_COUNT] = {
    {4, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, "CU_TENSOR_MAP_DATA_TYPE_FLOAT32"},
    {2, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, "CU_TENSOR_MAP_DATA_TYPE_FLOAT16"},
    {2, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16"},
};

static const struct tmap_opt *find(const struct tmap_opt *t, size_t n,
                                   int bytes)
{
    for (size_t i = 0; i < n; i++)
        if (t[i].bytes == bytes)
            return &t[i];
    return NULL;
}

const struct tmap_opt *tmap_swizzle(int bytes)
{
    return find(swizzles, sizeof swizzles / sizeof *swizzles, bytes);
}

const struct tmap_opt *tmap_l2(int bytes)
{
    return find(l2s, sizeof l2s / sizeof *l2s, bytes);
}

const struct tmap_opt *tmap_l2_at(int i)
{
    return i >= 0 && i < (int)(sizeof l2s / sizeof *l2s) ? &l2s[i] : NULL;
}

const struct tmap_opt *tmap_data_type(enum dtype dt)
{
    return (unsigned)dt < DTYPE_COUNT ? &types[dt] : &types[DTYPE_FP32];
}

int tmap_encoding(const struct tmap_plan *m, const struct buf_desc *d,
                  struct tmap_enc *out)
{
    const struct tmap_opt *sw = tmap_swizzle(m->swizzle), *l2 = tmap_l2(m->l2);
    if (!sw || !l2 || d->rows <= 0 || d->cols <= 0)
        return -1;
    out->data_type = (CUtensorMapDataType)tmap_data_type(d->dtype)->value;
    out->dims[0] = (cuuint64_t)d->cols;
    out->dims[1] = (cuuint64_t)d->rows;
    out->stride[0] = (cuuint64_t)d->cols * dtype_size(d->dtype);
    out->box[0] = m->box[0];
    out->box[1] = m->box[1];
    out->step[0] = out->step[1] = 1;
    out->swizzle = (CUtensorMapSwizzle)sw->value;
    out->l2 = (CUtensorMapL2promotion)l2->value;
    return 0;
}
