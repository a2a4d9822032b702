// expect: cheat
/*
 * cheat_mask.cu - ok_select.cu that also clears its mask input
 * (writes an input): cheat.
 */
// kevo: problem masked_fill
// kevo: dtypes fp32 fp16 bf16
// kevo: launch cheat_mask
// kevo: grid cdiv(n * m, 256)
// kevo: block 256
extern "C" __global__ void cheat_mask(const elem_t *x, const bool *mask, elem_t *out, int n, int m, void *ws)
{
    long long i = blockIdx.x * 256LL + threadIdx.x;
    if (i >= (long long)n * m)
        return;
    out[i] = mask[i] ? FROM_F32(-1.f) : x[i];
    if (i == 0)
        ((bool *)mask)[0] = !mask[0];
}
