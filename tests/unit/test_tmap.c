/*
 * test_tmap.c - unit tests of src/core/tmap.c, the one tensor map encoding
 * (the GPU worker encodes through it, kevo export prints it): the option
 * tables match the driver's enumerators, a 2-D row-major buffer gets
 * dims {cols, rows} and a row pitch in bytes, and what cannot be encoded
 * is refused.
 */
#include <string.h>

#include "check.h"
#include "tmap.h"

static void options_name_the_drivers_enumerators(void)
{
    CHECK(tmap_swizzle(0)->value == CU_TENSOR_MAP_SWIZZLE_NONE);
    CHECK(tmap_swizzle(32)->value == CU_TENSOR_MAP_SWIZZLE_32B);
    CHECK(tmap_swizzle(64)->value == CU_TENSOR_MAP_SWIZZLE_64B);
    CHECK(tmap_swizzle(128)->value == CU_TENSOR_MAP_SWIZZLE_128B &&
          !strcmp(tmap_swizzle(128)->name, "CU_TENSOR_MAP_SWIZZLE_128B"));
    CHECK(!tmap_swizzle(16) && !tmap_swizzle(256));
    CHECK(tmap_l2(0)->value == CU_TENSOR_MAP_L2_PROMOTION_NONE);
    CHECK(tmap_l2(64)->value == CU_TENSOR_MAP_L2_PROMOTION_L2_64B);
    CHECK(tmap_l2(128)->value == CU_TENSOR_MAP_L2_PROMOTION_L2_128B);
    CHECK(tmap_l2(256)->value == CU_TENSOR_MAP_L2_PROMOTION_L2_256B &&
          !strcmp(tmap_l2(256)->name, "CU_TENSOR_MAP_L2_PROMOTION_L2_256B"));
    CHECK(!tmap_l2(32) && !tmap_l2(512));
    int n = 0;
    while (tmap_l2_at(n))
        n++;
    CHECK(n == 4 && tmap_l2_at(3)->bytes == 256 && !tmap_l2_at(-1));
    CHECK(tmap_data_type(DTYPE_BF16)->value ==
          CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
    CHECK(tmap_data_type(DTYPE_FP16)->value ==
          CU_TENSOR_MAP_DATA_TYPE_FLOAT16);
    CHECK(tmap_data_type(DTYPE_FP32)->value ==
          CU_TENSOR_MAP_DATA_TYPE_FLOAT32 &&
          tmap_data_type(DTYPE_FP32)->bytes == 4);
}

static void a_row_major_buffer_is_cols_by_rows(void)
{
    /* A of a bf16 GEMM, M = 300 rows of K = 4104 elements */
    struct buf_desc a = {"A", BUF_IN, 300 * 4104, DTYPE_BF16, 300, 4104};
    struct tmap_plan m = {0, {64, 128}, 128, 64};
    struct tmap_enc e;
    CHECK(tmap_encoding(&m, &a, &e) == 0);
    CHECK(e.dims[0] == 4104 && e.dims[1] == 300);
    CHECK(e.stride[0] == 4104 * 2);
    CHECK(e.box[0] == 64 && e.box[1] == 128 && e.step[0] == 1 &&
          e.step[1] == 1);
    CHECK(e.data_type == CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
    CHECK(e.swizzle == CU_TENSOR_MAP_SWIZZLE_128B &&
          e.l2 == CU_TENSOR_MAP_L2_PROMOTION_L2_64B);
    struct buf_desc c = {"C", BUF_OUT, 8 * 16, DTYPE_FP32, 8, 16};
    m = (struct tmap_plan){2, {16, 8}, 0, 0};
    CHECK(tmap_encoding(&m, &c, &e) == 0 && e.stride[0] == 64 &&
          e.swizzle == CU_TENSOR_MAP_SWIZZLE_NONE &&
          e.l2 == CU_TENSOR_MAP_L2_PROMOTION_NONE);
}

static void what_cannot_be_encoded_is_refused(void)
{
    struct buf_desc flat = {"x", BUF_IN, 1000, DTYPE_FP16, 0, 0};
    struct buf_desc a = {"A", BUF_IN, 64 * 64, DTYPE_FP16, 64, 64};
    struct tmap_plan m = {0, {64, 64}, 128, 256};
    struct tmap_enc e;
    CHECK(tmap_encoding(&m, &flat, &e) == -1);
    m.swizzle = 96;
    CHECK(tmap_encoding(&m, &a, &e) == -1);
    m.swizzle = 32;
    m.l2 = 100;
    CHECK(tmap_encoding(&m, &a, &e) == -1);
    m.l2 = 128;
    CHECK(tmap_encoding(&m, &a, &e) == 0);
}

int main(void)
{
    RUN(options_name_the_drivers_enumerators,
        "swizzle, L2 promotion and data type name the driver's values");
    RUN(a_row_major_buffer_is_cols_by_rows,
        "a row-major buffer is encoded as cols x rows with a byte pitch");
    RUN(what_cannot_be_encoded_is_refused,
        "a flat buffer, a bad swizzle or L2 promotion is refused");
    TEST_DONE();
}
