/*
 * test_srcmemo.c - the engine's memo of instantiated sources (srcmemo.h)
 * gives what tpl_instantiate_hdr gives, text and journal hash, for every
 * point and shape: points whose text is one share it, a fact carried by a
 * launch-only param and the header of all params keep theirs apart; past
 * its size it instantiates as before.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hash.h"
#include "srcmemo.h"
#include "tpl.h"

static char err[512];

/* BK: launch-only, but the fact KFULL carries it; OCC: launch-only and
 * named by nothing but the grid; T: compiled */
static const char text[] =
    "// kevo: problem gemm\n// kevo: dtypes fp32\n"
    "// kevo: param T 64 128 default=64\n"
    "// kevo: param BK 8 16 default=8\n"
    "// kevo: param OCC 1 2 3 default=1\n"
    "// kevo: fact KFULL K % BK == 0\n"
    "// kevo: fact PER 64 / (M - 7)\n"
    "// kevo: launch k\n// kevo: grid cdiv(M, T) * OCC\n// kevo: block T\n"
    "extern \"C\" __global__ void k(float *A, float *B, float *C, int M,\n"
    "    int N, int K, void *ws) {\n"
    "#if KFULL\n    C[0] = T + PER;\n#endif\n}\n";

static struct shape shape3(int64_t m, int64_t n, int64_t k)
{
    return (struct shape){.n_dims = 3, .d = {m, n, k}};
}

static void release(char *s, int lent)
{
    if (!lent)
        free(s);
}

static void test_same_as_instantiate(void)
{
    struct tpl *t = NULL;
    CHECK_MSG(tpl_parse("t", NULL, text, &t, err, sizeof err) == KEVO_OK,
              "%s", err);
    if (!t)
        return;
    struct shape shapes[] = {shape3(256, 64, 24), shape3(256, 64, 40),
                             shape3(512, 64, 24)};
    static const int64_t T[] = {64, 128}, BK[] = {8, 16}, OCC[] = {1, 2, 3};
    for (int hdr = 0; hdr < 2; hdr++) {
        struct srcmemo m = {0};
        int same = 1, lent_all = 1, n = 0;
        for (int rep = 0; rep < 2; rep++) /* the second time from the memo */
            for (size_t s = 0; s < 3; s++)
                for (int a = 0; a < 2; a++)
                    for (int b = 0; b < 2; b++)
                        for (int c = 0; c < 3; c++) {
                            int64_t v[3] = {T[a], BK[b], OCC[c]};
                            char *got, *want = tpl_instantiate_hdr(
                                           t, v, DTYPE_FP32, &shapes[s], hdr);
                            uint64_t h;
                            int lent;
                            CHECK(srcmemo_get(&m, t, 0, v, DTYPE_FP32,
                                              &shapes[s], hdr, &got, &h,
                                              &lent) == KEVO_OK);
                            same &= want && !strcmp(got, want) &&
                                    h == hash_final(hash_str(HASH_SEED, want));
                            lent_all &= lent;
                            release(got, lent);
                            free(want);
                            n++;
                        }
        CHECK_MSG(same, "header %d: a text or hash differs", hdr);
        CHECK(lent_all && n == 72);
        /* entries kept: with the header of compiled params OCC adds none
         * (3 shapes x T x BK, which sets KFULL), with all params 36 */
        long distinct = m.n;
        if (hdr)
            CHECK_MSG(distinct == 12, "%ld texts kept", distinct);
        else
            CHECK_MSG(distinct == 36, "%ld texts kept", distinct);
        srcmemo_release(&m);
    }
    tpl_free(t);
}

static void test_lent_shared(void)
{
    struct tpl *t = NULL;
    CHECK(tpl_parse("t", NULL, text, &t, err, sizeof err) == KEVO_OK);
    if (!t)
        return;
    struct srcmemo m = {0};
    struct shape s = shape3(256, 64, 24);
    int64_t a[3] = {64, 8, 1}, b[3] = {64, 8, 3}, c[3] = {64, 16, 1};
    char *sa, *sb, *sc;
    uint64_t ha, hb, hc;
    int la, lb, lc;
    CHECK(srcmemo_get(&m, t, 0, a, DTYPE_FP32, &s, 1, &sa, &ha, &la) == 0 &&
          srcmemo_get(&m, t, 0, b, DTYPE_FP32, &s, 1, &sb, &hb, &lb) == 0 &&
          srcmemo_get(&m, t, 0, c, DTYPE_FP32, &s, 1, &sc, &hc, &lc) == 0);
    /* OCC only in the grid: one text, lent twice; BK 16 turns KFULL off */
    CHECK(la && lb && sa == sb && ha == hb);
    CHECK(sc != sa && hc != ha && strstr(sc, "#define KFULL 0"));
    /* the same point as another template index is another entry */
    char *sd;
    uint64_t hd;
    int ld;
    CHECK(srcmemo_get(&m, t, 1, a, DTYPE_FP32, &s, 1, &sd, &hd, &ld) == 0 &&
          sd != sa && hd == ha && m.n == 3);
    /* a fact that cannot be evaluated: as tpl_instantiate_hdr's NULL */
    struct shape bad = shape3(7, 64, 24);
    char *x = NULL;
    uint64_t hx;
    int lx;
    CHECK(tpl_instantiate_hdr(t, a, DTYPE_FP32, &bad, 1) == NULL);
    CHECK(srcmemo_get(&m, t, 0, a, DTYPE_FP32, &bad, 1, &x, &hx, &lx) ==
          KEVO_ENOMEM && m.n == 3);
    srcmemo_release(&m);
    tpl_free(t);
}

static void test_full(void)
{
    struct tpl *t = NULL;
    CHECK(tpl_parse("t", NULL, text, &t, err, sizeof err) == KEVO_OK);
    if (!t)
        return;
    struct shape s = shape3(256, 64, 24);
    int64_t a[3] = {64, 8, 1}, b[3] = {128, 8, 1};
    size_t len;
    {
        char *x = tpl_instantiate_hdr(t, a, DTYPE_FP32, &s, 1);
        CHECK(x != NULL);
        len = x ? strlen(x) : 0;
        free(x);
    }
    struct srcmemo m = {.cap_bytes = len + 1}; /* room for one text */
    char *sa, *sb, *sb2;
    uint64_t ha, hb, hb2;
    int la, lb, lb2;
    CHECK(srcmemo_get(&m, t, 0, a, DTYPE_FP32, &s, 1, &sa, &ha, &la) == 0 &&
          la);
    CHECK(srcmemo_get(&m, t, 0, b, DTYPE_FP32, &s, 1, &sb, &hb, &lb) == 0 &&
          !lb && strstr(sb, "// kevo: t T=128"));
    CHECK(srcmemo_get(&m, t, 0, b, DTYPE_FP32, &s, 1, &sb2, &hb2, &lb2) == 0 &&
          !lb2 && sb2 != sb && !strcmp(sb, sb2) && hb == hb2);
    release(sb, lb);
    release(sb2, lb2);
    /* the text lent first is still there */
    char *sa2;
    uint64_t ha2;
    int la2;
    CHECK(srcmemo_get(&m, t, 0, a, DTYPE_FP32, &s, 1, &sa2, &ha2, &la2) == 0 &&
          la2 && sa2 == sa && m.n == 1);
    srcmemo_release(&m);
    tpl_free(t);
}

int main(void)
{
    RUN(test_same_as_instantiate, "text and journal hash as "
        "tpl_instantiate_hdr's, every point, shape and header, twice");
    RUN(test_lent_shared, "one text for points it does not tell apart; a "
        "fact carried by a launch-only param and the template index keep "
        "theirs apart; a fact that fails as instantiation's");
    RUN(test_full, "past its size it instantiates as before, new strings "
        "each time; what it lent stays");
    TEST_DONE();
}
