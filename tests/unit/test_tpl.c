/*
 * test_tpl.c - unit tests of src/core/tpl.c: parsing good templates, the
 * launch plan, instantiation, space counting, shape support, and one
 * data-driven case per malformed-template kind (tests/data/templates/bad,
 * each file's first line is "// expect: <substring of the error>", where
 * '*' stands for any text).
 * Paths are relative to the repository root, where the tests run.
 */
#include <glob.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fsutil.h"
#include "hash.h"
#include "tpl.h"

#define DATA "tests/data/templates"

static char err[512];

/* Loads a test template; NULL (and a failed check) if it does not parse. */
static struct tpl *load(const char *path)
{
    struct tpl *t = NULL;
    int rc = tpl_load(path, &t, err, sizeof err);
    CHECK_MSG(rc == KEVO_OK, "%s", err);
    return rc ? NULL : t;
}

/* Parses text as template "t"; NULL (and a failed check) on error. */
static struct tpl *parse(const char *text)
{
    struct tpl *t = NULL;
    int rc = tpl_parse("t", NULL, text, &t, err, sizeof err);
    CHECK_MSG(rc == KEVO_OK, "%s", err);
    return rc ? NULL : t;
}

static struct shape shape3(int64_t m, int64_t n, int64_t k)
{
    return (struct shape){.n_dims = 3, .d = {m, n, k}};
}

static void test_parse_good(void)
{
    struct tpl *t = load(DATA "/dir/gemm/tiled.cu");
    if (!t)
        return;
    CHECK(!strcmp(t->name, "tiled"));
    CHECK(!strcmp(t->path, DATA "/dir/gemm/tiled.cu"));
    CHECK(!strcmp(t->problem, "gemm"));
    CHECK(t->dtype_mask == (1u << DTYPE_FP32 | 1u << DTYPE_FP16));
    CHECK(t->n_params == 5);
    CHECK(!strcmp(t->params[0].name, "BM") && t->params[0].n_values == 3);
    CHECK(t->params[0].values[2] == 128 && t->params[0].def == 1);
    CHECK(!strcmp(t->params[4].name, "TN") && t->params[4].def == 0);
    CHECK(t->n_constraints == 3 && t->constraints[0].line == 13);
    CHECK(t->n_requires == 1 && t->requires_[0].line == 16);
    CHECK(t->n_launches == 1 && !strcmp(t->launches[0].kernel, "gemm_tiled"));
    CHECK(t->launches[0].line == 17 && t->launches[0].grid[2] == NULL);
    CHECK(t->launches[0].cluster[0] == NULL && t->workspace == NULL);
    CHECK(!t->nondeterministic);
    CHECK(t->n_vars == 5 + 3 + 3);
    CHECK(!strcmp(t->var_names[5], "M") && !strcmp(t->var_names[8], "SMS"));
    CHECK(t->hash == hash_final(hash_str(HASH_SEED, t->text)));
    CHECK(tpl_value_index(t, 2, 32) == 2 && tpl_value_index(t, 2, 33) == -1);
    int64_t def[TPL_MAX_PARAMS];
    tpl_default_point(t, def);
    CHECK(def[0] == 64 && def[1] == 64 && def[2] == 16 && def[3] == 4 &&
          def[4] == 4);
    tpl_free(t);
}

static void test_parse_launches(void)
{
    struct tpl *t = load(DATA "/dir/gemm/splitk.cu");
    if (!t)
        return;
    CHECK(t->n_launches == 2 && t->nondeterministic);
    CHECK(!strcmp(t->launches[1].kernel, "splitk_reduce"));
    CHECK(t->launches[0].cluster[2] != NULL && t->workspace != NULL);
    int64_t vals[2] = {4, 256};
    struct shape s = shape3(1000, 2000, 512);
    struct launch_plan p;
    int rc = tpl_plan(t, vals, &s, NULL, &p, err, sizeof err);
    CHECK_MSG(rc == KEVO_OK, "%s", err);
    CHECK(p.n == 2 && p.workspace_bytes == 4ull * 1000 * 2000 * 4);
    CHECK(p.l[0].grid[0] == 63 && p.l[0].grid[1] == 32 && p.l[0].grid[2] == 4);
    CHECK(p.l[0].block[0] == 32 && p.l[0].block[1] == 32);
    CHECK(p.l[0].cluster[0] == 1 && p.l[0].cluster[2] == 4);
    CHECK(p.l[1].grid[0] == 7813 && p.l[1].block[0] == 256);
    CHECK(p.l[1].cluster[0] == 0 && p.l[1].smem_bytes == 0);
    CHECK(!t->launches[0].pdl && t->launches[1].pdl);
    CHECK(p.l[0].pdl == 0 && p.l[1].pdl == 1);
    CHECK(!strcmp(p.l[0].kernel, "splitk_partial"));
    tpl_free(t);
}

static void test_plan(void)
{
    struct tpl *t = load(DATA "/dir/gemm/tiled.cu");
    if (!t)
        return;
    int64_t vals[5] = {128, 64, 32, 8, 4};
    struct shape s = shape3(4096, 1000, 4096);
    struct launch_plan p;
    int rc = tpl_plan(t, vals, &s, NULL, &p, err, sizeof err);
    CHECK_MSG(rc == KEVO_OK, "%s", err);
    CHECK(p.n == 1 && !strcmp(p.l[0].kernel, "gemm_tiled"));
    CHECK(p.l[0].grid[0] == 16 && p.l[0].grid[1] == 32 && p.l[0].grid[2] == 1);
    CHECK(p.l[0].block[0] == 256 && p.l[0].block[1] == 1);
    CHECK(p.l[0].smem_bytes == (128 * 32 + 32 * 64) * 4);
    CHECK(p.l[0].cluster[0] == 0 && p.workspace_bytes == 0);
    s = shape3(2 * 65536 * 128, 64, 64); /* grid.y = M / BM = 131072 */
    rc = tpl_plan(t, vals, &s, NULL, &p, err, sizeof err);
    CHECK(rc == KEVO_EINVAL);
    CHECK_MSG(strstr(err, "launch 'gemm_tiled': grid.y = 131072 is outside "
                          "[1, 65535]"),
              "%s", err);
    struct tpl_device small = {.sms = 8, .smem_optin = 4096, .l2_bytes = 1};
    s = shape3(64, 64, 64);
    rc = tpl_plan(t, vals, &s, &small, &p, err, sizeof err);
    CHECK(rc == KEVO_EINVAL);
    CHECK_MSG(strstr(err, "smem = 24576 is outside [0, 4096]"), "%s", err);
    tpl_free(t);
}

/* Plan errors of inline templates: one launch k with the given lines. */
static void plan_fails(const char *lines, const char *want)
{
    char text[1024];
    snprintf(text, sizeof text,
             "// kevo: problem softmax\n// kevo: dtypes fp32\n"
             "// kevo: param P 0 1 2 default=1\n"
             "// kevo: launch k\n%s"
             "extern \"C\" __global__ void k(int P) {}\n",
             lines);
    struct tpl *t = parse(text);
    if (!t)
        return;
    struct shape s = {.n_dims = 2, .d = {3, 4096}};
    struct launch_plan p;
    int64_t vals[1] = {0};
    int rc = tpl_plan(t, vals, &s, NULL, &p, err, sizeof err);
    CHECK_MSG(rc == KEVO_EINVAL && strstr(err, want), "'%s': %s", want, err);
    tpl_free(t);
}

static void test_plan_limits(void)
{
    plan_fails("// kevo: grid ROWS * P\n", "grid.x = 0 is outside");
    plan_fails("// kevo: grid 1, 65536\n", "grid.y = 65536 is outside");
    plan_fails("// kevo: grid 1, 1, 70000\n", "grid.z = 70000 is outside");
    plan_fails("// kevo: grid 1 << 31\n", "grid.x = 2147483648 is outside");
    plan_fails("// kevo: block 64, 1, 65\n", "block.z = 65 is outside");
    plan_fails("// kevo: block 2048\n", "block.x = 2048 is outside");
    plan_fails("// kevo: block 64, 32\n", "block has 2048 threads (max 1024)");
    plan_fails("// kevo: grid COLS / P\n",
               "grid.x 'COLS / P' cannot be evaluated");
    plan_fails("// kevo: smem P - 1\n", "smem = -1 is outside");
    plan_fails("// kevo: grid 3\n// kevo: cluster 2\n",
               "cluster 2x1x1 does not divide grid 3x1x1");
    plan_fails("// kevo: grid 32, 32\n// kevo: cluster 8, 4\n",
               "cluster 8x4x1 has more than 16 blocks");
    plan_fails("// kevo: workspace P - 8\n", "workspace = -8 is outside");
}

static void test_instantiate(void)
{
    struct tpl *t = load(DATA "/dir/gemm/tiled.cu");
    if (!t)
        return;
    int64_t vals[5] = {128, 64, 32, 8, 4};
    char *src = tpl_instantiate(t, vals, DTYPE_FP16, NULL);
    CHECK(src != NULL);
    if (src) {
        const char *head =
            "// kevo: tiled BM=128 BN=64 BK=32 TM=8 TN=4 dtype=fp16\n";
        CHECK(!strncmp(src, head, strlen(head)));
        char *pre = strstr(src, "typedef __half elem_t;");
        char *def = strstr(src, "#define BM 128\n#define BN 64\n"
                                "#define BK 32\n#define TM 8\n#define TN 4\n"
                                "#line 1 \"tiled.cu\"\n/*\n * tiled.cu");
        CHECK(pre && def && pre < def);
        CHECK(strstr(src, t->text) != NULL);
        free(src);
    }
    tpl_free(t);
}

/* A param that no code names (only a directive's expression; comments,
 * strings and the directives do not count) is launch-only: no #define in
 * the source and not in its first line, so two points that differ only
 * in it are the same source. */
static void test_launch_only(void)
{
    struct tpl *t = parse(
        "// kevo: problem gemm\n// kevo: dtypes fp32\n"
        "// kevo: param BM 32 64 default=32\n"
        "// kevo: param SPLIT 1 2 4 default=1\n"
        "// kevo: param HINT 0 1 default=0\n"
        "// kevo: param SIDE 0 1 default=0\n"
        "// kevo: launch k\n// kevo: grid cdiv(M, BM), 1, SPLIT\n"
        "// kevo: block 128 * (1 + HINT)\n"
        "/* SPLIT and HINT are read from gridDim and blockDim */\n"
        "extern \"C\" __global__ void k(float *A, float *B, float *C, int M,\n"
        "    int N, int K, void *ws) { const char *s = \"SPLIT\"; (void)s;\n"
        "    int bm = BM; (void)bm; // HINT\n"
        "#if SIDE\n    C[0] = 1;\n#endif\n}\n");
    if (!t)
        return;
    CHECK(!t->params[0].launch_only && t->params[1].launch_only &&
          t->params[2].launch_only && !t->params[3].launch_only);
    int64_t a[4] = {32, 1, 0, 1}, b[4] = {32, 4, 1, 1}, c[4] = {64, 1, 0, 1};
    char *sa = tpl_instantiate(t, a, DTYPE_FP32, NULL),
         *sb = tpl_instantiate(t, b, DTYPE_FP32, NULL),
         *sc = tpl_instantiate(t, c, DTYPE_FP32, NULL);
    CHECK(sa && sb && sc);
    if (sa && sb && sc) {
        /* the first line names the compiled params only: a and b, which
         * differ in launch-only ones, are one source */
        CHECK(!strncmp(sa, "// kevo: t BM=32 SIDE=1 dtype=fp32\n", 35));
        CHECK(!strcmp(sa, sb));
        CHECK(strstr(sa, "#define BM 32\n") && strstr(sa, "#define SIDE 1\n"));
        CHECK(!strstr(sa, "#define SPLIT") && !strstr(sa, "#define HINT"));
        CHECK(!strcmp(strchr(sa, '\n'), strchr(sb, '\n')));
        CHECK(strcmp(strchr(sa, '\n'), strchr(sc, '\n')) != 0);
    }
    free(sa);
    free(sb);
    free(sc);
    tpl_free(t);
}

/* A shape fact is #defined at the shape's value: two shapes with other
 * values give two sources, two with the same value one; it may use params;
 * without a shape, or where it cannot be evaluated, there is no source and
 * tpl_prepare refuses the shape, naming the fact. */
static void test_facts(void)
{
    struct tpl *t = parse(
        "// kevo: problem gemm\n// kevo: dtypes fp32\n"
        "// kevo: param BK 8 16 default=8\n"
        "// kevo: fact BVEC N % 4 == 0\n"
        "// kevo: fact KFULL K % BK == 0\n"
        "// kevo: fact PER 64 / (M - 7)\n"
        "// kevo: launch k\n// kevo: grid cdiv(M, 64)\n// kevo: block 128\n"
        "extern \"C\" __global__ void k(float *A, float *B, float *C, int M,\n"
        "    int N, int K, void *ws) {\n"
        "#if BVEC && KFULL\n    C[0] = PER;\n#endif\n}\n");
    if (!t)
        return;
    CHECK(t->n_facts == 3 && !strcmp(t->facts[1].name, "KFULL"));
    int64_t v8[1] = {8}, v16[1] = {16}, f[TPL_MAX_FACTS];
    struct shape a = shape3(9, 64, 24), b = shape3(9, 68, 40),
                 c = shape3(9, 66, 24), bad = shape3(7, 64, 64);
    char *sa = tpl_instantiate(t, v8, DTYPE_FP32, &a),
         *sb = tpl_instantiate(t, v8, DTYPE_FP32, &b),
         *sc = tpl_instantiate(t, v8, DTYPE_FP32, &c),
         *s16 = tpl_instantiate(t, v16, DTYPE_FP32, &a);
    CHECK(sa && sb && sc && s16);
    if (sa && sb && sc && s16) {
        /* BK is launch-only (no code names it), but KFULL carries it */
        CHECK(t->params[0].launch_only && !strstr(sa, "#define BK"));
        CHECK(strstr(sa, "\n#define BVEC 1\n#define KFULL 1\n"
                         "#define PER 32\n#line 1"));
        CHECK(!strcmp(sa, sb)); /* same facts: one source, one compile */
        CHECK(strstr(sc, "#define BVEC 0\n#define KFULL 1\n"));
        CHECK(strstr(s16, "\n#define BVEC 1\n#define KFULL 0\n"));
    }
    CHECK(tpl_facts(t, v8, &a, f, err, sizeof err) == KEVO_OK && f[0] == 1 &&
          f[1] == 1 && f[2] == 32);
    CHECK(tpl_instantiate(t, v8, DTYPE_FP32, NULL) == NULL);
    CHECK(tpl_instantiate(t, v8, DTYPE_FP32, &bad) == NULL);
    CHECK(tpl_prepare(t, v8, DTYPE_FP32, &a, NULL, NULL, err, sizeof err) ==
          KEVO_OK);
    CHECK(tpl_prepare(t, v8, DTYPE_FP32, &bad, NULL, NULL, err, sizeof err) ==
          KEVO_EINVAL);
    CHECK_MSG(strstr(err, "fact 'PER = 64 / (M - 7)' cannot be evaluated "
                          "for 7x64x64"),
              "%s", err);
    free(sa);
    free(sb);
    free(sc);
    free(s16);
    tpl_free(t);
}

static void test_space_small(void)
{
    /*
     * A in 1..4, B in 1..3, C in 1..2 with A+B <= 5, A != 2, C*SMS <= 200.
     * (A,B): A=1: 3, A=3: 2, A=4: 1 -> 6 pairs; C=1 only on 132 SMs (6),
     * both C on 100 SMs (12). Raw space 4*3*2 = 24.
     */
    struct tpl *t = parse("// kevo: problem softmax\n// kevo: dtypes fp32\n"
                          "// kevo: param A 1 2 3 4\n"
                          "// kevo: param B 1 2 3\n"
                          "// kevo: param C 1 2\n"
                          "// kevo: constraint C * SMS <= 200\n"
                          "// kevo: constraint A + B <= 5\n"
                          "// kevo: constraint A != 2\n"
                          "// kevo: launch k\n// kevo: block A * B * C\n"
                          "extern \"C\" __global__ void k() {}\n");
    if (!t)
        return;
    struct tpl_device d100 = tpl_device_default;
    d100.sms = 100;
    CHECK(tpl_space_raw(t) == 24.0);
    CHECK(tpl_space_size(t, NULL, 1000) == 6);
    CHECK(tpl_space_size(t, &tpl_device_default, 1000) == 6);
    CHECK(tpl_space_size(t, &d100, 1000) == 12);
    CHECK(tpl_space_size(t, &d100, 5) == 5);
    CHECK(tpl_space_size(t, &d100, 0) == 0);
    int64_t ok[3] = {3, 2, 1}, sum[3] = {4, 2, 1}, two[3] = {2, 1, 1},
            off[3] = {5, 1, 1}, c2[3] = {1, 1, 2};
    CHECK(tpl_point_valid(t, ok, NULL));
    CHECK(!tpl_point_valid(t, sum, NULL));
    CHECK(!tpl_point_valid(t, two, NULL));
    CHECK(!tpl_point_valid(t, off, NULL)); /* 5 is not an allowed value */
    CHECK(!tpl_point_valid(t, c2, NULL));
    CHECK(tpl_point_valid(t, c2, &d100));
    tpl_free(t);
}

static void test_space_tiled(void)
{
    /*
     * threads = (BM/TM)*(BN/TN) must lie in [64, 256]. BM/TM takes the six
     * values 8 4 16 8 32 16 (BM 32/64/128 x TM 4/8), so do BN/TN. Pairs
     * (a, b) in range: a=4: b in {16,16,32} = 3; a=8 (twice): 5 each;
     * a=16 (twice): 5 each; a=32: b in {8,4,8} = 3. 26 pairs x 3 BK = 78;
     * shared memory (<= 32 KiB) never binds on an H100.
     */
    struct tpl *t = load(DATA "/dir/gemm/tiled.cu");
    if (!t)
        return;
    CHECK(tpl_space_raw(t) == 108.0);
    CHECK(tpl_space_size(t, NULL, UINT64_MAX) == 78);
    int64_t def[5];
    tpl_default_point(t, def);
    CHECK(tpl_point_valid(t, def, NULL));
    tpl_free(t);
}

static void test_supports(void)
{
    struct tpl *t = load(DATA "/dir/gemm/tiled.cu");
    if (!t)
        return;
    int64_t vals[5];
    char why[256] = "";
    tpl_default_point(t, vals);
    struct shape s = shape3(4096, 4096, 4096);
    CHECK_MSG(!tpl_prepare(t, vals, DTYPE_FP32, &s, NULL, NULL, why, sizeof why),
              "%s", why);
    CHECK(!tpl_prepare(t, vals, DTYPE_FP16, &s, NULL, NULL, why, sizeof why));
    CHECK(tpl_prepare(t, vals, DTYPE_BF16, &s, NULL, NULL, why, sizeof why) == KEVO_EINVAL);
    CHECK_MSG(strstr(why, "dtype 'bf16'"), "%s", why);
    s = shape3(4096, 4096, 1000);
    CHECK(tpl_prepare(t, vals, DTYPE_FP32, &s, NULL, NULL, why, sizeof why) == KEVO_EINVAL);
    CHECK_MSG(!strcmp(why, "requires 'K % BK == 0' fails for 4096x4096x1000"),
              "%s", why);
    vals[2] = 8; /* BK = 8 divides 1000 */
    CHECK(!tpl_prepare(t, vals, DTYPE_FP32, &s, NULL, NULL, why, sizeof why));
    s = shape3(64 * 70000, 64, 64);
    CHECK(tpl_prepare(t, vals, DTYPE_FP32, &s, NULL, NULL, why, sizeof why) == KEVO_EINVAL);
    CHECK_MSG(strstr(why, "grid.y = 70000 is outside"), "%s", why);
    tpl_free(t);
}

/* A gemm template with two tensor maps (B's swizzle given); box
 * expressions use a param. */
static struct tpl *tmap_tpl(const char *swizzle)
{
    static const char fmt[] =
    "// kevo: problem gemm\n// kevo: dtypes fp16 fp32\n"
    "// kevo: param BM 64 128 512 default=128\n"
    "// kevo: tensormap tmB B 64, 64 swizzle=%s\n"
    "// kevo: tensormap tmA A  32 , BM/2\n"
    "// kevo: launch k\n// kevo: grid cdiv(M, BM)\n// kevo: block 128\n"
    "struct alignas(64) tm { unsigned long long q[16]; };\n"
    "extern \"C\" __global__ void k(const elem_t *A, const elem_t *B, "
    "elem_t *C, int M, int N, int K, void *ws, const __grid_constant__ tm "
    "tmA, const __grid_constant__ tm tmB) { (void)BM; }\n";
    char text[1024];
    snprintf(text, sizeof text, fmt, swizzle);
    return parse(text);
}

static void test_tensormap(void)
{
    struct tpl *t = tmap_tpl("64");
    if (!t)
        return;
    CHECK(t->n_tmaps == 2);
    CHECK(!strcmp(t->tmaps[0].name, "tmB") && t->tmaps[0].buf == 1);
    CHECK(t->tmaps[0].swizzle == 64 && t->tmaps[0].line == 4);
    CHECK(!strcmp(t->tmaps[1].name, "tmA") && t->tmaps[1].buf == 0);
    CHECK(t->tmaps[1].swizzle == 0 && t->tmaps[1].line == 5);
    int64_t vals[1] = {128};
    char why[256] = "";
    struct launch_plan p;
    struct shape s = shape3(1000, 776, 328);
    int rc = tpl_plan(t, vals, &s, NULL, &p, err, sizeof err);
    CHECK_MSG(rc == KEVO_OK, "%s", err);
    CHECK(p.n_tmaps == 2 && p.tm[0].buf == 1 && p.tm[0].swizzle == 64);
    CHECK(p.tm[0].box[0] == 64 && p.tm[0].box[1] == 64);
    CHECK(p.tm[1].buf == 0 && p.tm[1].box[0] == 32 && p.tm[1].box[1] == 64);
    /* fp16: 64 * 2 bytes fit the 64-byte swizzle? no: 128 > 64 */
    CHECK(tpl_prepare(t, vals, DTYPE_FP16, &s, NULL, NULL, why, sizeof why) == KEVO_EINVAL);
    CHECK_MSG(strstr(why, "tensormap 'tmB': a box row is 128 bytes, more "
                          "than the 64-byte swizzle"),
              "%s", why);
    tpl_free(t);
    /* with a 128-byte swizzle fp16 fits */
    t = tmap_tpl("128");
    if (!t)
        return;
    CHECK(t->tmaps[0].swizzle == 128);
    CHECK_MSG(!tpl_prepare(t, vals, DTYPE_FP16, &s, NULL, NULL, why, sizeof why),
              "%s", why);
    tpl_free(t);
    /* no swizzle: fp32 rows of A miss 16-byte strides when K % 4 != 0 */
    t = tmap_tpl("none");
    if (!t)
        return;
    CHECK(t->tmaps[0].swizzle == 0);
    CHECK_MSG(!tpl_prepare(t, vals, DTYPE_FP32, &s, NULL, NULL, why, sizeof why),
              "%s", why);
    s = shape3(1000, 776, 326); /* K * 4 = 1304 bytes */
    CHECK(tpl_prepare(t, vals, DTYPE_FP32, &s, NULL, NULL, why, sizeof why) == KEVO_EINVAL);
    CHECK_MSG(strstr(why, "tensormap 'tmA': a row of A is 1304 bytes, not a "
                          "multiple of 16"),
              "%s", why);
    vals[0] = 512; /* outer box BM / 2 = 256: the limit */
    s = shape3(1000, 776, 328);
    CHECK(tpl_plan(t, vals, &s, NULL, &p, err, sizeof err) == KEVO_OK);
    CHECK(p.tm[1].box[1] == 256);
    tpl_free(t);
}

/* Tensor map errors found by the plan: box dims out of [1, 256]. */
static void test_tensormap_plan_limits(void)
{
    struct tpl *t = parse(
        "// kevo: problem gemm\n// kevo: dtypes fp16\n"
        "// kevo: param W 8 512 default=8\n"
        "// kevo: tensormap tm C W, 4 - W / 64\n"
        "// kevo: launch k\n"
        "extern \"C\" __global__ void k(int W, int tm) {}\n");
    if (!t)
        return;
    int64_t vals[1] = {512};
    struct shape s = shape3(64, 64, 64);
    struct launch_plan p;
    int rc = tpl_plan(t, vals, &s, NULL, &p, err, sizeof err);
    CHECK_MSG(rc == KEVO_EINVAL && strstr(err, "tensormap 'tm' box inner = "
                                               "512 is outside [1, 256]"),
              "%s", err);
    vals[0] = 8;
    CHECK(tpl_plan(t, vals, &s, NULL, &p, err, sizeof err) == KEVO_OK);
    CHECK(p.tm[0].buf == 2 && p.tm[0].box[0] == 8 && p.tm[0].box[1] == 4);
    char why[256] = "";
    /* 8 fp16 = 16 bytes: fine; 8 bytes would not be */
    CHECK_MSG(!tpl_prepare(t, vals, DTYPE_FP16, &s, NULL, NULL, why, sizeof why),
              "%s", why);
    tpl_free(t);
}

/* l2=EXPR: the map's L2 promotion, any order with swizzle=, default 256,
 * evaluated with the params; a value other than 0/64/128/256 and bad
 * options are errors that say what is wrong. */
static void test_tensormap_l2(void)
{
    struct tpl *t = parse(
        "// kevo: problem gemm\n// kevo: dtypes fp16\n"
        "// kevo: param L2P 0 64 100 128 256 default=128\n"
        "// kevo: tensormap tA A 64, 64 l2=L2P swizzle=128\n"
        "// kevo: tensormap tB B 64, 64 swizzle=128 l2=64\n"
        "// kevo: tensormap tC C 64, 32\n"
        "// kevo: launch k\n"
        "extern \"C\" __global__ void k(int L2P, int tA, int tB, int tC) {}\n");
    if (!t)
        return;
    CHECK(t->tmaps[0].swizzle == 128 && t->tmaps[1].swizzle == 128);
    CHECK(t->tmaps[0].l2 && t->tmaps[1].l2 && !t->tmaps[2].l2);
    int64_t vals[1] = {128};
    struct shape s = shape3(64, 64, 64);
    struct launch_plan p;
    int rc = tpl_plan(t, vals, &s, NULL, &p, err, sizeof err);
    CHECK_MSG(rc == KEVO_OK, "%s", err);
    CHECK(p.tm[0].l2 == 128 && p.tm[1].l2 == 64 && p.tm[2].l2 == 256);
    CHECK(p.tm[0].box[0] == 64 && p.tm[0].box[1] == 64);
    vals[0] = 0;
    CHECK(tpl_plan(t, vals, &s, NULL, &p, err, sizeof err) == KEVO_OK &&
          p.tm[0].l2 == 0);
    vals[0] = 100;
    rc = tpl_plan(t, vals, &s, NULL, &p, err, sizeof err);
    CHECK_MSG(rc == KEVO_EINVAL && strstr(err, "tensormap 'tA' l2 is 100 "
                                               "(expected 0, 64, 128 or 256)"),
              "%s", err);
    tpl_free(t);
    static const struct { const char *opt, *want; } bad[] = {
        {"l2=64 l2=128", "repeated tensormap option 'l2=64'"},
        {"swizzle=64 swizzle=128", "repeated tensormap option 'swizzle=64'"},
        {"l2=", "tensormap option 'l2=' needs a value"},
        {"promo=1", "unknown tensormap option 'promo=1'"},
        {"l2=NOPE", "NOPE"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char text[512], e[256] = "";
        struct tpl *u = NULL;
        snprintf(text, sizeof text,
                 "// kevo: problem gemm\n// kevo: dtypes fp16\n"
                 "// kevo: tensormap tA A 64, 64 %s\n// kevo: launch k\n"
                 "extern \"C\" __global__ void k(int tA) {}\n", bad[i].opt);
        rc = tpl_parse("t", NULL, text, &u, e, sizeof e);
        CHECK_MSG(rc && !u && strstr(e, bad[i].want) && strstr(e, ":3"),
                  "%s: rc %d, '%s'", bad[i].opt, rc, e);
        tpl_free(u);
    }
}

/*
 * 1 if got contains the pieces of want between '*'s, in order. The '*'
 * lets a case avoid spelling a name it must not use (the expect line is
 * part of the template text).
 */
static int matches(const char *got, const char *want)
{
    char piece[256];
    for (;;) {
        size_t n = strcspn(want, "*");
        snprintf(piece, sizeof piece, "%.*s", (int)n, want);
        const char *at = strstr(got, piece);
        if (!at)
            return 0;
        got = at + n;
        if (!want[n])
            return 1;
        want += n + 1;
    }
}

/* Returns the "// expect: " text of a bad template's first line. */
static int read_expect(const char *path, char *out, size_t cap)
{
    char *text;
    if (fs_read_file(path, &text, NULL))
        return -1;
    const char *tag = "// expect: ";
    int ok = !strncmp(text, tag, strlen(tag));
    if (ok)
        snprintf(out, cap, "%.*s", (int)strcspn(text + strlen(tag), "\n"),
                 text + strlen(tag));
    free(text);
    return ok ? 0 : -1;
}

static void test_bad_templates(void)
{
    glob_t g;
    CHECK(glob(DATA "/bad/*.cu", 0, NULL, &g) == 0);
    CHECK(g.gl_pathc >= 15);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        const char *path = g.gl_pathv[i];
        char want[256];
        struct tpl *t = NULL;
        CHECK_MSG(read_expect(path, want, sizeof want) == 0,
                  "%s: no '// expect: ' line", path);
        err[0] = '\0';
        int rc = tpl_load(path, &t, err, sizeof err);
        CHECK_MSG(rc == KEVO_EPARSE && t == NULL, "%s parsed", path);
        CHECK_MSG(matches(err, want), "%s:\n    got  %s\n    want %s", path,
                  err, want);
        CHECK_MSG(!strncmp(err, path, strlen(path)), "%s: '%s'", path, err);
        tpl_free(t);
    }
    globfree(&g);
}

static void test_parse_errors(void)
{
    struct tpl *t = NULL;
    int rc = tpl_parse("bad\"name", NULL, "", &t, err, sizeof err);
    CHECK(rc == KEVO_EPARSE && t == NULL);
    CHECK_MSG(strstr(err, "bad template name"), "%s", err);
    rc =
        tpl_parse("x", NULL, "// kevo: problem softmax\n", &t, err, sizeof err);
    CHECK(rc == KEVO_EPARSE);
    CHECK_MSG(!strcmp(err, "x:1: missing 'dtypes' directive"), "%s", err);
    rc = tpl_load("tests/data/templates/none.cu", &t, err, sizeof err);
    CHECK(rc == KEVO_ENOENT && t == NULL);
    CHECK_MSG(strstr(err, "cannot read 'tests/data/templates/none.cu'"), "%s",
              err);
}

static void free_all(struct tpl **arr, int n)
{
    for (int i = 0; i < n; i++)
        tpl_free(arr[i]);
    free(arr);
}

static void test_load_dir(void)
{
    struct tpl **arr;
    int n;
    int rc = tpl_load_dir(DATA "/dir", &arr, &n, err, sizeof err);
    CHECK_MSG(rc == KEVO_OK, "%s", err);
    if (rc)
        return;
    CHECK(n == 3);
    if (n == 3) {
        CHECK(!strcmp(arr[0]->name, "splitk"));
        CHECK(!strcmp(arr[1]->name, "tiled"));
        CHECK(!strcmp(arr[2]->name, "rowwise"));
        CHECK(!strcmp(arr[2]->problem, "softmax"));
    }
    free_all(arr, n);
    rc = tpl_load_dir(DATA "/mismatch", &arr, &n, err, sizeof err);
    CHECK(rc == KEVO_EPARSE && arr == NULL && n == 0);
    CHECK_MSG(strstr(err, "softmax/wrong_folder.cu:2: problem 'gemm' does "
                          "not match its folder 'softmax'"),
              "%s", err);
    rc = tpl_load_dir(DATA "/nowhere", &arr, &n, err, sizeof err);
    CHECK(rc == KEVO_ENOENT && arr == NULL);
    rc = tpl_load_dir(DATA "/bad", &arr, &n, err, sizeof err);
    CHECK(rc == KEVO_OK && n == 0); /* no <problem>/ folders in it */
    free(arr);
}

/* An "arg": its params are launch-only when no code names them (points
 * differing only in them are one source), its value is in the plan per
 * point, shape and device, and a value outside int is refused there. */
static void test_args(void)
{
    struct tpl *t = parse(
        "// kevo: problem gemm\n// kevo: dtypes fp32\n"
        "// kevo: param BM 32 64 default=32\n"
        "// kevo: param G 1 4 8 default=8\n"
        "// kevo: arg group G\n"
        "// kevo: arg wide M * G * 1000 + SMS\n"
        "// kevo: launch k\n// kevo: grid cdiv(M, BM)\n// kevo: block 128\n"
        "// kevo: launch r\n// kevo: block 64\n"
        "extern \"C\" __global__ void k(float *A, float *B, float *C, int M,\n"
        "    int N, int K, void *ws, int group, int wide) {\n"
        "    C[0] = group + wide + BM; }\n"
        "extern \"C\" __global__ void r(float *A, float *B, float *C, int M,\n"
        "    int N, int K, void *ws) { }\n");
    if (!t)
        return;
    CHECK(t->n_args == 2 && !strcmp(t->args[0].name, "group") &&
          !strcmp(t->args[1].name, "wide"));
    CHECK(!t->params[0].launch_only && t->params[1].launch_only);
    int64_t g1[2] = {32, 1}, g8[2] = {32, 8};
    struct shape s = shape3(100, 64, 64), big = shape3(300000, 64, 64);
    char *s1 = tpl_instantiate(t, g1, DTYPE_FP32, &s),
         *s8 = tpl_instantiate(t, g8, DTYPE_FP32, &s);
    CHECK(s1 && s8);
    if (s1 && s8) {
        CHECK(!strstr(s1, "#define G ") && strstr(s1, "#define BM 32\n"));
        CHECK(!strcmp(strchr(s1, '\n'), strchr(s8, '\n')));
    }
    free(s1);
    free(s8);
    struct tpl_device dev = {100, 232448, 50 << 20};
    struct launch_plan pl;
    CHECK(tpl_plan(t, g8, &s, &dev, &pl, err, sizeof err) == KEVO_OK &&
          pl.n_args == 2 && pl.args[0] == 8 && pl.args[1] == 800100);
    CHECK(tpl_plan(t, g1, &s, &dev, &pl, err,
                   sizeof err) == KEVO_OK &&
          pl.args[0] == 1 && pl.args[1] == 100100);
    /* 300000 * 8 * 1000 + 100 does not fit an int */
    CHECK(tpl_plan(t, g8, &big, &dev, &pl, err, sizeof err) == KEVO_EINVAL);
    CHECK_MSG(strstr(err, "arg 'wide' = 2400000100 is outside"), "%s", err);
    CHECK(tpl_prepare(t, g8, DTYPE_FP32, &big, &dev, NULL, err, sizeof err) ==
          KEVO_EINVAL);
    CHECK(tpl_prepare(t, g1, DTYPE_FP32, &big, &dev, NULL, err, sizeof err) ==
          KEVO_OK);
    tpl_free(t);
}

/* grid.x of template path at shape ROWSxCOLS with the "NAME=VALUE"
 * assignments (others at their defaults), on tpl_device_default (132
 * SMs); -1 if it does not plan. */
static long grid_of(const char *path, int rows, int cols, const char *a1,
                    const char *a2)
{
    struct tpl *t = load(path);
    if (!t)
        return -1;
    int64_t v[TPL_MAX_PARAMS];
    tpl_default_point(t, v);
    struct shape s = {.n_dims = 2, .d = {rows, cols}};
    struct launch_plan p;
    long g = -1;
    if ((!a1 || tpl_set_param(t, v, a1) >= 0) &&
        (!a2 || tpl_set_param(t, v, a2) >= 0) &&
        tpl_plan(t, v, &s, NULL, &p, err, sizeof err) == KEVO_OK)
        g = (long)p.l[0].grid[0];
    tpl_free(t);
    return g;
}

/* Softmax's launch-only GRID (issue 32): kevo's own plan of the
 * persistent grids (scripts/tplcc.sh has its own evaluator). */
static void test_softmax_grid(void)
{
    const char *b = "templates/softmax/softmax_block.cu",
               *c = "templates/softmax/softmax_cluster.cu",
               *m = "templates/softmax/softmax_multirow.cu";
    CHECK(grid_of(b, 1000, 4096, "GRID=0", NULL) == 1000);
    CHECK(grid_of(b, 1000, 4096, "GRID=2", NULL) == 264);
    CHECK(grid_of(b, 1000, 4096, "GRID=8", NULL) == 1000);
    /* a whole number of clusters, at least one */
    CHECK(grid_of(c, 1000, 4096, "CL=4", "GRID=0") == 4000);
    CHECK(grid_of(c, 1000, 4096, "CL=4", "GRID=2") == 264);
    CHECK(grid_of(c, 1000, 4096, "CL=16", "GRID=1") == 128);
    CHECK(grid_of(c, 3, 4096, "CL=16", "GRID=1") == 48);
    /* 4 rows a block at the default point (G = 32, WARPS = 4, RPG = 1) */
    CHECK(grid_of(m, 1000, 1024, "GRID=0", NULL) == 250);
    CHECK(grid_of(m, 1000, 1024, "GRID=1", NULL) == 132);
}

static void test_real_templates(void)
{
    struct tpl **arr;
    int n;
    int rc = tpl_load_dir("templates", &arr, &n, err, sizeof err);
    CHECK_MSG(rc == KEVO_OK, "%s", err);
    if (rc)
        return;
    for (int i = 0; i < n; i++) {
        int64_t def[TPL_MAX_PARAMS];
        tpl_default_point(arr[i], def);
        CHECK_MSG(tpl_point_valid(arr[i], def, NULL), "%s", arr[i]->path);
        CHECK(tpl_space_size(arr[i], NULL, 1) == 1);
    }
    printf("     (%d templates in templates/)\n", n);
    free_all(arr, n);
}

int main(void)
{
    RUN(test_parse_good, "a good template parses with its params and plan");
    RUN(test_parse_launches, "two launches, cluster and workspace parse");
    RUN(test_plan, "the launch plan evaluates grid, block and smem");
    RUN(test_plan_limits, "launch plans outside CUDA limits are rejected");
    RUN(test_instantiate, "instantiation has header, prelude and defines");
    RUN(test_launch_only, "params no code names are launch-only: no #define");
    RUN(test_facts, "shape facts: #defined per shape, same values one "
                    "source, refused where they fail");
    RUN(test_args, "int args: launch-only params, values per point and "
                   "shape, refused outside int");
    RUN(test_space_small, "a small space counts as by hand");
    RUN(test_space_tiled, "the tiled space counts as by hand");
    RUN(test_supports, "supports checks dtype, requires and the plan");
    RUN(test_tensormap, "tensor maps parse, plan and check shapes per dtype");
    RUN(test_tensormap_plan_limits, "tensor map boxes outside [1, 256] fail");
    RUN(test_tensormap_l2, "tensormap l2=EXPR: L2 promotion per point, checked");
    RUN(test_bad_templates, "each malformed template fails as it expects");
    RUN(test_parse_errors, "names, missing files and missing dtypes fail");
    RUN(test_load_dir, "a templates root loads sorted, folders checked");
    RUN(test_softmax_grid, "softmax's GRID plans persistent grids, whole clusters");
    RUN(test_real_templates, "the templates in templates/ all load");
    TEST_DONE();
}
