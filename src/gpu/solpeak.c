/*
 * solpeak.c - which arithmetic rate the speed-of-light floor assumes for a
 * dtype (see solpeak.h). One decision, kept apart from the worker so that
 * it can be tested without a GPU.
 */
#include "solpeak.h"

/* TF32 dense = fp16 dense / 2 (H100 SXM: 494.7 vs 989.4 TFLOP/s, NVIDIA
 * H100 datasheet); 3xTF32 spends 3 TF32 products per fp32 product. */
#define TF32_PER_TENSOR16 0.5
#define SPLIT_PRODUCTS 3.0

double solpeak_flops(enum dtype dt, double peak_fp32, double peak_tensor16,
                     const char **which)
{
    const char *w = "dense fp16/bf16 tensor-core peak";
    double pf = peak_tensor16;
    if (dt == DTYPE_FP32) {
        double split = peak_tensor16 * TF32_PER_TENSOR16 / SPLIT_PRODUCTS;
        if (split > peak_fp32) {
            pf = split;
            w = "fp32-accurate 3xTF32 on tensor cores (a third of the TF32 "
                "dense peak)";
        } else {
            pf = peak_fp32;
            w = "FP32 FMA peak";
        }
    }
    if (which)
        *which = w;
    return pf;
}
