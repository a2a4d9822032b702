/*
 * kevo/sm90.cuh - Hopper (sm_90a) primitives for kevo's 16-bit GEMM
 * templates: shared-memory addresses, mbarriers, thread-block clusters,
 * TMA (tensor-map and 1-D bulk copies, multicast, stores), wgmma
 * (descriptors, fences, m64nNk16 with fp32 accumulators) and packing of
 * fp32 pairs. Every function is one or a few PTX instructions, inlined;
 * there is no state and no tunable here (tile sizes and schedules stay in
 * the templates).
 *
 * kevo compiles it into its binary and hands it to NVRTC in memory: a
 * template writes #include "kevo/sm90.cuh" (no file is read from the
 * host). It needs kevo's prelude before it (elem_t is __half or
 * __nv_bfloat16: wgmma's and pack2's element type). `kevo export` puts the
 * text in place of the #include so an exported kernel stands alone.
 * Sources: PTX ISA 8.x ("Asynchronous Warpgroup Level Matrix Multiply",
 * "Tensor Copy Instructions", "mbarrier"); CUTLASS's cute/arch/copy_sm90
 * and mma_sm90.
 */
#ifndef KEVO_SM90_CUH
#define KEVO_SM90_CUH

typedef unsigned long long u64;

/* CUtensorMap's layout (cuda.h is not available under NVRTC); kevo
 * encodes the maps a template declares with '// kevo: tensormap'. */
struct alignas(64) tmap_t {
    unsigned long long opaque[16];
};

/* AB_BF16: elem_t is __nv_bfloat16 (cuda_bf16.h includes cuda_fp16.h, so
 * __half always exists). */
template <typename T> __device__ constexpr bool is_bf16(const T *)
{
    return true;
}
__device__ constexpr bool is_bf16(const __half *) { return false; }
#define AB_BF16 is_bf16((const elem_t *)0)

struct alignas(4) elem2 {
    elem_t x, y;
};

/* Two fp32 values as one 4-byte pair of elem_t, a in the low half. */
__device__ __forceinline__ unsigned pack2(float a, float b)
{
    elem2 v;
    v.x = FROM_F32(a);
    v.y = FROM_F32(b);
    return *reinterpret_cast<unsigned *>(&v);
}

/* ---- shared memory, clusters, named barriers ---- */

__device__ __forceinline__ unsigned smem_u32(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ unsigned cluster_rank(void)
{
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
    return r;
}

/* Every thread of every block of the cluster (release/acquire). */
__device__ __forceinline__ void cluster_sync(void)
{
    asm volatile("barrier.cluster.arrive.release;\n"
                 "barrier.cluster.wait.acquire;\n" ::: "memory");
}

/* bar.sync on named barrier id (1..15; 0 is __syncthreads) by n threads. */
__device__ __forceinline__ void bar_named(int id, int n)
{
    asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(n) : "memory");
}

/* ---- mbarriers (smem addresses from smem_u32) ---- */

__device__ __forceinline__ void mbar_init(unsigned bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar),
                 "r"(count));
}

/* Arrives (count 1) and expects bytes more of transactions (TMA). */
__device__ __forceinline__ void mbar_expect_tx(unsigned bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n"
                 ::"r"(bar), "r"(bytes) : "memory");
}

__device__ __forceinline__ void mbar_arrive(unsigned bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar)
                 : "memory");
}

/* Arrives on the barrier at bar's offset in block cta of the cluster.
 * Default (.release.cta) semantics, as CUTLASS's ClusterBarrier::arrive:
 * ".release.cluster" compiles to MEMBAR.ALL.GPU before the arrive, which
 * made 2-block clusters 1.6-1.8x slower once a k slice (SASS of 872f900,
 * bench/notes/hgemm_wgmma.md). Readers of a stage are wgmma, complete at
 * wgmma.wait_group. */
__device__ __forceinline__ void mbar_arrive_remote(unsigned bar, unsigned cta)
{
    unsigned rb;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n"
                 : "=r"(rb) : "r"(bar), "r"(cta));
    asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];\n" ::"r"(rb)
                 : "memory");
}

/* Waits until the phase of the given parity has completed. A fresh
 * barrier is in phase 0, so waiting on parity 1 returns at once. */
__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity)
{
    unsigned done;
    do {
        asm volatile("{\n.reg .pred p;\n"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     "selp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
    } while (!done);
}

/* ---- TMA: tensor-map and 1-D bulk copies ---- */

/* 2-D box at (c0 along the contiguous dim, c1 along rows) -> smem dst;
 * its bytes complete on bar. Out-of-bounds parts of the box read zeros. */
__device__ __forceinline__ void tma_load(unsigned dst, const tmap_t *map,
                                         unsigned bar, int c0, int c1)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
                 "complete_tx::bytes [%0], [%1, {%3, %4}], [%2];\n"
                 ::"r"(dst), "l"(map), "r"(bar), "r"(c0), "r"(c1)
                 : "memory");
}

/* Same, landing at the same offset in the blocks of mask (cluster ranks)
 * and completing on the barrier at bar's offset in each. */
__device__ __forceinline__ void tma_load_mc(unsigned dst, const tmap_t *map,
                                            unsigned bar, int c0, int c1,
                                            unsigned mask)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
                 "complete_tx::bytes.multicast::cluster [%0], [%1, {%3, %4}],"
                 " [%2], %5;\n"
                 ::"r"(dst), "l"(map), "r"(bar), "r"(c0), "r"(c1),
                   "h"((unsigned short)mask)
                 : "memory");
}

/* smem src -> the 2-D box at (c0, c1) of map, in this thread's bulk
 * group (clipped at the tensor's edges). */
__device__ __forceinline__ void tma_store(const tmap_t *map, unsigned src,
                                          int c0, int c1)
{
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group"
                 " [%0, {%1, %2}], [%3];\n"
                 ::"l"(map), "r"(c0), "r"(c1), "r"(src)
                 : "memory");
}

#define KV_BULK_MAX 16384u /* bytes a bulk_load instruction copies */

/* bytes (a multiple of 16, 16-byte aligned ends) from global src to smem
 * dst; completes on bar. */
__device__ __forceinline__ void bulk_load(unsigned dst, const char *src,
                                          unsigned bytes, unsigned bar)
{
    for (unsigned o = 0; o < bytes; o += KV_BULK_MAX) {
        const unsigned n = bytes - o < KV_BULK_MAX ? bytes - o : KV_BULK_MAX;
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::"
                     "complete_tx::bytes [%0], [%1], %2, [%3];\n"
                     ::"r"(dst + o), "l"(src + o), "r"(n), "r"(bar)
                     : "memory");
    }
}

/* Same, landing at the same offset in the blocks of mask (cluster ranks)
 * and completing on the barrier at bar's offset in each. */
__device__ __forceinline__ void bulk_load_mc(unsigned dst, const char *src,
                                             unsigned bytes, unsigned bar,
                                             unsigned short mask)
{
    for (unsigned o = 0; o < bytes; o += KV_BULK_MAX) {
        const unsigned n = bytes - o < KV_BULK_MAX ? bytes - o : KV_BULK_MAX;
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::"
                     "complete_tx::bytes.multicast::cluster [%0], [%1], %2,"
                     " [%3], %4;\n"
                     ::"r"(dst + o), "l"(src + o), "r"(n), "r"(bar),
                       "h"(mask)
                     : "memory");
    }
}

/* smem src -> global dst, bytes a multiple of 16, in this thread's bulk
 * group. */
__device__ __forceinline__ void bulk_store(void *dst, unsigned src,
                                           unsigned bytes)
{
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group"
                 " [%0], [%1], %2;\n"
                 ::"l"(dst), "r"(src), "r"(bytes) : "memory");
}

/* Closes this thread's bulk group of stores. */
__device__ __forceinline__ void bulk_commit(void)
{
    asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}

/* Waits until all but the newest N bulk groups have read their smem. */
template <int N> __device__ __forceinline__ void bulk_wait_read(void)
{
    asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}

/* Waits until all but the newest N bulk groups are complete. */
template <int N> __device__ __forceinline__ void bulk_wait(void)
{
    asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(N) : "memory");
}

/* Orders this thread's generic-proxy smem writes before later async-proxy
 * (TMA) reads of them. */
__device__ __forceinline__ void fence_async_smem(void)
{
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

/* ---- flags in global memory (GPU scope) ---- */

__device__ __forceinline__ void st_release(unsigned *p, unsigned v)
{
    asm volatile("st.release.gpu.global.u32 [%0], %1;\n" ::"l"(p), "r"(v)
                 : "memory");
}

__device__ __forceinline__ unsigned ld_acquire(const unsigned *p)
{
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n" : "=r"(v) : "l"(p)
                 : "memory");
    return v;
}

/* ---- wgmma ---- */

/*
 * Shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format"):
 * start address, leading and stride byte offsets (all >> 4), swizzle
 * mode in bits 62-63 (1: 128-byte, 2: 64-byte, 3: 32-byte); base offset
 * 0, so every operand start must sit at a swizzle atom or a 32-byte step
 * inside its rows. With the 128-byte swizzle:
 *   K-major operand (rows of 64 k): SBO = 1024 (next 8 rows), LBO unused.
 *   N-major B (64-column boxes of BK k-rows): LBO = BK * 128 (next 64
 *   columns), SBO = 1024 (next 8 k-rows).
 */
__device__ __forceinline__ u64 desc_enc(unsigned x)
{
    return (u64)((x & 0x3FFFF) >> 4);
}

__device__ __forceinline__ u64 make_desc(unsigned addr, unsigned lbo,
                                         unsigned sbo, u64 mode = 1)
{
    return desc_enc(addr) | desc_enc(lbo) << 16 | desc_enc(sbo) << 32 |
           mode << 62;
}

__device__ __forceinline__ void wg_fence(void)
{
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}

__device__ __forceinline__ void wg_commit(void)
{
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

/* Waits until at most N wgmma groups of the warpgroup are pending. */
template <int N> __device__ __forceinline__ void wg_wait(void)
{
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

/* Keeps the compiler from moving accumulator reads across a wait. */
template <int R> __device__ __forceinline__ void reg_fence(float (&d)[R])
{
#pragma unroll
    for (int i = 0; i < R; ++i)
        asm volatile("" : "+f"(d[i])::"memory");
}

/* Operand numbers %0.. of the accumulators, 8 a group. */
#define KV_R0 "%0, %1, %2, %3, %4, %5, %6, %7"
#define KV_R1 "%8, %9, %10, %11, %12, %13, %14, %15"
#define KV_R2 "%16, %17, %18, %19, %20, %21, %22, %23"
#define KV_R3 "%24, %25, %26, %27, %28, %29, %30, %31"
#define KV_R4 "%32, %33, %34, %35, %36, %37, %38, %39"
#define KV_R5 "%40, %41, %42, %43, %44, %45, %46, %47"
#define KV_R6 "%48, %49, %50, %51, %52, %53, %54, %55"
#define KV_R7 "%56, %57, %58, %59, %60, %61, %62, %63"
#define KV_R8 "%64, %65, %66, %67, %68, %69, %70, %71"
#define KV_R9 "%72, %73, %74, %75, %76, %77, %78, %79"
#define KV_R10 "%80, %81, %82, %83, %84, %85, %86, %87"
#define KV_R11 "%88, %89, %90, %91, %92, %93, %94, %95"
#define KV_R12 "%96, %97, %98, %99, %100, %101, %102, %103"
#define KV_R13 "%104, %105, %106, %107, %108, %109, %110, %111"
#define KV_R14 "%112, %113, %114, %115, %116, %117, %118, %119"
#define KV_R15 "%120, %121, %122, %123, %124, %125, %126, %127"
#define KV_REGS32 KV_R0 ", " KV_R1 ", " KV_R2 ", " KV_R3
#define KV_REGS64 KV_REGS32 ", " KV_R4 ", " KV_R5 ", " KV_R6 ", " KV_R7
#define KV_REGS96 KV_REGS64 ", " KV_R8 ", " KV_R9 ", " KV_R10 ", " KV_R11
#define KV_REGS104 KV_REGS96 ", " KV_R12
#define KV_REGS128 KV_REGS104 ", " KV_R13 ", " KV_R14 ", " KV_R15
/* The accumulators d[i .. i + 7] as read-write operands. */
#define KV_D8(i)                                                             \
    "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]),              \
        "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
#define KV_D32 KV_D8(0), KV_D8(8), KV_D8(16), KV_D8(24)
#define KV_D64 KV_D32, KV_D8(32), KV_D8(40), KV_D8(48), KV_D8(56)
#define KV_D96 KV_D64, KV_D8(64), KV_D8(72), KV_D8(80), KV_D8(88)
#define KV_D104 KV_D96, KV_D8(96)
#define KV_D128 KV_D104, KV_D8(104), KV_D8(112), KV_D8(120)
/* One m64nNk16 wgmma of element type TY; REGS numbers the N / 2
 * accumulators, X0..X3 the operands after them (da, db, scale_d,
 * TRANS_B); the rest are the accumulator operands. */
#define KV_WGMMA(N, TY, REGS, X0, X1, X2, X3, ...)                           \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #X2 ", 0;\n"            \
                 "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." TY "." TY \
                 " {" REGS "}, %" #X0 ", %" #X1 ", p, 1, 1, 0, %" #X3        \
                 ";\n}\n"                                                    \
                 : __VA_ARGS__                                               \
                 : "l"(da), "l"(db), "r"(scale_d), "n"(TRANS_B))
#define KV_WGMMA_T(N, ...)                                                   \
    do {                                                                     \
        if (AB_BF16)                                                         \
            KV_WGMMA(N, "bf16", __VA_ARGS__);                                \
        else                                                                 \
            KV_WGMMA(N, "f16", __VA_ARGS__);                                 \
    } while (0)

/*
 * D(64 x N, fp32 in registers) = A(64 x 16) * B(16 x N) (+ D unless
 * scale_d is 0), issued by the whole warpgroup. A is K-major, from
 * descriptor da; B from descriptor db, N-major (TRANS_B = 1: read
 * transposed, 16-bit types only) or K-major (TRANS_B = 0). d is the
 * thread's fragment: register 4 i + 2 h (+ 1) is row 16 * warp + lane / 4
 * + 8 h, column 8 i + 2 (lane % 4) (+ 1). N: 64, 128, 192, 208 or 256.
 */
template <int N, int TRANS_B = 1>
__device__ __forceinline__ void wgmma_m64k16(float (&d)[N / 2], u64 da,
                                             u64 db, int scale_d)
{
    static_assert(N == 64 || N == 128 || N == 192 || N == 208 || N == 256,
                  "wgmma_m64k16: N is 64, 128, 192, 208 or 256");
    if constexpr (N == 64)
        KV_WGMMA_T(64, KV_REGS32, 32, 33, 34, 35, KV_D32);
    else if constexpr (N == 128)
        KV_WGMMA_T(128, KV_REGS64, 64, 65, 66, 67, KV_D64);
    else if constexpr (N == 192)
        KV_WGMMA_T(192, KV_REGS96, 96, 97, 98, 99, KV_D96);
    else if constexpr (N == 208)
        KV_WGMMA_T(208, KV_REGS104, 104, 105, 106, 107, KV_D104);
    else
        KV_WGMMA_T(256, KV_REGS128, 128, 129, 130, 131, KV_D128);
}

#endif /* KEVO_SM90_CUH */
