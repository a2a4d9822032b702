/*
 * test_wire.c - the GPU worker's protocol bodies (wire.h): a job's launch
 * plan and flags survive the trip from the evaluator to the worker; bad
 * jobs are refused; a result has the journal's shape and comes back whole.
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

int main(void)
{
    RUN(job_round_trip, "a job's launches, workspace, tensor maps and flags "
                        "survive the trip to the worker");
    RUN(bad_jobs, "malformed jobs are refused; absent dims take defaults");
    RUN(result_round_trip, "a result travels in the journal's shape, "
                           "evidence included, and comes back whole");
    TEST_DONE();
}
