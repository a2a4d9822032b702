/*
 * solpeak.h - the arithmetic peak behind the speed-of-light floor
 * (problem_floor, worker.h): the fastest way this GPU can produce results
 * of a dtype's accuracy, not the rate of its most obvious instruction.
 *
 * fp32 results need not come from FP32 FMAs: 3xTF32 (each operand split
 * into a TF32 high and low part, three tensor-core products, fp32
 * accumulation) and bf16x6-style splits give fp32-accurate GEMMs at a
 * third of the TF32 dense rate, which on Hopper is 2.7x the FP32 FMA peak.
 * A floor at the FMA peak branded such a kernel a cheat (issue 29, item
 * 3a: 310813 ns measured, floor 342608 ns). fp16/bf16 results: the dense
 * fp16/bf16 tensor-core peak.
 */
#ifndef KEVO_SOLPEAK_H
#define KEVO_SOLPEAK_H

#include "problem.h"

/*
 * The peak in FLOP/s for results of dtype dt, from the GPU's FP32 FMA
 * peak and its dense fp16/bf16 tensor-core peak (gpu.h; TF32 dense is half
 * of the latter on Volta to Hopper): for fp32 the larger of peak_fp32
 * and peak_tensor16 / 6 (3xTF32); else peak_tensor16. *which (may be
 * NULL) gets a static text naming the rate, for verdict details. Pure.
 */
double solpeak_flops(enum dtype dt, double peak_fp32, double peak_tensor16,
                     const char **which);

#endif
