/*
 * test_wire.c - the GPU worker's protocol (wire.h): every message kind is
 * named once, and every body survives the trip through text (encode,
 * print, parse, decode) whole: init, job, confirm, ready, progress,
 * result, confirmed, fatal; bad bodies are refused.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "wire.h"

static struct wire_job sample_job(void)
{
    struct wire_job j = {.seq = 77, .nondet = 1, .best_ns = 12345.5};
    struct launch_plan *p = &j.plan;
    p->n = 2;
    snprintf(p->l[0].kernel, sizeof p->l[0].kernel, "pack");
    snprintf(p->l[1].kernel, sizeof p->l[1].kernel, "gemm");
    for (int i = 0; i < 3; i++) {
        p->l[0].grid[i] = 10 + i;
        p->l[0].block[i] = i ? 1 : 256;
        p->l[1].grid[i] = 132 + i;
        p->l[1].block[i] = i ? 1 : 384;
        p->l[1].cluster[i] = i ? 1 : 2;
    }
    p->l[1].smem_bytes = 200000;
    p->l[1].pdl = 1;
    p->workspace_bytes = 1ULL << 33;
    p->n_tmaps = 2;
    p->tm[0] = (struct tmap_plan){0, {64, 128}, 128, 0};
    p->tm[1] = (struct tmap_plan){1, {64, 256}, 128, 128};
    p->n_args = 2;
    p->args[0] = 8;
    p->args[1] = -2147483647 - 1;
    return j;
}

static void job_round_trip(void)
{
    struct wire_job a = sample_job(), b;
    cJSON *o = wire_job_json(&a);
    char *t = cJSON_PrintUnformatted(o);
    cJSON *back = cJSON_Parse(t);
    CHECK(wire_job_parse(back, &b) == KEVO_OK);
    CHECK(b.seq == 77 && b.nondet == 1 && b.best_ns == 12345.5);
    CHECK(b.plan.n == 2 && !strcmp(b.plan.l[1].kernel, "gemm"));
    CHECK(!memcmp(&a.plan.l, &b.plan.l, sizeof a.plan.l));
    CHECK(b.plan.l[0].pdl == 0 && b.plan.l[1].pdl == 1);
    CHECK(b.plan.workspace_bytes == 1ULL << 33);
    CHECK(b.plan.n_tmaps == 2 && b.plan.tm[1].box[1] == 256 &&
          b.plan.tm[1].swizzle == 128);
    CHECK(b.plan.tm[0].l2 == 0 && b.plan.tm[1].l2 == 128);
    CHECK(b.plan.n_args == 2 && b.plan.args[0] == 8 &&
          b.plan.args[1] == -2147483647 - 1);
    cJSON_Delete(o);
    cJSON_Delete(back);
    free(t);
}

static void bad_jobs(void)
{
    static const char *const bad[] = {
        "{}",                                            /* no launches */
        "{\"launches\":[]}",                             /* none */
        "{\"launches\":[{\"grid\":[1,1,1]}]}",           /* no kernel */
        "{\"launches\":[{\"kernel\":\"k\",\"grid\":[-1,1,1]}]}",
        "{\"launches\":[{\"kernel\":\"k\",\"block\":[\"x\",1,1]}]}",
        "{\"launches\":[{\"kernel\":\"k\"}],\"tensormaps\":[{\"buf\":0}]}",
        "{\"launches\":[{\"kernel\":\"k\"}],\"args\":[1.5]}", /* not int */
        "{\"launches\":[{\"kernel\":\"k\"}],\"args\":[2147483648]}",
        "{\"launches\":[{\"kernel\":\"k\"}],\"args\":[1,2,3,4,5]}",
        /* sizes that would wrap around */
        "{\"launches\":[{\"kernel\":\"k\",\"smem\":4294967296}]}",
        "{\"launches\":[{\"kernel\":\"k\",\"smem\":-1}]}",
        "{\"launches\":[{\"kernel\":\"k\"}],\"workspace\":-1}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cJSON *o = cJSON_Parse(bad[i]);
        struct wire_job j;
        CHECK_MSG(wire_job_parse(o, &j) == KEVO_EPARSE, "%s", bad[i]);
        cJSON_Delete(o);
    }
    /* defaults: grid and block 1, no cluster */
    cJSON *o = cJSON_Parse("{\"launches\":[{\"kernel\":\"k\"}]}");
    struct wire_job j;
    CHECK(wire_job_parse(o, &j) == KEVO_OK && j.plan.l[0].grid[2] == 1 &&
          j.plan.l[0].block[0] == 1 && j.plan.l[0].cluster[0] == 0);
    cJSON_Delete(o);
}

static void result_round_trip(void)
{
    struct eval_result r, b;
    eval_result_init(&r);
    eval_result_init(&b);
    r.outcome = EVAL_OK;
    r.fitness = 5e14;
    r.median_ns = 1000.25;
    r.min_ns = 990;
    r.spread = 0.02;
    r.reps = 40;
    r.ratio = 1.1;
    r.roofline = 0.8;
    r.res.regs = 168;
    r.res.occupancy = 1;
    r.check_ms = 3.5;
    r.time_ms = 20.25;
    snprintf(r.detail, sizeof r.detail, "faster than cuBLAS");
    cJSON *ev = cJSON_CreateObject();
    cJSON_AddStringToObject(ev, "timer", "cupti");
    cJSON *o = wire_result_json(&r, ev);
    char *t = cJSON_PrintUnformatted(o);
    cJSON *back = cJSON_Parse(t);
    CHECK(wire_result_parse(back, &b) == KEVO_OK);
    CHECK(b.outcome == EVAL_OK && b.fitness == 5e14 &&
          b.median_ns == 1000.25 && b.reps == 40 && b.res.regs == 168 &&
          b.check_ms == 3.5 && b.time_ms == 20.25 &&
          !strcmp(b.detail, "faster than cuBLAS"));
    CHECK(b.evidence_json && strstr(b.evidence_json, "\"cupti\""));
    /* a malformed answer */
    cJSON *bad = cJSON_Parse("{\"outcome\":\"splendid\"}");
    struct eval_result c;
    eval_result_init(&c);
    CHECK(wire_result_parse(bad, &c) == KEVO_EPARSE);
    eval_result_release(&b);
    eval_result_release(&c);
    cJSON_Delete(bad);
    cJSON_Delete(o);
    cJSON_Delete(back);
    free(t);
}

/* Prints body o (taken over) and parses it back: what a frame carries. */
static cJSON *trip(cJSON *o)
{
    char *t = o ? cJSON_PrintUnformatted(o) : NULL;
    cJSON *back = t ? cJSON_Parse(t) : NULL;
    cJSON_Delete(o);
    free(t);
    return back;
}

static void kinds_are_named_once(void)
{
    static const struct {
        int type;
        const char *name;
        int body;
    } want[] = {
        {WM_INIT, "init", 1},         {WM_JOB, "job", 1},
        {WM_CONFIRM, "confirm", 1},   {WM_BASELINE, "baseline", 0},
        {WM_QUIT, "quit", 0},         {WM_READY, "ready", 1},
        {WM_PROGRESS, "progress", 1}, {WM_RESULT, "result", 1},
        {WM_CONFIRMED, "confirmed", 1}, {WM_FATAL, "fatal", 1},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        CHECK_MSG(!strcmp(wire_kind_name(want[i].type), want[i].name), "%d",
                  want[i].type);
        CHECK(wire_kind_has_body(want[i].type) == want[i].body);
        for (size_t k = 0; k < i; k++)
            CHECK(want[k].type != want[i].type);
    }
    CHECK(!strcmp(wire_kind_name(0), "?") && !strcmp(wire_kind_name(99), "?"));
}

static void init_round_trip(void)
{
    struct wire_init a = {.problem = "axpy", .problem_file = "p/axpy.problem",
                          .problem_text = "problem axpy\nsizes N\n",
                          .dtype = DTYPE_BF16,
                          .shape = {3, {4096, 1, 2147483647}},
                          .seed = 0xfedcba9876543210ULL, .device = 3,
                          .cupti = 0},
                     b;
    cJSON *o = trip(wire_init_json(&a));
    CHECK(wire_init_parse(o, &b) == KEVO_OK);
    CHECK(!strcmp(b.problem, "axpy") &&
          !strcmp(b.problem_file, "p/axpy.problem") &&
          !strcmp(b.problem_text, a.problem_text));
    CHECK(b.dtype == DTYPE_BF16 && b.shape.n_dims == 3 &&
          !memcmp(b.shape.d, a.shape.d, 3 * sizeof *a.shape.d));
    CHECK(b.seed == a.seed && b.device == 3 && b.cupti == 0 &&
          b.profiler == 0);
    CHECK(!cJSON_GetObjectItem(o, "profiler")); /* a timing worker's */
    cJSON_Delete(o);
    a.profiler = 1; /* the profiler's worker (worker.h 11) */
    o = trip(wire_init_json(&a));
    CHECK(wire_init_parse(o, &b) == KEVO_OK && b.profiler == 1);
    cJSON_Delete(o);
    a.profiler = 0;
    /* a built-in problem: no file members; defaults for device, cupti */
    a.problem_file = a.problem_text = NULL;
    a.cupti = 1;
    o = trip(wire_init_json(&a));
    CHECK(!cJSON_GetObjectItem(o, "problem_text"));
    cJSON_DeleteItemFromObject(o, "device");
    cJSON_DeleteItemFromObject(o, "cupti");
    CHECK(wire_init_parse(o, &b) == KEVO_OK && !b.problem_file &&
          !b.problem_text && b.device == 0 && b.cupti == 1);
    cJSON_Delete(o);
    /* no sizes: a PyTorch module whose every dim is fixed (the problem's
     * check_shape decides whether that is its shape) */
    o = cJSON_Parse("{\"problem\":\"hinge\",\"dtype\":\"fp32\","
                    "\"shape\":[],\"seed\":\"0000000000000001\"}");
    CHECK(o && wire_init_parse(o, &b) == KEVO_OK && b.shape.n_dims == 0);
    cJSON_Delete(o);
    static const char *const bad[] = {
        "{\"dtype\":\"fp32\",\"shape\":[8],\"seed\":\"0000000000000001\"}",
        "{\"problem\":\"gemm\",\"dtype\":\"fp64\",\"shape\":[8],"
        "\"seed\":\"0000000000000001\"}",
        "{\"problem\":\"gemm\",\"dtype\":\"fp32\",\"shape\":[0],"
        "\"seed\":\"0000000000000001\"}",
        "{\"problem\":\"gemm\",\"dtype\":\"fp32\",\"shape\":[1,2,3,4,5,6,7,8,9],"
        "\"seed\":\"0000000000000001\"}",
        "{\"problem\":\"gemm\",\"dtype\":\"fp32\",\"shape\":[\"8\"],"
        "\"seed\":\"0000000000000001\"}",
        "{\"problem\":\"gemm\",\"dtype\":\"fp32\",\"shape\":[8],"
        "\"seed\":\"xyz\"}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        o = cJSON_Parse(bad[i]);
        CHECK_MSG(wire_init_parse(o, &b) == KEVO_EPARSE, "%s", bad[i]);
        cJSON_Delete(o);
    }
}

static void confirm_round_trip(void)
{
    struct wire_confirm a = {.pairs = 21, .a = sample_job(),
                             .a_cubin_len = 123456},
                        b;
    a.b = sample_job();
    a.b.plan.n = 1;
    a.b.plan.l[0].grid[0] = 999;
    cJSON *o = trip(wire_confirm_json(&a));
    CHECK(wire_confirm_parse(o, &b) == KEVO_OK);
    CHECK(b.pairs == 21 && !b.vs_baseline && b.a_cubin_len == 123456);
    CHECK(!memcmp(&b.a.plan.l, &a.a.plan.l, sizeof a.a.plan.l) &&
          b.a.plan.n == 2 && b.b.plan.n == 1 &&
          b.b.plan.l[0].grid[0] == 999 && b.a.plan.n_tmaps == 2);
    cJSON_Delete(o);
    /* against the baseline: no b, and none needed */
    a.vs_baseline = 1;
    o = trip(wire_confirm_json(&a));
    CHECK(!cJSON_GetObjectItem(o, "b"));
    CHECK(wire_confirm_parse(o, &b) == KEVO_OK && b.vs_baseline);
    cJSON_Delete(o);
    static const char *const bad[] = {
        "{\"pairs\":5}",                                         /* no a */
        "{\"a\":{\"launches\":[{\"kernel\":\"k\"}],\"cubin_len\":4}}", /* b */
        "{\"a\":{\"launches\":[{\"kernel\":\"k\"}]},\"vs_baseline\":true}",
        "{\"a\":{\"launches\":[],\"cubin_len\":4},\"vs_baseline\":true}",
        "{\"a\":{\"launches\":[{\"kernel\":\"k\"}],\"cubin_len\":1e300},"
        "\"vs_baseline\":true}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        o = cJSON_Parse(bad[i]);
        CHECK_MSG(wire_confirm_parse(o, &b) == KEVO_EPARSE, "%s", bad[i]);
        cJSON_Delete(o);
    }
}

static void confirmed_round_trip(void)
{
    struct wire_confirmed a = {"", 1000.5, 1100.25, 1.0995, 0.004, 15}, b;
    cJSON *o = trip(wire_confirmed_json(&a));
    CHECK(wire_confirmed_parse(o, &b) == KEVO_OK);
    CHECK(!b.error[0] && b.a_median_ns == 1000.5 &&
          b.b_median_ns == 1100.25 && b.ratio == 1.0995 &&
          b.noise == 0.004 && b.pairs == 15);
    cJSON_Delete(o);
    snprintf(a.error, sizeof a.error, "module global 'n' changed");
    o = trip(wire_confirmed_json(&a));
    CHECK(wire_confirmed_parse(o, &b) == KEVO_OK &&
          !strcmp(b.error, "module global 'n' changed"));
    cJSON_Delete(o);
}

static void ready_round_trip(void)
{
    struct wire_ready a, b;
    memset(&a, 0, sizeof a);
    snprintf(a.device.name, sizeof a.device.name, "NVIDIA H200");
    snprintf(a.device.uuid, sizeof a.device.uuid, "GPU-1234");
    snprintf(a.device.arch, sizeof a.device.arch, "sm_90a");
    a.device.ordinal = 1;
    a.device.sms = 132;
    a.device.total_mem = 150011871232LL;
    a.device.l2_bytes = 52428800;
    a.device.clock_khz = 1980000;
    a.device.mem_clock_khz = 3201000;
    a.device.bus_width_bits = 6144;
    a.device.smem_optin = 232448;
    a.device.driver_version = 13000;
    a.device.peak_bw = 4.9e12;
    a.device.peak_fp32 = 6.7e13;
    a.device.peak_tensor16 = 1.07e15;
    a.device_count = 8;
    snprintf(a.timer, sizeof a.timer, "cupti");
    snprintf(a.timer_note, sizeof a.timer_note, "%s", "");
    a.cupti_version = 26;
    a.cublas_version = 130100;
    snprintf(a.nvrtc_version, sizeof a.nvrtc_version, "13.0");
    a.n_baselines = 2;
    a.baselines[0] = (struct record_baseline){"cublas", 1234.5, 5e14, 0};
    a.baselines[1] = (struct record_baseline){"naive", 99999, 1e12, 0};
    a.has_nvml = 1;
    a.nvml = (struct wire_nvml){45, 700000, 123456, 1980, 3201, 1755,
                                1LL << 40};
    cJSON *o = trip(wire_ready_json(&a));
    CHECK(wire_ready_parse(o, &b) == KEVO_OK);
    CHECK(!memcmp(&a.device, &b.device, sizeof a.device));
    CHECK(b.device_count == 8 && !strcmp(b.timer, "cupti") &&
          b.cupti_version == 26 && b.cublas_version == 130100 &&
          !strcmp(b.nvrtc_version, "13.0"));
    CHECK(b.n_baselines == 2 && !strcmp(b.baselines[1].name, "naive") &&
          b.baselines[0].median_ns == 1234.5 && b.baselines[1].fitness == 1e12);
    CHECK(b.has_nvml && !memcmp(&a.nvml, &b.nvml, sizeof a.nvml));
    /* the manifest's environment keys stay where readers look for them */
    CHECK(cJSON_IsString(cJSON_GetObjectItem(
        cJSON_GetObjectItem(o, "device"), "uuid")));
    CHECK(cJSON_IsArray(cJSON_GetObjectItem(o, "baselines")));
    cJSON_Delete(o);
    /* no NVML, no device count */
    a.has_nvml = 0;
    a.device_count = -1;
    o = trip(wire_ready_json(&a));
    CHECK(!cJSON_GetObjectItem(o, "nvml") &&
          !cJSON_GetObjectItem(o, "device_count"));
    CHECK(wire_ready_parse(o, &b) == KEVO_OK && !b.has_nvml &&
          b.device_count == -1);
    cJSON_Delete(o);
    o = cJSON_Parse("{\"timer\":\"cupti\"}");
    CHECK(wire_ready_parse(o, &b) == KEVO_EPARSE);
    cJSON_Delete(o);
}

/* A torch problem's ready: eager and compile with their CUDA-event wall
 * times, why a baseline was skipped, and the calibrated tolerance. */
static void ready_tolerance_round_trip(void)
{
    struct wire_ready a, b;
    memset(&a, 0, sizeof a);
    snprintf(a.device.name, sizeof a.device.name, "NVIDIA H200");
    a.device_count = -1;
    a.n_baselines = 2;
    a.baselines[0] = (struct record_baseline){"eager", 5120, 8e11, 21000};
    a.baselines[1] = (struct record_baseline){"compile", 4096, 1e12, 0};
    snprintf(a.baseline_note, sizeof a.baseline_note, "torch.compile took "
             "412.0 s, over KEVO_TORCH_COMPILE_LIMIT_S=300");
    a.has_tolerance = 1;
    a.tolerance = (struct wire_tolerance){.atol = 2.7e-4, .rtol = 1.9e-6,
                                          .used = 0.0625, .margin = 16,
                                          .source = "calibrated",
                                          .who = "torch"};
    cJSON *o = trip(wire_ready_json(&a));
    CHECK(wire_ready_parse(o, &b) == KEVO_OK);
    CHECK(b.baselines[0].wall_ns == 21000 && b.baselines[1].wall_ns == 0 &&
          !cJSON_GetObjectItem(cJSON_GetArrayItem(
              cJSON_GetObjectItem(o, "baselines"), 1), "wall_ns"));
    CHECK(!strcmp(b.baseline_note, a.baseline_note));
    CHECK(b.has_tolerance && b.tolerance.atol == 2.7e-4 &&
          b.tolerance.rtol == 1.9e-6 && b.tolerance.used == 0.0625 &&
          b.tolerance.margin == 16 &&
          !strcmp(b.tolerance.source, "calibrated") &&
          !strcmp(b.tolerance.who, "torch"));
    char text[400];
    wire_tolerance_text(&b.tolerance, "fp32", text, sizeof text);
    CHECK(!strcmp(text, "atol 0.00027 rtol 1.9e-06 (calibrated: torch's own "
                        "fp32 result uses 0.062 of it, margin 16x)"));
    cJSON_Delete(o);
    /* a given tolerance says so; one by dtype has no note */
    b.tolerance = (struct wire_tolerance){.atol = 1e-3, .used = 0.5,
                                          .source = "given", .who = "torch"};
    wire_tolerance_text(&b.tolerance, "bf16", text, sizeof text);
    CHECK(!strcmp(text, "atol 0.001 rtol 0 (given by the user; torch's own "
                        "bf16 result uses 0.5 of it)"));
    b.tolerance = (struct wire_tolerance){.atol = 1e-4, .rtol = 1e-4,
                                          .source = "dtype"};
    wire_tolerance_text(&b.tolerance, "fp32", text, sizeof text);
    CHECK(!strcmp(text, "atol 0.0001 rtol 0.0001"));
    /* an old worker's ready has none */
    a.has_tolerance = 0;
    o = trip(wire_ready_json(&a));
    CHECK(wire_ready_parse(o, &b) == KEVO_OK && !b.has_tolerance &&
          !cJSON_GetObjectItem(o, "tolerance"));
    cJSON_Delete(o);
}

/* A module with two outputs: one pair each, by name, in the ready
 * message and the manifest (environment.tolerance.outputs); a single
 * output folds into the object's own members, as before per-output
 * tolerances; an old manifest's one pair reads as one for every output. */
static void per_output_tolerance_round_trip(void)
{
    struct wire_tolerance a = {.margin = 16, .source = "mixed",
                               .who = "torch", .n_out = 2}, b;
    a.out[0] = (struct wire_tol_out){"sum", 0.19, 1.9e-6, 0.0625,
                                     "calibrated"};
    a.out[1] = (struct wire_tol_out){"idx", 0, 0, 0, "exact"};
    cJSON *o = cJSON_CreateObject();
    wire_tolerance_put(o, &a);
    o = trip(o);
    wire_tolerance_get(o, &b);
    CHECK(b.n_out == 2 && !strcmp(b.out[0].name, "sum") &&
          b.out[0].atol == 0.19 && b.out[0].rtol == 1.9e-6 &&
          b.out[0].used == 0.0625 && !strcmp(b.out[1].source, "exact") &&
          b.out[1].atol == 0 && b.margin == 16 &&
          !strcmp(b.source, "mixed") && !strcmp(b.who, "torch"));
    CHECK(!cJSON_GetObjectItem(o, "atol")); /* no pair for all */
    char text[800];
    wire_tolerance_text(&b, "fp32", text, sizeof text);
    CHECK_MSG(!strcmp(text, "sum atol 0.19 rtol 1.9e-06 (calibrated: torch's "
                            "own fp32 result uses 0.062 of it, margin 16x); "
                            "idx atol 0 rtol 0 (exact: an integer output)"),
              "%s", text);
    cJSON_Delete(o);
    /* one output: the object is that output's pair, as before */
    a.n_out = 1;
    o = cJSON_CreateObject();
    wire_tolerance_put(o, &a);
    o = trip(o);
    wire_tolerance_get(o, &b);
    CHECK(b.n_out == 0 && b.atol == 0.19 && b.used == 0.0625 &&
          !strcmp(b.source, "calibrated") &&
          !cJSON_GetObjectItem(o, "outputs"));
    cJSON_Delete(o);
    /* a manifest written before per-output tolerances */
    o = cJSON_Parse("{\"atol\": 0.000271, \"rtol\": 1.9e-06, \"used\": "
                    "0.0625, \"margin\": 16, \"source\": \"calibrated\", "
                    "\"who\": \"torch\"}");
    wire_tolerance_get(o, &b);
    wire_tolerance_text(&b, "fp32", text, sizeof text);
    CHECK(b.n_out == 0 && !strcmp(text, "atol 0.000271 rtol 1.9e-06 "
                                        "(calibrated: torch's own fp32 "
                                        "result uses 0.062 of it, margin "
                                        "16x)"));
    cJSON_Delete(o);
}

static void progress_and_fatal_round_trip(void)
{
    struct wire_progress p = {"check A", 0}, q;
    cJSON *o = trip(wire_progress_json(&p));
    CHECK(wire_progress_parse(o, &q) == KEVO_OK && !strcmp(q.phase, "check A")
          && q.budget_ms == 0 && !cJSON_GetObjectItem(o, "budget_ms"));
    cJSON_Delete(o);
    /* a phase that asks the watchdog for longer (a torch.compile) */
    p = (struct wire_progress){"baseline: torch.compile", 360000};
    o = trip(wire_progress_json(&p));
    CHECK(wire_progress_parse(o, &q) == KEVO_OK && q.budget_ms == 360000);
    cJSON_Delete(o);
    struct wire_fatal f = {"no CUDA device: cuInit failed", 1}, g;
    o = trip(wire_fatal_json(&f));
    CHECK(wire_fatal_parse(o, &g) == KEVO_OK && g.enodev == 1 &&
          !strcmp(g.reason, f.reason));
    cJSON_Delete(o);
    o = cJSON_Parse("{}");
    CHECK(wire_progress_parse(o, &q) == KEVO_EPARSE);
    CHECK(wire_fatal_parse(o, &g) == KEVO_EPARSE);
    cJSON_Delete(o);
}

int main(void)
{
    RUN(kinds_are_named_once, "every message kind has one name and says "
                              "whether it has a body");
    RUN(init_round_trip, "an init message carries problem, file text, "
                         "dtype, shape, seed, device and timer choice");
    RUN(job_round_trip, "a job's launches, workspace, tensor maps and flags "
                        "survive the trip to the worker");
    RUN(bad_jobs, "malformed jobs are refused; absent dims take defaults");
    RUN(result_round_trip, "a result travels in the journal's shape, "
                           "evidence included, and comes back whole");
    RUN(confirm_round_trip, "a confirm carries two plans, or one against "
                            "the baseline, and the split of the cubins");
    RUN(confirmed_round_trip, "a confirmed answer carries the medians, "
                              "ratio and noise, or the error");
    RUN(ready_round_trip, "a ready message carries the device, versions, "
                          "baselines and NVML sample whole");
    RUN(ready_tolerance_round_trip, "a ready message carries each "
                                    "baseline's wall time, why one was "
                                    "skipped and the tolerance in force");
    RUN(per_output_tolerance_round_trip, "a tolerance per output travels "
        "by name; one output's is the object's own pair; an old one-pair "
        "object reads as one for every output");
    RUN(progress_and_fatal_round_trip, "progress and fatal messages come "
                                       "back whole; empty ones are "
                                       "refused");
    TEST_DONE();
}
