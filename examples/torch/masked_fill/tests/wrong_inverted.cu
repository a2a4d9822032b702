// expect: wrong
/*
 * wrong_inverted.cu - ok_select.cu with the mask read inverted: wrong.
 */
// kevo: problem masked_fill
// kevo: dtypes fp32 fp16 bf16
// kevo: launch wrong_inverted
// kevo: grid cdiv(n * m, 256)
// kevo: block 256
extern "C" __global__ void wrong_inverted(const elem_t *x, const bool *mask, elem_t *out, int n, int m, void *ws)
{
    long long i = blockIdx.x * 256LL + threadIdx.x;
    if (i >= (long long)n * m)
        return;
    out[i] = mask[i] ? x[i] : FROM_F32(-1.f);
}
