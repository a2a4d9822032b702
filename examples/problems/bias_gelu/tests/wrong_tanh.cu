// expect: wrong
/*
 * wrong_tanh.cu - ok_simple.cu with the tanh approximation of GELU
 * (torch's approximate='tanh') instead of erf: up to 4.7e-4 off (at
 * v = -2.7); 12x the bf16 tolerance at v = -3.36, 29x the fp16 one, 430x
 * the fp32 one: wrong at every dtype.
 */
// kevo: problem bias_gelu
// kevo: dtypes fp32 fp16 bf16
// kevo: launch wrong_tanh
// kevo: grid SMS * 4
// kevo: block 256

__device__ float gelu(float v)
{
    return 0.5f * v *
           (1.f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
}

extern "C" __global__ void wrong_tanh(const elem_t *x, const elem_t *bias,
                                      elem_t *y, int ROWS, int COLS, void *ws)
{
    long long n = (long long)ROWS * COLS;
    for (long long i = blockIdx.x * 256LL + threadIdx.x; i < n;
         i += (long long)gridDim.x * 256)
        y[i] = FROM_F32(gelu(TO_F32(x[i]) + TO_F32(bias[i % COLS])));
}
