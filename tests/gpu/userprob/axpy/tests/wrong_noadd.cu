// expect: wrong
/*
 * wrong_noadd.cu - writes a * x into y and drops the old y.
 */
// kevo: problem axpy
// kevo: dtypes fp32 bf16
// kevo: launch wrong_noadd
// kevo: grid SMS * 4
// kevo: block 256

extern "C" __global__ void wrong_noadd(const float *a, const elem_t *x,
                                       elem_t *y, int N, void *ws)
{
    for (long long i = blockIdx.x * 256LL + threadIdx.x; i < N;
         i += (long long)gridDim.x * 256)
        y[i] = FROM_F32(a[0] * TO_F32(x[i]));
}
