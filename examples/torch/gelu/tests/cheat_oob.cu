// expect: cheat
/*
 * cheat_oob.cu - ok_elem.cu whose last thread also writes past the
 * end of out: cheat.
 */
// kevo: problem gelu
// kevo: dtypes fp32 fp16 bf16
// kevo: launch cheat_oob
// kevo: grid cdiv(batch_size * dim, 256)
// kevo: block 256
extern "C" __global__ void cheat_oob(const elem_t *x, elem_t *out, int batch_size, int dim, void *ws)
{
    long long i = blockIdx.x * 256LL + threadIdx.x;
    if (i >= (long long)batch_size * dim)
        return;
    float v = TO_F32(x[i]);
    float t = tanhf(0.7978845608f * (v + 0.044715f * v * v * v));
    out[i] = FROM_F32(0.5f * v * (1.f + t));
    if (i == (long long)batch_size * dim - 1)
        out[i + 7] = out[i];
}
