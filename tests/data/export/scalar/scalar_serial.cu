/*
 * scalar_serial.cu - sum(x * s) + bias and, per row, how many x > s: one
 * thread, serial (the export's 0-D buffers are under test, not speed).
 */
// kevo: problem scalar
// kevo: dtypes fp32
// kevo: launch scalar_serial
// kevo: grid 1
// kevo: block 1
extern "C" __global__ void scalar_serial(const elem_t *x, const elem_t *s,
                                         const elem_t *bias, elem_t *out0,
                                         long long *out1, int n, int m,
                                         void *ws)
{
    float acc = 0.f, sv = TO_F32(s[0]);
    for (int i = 0; i < n; i++) {
        long long c = 0;
        for (int j = 0; j < m; j++) {
            float v = TO_F32(x[(long long)i * m + j]);
            acc += v * sv;
            c += v > sv;
        }
        out1[i] = c;
    }
    out0[0] = FROM_F32(acc + TO_F32(bias[0]));
}
