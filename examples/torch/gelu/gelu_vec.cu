/*
 * gelu_vec.cu - F.gelu(x, approximate="tanh") elementwise: a grid-stride
 * loop of THREADS-thread blocks, BLOCKS_PER_SM of them per SM, fp32 math.
 */
// kevo: problem gelu
// kevo: dtypes fp32 fp16 bf16
// kevo: param THREADS 128 256 512 1024 default=256
// kevo: param BLOCKS_PER_SM 1 2 4 8 default=4
// kevo: launch gelu_vec
// kevo: grid SMS * BLOCKS_PER_SM
// kevo: block THREADS

extern "C" __global__ void __launch_bounds__(THREADS)
gelu_vec(const elem_t *__restrict__ x, elem_t *__restrict__ out,
         int batch_size, int dim, void *ws)
{
    long long n = (long long)batch_size * dim;
    long long stride = (long long)gridDim.x * THREADS;
    for (long long i = (long long)blockIdx.x * THREADS + threadIdx.x; i < n;
         i += stride) {
        float v = TO_F32(x[i]);
        float t = tanhf(0.7978845608f * (v + 0.044715f * v * v * v));
        out[i] = FROM_F32(0.5f * v * (1.f + t));
    }
}
