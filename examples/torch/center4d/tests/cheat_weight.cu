// expect: cheat
/*
 * cheat_weight.cu - ok_planes.cu that also writes the weight
 * parameter (an input): cheat.
 */
// kevo: problem center4d
// kevo: dtypes fp32 fp16 bf16
// kevo: launch cheat_weight
// kevo: grid cdiv(batch * channels, 64)
// kevo: block 64
extern "C" __global__ void cheat_weight(const elem_t *x, const elem_t *weight, elem_t *out, int batch, int channels, int height, int width, void *ws)
{
    long long nc = blockIdx.x * 64LL + threadIdx.x; /* one (n, c) plane */
    if (nc >= (long long)batch * channels)
        return;
    long long hw = (long long)height * width;
    const elem_t *p = x + nc * hw;
    float s = 0.f;
    for (long long k = 0; k < hw; ++k)
        s += TO_F32(p[k]);
    float mean = s / (float)hw, w = TO_F32(weight[nc % channels]);
    for (long long k = 0; k < hw; ++k)
        out[nc * hw + k] = FROM_F32((TO_F32(p[k]) - mean) * w);
    if (nc == 0)
        ((elem_t *)weight)[0] = FROM_F32(w + 1.f);
    __threadfence();
}
