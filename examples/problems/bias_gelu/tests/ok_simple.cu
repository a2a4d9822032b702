// expect: ok
/*
 * ok_simple.cu - a plain bias + erf GELU: a grid-stride loop over the
 * elements, scalar loads, the column by a modulo. wrong_tanh.cu and
 * cheat_oob.cu are this kernel with one bug each.
 */
// kevo: problem bias_gelu
// kevo: dtypes fp32 fp16 bf16
// kevo: launch ok_simple
// kevo: grid SMS * 4
// kevo: block 256

__device__ float gelu(float v)
{
    return 0.5f * v * (1.f + erff(v * 0.70710678118654752f));
}

extern "C" __global__ void ok_simple(const elem_t *x, const elem_t *bias,
                                     elem_t *y, int ROWS, int COLS, void *ws)
{
    long long n = (long long)ROWS * COLS;
    for (long long i = blockIdx.x * 256LL + threadIdx.x; i < n;
         i += (long long)gridDim.x * 256)
        y[i] = FROM_F32(gelu(TO_F32(x[i]) + TO_F32(bias[i % COLS])));
}
