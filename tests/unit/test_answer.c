/*
 * test_answer.c - unit tests of src/llm/answer.c over recorded-style LLM
 * answers in tests/data/answers/ (one .md file each). Each file starts with two
 * lines:
 *   <!-- run: PROBLEM DTYPE SHAPE -->
 *   <!-- expect: REJECT_NAME[: substring of the reason] -->
 * and the rest is the answer as a model would write it (the comments are
 * part of the text parsed, as any prose would be). Accepted answers are
 * also compiled with NVRTC (no GPU needed). Then a fuzz pass: every
 * truncation of the good answers, random byte edits, garbage and huge
 * inputs must give a reject code with a reason, never a crash.
 */
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answer.h"
#include "check.h"
#include "fsutil.h"
#include "jit.h"
#include "rng.h"

#define DATA "tests/data/answers"

struct run {
    const struct problem *p;
    enum dtype dt;
    struct shape shape;
    struct answer_ctx ctx;
};

/* Reads the "run" header line of a data file into r. */
static int read_run(const char *text, struct run *r)
{
    char prob[32], dt[16], shape[64], err[256];
    if (sscanf(text, "<!-- run: %31s %15s %63s -->", prob, dt, shape) != 3)
        return -1;
    r->p = problem_find(prob);
    if (!r->p || dtype_parse(dt, &r->dt) ||
        problem_parse_shape(r->p, shape, &r->shape, err, sizeof err))
        return -1;
    r->ctx = (struct answer_ctx){r->p, r->dt, &r->shape, NULL, "llm_test"};
    return 0;
}

/* Reads the "expect" line: the code name and the reason substring. */
static int read_expect(const char *text, char *code, size_t codecap, char *sub,
                       size_t subcap)
{
    const char *e = strstr(text, "<!-- expect: ");
    if (!e)
        return -1;
    e += strlen("<!-- expect: ");
    const char *end = strstr(e, " -->");
    if (!end)
        return -1;
    size_t n = strcspn(e, ":");
    if (e + n > end)
        n = (size_t)(end - e);
    snprintf(code, codecap, "%.*s", (int)n, e);
    const char *s = e + n;
    s += *s == ':' ? 2 : 0;
    snprintf(sub, subcap, "%.*s", s < end ? (int)(end - s) : 0, s);
    return 0;
}

static char *read_data(const char *name)
{
    char path[256], *text = NULL;
    snprintf(path, sizeof path, DATA "/%s", name);
    CHECK_MSG(fs_read_file(path, &text, NULL) == KEVO_OK, "cannot read %s",
              path);
    return text;
}

/* Parses a data file; returns the reject code (-1 if the file is bad). */
static int parse_file(const char *name, struct tpl **t, char **src, char *why,
                      size_t whycap)
{
    struct run r;
    char *text = read_data(name);
    *t = NULL;
    *src = NULL;
    if (!text)
        return -1;
    int rc = -1;
    if (!read_run(text, &r))
        rc = (int)answer_parse(&r.ctx, text, t, src, why, whycap);
    free(text);
    return rc;
}

static int compiles(const struct tpl *t, enum dtype dt, const struct shape *s)
{
    int64_t def[TPL_MAX_PARAMS];
    tpl_default_point(t, def);
    char *src = tpl_instantiate(t, def, dt, s);
    struct jit_output out;
    memset(&out, 0, sizeof out);
    int rc = jit_compile(src, t->name, "sm_90a", &out);
    int ok = rc == KEVO_OK && out.ok;
    if (!ok)
        fprintf(stderr, "  %s: %s\n", t->name, out.log ? out.log : "");
    free(src);
    jit_output_release(&out);
    return ok;
}

static void test_data_files(void)
{
    glob_t g;
    CHECK(glob(DATA "/*.md", 0, NULL, &g) == 0);
    CHECK(g.gl_pathc >= 15);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        const char *name = strrchr(g.gl_pathv[i], '/') + 1;
        char *text = read_data(name), code[32], sub[512], why[512];
        struct run r;
        if (!text)
            continue;
        CHECK_MSG(!read_run(text, &r) &&
                      !read_expect(text, code, sizeof code, sub, sizeof sub),
                  "%s: bad header", name);
        struct tpl *t = NULL;
        char *src = NULL;
        enum answer_reject got =
            answer_parse(&r.ctx, text, &t, &src, why, sizeof why);
        CHECK_MSG(!strcmp(answer_reject_name(got), code),
                  "%s: expected %s, got %s: %s", name, code,
                  answer_reject_name(got), why);
        CHECK_MSG(!*sub || strstr(why, sub), "%s: reason '%s' lacks '%s'", name,
                  why, sub);
        CHECK_MSG((got == ANSWER_OK) == (t != NULL && src != NULL),
                  "%s: outputs do not match the code", name);
        CHECK_MSG(got == ANSWER_OK || (*why && !strchr(why, '\n')),
                  "%s: a reject needs a one-line reason", name);
        if (t) {
            CHECK(!strcmp(t->name, "llm_test") && !strcmp(t->path, ""));
            CHECK(!strcmp(src, t->text) && !strcmp(t->problem, r.p->name));
            CHECK_MSG(compiles(t, r.dt, r.ctx.shape), "%s does not compile",
                      name);
        }
        tpl_free(t);
        free(src);
        free(text);
    }
    globfree(&g);
}

static void test_good_rewrite(void)
{
    struct tpl *t;
    char *src, why[512];
    CHECK(parse_file("good_rewrite.md", &t, &src, why, sizeof why) ==
          ANSWER_OK);
    if (!t)
        return;
    /* the block's text exactly, from its first line to its last */
    CHECK(!strncmp(src, "/*\n * sgemm_reg_tile", 20));
    CHECK(strstr(src, "// kevo: smem (BM + BN) * BK * 4\n"));
    size_t n = strlen(src);
    CHECK(n > 2 && !strcmp(src + n - 2, "}\n"));
    CHECK(!strstr(src, "```") && !strstr(src, "With BM = BN"));
    CHECK(t->n_params == 5 && !strcmp(t->params[4].name, "TN"));
    CHECK(t->n_launches == 1 &&
          !strcmp(t->launches[0].kernel, "sgemm_reg_tile"));
    tpl_free(t);
    free(src);
}

static void test_several_blocks_pick_the_template(void)
{
    struct tpl *t;
    char *src, why[512];
    CHECK(parse_file("several_blocks.md", &t, &src, why, sizeof why) ==
          ANSWER_OK);
    if (!t)
        return;
    CHECK(!strncmp(src, "// kevo: problem gemm\n", 22));
    CHECK(!strcmp(t->launches[0].kernel, "gemm_simple"));
    tpl_free(t);
    free(src);
}

/* The fence rules on small answers built here. */
static void test_fences(void)
{
    struct run r;
    CHECK(!read_run("<!-- run: gemm fp32 256x256x256 -->", &r));
    char *good = read_data("several_blocks.md");
    if (!good)
        return;
    const char *tpl_start = strstr(good, "```cuda\n// kevo: problem");
    const char *tpl_end = tpl_start ? strstr(tpl_start + 7, "```\n") : NULL;
    CHECK(tpl_start && tpl_end);
    if (!tpl_start || !tpl_end)
        return;
    const char *body = tpl_start + 8;
    int blen = (int)(tpl_end - body);
    static const char *const wraps[][2] = {
        {"```cpp\n", "```\n"},
        {"```c++\n", "```"},
        {"```\n", "```\n"},
        {"~~~cuda\n", "~~~\n"},
        {"````cuda\n", "````\n"},
        {"```CUDA title=x.cu\n", "```\r\n"},
        {"Text.\n  ```cuda\n", "  ```\nMore text.\n"},
    };
    for (size_t i = 0; i < sizeof wraps / sizeof *wraps; i++) {
        char *text = NULL, why[512];
        struct tpl *t;
        char *src;
        CHECK(asprintf(&text, "%s%.*s%s", wraps[i][0], blen, body,
                       wraps[i][1]) > 0);
        enum answer_reject got =
            answer_parse(&r.ctx, text, &t, &src, why, sizeof why);
        CHECK_MSG(got == ANSWER_OK, "wrap %zu: %s", i, why);
        tpl_free(t);
        free(src);
        free(text);
    }
    /* a python block is not code for us; a ``` inside a ~~~ block is text */
    static const char *const no[] = {
        "```python\nprint(1)\n```\n",
        "no fences at all",
        "",
        "```cuda\n\n   \n```\n",
    };
    for (size_t i = 0; i < sizeof no / sizeof *no; i++) {
        struct tpl *t;
        char *src, why[512];
        CHECK_MSG(answer_parse(&r.ctx, no[i], &t, &src, why, sizeof why) ==
                      ANSWER_NO_CODE,
                  "case %zu: %s", i, why);
        CHECK(!t && !src && *why);
    }
    free(good);
}

/* Every prefix of the good answers: a reject with a reason or a template,
 * never a crash (ASan/UBSan builds check the memory side). */
static void test_truncations_never_crash(void)
{
    static const char *const files[] = {"good_rewrite.md", "good_softmax.md",
                                        "several_blocks.md"};
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        char *text = read_data(files[f]);
        struct run r;
        if (!text || read_run(text, &r)) {
            free(text);
            continue;
        }
        size_t n = strlen(text);
        int ok = 0, bad = 0;
        for (size_t cut = 0; cut <= n; cut += 1 + cut / 64) {
            char *pre = strndup(text, cut), *src, why[512];
            struct tpl *t;
            enum answer_reject got =
                answer_parse(&r.ctx, pre, &t, &src, why, sizeof why);
            CHECK((unsigned)got < ANSWER_REJECT_COUNT);
            CHECK((got == ANSWER_OK) == (t != NULL));
            bad += got != ANSWER_OK && !*why;
            ok += got == ANSWER_OK;
            tpl_free(t);
            free(src);
            free(pre);
        }
        CHECK(bad == 0);
        /* the whole answer parses; a cut inside the block never does */
        CHECK(ok >= 1);
        free(text);
    }
}

/* Random byte edits of a good answer, and garbage. */
static void test_fuzz_never_crash(void)
{
    static const char alphabet[] = "`~/*(){}[]<>,;:#\"'\n\t kevo:param"
                                   "launchgridblocksmemexternC__global__"
                                   "ABCMNKws0123456789=-+%&|!?";
    char *text = read_data("good_rewrite.md");
    struct run r;
    if (!text || read_run(text, &r)) {
        free(text);
        return;
    }
    struct rng g;
    rng_seed(&g, 5);
    size_t n = strlen(text);
    int counts[ANSWER_REJECT_COUNT] = {0};
    for (int it = 0; it < 1500; it++) {
        char *m = strdup(text), *src, why[512];
        int edits = 1 + (int)rng_below(&g, 8);
        for (int e = 0; e < edits; e++)
            m[rng_below(&g, n)] = alphabet[rng_below(&g, sizeof alphabet - 1)];
        struct tpl *t;
        enum answer_reject got =
            answer_parse(&r.ctx, m, &t, &src, why, sizeof why);
        CHECK((unsigned)got < ANSWER_REJECT_COUNT);
        CHECK(got == ANSWER_OK ? t && src : !t && !src && *why);
        counts[got]++;
        tpl_free(t);
        free(src);
        free(m);
    }
    /* the edits hit several stages, not only the first */
    int kinds = 0;
    for (int i = 0; i < ANSWER_REJECT_COUNT; i++)
        kinds += counts[i] > 0;
    CHECK_MSG(kinds >= 4, "only %d kinds of result", kinds);
    for (int it = 0; it < 300; it++) {
        size_t len = rng_below(&g, 4000);
        char *m = malloc(len + 1), *src, why[512];
        for (size_t i = 0; i < len; i++)
            m[i] = (char)(1 + rng_below(&g, 255));
        m[len] = '\0';
        struct tpl *t;
        enum answer_reject got =
            answer_parse(&r.ctx, m, &t, &src, why, sizeof why);
        CHECK((unsigned)got < ANSWER_REJECT_COUNT && (got != ANSWER_OK) && !t &&
              !src);
        free(m);
    }
    free(text);
}

static void test_huge_inputs(void)
{
    struct run r;
    CHECK(!read_run("<!-- run: gemm fp32 4096x4096x4096 -->", &r));
    struct tpl *t;
    char *src, why[512];
    /* longer than the answer limit */
    size_t big = (5u << 20);
    char *m = malloc(big + 1);
    memset(m, 'x', big);
    m[big] = '\0';
    CHECK(answer_parse(&r.ctx, m, &t, &src, why, sizeof why) ==
          ANSWER_BAD_TEMPLATE);
    CHECK(strstr(why, "longer than"));
    /* a huge code block */
    size_t body = 1u << 20;
    memcpy(m, "```cuda\n", 8);
    memset(m + 8, 'a', body);
    memcpy(m + 8 + body, "\n```\n", 6);
    CHECK(answer_parse(&r.ctx, m, &t, &src, why, sizeof why) ==
          ANSWER_BAD_TEMPLATE);
    CHECK(strstr(why, "bytes, more than"));
    /* 100k fence lines and one very long line */
    size_t pos = 0;
    for (int i = 0; i < 100000; i++)
        pos += (size_t)sprintf(m + pos, "%s\n", i % 2 ? "```" : "```cuda");
    CHECK(answer_parse(&r.ctx, m, &t, &src, why, sizeof why) == ANSWER_NO_CODE);
    /* a kernel signature with deeply nested parentheses */
    pos = (size_t)sprintf(m, "```cuda\n// kevo: problem gemm\n// kevo: dtypes"
                             " fp32\n// kevo: launch k\nextern \"C\" "
                             "__global__ void k(");
    for (int i = 0; i < 20000; i++)
        m[pos++] = '(';
    pos += (size_t)sprintf(m + pos, "\n```\n");
    enum answer_reject got = answer_parse(&r.ctx, m, &t, &src, why, sizeof why);
    CHECK(got == ANSWER_BAD_ABI || got == ANSWER_BAD_TEMPLATE);
    CHECK(!t && *why);
    free(m);
}

static void test_reject_names(void)
{
    CHECK(!strcmp(answer_reject_name(ANSWER_OK), "ok"));
    CHECK(!strcmp(answer_reject_name(ANSWER_NO_CODE), "no_code"));
    CHECK(!strcmp(answer_reject_name(ANSWER_BAD_LAUNCH), "bad_launch"));
    CHECK(!strcmp(answer_reject_name(ANSWER_REJECT_COUNT), "?"));
}

int main(void)
{
    RUN(test_data_files, "each recorded answer gets its expected verdict");
    RUN(test_good_rewrite, "a good rewrite yields the block's template");
    RUN(test_several_blocks_pick_the_template,
        "of several code blocks the one with directives is used");
    RUN(test_fences, "fence variants are read and non-code blocks ignored");
    RUN(test_truncations_never_crash, "every truncation gets a verdict");
    RUN(test_fuzz_never_crash, "random edits and garbage get a verdict");
    RUN(test_huge_inputs, "huge and pathological inputs are rejected");
    RUN(test_reject_names, "reject codes have names");
    TEST_DONE();
}
