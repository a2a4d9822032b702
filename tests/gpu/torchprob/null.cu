// null.cu - a kernel that does nothing, for tests/gpu/torchprob/*.py (x[N]
// in, out[N] out): it must never run, each module is refused before it.
// kevo: problem PROBLEM
// kevo: dtypes fp32
// kevo: launch null_kernel
// kevo: grid 1
// kevo: block 32
extern "C" __global__ void null_kernel(const elem_t *x, elem_t *out, int N,
                                       void *ws)
{
}
