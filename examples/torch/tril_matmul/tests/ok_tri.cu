// expect: ok
/*
 * ok_tri.cu - tril(A @ B) for lower-triangular A, B: one thread
 * per element, k only over j..i (the rest is zero).
 */
// kevo: problem tril_matmul
// kevo: dtypes fp32 fp16 bf16
// kevo: launch ok_tri
// kevo: grid cdiv(N * N, 256)
// kevo: block 256
extern "C" __global__ void ok_tri(const elem_t *A, const elem_t *B, elem_t *out, int N, void *ws)
{
    long long idx = blockIdx.x * 256LL + threadIdx.x;
    if (idx >= (long long)N * N)
        return;
    int i = (int)(idx / N), j = (int)(idx % N);
    float s = 0.f;
    if (i >= j)
        for (int k = j; k <= i; ++k) /* A[i][k] = 0 past i, B[k][j] = 0 before j */
            s += TO_F32(A[(long long)i * N + k]) * TO_F32(B[(long long)k * N + j]);
    out[idx] = FROM_F32(s);
}
