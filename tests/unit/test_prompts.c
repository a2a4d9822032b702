/*
 * test_prompts.c - the LLM mutators' prompts (mutators/llm_*.c,
 * the files in mutators/prompts, src/llm/prompt.c): each mutator's request, built
 * for shipped templates and a made-up measurement, states the facts
 * (ABI, prelude, shape, the template text, its point, time, registers,
 * counters, the answer format) with no placeholder left; the example in
 * format.txt is itself a valid answer that NVRTC compiles; prompt-file
 * errors name the file and line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "answer.h"
#include "check.h"
#include "fsutil.h"
#include "jit.h"
#include "llm_mutator.h"
#include "prof.h"
#include "prompt.h"

#define GPU_FACTS "NVIDIA H100 80GB HBM3 (sm_90a): 132 SMs, 227 KiB shared"

static struct shape shape = {.n_dims = 3, .d = {4096, 4096, 4096}};
static struct tpl *tiled, *naive;
static int64_t tiled_vals[TPL_MAX_PARAMS], naive_vals[TPL_MAX_PARAMS];
static struct eval_result ok_r, wrong_r;

static struct llm_prompt_ctx make_ctx(void)
{
    return (struct llm_prompt_ctx){
        .prompts_dir = "mutators/prompts",
        .problem = problem_find("gemm"),
        .dtype = DTYPE_FP32,
        .shape = &shape,
        .gpu_facts = GPU_FACTS,
        .best_fitness = 3.9e13,
        .baseline_fitness = 5.05e13,
        .n_variants = 4,
    };
}

static int setup(void)
{
    char err[512];
    if (tpl_load("templates/gemm/sgemm_tiled.cu", &tiled, err, sizeof err) ||
        tpl_load("templates/gemm/gemm_naive.cu", &naive, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    tpl_default_point(tiled, tiled_vals);
    tpl_default_point(naive, naive_vals);
    eval_result_init(&ok_r);
    ok_r.outcome = EVAL_OK;
    ok_r.fitness = 3.1e13;
    ok_r.median_ns = 4.43e6;
    ok_r.min_ns = 4.40e6;
    ok_r.spread = 0.012;
    ok_r.reps = 50;
    ok_r.ratio = 0.614;
    ok_r.roofline = 0.463;
    ok_r.res = (struct eval_resources){.regs = 167,
                                       .smem_static = 0,
                                       .local_bytes = 0,
                                       .spill_bytes = 0,
                                       .occupancy = 1};
    ok_r.evidence_json = strdup("{\"dram__throughput.pct\":31.5,"
                                "\"smsp__inst_executed_pipe_fma\":0.71}");
    eval_result_init(&wrong_r);
    wrong_r.outcome = EVAL_WRONG;
    snprintf(wrong_r.detail, sizeof wrong_r.detail,
             "max error 3.2e-01 at C[4097] (row 1, col 1), 65536 elements "
             "bad, first at 4097");
    return 0;
}

static int has(const char *s, const char *what)
{
    return s && strstr(s, what) != NULL;
}

static const struct llm_mutator *get(const char *name)
{
    const struct llm_mutator *m = llm_mutator_find(name);
    CHECK_MSG(m != NULL, "no mutator %s", name);
    return m;
}

/* Builds m's prompts; both NULL (and a failed check) on error. */
static void build(const struct llm_mutator *m, const struct llm_prompt_ctx *c,
                  const struct llm_parent *par, char **sys, char **user)
{
    char err[512] = "";
    int rc = m->build(c, par, sys, user, err, sizeof err);
    CHECK_MSG(rc == KEVO_OK, "%s: %s", m->name, err);
    if (rc)
        return;
    CHECK_MSG(!has(*sys, "{{") && !has(*user, "{{"), "%s: '{{' left", m->name);
}

/* What every system prompt states. */
static void check_system(const char *sys)
{
    const struct problem *p = problem_find("gemm");
    CHECK(has(sys, p->abi));
    CHECK(has(sys, p->summary));
    CHECK(has(sys, "typedef float elem_t;\n#define TO_F32(x) (x)"));
    CHECK(has(sys, "M=4096, N=4096, K=4096"));
    CHECK(has(sys, "  - A: input (read only), 16777216 elements of fp32"));
    CHECK(has(sys, "  - C: output, 16777216 elements of fp32 (64 MiB)"));
    CHECK(has(sys, "1.374e+11 FLOP per call; at least 192 MiB of DRAM "
                   "traffic"));
    CHECK(has(sys, GPU_FACTS));
    CHECK(has(sys, "must satisfy |out - ref| <= 0 + 2.38e-07 * |ref| + "
                   "9.54e-07 * ||A[i,:]|| * ||B[:,j]||"));
    CHECK(has(sys, "# Answer format"));
    CHECK(has(sys, "`// kevo: problem gemm`"));
    CHECK(has(sys, "`// kevo: param NAME v1 v2 v3 default=v2`"));
    CHECK(has(sys, "```cuda\n// kevo: problem gemm\n"));
}

static void test_rewrite(void)
{
    struct llm_prompt_ctx c = make_ctx();
    struct llm_parent par = {tiled, tiled_vals, &ok_r, NULL};
    char *sys = NULL, *user = NULL;
    build(get("llm_rewrite"), &c, &par, &sys, &user);
    check_system(sys);
    /* the template text verbatim, in a fence */
    CHECK(has(user, "```cuda\n/*\n * sgemm_tiled.cu"));
    CHECK(has(user, "// kevo: smem STAGES * BK * (BM + PAD + BN) * 4\n"));
    CHECK(has(user, "}\n```"));
    CHECK(has(user, "# The parent: sgemm_tiled"));
    CHECK(has(user, "BM=128 BN=128 BK=16 TM=8 TN=8 WARP_N=8 VEC=4"));
    CHECK(has(user, "median time: 4.43 ms per call (min 4.4 ms"));
    CHECK(has(user, "over 50 timed repetitions"));
    CHECK(has(user, "throughput: 31 TFLOP/s = 0.614x the main baseline"));
    CHECK(has(user, "46.3% of the speed of light"));
    CHECK(has(user, "167 registers/thread, 0 bytes spilled"));
    CHECK(has(user, "occupancy 1 resident block/SM"));
    CHECK(has(user, "launch 1: sgemm_tiled, grid (1024, 1, 1), block "
                    "(256, 1, 1), 33280 bytes of dynamic shared memory"));
    CHECK(has(user, "\"dram__throughput.pct\":31.5"));
    CHECK(has(user, "best so far 39 TFLOP/s (0.77x the baseline)"));
    CHECK(has(user, "main baseline 50.5 TFLOP/s"));
    char *sys2 = NULL, *user2 = NULL;
    build(get("llm_rewrite"), &c, &par, &sys2, &user2);
    CHECK(sys && sys2 && !strcmp(sys, sys2) && user && user2 &&
          !strcmp(user, user2)); /* a pure function of its inputs */
    free(sys);
    free(user);
    free(sys2);
    free(user2);
}

/* A parent that includes kevo's header shows that header's text after
 * its own (the model must see what it calls); one that does not, none. */
static void test_kevo_header(void)
{
    struct tpl *wg = NULL;
    char err[512];
    CHECK_MSG(tpl_load("templates/gemm/hgemm_wgmma.cu", &wg, err,
                       sizeof err) == 0, "%s", err);
    if (!wg)
        return;
    int64_t vals[TPL_MAX_PARAMS];
    tpl_default_point(wg, vals);
    struct llm_prompt_ctx c = make_ctx();
    c.dtype = DTYPE_BF16;
    struct llm_parent par = {wg, vals, &ok_r, NULL};
    char *sys = NULL, *user = NULL;
    build(get("llm_rewrite"), &c, &par, &sys, &user);
    CHECK(has(user, "#include \"kevo/sm90.cuh\"\n"));
    CHECK(has(user, "It includes \"kevo/sm90.cuh\", kevo's own header"));
    CHECK(has(user, "```cuda\n/*\n * kevo/sm90.cuh - Hopper"));
    CHECK(has(user, "#endif /* KEVO_SM90_CUH */\n```\n"));
    CHECK(has(sys, "`#include \"kevo/sm90.cuh\"`"));
    free(sys);
    free(user);
    struct llm_parent plain = {tiled, tiled_vals, &ok_r, NULL};
    build(get("llm_rewrite"), &c, &plain, &sys, &user);
    CHECK(user && !has(user, "kevo's own header"));
    free(sys);
    free(user);
    tpl_free(wg);
}

static void test_crossover(void)
{
    struct llm_prompt_ctx c = make_ctx();
    struct llm_parent par[2] = {{tiled, tiled_vals, &ok_r, NULL},
                                {naive, naive_vals, NULL, NULL}};
    char *sys = NULL, *user = NULL;
    build(get("llm_crossover"), &c, par, &sys, &user);
    check_system(sys);
    CHECK(has(user, "# Parent A: sgemm_tiled"));
    CHECK(has(user, "# Parent B: gemm_naive"));
    CHECK(has(user, "167 registers/thread"));
    CHECK(has(user, "TILE=16"));
    CHECK(has(user, "- not measured yet"));
    CHECK(has(user, " * sgemm_tiled.cu - fp32 FFMA GEMM"));
    CHECK(has(user, " * gemm_naive.cu - the stepping stone"));
    free(sys);
    free(user);
}

static void test_repair(void)
{
    struct llm_prompt_ctx c = make_ctx();
    struct llm_parent par = {naive, naive_vals, &wrong_r, NULL};
    char *sys = NULL, *user = NULL;
    build(get("llm_repair"), &c, &par, &sys, &user);
    check_system(sys);
    CHECK(has(user, "It failed (wrong) at this parameter point: TILE=16"));
    CHECK(has(user, "outcome: wrong (the output differs from the fp64 "
                    "reference"));
    CHECK(has(user, wrong_r.detail));
    CHECK(has(user, "Full evidence (JSON; for a compile error it holds the "
                    "compiler log, for a wrong result the largest errors "
                    "and the first bad index): (none recorded)"));
    CHECK(has(user, "gemm_naive(const elem_t *__restrict__ A"));
    free(sys);
    free(user);
}

static void test_propose(void)
{
    struct llm_prompt_ctx c = make_ctx();
    char *sys = NULL, *user = NULL, *sys2 = NULL, *user2 = NULL;
    c.variant = 1;
    build(get("llm_propose"), &c, NULL, &sys, &user);
    c.variant = 2;
    build(get("llm_propose"), &c, NULL, &sys2, &user2);
    check_system(sys);
    CHECK(has(user, "This request is proposal 2 of 4"));
    CHECK(has(user, "implement design number 2 of your ranking"));
    CHECK(has(user2, "This request is proposal 3 of 4"));
    /* the system prompt does not vary (prefix caching) */
    CHECK(sys && sys2 && !strcmp(sys, sys2));
    free(sys);
    free(user);
    free(sys2);
    free(user2);
    c.best_fitness = 0;
    c.baseline_fitness = 0;
    c.gpu_facts = NULL;
    build(get("llm_propose"), &c, NULL, &sys, &user);
    CHECK(has(user, "best so far none yet"));
    CHECK(has(user, "main baseline unknown"));
    CHECK(has(sys, "# The GPU\n\n(not given)"));
    free(sys);
    free(user);
}

static void test_softmax_fp16_facts(void)
{
    struct shape s = {.n_dims = 2, .d = {8192, 1000}};
    struct llm_prompt_ctx c = make_ctx();
    c.problem = problem_find("softmax");
    c.dtype = DTYPE_FP16;
    c.shape = &s;
    char *sys = NULL, *user = NULL;
    build(get("llm_propose"), &c, NULL, &sys, &user);
    CHECK(has(sys, c.problem->abi));
    CHECK(has(sys, "ROWS=8192, COLS=1000"));
    CHECK(has(sys, "typedef __half elem_t;"));
    CHECK(has(sys, "`// kevo: dtypes fp16`"));
    CHECK(has(sys, "  - y: output, 8192000 elements of fp16"));
    CHECK(has(sys, "3.277e+07 bytes per call (inputs read once"));
    free(sys);
    free(user);
}

/* softmax's buffers with x stripped of its 2-D shape (like a rank-3
 * tensor of a PyTorch module) */
static int no_2d_x(const struct problem *p, const struct shape *s,
                   enum dtype dt, struct buf_desc *out)
{
    const struct problem *sm = problem_find("softmax");
    int n = sm->buffers(sm, s, dt, out);
    (void)p;
    out[0].rows = out[0].cols = 0;
    return n;
}

static int no_2d_any(const struct problem *p, const struct shape *s,
                     enum dtype dt, struct buf_desc *out)
{
    int n = no_2d_x(p, s, dt, out);
    for (int i = 0; i < n; i++)
        out[i].rows = out[i].cols = 0;
    return n;
}

static void test_tensormap_buffers(void)
{
    struct shape s = {.n_dims = 2, .d = {8192, 1000}};
    struct llm_prompt_ctx c = make_ctx();
    c.problem = problem_find("softmax");
    c.shape = &s;
    char *sys = NULL, *user = NULL;
    build(get("llm_propose"), &c, NULL, &sys, &user);
    CHECK(has(sys, "(rows x columns: x: 8192 x 1000, y: 8192 x 1000)"));
    free(sys);
    free(user);
    struct problem q = *problem_find("softmax");
    q.buffers = no_2d_x;
    c.problem = &q;
    build(get("llm_propose"), &c, NULL, &sys, &user);
    CHECK(has(sys, "(rows x columns: y: 8192 x 1000)"));
    free(sys);
    free(user);
    /* with none, the prompt says so instead of listing every buffer */
    q.buffers = no_2d_any;
    build(get("llm_propose"), &c, NULL, &sys, &user);
    CHECK(has(sys, "none here: no buffer of this problem has a 2-D shape"));
    CHECK(!has(sys, "rows x columns: x"));
    free(sys);
    free(user);
}

static void test_registry(void)
{
    const char *want[] = {"llm_propose", "llm_rewrite", "llm_crossover",
                          "llm_repair"};
    const int parents[] = {0, 1, 2, 1};
    int n = 0;
    while (kevo_llm_mutators[n])
        n++;
    CHECK(n == 4);
    for (int i = 0; i < 4 && i < n; i++) {
        CHECK(!strcmp(kevo_llm_mutators[i]->name, want[i]));
        CHECK(kevo_llm_mutators[i]->n_parents == parents[i]);
        CHECK(kevo_llm_mutators[i]->summary && kevo_llm_mutators[i]->build);
        CHECK(llm_mutator_find(want[i]) == kevo_llm_mutators[i]);
    }
    CHECK(llm_mutator_find("tweak") == NULL);
}

static void test_missing_parent(void)
{
    struct llm_prompt_ctx c = make_ctx();
    char *sys = (char *)1, *user = (char *)1, err[256];
    CHECK(llm_rewrite.build(&c, NULL, &sys, &user, err, sizeof err) ==
          KEVO_EINVAL);
    CHECK(!sys && !user && has(err, "llm_rewrite needs 1 parent"));
    struct llm_parent one = {tiled, tiled_vals, &ok_r, NULL};
    CHECK(llm_crossover.build(&c, &(struct llm_parent[2]){one, {0}}[0], &sys,
                              &user, err, sizeof err) == KEVO_EINVAL);
    CHECK(has(err, "llm_crossover needs 2 parents"));
}

/* The example in format.txt is a valid answer, and it compiles. */
static void test_format_example(void)
{
    struct llm_prompt_ctx c = make_ctx();
    char *sys = NULL, *user = NULL;
    build(&llm_propose, &c, NULL, &sys, &user);
    if (!sys)
        return;
    const char *fmt = strstr(sys, "# Answer format");
    struct answer_ctx ac = {c.problem, DTYPE_FP32, &shape, NULL, "example"};
    struct tpl *t = NULL;
    char *src = NULL, why[512] = "";
    CHECK_MSG(fmt && answer_parse(&ac, fmt, &t, &src, why, sizeof why) ==
                         ANSWER_OK,
              "%s", why);
    for (int dt = 0; t && dt < DTYPE_COUNT; dt++) {
        int64_t def[TPL_MAX_PARAMS];
        tpl_default_point(t, def);
        char *code = tpl_instantiate(t, def, (enum dtype)dt, &shape);
        struct jit_output o;
        memset(&o, 0, sizeof o);
        CHECK(jit_compile(code, "example", "sm_90a", &o) == KEVO_OK);
        CHECK_MSG(o.ok, "%s: %s", dtype_name((enum dtype)dt), o.log);
        jit_output_release(&o);
        free(code);
    }
    tpl_free(t);
    free(src);
    free(sys);
    free(user);
}

/* Copies the shipped prompts into dir, with file replaced by text. */
static int fake_prompts(const char *dir, const char *file, const char *text)
{
    static const char *const files[] = {"system.txt",    "format.txt",
                                        "propose.txt",   "rewrite.txt",
                                        "crossover.txt", "repair.txt"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char src[256], dst[512], *body;
        size_t len;
        snprintf(src, sizeof src, "mutators/prompts/%s", files[i]);
        snprintf(dst, sizeof dst, "%s/%s", dir, files[i]);
        if (fs_read_file(src, &body, &len))
            return -1;
        int rc = !strcmp(files[i], file)
                     ? fs_write_atomic(dst, text, strlen(text))
                     : fs_write_atomic(dst, body, len);
        free(body);
        if (rc)
            return -1;
    }
    return 0;
}

static void test_prompt_file_errors(void)
{
    char dir[] = "/tmp/kevo_prompts_XXXXXX", err[512];
    CHECK(mkdtemp(dir) != NULL);
    struct llm_prompt_ctx c = make_ctx();
    struct llm_parent par = {tiled, tiled_vals, &ok_r, NULL};
    c.prompts_dir = dir;
    char *sys = (char *)1, *user = (char *)1;
    char want[600];

    CHECK(!fake_prompts(dir, "rewrite.txt", "Line one.\n\nUse {{NOPE}}.\n"));
    CHECK(llm_rewrite.build(&c, &par, &sys, &user, err, sizeof err) ==
          KEVO_EPARSE);
    snprintf(want, sizeof want,
             "%s/rewrite.txt:3: unknown placeholder "
             "'{{NOPE}}'",
             dir);
    CHECK_MSG(has(err, want) && !sys && !user, "%s", err);

    /* a parent's facts exist only for mutators with parents */
    CHECK(!fake_prompts(dir, "propose.txt", "{{PROBLEM}}\n{{PARENT_TEXT}}\n"));
    CHECK(llm_propose.build(&c, NULL, &sys, &user, err, sizeof err) ==
          KEVO_EPARSE);
    snprintf(want, sizeof want,
             "%s/propose.txt:2: unknown placeholder "
             "'{{PARENT_TEXT}}'",
             dir);
    CHECK_MSG(has(err, want), "%s", err);

    CHECK(!fake_prompts(dir, "system.txt", "ok {{PROBLEM}}\n{{ problem }}\n"));
    CHECK(llm_rewrite.build(&c, &par, &sys, &user, err, sizeof err) ==
          KEVO_EPARSE);
    snprintf(want, sizeof want,
             "%s/system.txt:2: malformed placeholder "
             "'{{ problem }}'",
             dir);
    CHECK_MSG(has(err, want), "%s", err);

    char path[600];
    snprintf(path, sizeof path, "%s/format.txt", dir);
    CHECK(!fake_prompts(dir, "", ""));
    unlink(path);
    CHECK(llm_repair.build(&c, &par, &sys, &user, err, sizeof err) ==
          KEVO_ENOENT);
    snprintf(want, sizeof want, "cannot read '%s'", path);
    CHECK_MSG(has(err, want), "%s", err);

    static const char *const files[] = {"system.txt", "propose.txt",
                                        "rewrite.txt", "crossover.txt",
                                        "repair.txt"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
}

static void test_fill(void)
{
    struct prompt_vars pv;
    char *out = NULL, err[256];
    prompt_vars_init(&pv);
    prompt_vars_set(&pv, "A", "x{{B}}y");
    prompt_vars_setf(&pv, "B", "%d", 42);
    prompt_vars_set(&pv, "A_2", NULL);
    CHECK(prompt_fill("t", "[{{A}}|{{B}}|{{A_2}}]", &pv, &out, err,
                      sizeof err) == KEVO_OK);
    CHECK(out && !strcmp(out, "[x{{B}}y|42|]")); /* values are not re-read */
    free(out);
    prompt_vars_set(&pv, "B", "replaced");
    CHECK(!strcmp(prompt_vars_get(&pv, "B"), "replaced") && pv.n == 3);
    CHECK(prompt_fill("t", "a\n{{B}\n", &pv, &out, err, sizeof err) ==
          KEVO_EPARSE);
    CHECK(has(err, "t:2: malformed placeholder '{{B}'"));
    CHECK(prompt_fill("t", "{{", &pv, &out, err, sizeof err) == KEVO_EPARSE);
    prompt_vars_set(&pv, "lower", "x"); /* a bad name fails the table */
    CHECK(pv.failed);
    CHECK(prompt_fill("t", "no placeholders", &pv, &out, err, sizeof err) ==
          KEVO_ENOMEM);
    prompt_vars_release(&pv);

    struct prompt_buf b;
    prompt_buf_init(&b, 8);
    prompt_buf_adds(&b, "12345");
    prompt_buf_addf(&b, "%d", 678);
    CHECK(!b.failed && b.len == 8);
    prompt_buf_adds(&b, "9"); /* over the cap: sticky failure */
    CHECK(b.failed && prompt_buf_take(&b) == NULL);
}

/* ---- issue 31: what the model is told about counters, baselines and
 * resources */

/* A two-launch profile: a 32-thread counter reset, then the main kernel,
 * memory-bound with long-scoreboard stalls. */
static void two_launch_profile(struct kprof *p)
{
    prof_init(p);
    p->available = 1;
    p->n = 2;
    p->passes = 38;
    snprintf(p->l[0].kernel, sizeof p->l[0].kernel, "reset_counter");
    snprintf(p->l[1].kernel, sizeof p->l[1].kernel, "sgemm_tiled");
    p->l[0].m[PM_DURATION_NS] = 1500;
    p->l[1].m[PM_DURATION_NS] = 4.4e6;
    p->l[1].m[PM_DRAM_READ] = 1.5e8;
    p->l[1].m[PM_DRAM_WRITE] = 5.0e7;
    p->l[1].m[PM_DRAM_PCT] = 88;
    p->l[1].m[PM_SM_PCT] = 41;
    p->l[1].m[PM_STALL_LONG_SB] = 600;
    p->l[1].m[PM_STALL_BARRIER] = 250;
    p->l[1].m[PM_STALL_WAIT] = 150;
    p->l[1].regs = 167;
    p->l[1].threads = 256;
    p->l[1].blocks_per_sm = 1;
    p->l[1].theo_occ_pct = 12.5;
    snprintf(p->l[1].limiter, sizeof p->l[1].limiter, "registers");
}

static void test_profile_in_rewrite(void)
{
    struct llm_prompt_ctx c = make_ctx();
    struct kprof kp;
    two_launch_profile(&kp);
    struct llm_parent par = {tiled, tiled_vals, &ok_r, &kp};
    char *sys = NULL, *user = NULL;
    build(get("llm_rewrite"), &c, &par, &sys, &user);
    CHECK(has(user, "Hardware profile (CUPTI counters of each launch"));
    CHECK(has(user, "launch 2 of 2 (sgemm_tiled, 100 % of the time): "
                    "memory-bound: DRAM 88 % of peak (SM 41 %)"));
    CHECK(has(user, "0.99 bytes moved per byte needed"));
    CHECK(has(user, "stalls: long scoreboard 60 %, barrier 25 %, wait 15 %"));
    CHECK(has(user, "- launch 2 (sgemm_tiled): duration 4400 us; DRAM read "
                    "150 MB, written 50 MB, 88.0 % of peak"));
    CHECK(has(user, "limited by registers"));
    /* the journal's evidence is still there, beside the profile */
    CHECK(has(user, "\"dram__throughput.pct\":31.5"));
    free(sys);
    free(user);
    /* crossover: each parent its own profile, or none */
    struct llm_parent two[2] = {{tiled, tiled_vals, &ok_r, &kp},
                                {naive, naive_vals, NULL, NULL}};
    build(get("llm_crossover"), &c, two, &sys, &user);
    CHECK(has(user, "memory-bound: DRAM 88 %"));
    CHECK(has(user, "raw metrics): (not profiled)"));
    free(sys);
    free(user);
}

static void test_profile_unavailable(void)
{
    struct llm_prompt_ctx c = make_ctx();
    struct kprof kp;
    char why[200];
    prof_error_note(35, "cuptiProfilerGetCounterAvailability", why,
                    sizeof why);
    prof_set_unavailable(&kp, "counters not available: %s", why);
    struct llm_parent par = {tiled, tiled_vals, &ok_r, &kp};
    char *sys = NULL, *user = NULL;
    build(get("llm_rewrite"), &c, &par, &sys, &user);
    CHECK(has(user, "raw metrics): not available: counters not available: "
                    "cuptiProfilerGetCounterAvailability failed (CUPTI "
                    "error 35): the driver restricts GPU performance "
                    "counters to admin users"));
    free(sys);
    free(user);
}

/* A FLOP-counted problem whose main baseline is a copy: the copy is
 * stated in bytes/s, and no FLOP/s ratio to it is made. */
static void test_copy_baseline_unit(void)
{
    struct llm_prompt_ctx c = make_ctx();
    c.baseline_name = "copy";
    c.baseline_ns = 1.0e5;          /* 192 MiB in 100 us */
    c.baseline_fitness = 1.374e11 / 1.0e-4; /* what the worker computed */
    c.best_fitness = 5.42e13;
    struct eval_result r = ok_r;    /* ratio = fitness / that "baseline" */
    r.ratio = 0.07;
    struct llm_parent par = {tiled, tiled_vals, &r, NULL};
    char *sys = NULL, *user = NULL;
    build(get("llm_rewrite"), &c, &par, &sys, &user);
    CHECK(has(user, "main baseline a device copy of the problem's 201.3 MB "
                    "(inputs read once, outputs written once) in 100 us = "
                    "2013 GB/s; a copy does no arithmetic, so it is a floor "
                    "on the time, not a FLOP/s rate"));
    CHECK(has(user, "best so far 54.2 TFLOP/s (2.536 ms per call, 25.36x "
                    "the copy's time)"));
    CHECK(has(user, "its time is 44.30x the copy baseline's"));
    CHECK(!has(user, "the baseline)"));
    CHECK(!has(user, "x the main baseline"));
    CHECK(!has(user, "1374 TFLOP/s"));
    free(sys);
    free(user);
    /* a baseline of the same kind keeps its ratio, named */
    c = make_ctx();
    c.baseline_name = "cublas";
    c.baseline_ns = 2.7e6;
    build(get("llm_rewrite"), &c, &par, &sys, &user);
    CHECK(has(user, "main baseline 50.5 TFLOP/s (cublas)"));
    CHECK(has(user, "= 0.070x the main baseline"));
    free(sys);
    free(user);
}

/* Resources come from every launch (the evidence's launch_resources),
 * not only from the first (a 32-thread reset kernel). */
static void test_resources_per_launch(void)
{
    struct llm_prompt_ctx c = make_ctx();
    struct eval_result r = ok_r;
    r.res.occupancy = 32; /* launch 0's, as eval_resources holds it */
    r.res.regs = 203;
    r.evidence_json =
        "{\"launch_resources\":[{\"kernel\":\"reset_counter\",\"regs\":8,"
        "\"smem_bytes\":0,\"threads\":32,\"blocks_per_sm\":32,"
        "\"occupancy_limiter\":\"blocks\"},{\"kernel\":\"sgemm_tiled\","
        "\"regs\":203,\"smem_bytes\":65536,\"threads\":256,"
        "\"blocks_per_sm\":1,\"occupancy_limiter\":\"registers\"}]}";
    struct llm_parent par = {tiled, tiled_vals, &r, NULL};
    char *sys = NULL, *user = NULL;
    build(get("llm_rewrite"), &c, &par, &sys, &user);
    CHECK(has(user, "- resources of launch 1 (reset_counter): 8 "
                    "registers/thread, 0 bytes of shared memory/block, 32 "
                    "threads/block; occupancy 32 resident blocks/SM (limited "
                    "by blocks)"));
    CHECK(has(user, "- resources of launch 2 (sgemm_tiled): 203 "
                    "registers/thread, 65536 bytes of shared memory/block, "
                    "256 threads/block; occupancy 1 resident block/SM "
                    "(limited by registers)"));
    CHECK(!has(user, "203 registers/thread, 0 bytes spilled"));
    free(sys);
    free(user);
}

/* The repair prompt of a compile error holds the compiler log the GPU
 * evaluator puts in the evidence. */
static void test_repair_compile_log(void)
{
    struct llm_prompt_ctx c = make_ctx();
    struct eval_result r;
    eval_result_init(&r);
    r.outcome = EVAL_COMPILE_ERROR;
    snprintf(r.detail, sizeof r.detail, "sgemm_tiled(41): error: "
             "identifier \"x\" is undefined");
    r.evidence_json = "{\"log\":\"sgemm_tiled(41): error: identifier "
                      "\\\"x\\\" is undefined\\n1 error detected\"}";
    struct llm_parent par = {tiled, tiled_vals, &r, NULL};
    char *sys = NULL, *user = NULL;
    build(get("llm_repair"), &c, &par, &sys, &user);
    CHECK(has(user, "it holds the compiler log, for a wrong result the "
                    "largest errors and the first bad index): {\"log\":"
                    "\"sgemm_tiled(41): error: identifier"));
    free(sys);
    free(user);
}

int main(void)
{
    if (setup())
        return 1;
    RUN(test_rewrite, "the rewrite prompt states the parent and its numbers");
    RUN(test_kevo_header,
        "a parent that includes kevo/sm90.cuh brings the header's text");
    RUN(test_crossover, "the crossover prompt shows both parents");
    RUN(test_repair, "the repair prompt shows the failure's evidence");
    RUN(test_propose, "propose variants differ, the system prompt does not");
    RUN(test_softmax_fp16_facts, "facts follow the problem and dtype");
    RUN(test_tensormap_buffers, "the TMA format names only the buffers "
        "with a 2-D shape, with their rows and columns");
    RUN(test_registry, "the registry lists the four LLM mutators");
    RUN(test_missing_parent, "a mutator without its parents is an error");
    RUN(test_format_example, "the format example is a valid answer");
    RUN(test_prompt_file_errors, "prompt-file errors name the file and line");
    RUN(test_fill, "placeholders fill once; bad ones are errors");
    RUN(test_profile_in_rewrite, "rewrite and crossover prompts show each "
        "parent's diagnosis and raw counters per launch");
    RUN(test_profile_unavailable, "restricted counters: the prompt says "
        "the profile is not available and why");
    RUN(test_copy_baseline_unit, "a copy baseline is stated in bytes/s, "
        "never as FLOP/s or a ratio of FLOP/s to it");
    RUN(test_resources_per_launch, "resources are shown per launch, not "
        "those of the first launch");
    RUN(test_repair_compile_log, "the repair prompt of a compile error "
        "holds the compiler log");
    eval_result_release(&ok_r);
    eval_result_release(&wrong_r);
    tpl_free(tiled);
    tpl_free(naive);
    TEST_DONE();
}
