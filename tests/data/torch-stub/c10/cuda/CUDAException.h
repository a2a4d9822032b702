/* Stand-in (see ../../torch/extension.h). */
#pragma once
#define C10_CUDA_CHECK(expr) \
    do { \
        if ((expr) != cudaSuccess) \
            throw 2; \
    } while (0)
#define C10_CUDA_KERNEL_LAUNCH_CHECK() C10_CUDA_CHECK(cudaGetLastError())
