/*
 * gpu.h - the CUDA driver API, loaded at run time, and the facts of one
 * device.
 *
 * kevo never links libcuda: it dlopens libcuda.so.1, takes only
 * cuGetProcAddress from dlsym and resolves every other entry point through
 * it for CUDA 13.0, so the ABI version matches the headers (a plain dlsym
 * of "cuMemAlloc" can bind a legacy ABI). Without a driver gpu_load()
 * returns KEVO_ENODEV with a message and everything else still runs.
 * NVML (temperature, power, current clocks) is optional and read the same
 * way. This file knows nothing of candidates, timing or problems.
 */
#ifndef KEVO_GPU_H
#define KEVO_GPU_H

#include <stddef.h>
#include <stdint.h>

#include <cuda.h>

#include "status.h"

/* The entry points kevo uses. X-macro: one line per function. */
#define GPU_API_FUNCS(X)                                                     \
    X(cuInit) X(cuDriverGetVersion) X(cuGetErrorName) X(cuGetErrorString)    \
    X(cuDeviceGet) X(cuDeviceGetCount) X(cuDeviceGetName)                    \
    X(cuDeviceGetUuid) X(cuDeviceTotalMem) X(cuDeviceGetAttribute)           \
    X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease)                 \
    X(cuCtxSetCurrent) X(cuCtxSynchronize) X(cuCtxSetLimit)                  \
    X(cuMemAlloc) X(cuMemFree) X(cuMemGetInfo) X(cuMemcpyHtoD)               \
    X(cuMemcpyDtoH) X(cuMemcpyDtoD) X(cuMemsetD8) X(cuMemsetD32)             \
    X(cuModuleLoadData) X(cuModuleUnload) X(cuModuleGetFunction)             \
    X(cuModuleGetGlobal)                                                     \
    X(cuFuncGetAttribute) X(cuFuncSetAttribute) X(cuLaunchKernel)            \
    X(cuLaunchKernelEx) X(cuOccupancyMaxActiveBlocksPerMultiprocessor)       \
    X(cuStreamCreate) X(cuStreamDestroy) X(cuStreamSynchronize)              \
    X(cuStreamQuery) X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord)     \
    X(cuEventSynchronize) X(cuEventElapsedTime) X(cuTensorMapEncodeTiled)

/* Function table; field names are the CUDA names (cuda.h's renaming
 * macros apply to the fields too, so calls read as usual). */
struct gpu_api {
#define GPU_FIELD(name) __typeof__(name) *name;
    GPU_API_FUNCS(GPU_FIELD)
#undef GPU_FIELD
};

/*
 * Loads libcuda.so.1 (once per process) and resolves the table. Returns
 * KEVO_ENODEV with "no NVIDIA driver (libcuda.so.1 not found): this
 * command needs a GPU" in err when the driver is absent, or a message
 * naming the missing entry point. *out is borrowed, valid for the process.
 */
int gpu_load(const struct gpu_api **out, char *err, size_t errcap) KEVO_WUR;

/* 1 if libcuda.so.1 can be opened (does not call cuInit). */
int gpu_driver_present(void);

/* "CUDA_ERROR_ILLEGAL_ADDRESS" for rc (works before gpu_load too). */
const char *gpu_errname(CUresult rc);
/* 1 for the errors that leave the context unusable: 700, 702, 714-719,
 * and anything else not known to be harmless after a sync. */
int gpu_err_sticky(CUresult rc);

struct gpu_info {
    int ordinal;           /* device index */
    char name[128];        /* "NVIDIA H100 80GB HBM3" */
    char uuid[48];         /* "GPU-xxxxxxxx-..." */
    int cc_major, cc_minor;
    char arch[16];         /* NVRTC arch: "sm_90a" for 9.0 */
    int sms;               /* multiprocessors */
    size_t total_mem;      /* bytes */
    int64_t l2_bytes;      /* L2 cache size */
    int clock_khz;         /* max SM clock */
    int mem_clock_khz;     /* peak memory clock */
    int bus_width_bits;    /* global memory bus width */
    int64_t smem_optin;    /* max dynamic shared memory per block, opt-in */
    int64_t smem_per_sm;   /* shared memory per multiprocessor */
    int max_threads_block; /* per block */
    int driver_version;    /* cuDriverGetVersion, e.g. 13000 */
    double peak_bw;        /* 2 * mem clock * bus width / 8, bytes/s */
    double peak_fp32;      /* SMs * clock * 256 FLOP/clk, FLOP/s */
    double peak_tensor16;  /* SMs * clock * 4096 FLOP/clk (dense) */
};

/* Reads the facts of device ordinal (after cuInit). */
int gpu_device_info(const struct gpu_api *cu, int ordinal,
                    struct gpu_info *out, char *err, size_t errcap) KEVO_WUR;

/* One device with its primary context made current on this thread. */
struct gpu {
    const struct gpu_api *cu; /* borrowed table */
    CUdevice dev;
    CUcontext ctx;            /* primary context, retained */
    struct gpu_info info;
};

/* Loads the driver, cuInit, retains and sets the primary context of
 * device ordinal. KEVO_ENODEV when there is no driver or no device. */
int gpu_open(struct gpu *g, int ordinal, char *err, size_t errcap) KEVO_WUR;
/* Releases the primary context (skip after a sticky error: the process is
 * about to exit anyway). */
void gpu_close(struct gpu *g);

/* Optional NVML sample; fields are -1 when unknown. */
struct gpu_nvml {
    int temp_c;            /* GPU temperature */
    int power_limit_mw;    /* enforced power limit */
    int power_mw;          /* current draw */
    int sm_clock_mhz;      /* current */
    int mem_clock_mhz;     /* current */
    int app_sm_clock_mhz;  /* application clock */
    long long throttle;    /* clocks event reasons bitmask */
};
/* Fills *out for the device with this UUID; returns 0, or -1 (and all
 * fields -1) when NVML is not there. */
int gpu_nvml_sample(const char *uuid, struct gpu_nvml *out);

#endif
