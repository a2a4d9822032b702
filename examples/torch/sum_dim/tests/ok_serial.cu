// expect: ok
/*
 * ok_serial.cu - torch.sum(x, dim=1, keepdim=True): one thread per
 * output, a serial fp32 sum over dim1.
 */
// kevo: problem sum_dim
// kevo: dtypes fp32 fp16 bf16
// kevo: launch ok_serial
// kevo: grid cdiv(batch_size * dim2, 256)
// kevo: block 256
extern "C" __global__ void ok_serial(const elem_t *x, elem_t *out, int batch_size, int dim1, int dim2, void *ws)
{
    long long i = blockIdx.x * 256LL + threadIdx.x; /* (b, j) of out */
    if (i >= (long long)batch_size * dim2)
        return;
    long long b = i / dim2, j = i % dim2;
    float s = 0.f;
    for (int k = 0; k < dim1; ++k)
        s += TO_F32(x[(b * dim1 + k) * dim2 + j]);
    out[i] = FROM_F32(s);
}
