/*
 * tmap.h - how kevo encodes a template's TMA tensor map (tpl.h
 * "tensormap"), written once for the two places that encode one: the GPU
 * worker (gpu/worker.c, through the driver) and the exported launchers
 * (cli/cmd_export.c, as C / C++ source that calls the driver at run time).
 *
 * The encoding: cuTensorMapEncodeTiled, rank 2, of a row-major rows x cols
 * buffer (dims {cols, rows}, row pitch cols * element bytes), the plan's
 * box {inner, outer}, element strides {1, 1}, no interleave, the plan's
 * swizzle and L2 promotion, out-of-bounds elements read as zero (no NaN
 * fill). Pure tables and arithmetic: no GPU needed.
 */
#ifndef KEVO_TMAP_H
#define KEVO_TMAP_H

#include <stdint.h>

#include <cuda.h>

#include "problem.h"
#include "tpl.h"

/* One choice of the encoding: its value in the plan, the driver's
 * enumerator and that enumerator's name (for generated source). */
struct tmap_opt {
    int bytes;           /* as the plan says it: swizzle or L2 bytes */
    int value;           /* the CUtensorMap* enumerator */
    const char *name;    /* "CU_TENSOR_MAP_SWIZZLE_128B" */
};

#define TMAP_RANK 2
#define TMAP_INTERLEAVE CU_TENSOR_MAP_INTERLEAVE_NONE
#define TMAP_INTERLEAVE_NAME "CU_TENSOR_MAP_INTERLEAVE_NONE"
#define TMAP_OOB_FILL CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE
#define TMAP_OOB_FILL_NAME "CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE"

/* Swizzle of bytes 0 (none), 32, 64 or 128; NULL for any other. */
const struct tmap_opt *tmap_swizzle(int bytes);
/* L2 promotion of bytes 0 (none), 64, 128 or 256; NULL for any other. */
const struct tmap_opt *tmap_l2(int bytes);
/* The i-th L2 promotion (0 to 3; NULL past them), for source that picks
 * one at run time. */
const struct tmap_opt *tmap_l2_at(int i);
/* The data type of elements of dt (bytes = element size). */
const struct tmap_opt *tmap_data_type(enum dtype dt);

/* Everything cuTensorMapEncodeTiled takes besides the map and address. */
struct tmap_enc {
    CUtensorMapDataType data_type;
    cuuint64_t dims[TMAP_RANK];      /* {cols, rows}, elements */
    cuuint64_t stride[TMAP_RANK - 1]; /* row pitch, bytes */
    cuuint32_t box[TMAP_RANK];       /* {inner, outer}, elements */
    cuuint32_t step[TMAP_RANK];      /* {1, 1} */
    CUtensorMapSwizzle swizzle;
    CUtensorMapL2promotion l2;
};

/* The encoding of plan m over buffer d; -1 when d is not 2-D (rows or
 * cols <= 0) or m's swizzle or L2 promotion is none of the above. */
int tmap_encoding(const struct tmap_plan *m, const struct buf_desc *d,
                  struct tmap_enc *out);

#endif
