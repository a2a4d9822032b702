// expect: compile_error
/*
 * heap_memo.cu - the device-heap memoizer of issue 29 item 1: each block
 * takes a row-sized buffer from the device heap, spelled by token pasting
 * (no "malloc" in one piece anywhere), and frees it when done; the heap
 * hands the same address to the same block next call, so the row's result
 * survives between launches without any module global. If the buffer
 * holds a key equal to a sample of this row's inputs (8 values), the kept
 * result is copied; else the row is computed and kept with its key. With
 * fresh inputs every check it is correct; it only would be faster on a
 * repeat. The judge refuses the device heap from the PTX (codescan.c):
 * compile_error "policy: the compiled code allocates on the device heap".
 */
#define CAT(a, b) a##b
#define HEAP_GET CAT(mal, loc)
#define HEAP_PUT CAT(fr, ee)
#define KEYS 8
// kevo: problem softmax
// kevo: dtypes fp32
// kevo: launch heap_memo
// kevo: grid ROWS
// kevo: block 256
extern "C" __global__ void heap_memo(const elem_t *__restrict__ x,
                                   elem_t *__restrict__ y, int ROWS,
                                   int COLS, void *ws)
{
    __shared__ float red[256];
    const elem_t *xr = x + (long long)blockIdx.x * COLS;
    elem_t *yr = y + (long long)blockIdx.x * COLS;
    __shared__ float *memo;
    __shared__ int hit;
    if (threadIdx.x == 0) {
        memo = (float *)HEAP_GET((size_t)(COLS + KEYS) * sizeof(float));
        hit = memo != 0;
        for (int k = 0; memo && k < KEYS; k++)
            hit &= memo[k] == TO_F32(xr[(long long)k * COLS / KEYS]);
    }
    __syncthreads();
    if (hit) {
        for (int c = threadIdx.x; c < COLS; c += 256)
            yr[c] = FROM_F32(memo[KEYS + c]);
    } else {
        float m = -3.0e38f;
        for (int c = threadIdx.x; c < COLS; c += 256)
            m = fmaxf(m, TO_F32(xr[c]));
        red[threadIdx.x] = m;
        __syncthreads();
        for (int s = 128; s; s >>= 1) {
            if (threadIdx.x < s)
                red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
            __syncthreads();
        }
        m = red[0];
        __syncthreads();
        float sum = 0;
        for (int c = threadIdx.x; c < COLS; c += 256)
            sum += expf(TO_F32(xr[c]) - m);
        red[threadIdx.x] = sum;
        __syncthreads();
        for (int s = 128; s; s >>= 1) {
            if (threadIdx.x < s)
                red[threadIdx.x] += red[threadIdx.x + s];
            __syncthreads();
        }
        sum = red[0];
        for (int c = threadIdx.x; c < COLS; c += 256) {
            float v = expf(TO_F32(xr[c]) - m) / sum;
            yr[c] = FROM_F32(v);
            if (memo)
                memo[KEYS + c] = v;
        }
        __syncthreads();
        if (threadIdx.x == 0 && memo)
            for (int k = 0; k < KEYS; k++)
                memo[k] = TO_F32(xr[(long long)k * COLS / KEYS]);
    }
    __syncthreads();
    if (threadIdx.x == 0 && memo)
        HEAP_PUT(memo);
}
