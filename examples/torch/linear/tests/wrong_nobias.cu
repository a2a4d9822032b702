// expect: wrong
/*
 * wrong_nobias.cu - relu(x @ W^T + b) of nn.Linear: one thread per output, a
 * serial fp32 dot product. wrong_nobias.cu and cheat_input.cu add one bug.
 */
// kevo: problem linear
// kevo: dtypes fp32
// kevo: launch wrong_nobias
// kevo: grid cdiv(batch*out_features, 256)
// kevo: block 256
extern "C" __global__ void wrong_nobias(const elem_t *x, const elem_t *w, const elem_t *b, elem_t *out, int batch, int in_features, int out_features, void *ws)
{
    long long i = blockIdx.x * 256LL + threadIdx.x;
    if (i >= (long long)batch * out_features) return;
    int r = i / out_features, c = i % out_features;
    float s = 0.f; /* the bias is never added */
    for (int k = 0; k < in_features; k++) s += TO_F32(x[(long long)r * in_features + k]) * TO_F32(w[(long long)c * in_features + k]);
    out[i] = FROM_F32(s > 0.f ? s : 0.f);
}
