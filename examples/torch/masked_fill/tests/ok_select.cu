// expect: ok
/*
 * ok_select.cu - x.masked_fill(mask, -1): one thread per element.
 */
// kevo: problem masked_fill
// kevo: dtypes fp32 fp16 bf16
// kevo: launch ok_select
// kevo: grid cdiv(n * m, 256)
// kevo: block 256
extern "C" __global__ void ok_select(const elem_t *x, const bool *mask, elem_t *out, int n, int m, void *ws)
{
    long long i = blockIdx.x * 256LL + threadIdx.x;
    if (i >= (long long)n * m)
        return;
    out[i] = mask[i] ? FROM_F32(-1.f) : x[i];
}
