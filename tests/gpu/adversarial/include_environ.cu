// expect: compile_error
/*
 * include_environ.cu - issue 29 item 3: includes the process environment
 * (where API keys live) through a macro, so that NVRTC would quote it in
 * its first error line, which kevo journals and sends back to the LLM. The
 * include rule (jitpolicy.c) refuses any include but CUDA toolkit and
 * kevo/ headers by literal relative name, before NVRTC reads anything:
 * compile_error "policy: line 15: '#include' must name a header
 * literally". tests/gpu/judge.sh checks the environment never reaches the
 * output.
 */
// kevo: problem softmax
// kevo: dtypes fp32
#define ENV "/proc/self/environ"
#include ENV
// kevo: launch sm_env
// kevo: grid ROWS
// kevo: block 256
extern "C" __global__ void sm_env(const elem_t *x, elem_t *y, int ROWS,
                                  int COLS, void *ws)
{
}
