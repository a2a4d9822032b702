// expect: wrong
/*
 * wrong_class0.cu - ok_serial.cu that ignores the targets and uses
 * class 0: wrong.
 */
// kevo: problem cross_entropy
// kevo: dtypes fp32 fp16 bf16
// kevo: launch wrong_class0
// kevo: grid 1
// kevo: block 32
extern "C" __global__ void wrong_class0(const elem_t *logits, const long long *targets, elem_t *out, int batch, int classes, void *ws)
{
    if (blockIdx.x != 0 || threadIdx.x != 0)
        return;
    double loss = 0;
    for (int b = 0; b < batch; ++b) {
        const elem_t *l = logits + (long long)b * classes;
        float mx = TO_F32(l[0]), s = 0.f;
        for (int c = 1; c < classes; ++c)
            mx = fmaxf(mx, TO_F32(l[c]));
        for (int c = 0; c < classes; ++c)
            s += expf(TO_F32(l[c]) - mx);
        loss += (double)(logf(s) + mx - TO_F32(l[0]));
    }
    out[0] = FROM_F32((float)(loss / batch));
}
