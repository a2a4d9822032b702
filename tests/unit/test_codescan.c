/*
 * test_codescan.c - the judge's compiled-code rules (codescan.h), through
 * NVRTC (no GPU needed): the global timer and the device heap are refused
 * however the source spells them (split string literals in inline asm,
 * token pasting), and whatever a comment says is not held against a
 * kernel. Also the scanner on hand-written PTX.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "codescan.h"
#include "jit.h"

#define ARCH "sm_90a"

/* Compiles src; 1 if refused by the compiled-code rules with a reason
 * containing want, else 0 (and says what happened). */
static int refused(const char *src, const char *want)
{
    struct jit_output o;
    int rc = jit_compile(src, "cand.cu", ARCH, &o);
    const char *why = o.log ? strstr(o.log, "kevo: rejected: policy: ")
                            : NULL;
    int ok = rc == KEVO_OK && !o.ok && !o.cubin && why &&
             strstr(why, want);
    if (!ok)
        fprintf(stderr, "  rc %d ok %d log: %.600s\n", rc, o.ok,
                o.log ? o.log : "");
    jit_output_release(&o);
    return ok;
}

static int accepted(const char *src)
{
    struct jit_output o;
    int rc = jit_compile(src, "cand.cu", ARCH, &o);
    int ok = rc == KEVO_OK && o.ok && o.cubin;
    if (!ok)
        fprintf(stderr, "  rc %d ok %d log: %.600s\n", rc, o.ok,
                o.log ? o.log : "");
    jit_output_release(&o);
    return ok;
}

static void test_globaltimer_split(void)
{
    /* the kernel: the register name split across two literals */
    CHECK(refused("extern \"C\" __global__ void k(unsigned long long *o)\n"
                  "{\n"
                  "    unsigned long long t;\n"
                  "    asm volatile(\"mov.u64 %0, %%global\" \"timer;\""
                  " : \"=l\"(t));\n"
                  "    o[threadIdx.x] = t;\n"
                  "}\n",
                  "reads the global timer ('%globaltimer' in the PTX)"));
    /* the low half, spelled through a macro and stringizing */
    CHECK(refused("#define STR2(x) #x\n"
                  "#define STR(x) STR2(x)\n"
                  "#define LO glob##altimer_lo\n"
                  "extern \"C\" __global__ void k(unsigned *o)\n"
                  "{\n"
                  "    unsigned t;\n"
                  "    asm volatile(\"mov.u32 %0, %%\" STR(LO) \";\""
                  " : \"=r\"(t));\n"
                  "    o[threadIdx.x] = t;\n"
                  "}\n",
                  "'%globaltimer_lo'"));
}

static void test_heap_pasted(void)
{
    /* the memoizer in miniature: malloc and free by token pasting */
    CHECK(refused("#define CAT(a, b) a##b\n"
                  "extern \"C\" __global__ void k(float *y)\n"
                  "{\n"
                  "    float *m = (float *)CAT(mal, loc)(64);\n"
                  "    if (m) { m[0] = y[0]; y[1] = m[0]; }\n"
                  "}\n",
                  "allocates on the device heap ('malloc' in the PTX)"));
    CHECK(refused("#define CAT(a, b) a##b\n"
                  "extern \"C\" __global__ void k(void **p)\n"
                  "{ CAT(fr, ee)(p[threadIdx.x]); }\n",
                  "'free' in the PTX"));
    CHECK(refused("extern \"C\" __global__ void k(void **p)\n"
                  "{ p[threadIdx.x] = __nv_aligned_device_malloc(64, 16); }\n",
                  "'__cuda_syscall_aligned_malloc' in the PTX"));
}

static void test_comments_free(void)
{
    /* comments may say anything: the PTX has none of them */
    CHECK(accepted("// no malloc here, no free(), no %globaltimer either\n"
                   "/* malloc malloc globaltimer cudaLaunchDevice */\n"
                   "extern \"C\" __global__ void k(float *a)\n"
                   "{\n"
                   "    int malloc_count = 1; /* names that contain the "
                   "words are fine */\n"
                   "    a[threadIdx.x] *= (float)malloc_count;\n"
                   "}\n"));
}

static void test_ptx_text(void)
{
    char why[256];
    /* comments, string literals and longer identifiers are not calls */
    CHECK(codescan_ptx("// malloc %globaltimer\n"
                       ".file 1 \"/home/u/malloc.cu\"\n"
                       "/* free */ .param .b64 malloc_param_0;\n"
                       "mov.u64 %rd1, %globaltimer_x;\n", why,
                       sizeof why) == 0);
    CHECK(codescan_ptx("call.uni (retval0), malloc, (param0);\n", why,
                       sizeof why) == 1 &&
          strstr(why, "'malloc' in the PTX"));
    CHECK(codescan_ptx("\tmov.u32 %r1, %globaltimer_hi;", why,
                       sizeof why) == 1 &&
          strstr(why, "global timer"));
    CHECK(codescan_ptx(".extern .func (.param .b32 r) cudaLaunchDeviceV2\n",
                       why, sizeof why) == 1 &&
          strstr(why, "launches kernels from the device"));
    CHECK(codescan_ptx("", why, sizeof why) == 0);
}

int main(void)
{
    RUN(test_globaltimer_split, "the global timer read through a split "
        "string literal or a pasted macro is refused");
    RUN(test_heap_pasted, "device malloc/free through token pasting and the "
        "aligned allocator are refused");
    RUN(test_comments_free, "a comment mentioning malloc and the global "
        "timer is accepted");
    RUN(test_ptx_text, "the PTX scan skips comments, literals and longer "
        "names");
    TEST_DONE();
}
