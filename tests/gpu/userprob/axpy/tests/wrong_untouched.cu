// expect: wrong
/*
 * wrong_untouched.cu - updates only the first half of y; the second half
 * keeps its input values (an in-place buffer is never poisoned, so only
 * the reference can tell).
 */
// kevo: problem axpy
// kevo: dtypes fp32 bf16
// kevo: launch wrong_untouched
// kevo: grid SMS * 4
// kevo: block 256

extern "C" __global__ void wrong_untouched(const float *a, const elem_t *x,
                                           elem_t *y, int N, void *ws)
{
    for (long long i = blockIdx.x * 256LL + threadIdx.x; i < N / 2;
         i += (long long)gridDim.x * 256)
        y[i] = FROM_F32(fmaf(a[0], TO_F32(x[i]), TO_F32(y[i])));
}
