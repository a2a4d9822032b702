// expect: compile_error
/* harness test: printf in a candidate is refused by name ("printf is not
 * allowed in candidates"), not as writable globals (issue 10, item 2). */
// kevo: problem softmax
// kevo: dtypes fp32
// kevo: launch sm_printf
// kevo: grid ROWS
// kevo: block 32

extern "C" __global__ void sm_printf(const elem_t *__restrict__ x,
                                     elem_t *__restrict__ y, int ROWS,
                                     int COLS, void *ws)
{
    const long long base = (long long)blockIdx.x * COLS;
    float m = -3.0e38f, s = 0.f;
    for (int c = 0; c < COLS; c++)
        m = fmaxf(m, TO_F32(x[base + c]));
    for (int c = 0; c < COLS; c++)
        s += expf(TO_F32(x[base + c]) - m);
    for (int c = threadIdx.x; c < COLS; c += 32)
        y[base + c] = FROM_F32(expf(TO_F32(x[base + c]) - m) / s);
    if (blockIdx.x == 0 && threadIdx.x == 0)
        printf("row 0: max %f sum %f\n", m, s);
}
