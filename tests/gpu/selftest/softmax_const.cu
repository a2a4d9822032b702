// expect: wrong
/*
 * problem self-test (softmax): y = 1/COLS everywhere, the uniform
 * distribution. Every row sums to 1 and every value is the mean of the
 * right ones, so a checker that looks at row sums, means or an absolute
 * tolerance of about 1/COLS would accept it. All zeros: see
 * tests/gpu/harness/softmax_zero.cu and tests/gpu/adversarial/zero_output.cu.
 */
// kevo: problem softmax
// kevo: dtypes fp32 fp16 bf16
// kevo: launch sm_const
// kevo: grid min(cdiv(ROWS * COLS, 256), SMS * 16)
// kevo: block 256
extern "C" __global__ void sm_const(const elem_t *__restrict__ x,
                                    elem_t *__restrict__ y, int ROWS,
                                    int COLS, void *ws)
{
    const long long n = (long long)ROWS * COLS;
    const elem_t v = FROM_F32(1.0f / (float)COLS);
    for (long long i = (long long)blockIdx.x * 256 + threadIdx.x; i < n;
         i += (long long)gridDim.x * 256)
        y[i] = v;
}
