/*
 * gpu.c - loading the CUDA driver with dlopen + cuGetProcAddress, device
 * facts, the primary context, and an optional NVML sample (see gpu.h).
 *
 * Why cuGetProcAddress: cuda.h renames many functions (cuMemAlloc ->
 * cuMemAlloc_v2, cuCtxCreate -> cuCtxCreate_v4); asking the driver for the
 * CUDA 13.0 ABI by base name gives exactly the version the headers
 * describe (notes/cupti-nvrtc-driver.md section 5).
 */
#include "gpu.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define GPU_ABI_VERSION 13000
#define NO_DRIVER_MSG                                                        \
    "no NVIDIA driver (libcuda.so.1 not found): this command needs a GPU"

static struct gpu_api api;
static int load_rc = -1;          /* -1: not tried yet */
static char load_err[256];
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

int gpu_driver_present(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (!h)
        h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return 0;
    dlclose(h);
    return 1;
}

typedef CUresult (*getproc_fn)(const char *, void **, int, cuuint64_t,
                               CUdriverProcAddressQueryResult *);

/*
 * Entry points whose CUDA 13.0 ABI differs from the prototype cuda.h
 * declares under the base name: asking for them at 13000 would return the
 * new signature. Measured on the H200 (driver 580): cuCtxSynchronize at
 * 13000 is cuCtxSynchronize_v2(CUcontext) (cudaTypedefs.h:
 * PFN_cuCtxSynchronize_v13000), so the void call returned
 * CUDA_ERROR_CONTEXT_IS_DESTROYED. Pin them to the header's version.
 */
static int abi_version(const char *name)
{
    return strcmp(name, "cuCtxSynchronize") ? GPU_ABI_VERSION : 2000;
}

static int resolve(getproc_fn gp, const char *name, void **slot)
{
    CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SUCCESS;
    CUresult rc = gp(name, slot, abi_version(name),
                     CU_GET_PROC_ADDRESS_DEFAULT, &st);
    if (rc != CUDA_SUCCESS || st != CU_GET_PROC_ADDRESS_SUCCESS || !*slot) {
        snprintf(load_err, sizeof load_err,
                 "driver has no '%s' for CUDA %d.%d (rc %d, status %d): "
                 "driver too old?",
                 name, GPU_ABI_VERSION / 1000, GPU_ABI_VERSION % 1000 / 10,
                 (int)rc, (int)st);
        return KEVO_ENODEV;
    }
    return KEVO_OK;
}

static int load_locked(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(load_err, sizeof load_err, "%s", NO_DRIVER_MSG);
        return KEVO_ENODEV;
    }
    getproc_fn gp = (getproc_fn)dlsym(h, "cuGetProcAddress_v2");
    if (!gp) {
        snprintf(load_err, sizeof load_err,
                 "libcuda.so.1 has no cuGetProcAddress_v2: driver too old "
                 "for CUDA 13 (this command needs a GPU with driver >= 580)");
        return KEVO_ENODEV;
    }
#define GPU_LOAD(name)                                                       \
    if (resolve(gp, #name, (void **)&api.name))                              \
        return KEVO_ENODEV;
    GPU_API_FUNCS(GPU_LOAD)
#undef GPU_LOAD
    return KEVO_OK;
}

int gpu_load(const struct gpu_api **out, char *err, size_t errcap)
{
    pthread_mutex_lock(&load_lock);
    if (load_rc < 0)
        load_rc = load_locked();
    int rc = load_rc;
    pthread_mutex_unlock(&load_lock);
    if (rc) {
        snprintf(err, errcap, "%s", load_err);
        return rc;
    }
    *out = &api;
    return KEVO_OK;
}

/* Names of the codes kevo meets, for use before/without the driver. */
static const struct {
    int rc;
    const char *name;
} err_names[] = {
    {1, "CUDA_ERROR_INVALID_VALUE"},
    {2, "CUDA_ERROR_OUT_OF_MEMORY"},
    {3, "CUDA_ERROR_NOT_INITIALIZED"},
    {34, "CUDA_ERROR_STUB_LIBRARY"},
    {100, "CUDA_ERROR_NO_DEVICE"},
    {200, "CUDA_ERROR_INVALID_IMAGE"},
    {209, "CUDA_ERROR_NO_BINARY_FOR_GPU"},
    {218, "CUDA_ERROR_INVALID_PTX"},
    {300, "CUDA_ERROR_INVALID_SOURCE"},
    {400, "CUDA_ERROR_INVALID_HANDLE"},
    {500, "CUDA_ERROR_NOT_FOUND"},
    {600, "CUDA_ERROR_NOT_READY"},
    {700, "CUDA_ERROR_ILLEGAL_ADDRESS"},
    {701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"},
    {702, "CUDA_ERROR_LAUNCH_TIMEOUT"},
    {709, "CUDA_ERROR_CONTEXT_IS_DESTROYED"},
    {710, "CUDA_ERROR_ASSERT"},
    {714, "CUDA_ERROR_HARDWARE_STACK_ERROR"},
    {715, "CUDA_ERROR_ILLEGAL_INSTRUCTION"},
    {716, "CUDA_ERROR_MISALIGNED_ADDRESS"},
    {717, "CUDA_ERROR_INVALID_ADDRESS_SPACE"},
    {718, "CUDA_ERROR_INVALID_PC"},
    {719, "CUDA_ERROR_LAUNCH_FAILED"},
    {720, "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE"},
    {999, "CUDA_ERROR_UNKNOWN"},
};

const char *gpu_errname(CUresult rc)
{
    const char *s = NULL;
    if (load_rc == 0 && api.cuGetErrorName &&
        api.cuGetErrorName(rc, &s) == CUDA_SUCCESS && s)
        return s;
    for (size_t i = 0; i < sizeof err_names / sizeof err_names[0]; i++)
        if (err_names[i].rc == (int)rc)
            return err_names[i].name;
    return "CUDA_ERROR_?";
}

int gpu_err_sticky(CUresult rc)
{
    switch ((int)rc) {
    case CUDA_SUCCESS:
    case CUDA_ERROR_INVALID_VALUE:
    case CUDA_ERROR_OUT_OF_MEMORY:
    case CUDA_ERROR_INVALID_IMAGE:
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
    case CUDA_ERROR_INVALID_PTX:
    case CUDA_ERROR_INVALID_HANDLE:
    case CUDA_ERROR_NOT_FOUND:
    case CUDA_ERROR_NOT_READY:
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
    case CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE:
        return 0;
    default:
        return 1; /* 700, 702, 710, 714-719 and anything unexpected */
    }
}

static int attr(const struct gpu_api *cu, CUdevice d, CUdevice_attribute a)
{
    int v = 0;
    if (cu->cuDeviceGetAttribute(&v, a, d) != CUDA_SUCCESS)
        return 0;
    return v;
}

static void format_uuid(const CUuuid *u, char *out, size_t cap)
{
    const unsigned char *b = (const unsigned char *)u->bytes;
    snprintf(out, cap,
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
             "%02x%02x%02x%02x%02x%02x",
             b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9],
             b[10], b[11], b[12], b[13], b[14], b[15]);
}

int gpu_device_info(const struct gpu_api *cu, int ordinal,
                    struct gpu_info *out, char *err, size_t errcap)
{
    CUdevice d;
    CUresult rc = cu->cuDeviceGet(&d, ordinal);
    if (rc) {
        snprintf(err, errcap, "no CUDA device %d: %s", ordinal,
                 gpu_errname(rc));
        return KEVO_ENODEV;
    }
    memset(out, 0, sizeof *out);
    out->ordinal = ordinal;
    cu->cuDeviceGetName(out->name, sizeof out->name, d);
    CUuuid u;
    if (cu->cuDeviceGetUuid(&u, d) == CUDA_SUCCESS)
        format_uuid(&u, out->uuid, sizeof out->uuid);
    cu->cuDeviceTotalMem(&out->total_mem, d);
    out->cc_major = attr(cu, d, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    out->cc_minor = attr(cu, d, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    /* Arch-specific "a" targets (wgmma, setmaxnreg) exist for 9.0 and
     * later; NVRTC accepts sm_90a, sm_100a, sm_120a. */
    snprintf(out->arch, sizeof out->arch, "sm_%d%d%s", out->cc_major,
             out->cc_minor, out->cc_major >= 9 ? "a" : "");
    out->sms = attr(cu, d, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    out->l2_bytes = attr(cu, d, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
    out->clock_khz = attr(cu, d, CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
    out->mem_clock_khz = attr(cu, d, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
    out->bus_width_bits =
        attr(cu, d, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
    out->smem_optin =
        attr(cu, d, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    out->smem_per_sm =
        attr(cu, d, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
    out->max_threads_block =
        attr(cu, d, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    cu->cuDriverGetVersion(&out->driver_version);
    /* Speed of light: DDR memory moves 2 words per clock; the FFMA rate is
     * 128 lanes x 2 FLOP per SM per clock; dense fp16/bf16 tensor cores on
     * Hopper do 1024 FMA = 4096 FLOP... per SM per clock at most (a bound,
     * slightly above NVIDIA's 989 TFLOP/s quoted at 1.83 GHz). */
    out->peak_bw = 2.0 * out->mem_clock_khz * 1e3 * out->bus_width_bits / 8;
    out->peak_fp32 = (double)out->sms * out->clock_khz * 1e3 * 256.0;
    out->peak_tensor16 = (double)out->sms * out->clock_khz * 1e3 * 4096.0;
    return KEVO_OK;
}

int gpu_open(struct gpu *g, int ordinal, char *err, size_t errcap)
{
    memset(g, 0, sizeof *g);
    int r = gpu_load(&g->cu, err, errcap);
    if (r)
        return r;
    const struct gpu_api *cu = g->cu;
    CUresult rc = cu->cuInit(0);
    if (rc) {
        snprintf(err, errcap, "cuInit failed: %s (%d): this command needs a "
                 "working GPU", gpu_errname(rc), (int)rc);
        return KEVO_ENODEV;
    }
    r = gpu_device_info(cu, ordinal, &g->info, err, errcap);
    if (r)
        return r;
    cu->cuDeviceGet(&g->dev, ordinal);
    rc = cu->cuDevicePrimaryCtxRetain(&g->ctx, g->dev);
    if (!rc)
        rc = cu->cuCtxSetCurrent(g->ctx);
    if (rc) {
        snprintf(err, errcap, "cannot create a context on device %d: %s",
                 ordinal, gpu_errname(rc));
        return KEVO_ECUDA;
    }
    return KEVO_OK;
}

void gpu_close(struct gpu *g)
{
    if (g->ctx)
        g->cu->cuDevicePrimaryCtxRelease(g->dev);
    g->ctx = NULL;
}

/* ---- NVML, declared here so that no NVML header is needed. */

typedef void *nvml_dev;
struct nvml_api {
    int (*init)(void);
    int (*by_uuid)(const char *, nvml_dev *);
    int (*temp)(nvml_dev, int, unsigned *);
    int (*plimit)(nvml_dev, unsigned *);
    int (*power)(nvml_dev, unsigned *);
    int (*clock)(nvml_dev, int, unsigned *);
    int (*appclock)(nvml_dev, int, unsigned *);
    int (*reasons)(nvml_dev, unsigned long long *);
};

static struct nvml_api nv;
static int nvml_state = -1; /* -1 untried, 0 ok, 1 absent */

static int nvml_load(void)
{
    void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return 1;
    nv.init = (int (*)(void))dlsym(h, "nvmlInit_v2");
    nv.by_uuid = (int (*)(const char *, nvml_dev *))dlsym(
        h, "nvmlDeviceGetHandleByUUID");
    nv.temp = (int (*)(nvml_dev, int, unsigned *))dlsym(
        h, "nvmlDeviceGetTemperature");
    nv.plimit = (int (*)(nvml_dev, unsigned *))dlsym(
        h, "nvmlDeviceGetEnforcedPowerLimit");
    nv.power = (int (*)(nvml_dev, unsigned *))dlsym(
        h, "nvmlDeviceGetPowerUsage");
    nv.clock = (int (*)(nvml_dev, int, unsigned *))dlsym(
        h, "nvmlDeviceGetClockInfo");
    nv.appclock = (int (*)(nvml_dev, int, unsigned *))dlsym(
        h, "nvmlDeviceGetApplicationsClock");
    nv.reasons = (int (*)(nvml_dev, unsigned long long *))dlsym(
        h, "nvmlDeviceGetCurrentClocksEventReasons");
    if (!nv.reasons)
        nv.reasons = (int (*)(nvml_dev, unsigned long long *))dlsym(
            h, "nvmlDeviceGetCurrentClocksThrottleReasons");
    if (!nv.init || !nv.by_uuid || nv.init() != 0)
        return 1;
    return 0;
}

int gpu_nvml_sample(const char *uuid, struct gpu_nvml *out)
{
    memset(out, 0xff, sizeof *out); /* every field -1 */
    pthread_mutex_lock(&load_lock);
    if (nvml_state < 0)
        nvml_state = nvml_load();
    pthread_mutex_unlock(&load_lock);
    nvml_dev d;
    if (nvml_state || nv.by_uuid(uuid, &d) != 0)
        return -1;
    unsigned v;
    unsigned long long r;
    /* NVML_TEMPERATURE_GPU = 0; clock types: 1 = SM, 2 = memory */
    if (nv.temp && nv.temp(d, 0, &v) == 0)
        out->temp_c = (int)v;
    if (nv.plimit && nv.plimit(d, &v) == 0)
        out->power_limit_mw = (int)v;
    if (nv.power && nv.power(d, &v) == 0)
        out->power_mw = (int)v;
    if (nv.clock && nv.clock(d, 1, &v) == 0)
        out->sm_clock_mhz = (int)v;
    if (nv.clock && nv.clock(d, 2, &v) == 0)
        out->mem_clock_mhz = (int)v;
    if (nv.appclock && nv.appclock(d, 1, &v) == 0)
        out->app_sm_clock_mhz = (int)v;
    if (nv.reasons && nv.reasons(d, &r) == 0)
        out->throttle = (long long)r;
    return 0;
}
