/* max co-resident clusters of 1, 2, 4, 8 blocks with one block per SM
 * (the hgemm_wgmma default's 384 threads and ~213 KB of dynamic smem) */
#include <cuda.h>
#include <stdio.h>
static const char *ptx = ".version 8.0\n.target sm_90a\n.address_size 64\n"
    ".visible .entry k()\n{\nret;\n}\n"
    /* s(p): p[blockIdx.x] = %smid */
    ".visible .entry s(.param .u64 p)\n{\n.reg .u32 %r<4>;\n.reg .u64 %rd<4>;\n"
    "ld.param.u64 %rd1, [p];\ncvta.to.global.u64 %rd1, %rd1;\n"
    "mov.u32 %r1, %smid;\nmov.u32 %r2, %ctaid.x;\n"
    "mul.wide.u32 %rd2, %r2, 4;\nadd.u64 %rd3, %rd1, %rd2;\n"
    "st.global.u32 [%rd3], %r1;\nret;\n}\n";
#define CK(x) do { CUresult r_ = (x); if (r_) { const char *s; cuGetErrorString(r_, &s); \
    printf("%s: %s\n", #x, s); return 1; } } while (0)
int main(void)
{
    CUdevice d; CUcontext c; CUmodule m; CUfunction f;
    CK(cuInit(0)); CK(cuDeviceGet(&d, 0));
    CK(cuDevicePrimaryCtxRetain(&c, d)); CK(cuCtxSetCurrent(c));
    CK(cuModuleLoadData(&m, ptx)); CK(cuModuleGetFunction(&f, m, "k"));
    int smem = 1024 + 4 * (128 + 256) * 64 * 2 + 2 * 16384 + 256;
    CK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem));
    CK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1));
    int sms; CK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d));
    for (int cl = 1; cl <= 16; cl *= 2) {
        CUlaunchAttribute a; a.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        a.value.clusterDim.x = cl; a.value.clusterDim.y = 1; a.value.clusterDim.z = 1;
        CUlaunchConfig lc = {0};
        lc.gridDimX = sms / cl * cl; lc.gridDimY = lc.gridDimZ = 1;
        lc.blockDimX = 384; lc.blockDimY = lc.blockDimZ = 1;
        lc.sharedMemBytes = smem; lc.attrs = &a; lc.numAttrs = 1;
        int n = -1; CUresult r = cuOccupancyMaxActiveClusters(&n, f, &lc);
        printf("SMS %d cluster %d smem %d: max active clusters %d (%d blocks) rc %d\n",
               sms, cl, smem, n, n * cl, (int)r);
    }
    /* which SM each block of a persistent cluster-2 / cluster-4 grid
     * lands on (one block an SM: the same smem) */
    CUfunction fs; CK(cuModuleGetFunction(&fs, m, "s"));
    CK(cuFuncSetAttribute(fs, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem));
    CUdeviceptr dp; CK(cuMemAlloc(&dp, 4096));
    int cls[2] = {2, 4}, grids[2] = {132, 120};
    for (int c = 0; c < 2; c++) {
        CUlaunchAttribute a; a.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        a.value.clusterDim.x = cls[c]; a.value.clusterDim.y = 1; a.value.clusterDim.z = 1;
        CUlaunchConfig lc = {0};
        lc.gridDimX = grids[c]; lc.gridDimY = lc.gridDimZ = 1;
        lc.blockDimX = 384; lc.blockDimY = lc.blockDimZ = 1;
        lc.sharedMemBytes = smem; lc.attrs = &a; lc.numAttrs = 1;
        void *args[] = {&dp};
        CK(cuLaunchKernelEx(&lc, fs, args, NULL)); CK(cuCtxSynchronize());
        unsigned h[1024]; CK(cuMemcpyDtoH(h, dp, 4 * grids[c]));
        printf("cluster %d grid %d: smid by blockIdx:", cls[c], grids[c]);
        for (int i = 0; i < grids[c]; i++) printf(" %u", h[i]);
        printf("\n");
    }
    return 0;
}
