// expect: cheat
/*
 * cheat_xwrite.cu - a correct axpy that also overwrites the input x.
 */
// kevo: problem axpy
// kevo: dtypes fp32 bf16
// kevo: launch cheat_xwrite
// kevo: grid SMS * 4
// kevo: block 256

extern "C" __global__ void cheat_xwrite(const float *a, elem_t *x, elem_t *y,
                                        int N, void *ws)
{
    for (long long i = blockIdx.x * 256LL + threadIdx.x; i < N;
         i += (long long)gridDim.x * 256) {
        y[i] = FROM_F32(fmaf(a[0], TO_F32(x[i]), TO_F32(y[i])));
        x[i] = y[i];
    }
}
