// expect: wrong
/*
 * problem self-test (softmax): y = x, a copy of the input. Reads and writes
 * every element at full bandwidth, so only the value check can reject it.
 * The other trivial softmax outputs: constant 1/COLS (softmax_const.cu),
 * a random row-normalized distribution (softmax_uniform.cu); all zeros is
 * already covered by tests/gpu/harness/softmax_zero.cu and
 * tests/gpu/adversarial/zero_output.cu.
 */
// kevo: problem softmax
// kevo: dtypes fp32 fp16 bf16
// kevo: launch sm_copy_input
// kevo: grid min(cdiv(ROWS * COLS, 256), SMS * 16)
// kevo: block 256
extern "C" __global__ void sm_copy_input(const elem_t *__restrict__ x,
                                         elem_t *__restrict__ y, int ROWS,
                                         int COLS, void *ws)
{
    const long long n = (long long)ROWS * COLS;
    for (long long i = (long long)blockIdx.x * 256 + threadIdx.x; i < n;
         i += (long long)gridDim.x * 256)
        y[i] = x[i];
}
