/*
 * cumsum_rows.cu - torch.cumsum(x, dim=1) of a batch_size x input_shape
 * matrix: one block of THREADS threads per row, each thread scans a
 * contiguous chunk serially in fp32, a shared-memory scan of the chunk
 * totals, then each thread adds its offset while writing.
 */
// kevo: problem cumsum
// kevo: dtypes fp32 fp16 bf16
// kevo: param THREADS 64 128 256 512 default=256
// kevo: launch cumsum_rows
// kevo: grid batch_size
// kevo: block THREADS

extern "C" __global__ void __launch_bounds__(THREADS)
cumsum_rows(const elem_t *x, elem_t *out, int batch_size, int input_shape,
            void *ws)
{
    __shared__ float tot[THREADS];
    const long long row = blockIdx.x;
    const int per = (input_shape + THREADS - 1) / THREADS;
    const int c0 = threadIdx.x * per;
    const int c1 = min(c0 + per, input_shape);
    const elem_t *xr = x + row * input_shape;
    elem_t *yr = out + row * input_shape;
    float s = 0.f;
    for (int c = c0; c < c1; ++c)
        s += TO_F32(xr[c]);
    tot[threadIdx.x] = s;
    __syncthreads();
    for (int off = 1; off < THREADS; off <<= 1) { /* Hillis-Steele */
        float v = threadIdx.x >= off ? tot[threadIdx.x - off] : 0.f;
        __syncthreads();
        tot[threadIdx.x] += v;
        __syncthreads();
    }
    float run = threadIdx.x ? tot[threadIdx.x - 1] : 0.f;
    for (int c = c0; c < c1; ++c) {
        run += TO_F32(xr[c]);
        yr[c] = FROM_F32(run);
    }
}
