/*
 * test_kvhdr.c - kevo's own CUDA headers (src/core/kvhdr.c): the table
 * names kevo/sm90.cuh with the text of templates/include/kevo_sm90.cuh,
 * include lines are recognised as the preprocessor would (and nothing
 * else is), NVRTC finds the header in memory (no host include path has a
 * kevo/ folder), a candidate's cache key covers the header text, and
 * kvhdr_inline gives a source that needs no kevo (export).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fsutil.h"
#include "jit.h"
#include "kvhdr.h"

static const char *prelude =
    "#include <cuda_bf16.h>\ntypedef __nv_bfloat16 elem_t;\n"
    "#define TO_F32(x) __bfloat162float(x)\n"
    "#define FROM_F32(x) __float2bfloat16_rn(x)\n";

static void test_table(void)
{
    CHECK(kvhdr_count() >= 1);
    CHECK(!strcmp(kvhdr_name(0), "kevo/sm90.cuh"));
    CHECK(kvhdr_names()[0] == kvhdr_name(0));
    CHECK(kvhdr_texts()[0] == kvhdr_text(0));
    CHECK(kvhdr_find("kevo/sm90.cuh") == kvhdr_text(0));
    CHECK(kvhdr_find("kevo/none.cuh") == NULL);
    CHECK(kvhdr_name(kvhdr_count()) == NULL && kvhdr_text(-1) == NULL);
    /* the embedded text is the file's */
    char *file = NULL;
    size_t n = 0;
    CHECK(fs_read_file("templates/include/kevo_sm90.cuh", &file, &n) == 0);
    CHECK(file && !strcmp(file, kvhdr_text(0)));
    free(file);
}

static void test_included(void)
{
    CHECK(kvhdr_included("#include \"kevo/sm90.cuh\"\n") != NULL);
    CHECK(kvhdr_included("  #  include <kevo/sm90.cuh> // x") != NULL);
    CHECK(kvhdr_included("#include \"kevo/sm90.cuh\"") != NULL);
    CHECK(kvhdr_included("#include \"kevo/sm90.cuh.bak\"") == NULL);
    CHECK(kvhdr_included("#include \"kevo/sm90.cuh>") == NULL);
    CHECK(kvhdr_included("// #include \"kevo/sm90.cuh\"") == NULL);
    CHECK(kvhdr_included("#include \"kevo/other.cuh\"") == NULL);
    CHECK(kvhdr_included("#define X \"kevo/sm90.cuh\"") == NULL);
}

/* A kernel that uses the header's wgmma and mbarrier helpers. */
static char *kernel_src(void)
{
    char *s = NULL;
    if (asprintf(&s, "%s#include \"kevo/sm90.cuh\"\n"
                     "#include \"kevo/sm90.cuh\" /* guarded */\n"
                     "extern \"C\" __global__ void k(float *o, u64 a, u64 b)\n"
                     "{\n"
                     "    __shared__ unsigned long long bar;\n"
                     "    float d[32] = {};\n"
                     "    mbar_init(smem_u32(&bar), 1);\n"
                     "    wg_fence();\n"
                     "    wgmma_m64k16<64>(d, a, b, 0);\n"
                     "    wg_commit();\n"
                     "    wg_wait<0>();\n"
                     "    o[threadIdx.x] = d[threadIdx.x %% 32];\n"
                     "}\n",
                 prelude) < 0)
        return NULL;
    return s;
}

static void test_compile_in_memory(void)
{
    char *src = kernel_src();
    CHECK(src != NULL);
    if (!src)
        return;
    struct jit_output o;
    CHECK(jit_compile(src, "hdr", "sm_90a", &o) == KEVO_OK);
    CHECK_MSG(o.ok && o.cubin_len > 0, "%s", o.log ? o.log : "");
    jit_output_release(&o);
    /* a kevo/ name kevo does not provide is not found anywhere */
    const char *bad = "#include \"kevo/none.cuh\"\n"
                      "extern \"C\" __global__ void k(void) {}\n";
    CHECK(jit_compile(bad, "bad", "sm_90a", &o) == KEVO_OK);
    CHECK(!o.ok && o.log && strstr(o.log, "kevo/none.cuh"));
    jit_output_release(&o);
    free(src);
}

static void test_inline(void)
{
    char *src = kernel_src();
    char *out = src ? kvhdr_inline(src) : NULL;
    CHECK(out != NULL);
    if (!out) {
        free(src);
        return;
    }
    CHECK(!strstr(out, "\n#include \"kevo/")); /* no include line */
    /* the text once (the second include is only a mark), the rest kept */
    const char *t = kvhdr_text(0);
    const char *first = strstr(out, t);
    CHECK(first && !strstr(first + 1, t));
    CHECK(strstr(out, "/* ---- kevo/sm90.cuh (kevo's, inlined) begins */"));
    CHECK(strstr(out, "/* ---- kevo/sm90.cuh (kevo's, inlined) again: "
                      "skipped */"));
    CHECK(!strncmp(out, prelude, strlen(prelude)));
    CHECK(strstr(out, "    wgmma_m64k16<64>(d, a, b, 0);\n"));
    /* still one program NVRTC compiles */
    struct jit_output o;
    CHECK(jit_compile(out, "inl", "sm_90a", &o) == KEVO_OK && o.ok);
    jit_output_release(&o);
    /* a source without kevo's headers comes back byte for byte */
    char *same = kvhdr_inline(prelude);
    CHECK(same && !strcmp(same, prelude));
    free(same);
    free(out);
    free(src);
}

static void test_cache_key(void)
{
    char *src = kernel_src();
    CHECK(src != NULL);
    if (!src)
        return;
    const char *names[] = {"kevo/sm90.cuh"};
    char *changed = NULL;
    CHECK(asprintf(&changed, "%s/* one more line */\n", kvhdr_text(0)) > 0);
    const char *texts[] = {kvhdr_text(0)}, *texts2[] = {changed};
    uint64_t k = jit_cache_key(src, "sm_90a");
    CHECK(k == jit_cache_key_with(src, "sm_90a", kvhdr_count(),
                                  kvhdr_names(), kvhdr_texts()));
    CHECK(k == jit_cache_key_with(src, "sm_90a", 1, names, texts));
    /* a changed header text is a new key: the candidate recompiles */
    CHECK(k != jit_cache_key_with(src, "sm_90a", 1, names, texts2));
    CHECK(k != jit_cache_key_with(src, "sm_90a", 0, NULL, NULL));
    free(changed);
    free(src);
}

int main(void)
{
    RUN(test_table, "the table names kevo/sm90.cuh with the file's text");
    RUN(test_included, "include lines of kevo headers are found, others not");
    RUN(test_compile_in_memory,
        "NVRTC compiles a source that includes kevo/sm90.cuh from memory");
    RUN(test_inline, "inlining leaves a source that needs no kevo header");
    RUN(test_cache_key, "the cache key covers the text of kevo's headers");
    TEST_DONE();
}
