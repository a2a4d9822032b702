// expect: ok
/*
 * ok_serial.cu - mean over rows of logsumexp(l) - l[target]: one
 * thread, serial (slow, exact enough).
 */
// kevo: problem cross_entropy
// kevo: dtypes fp32 fp16 bf16
// kevo: launch ok_serial
// kevo: grid 1
// kevo: block 32
extern "C" __global__ void ok_serial(const elem_t *logits, const long long *targets, elem_t *out, int batch, int classes, void *ws)
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
        loss += (double)(logf(s) + mx - TO_F32(l[targets[b]]));
    }
    out[0] = FROM_F32((float)(loss / batch));
}
