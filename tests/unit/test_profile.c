/*
 * test_profile.c - a candidate's hardware profile (src/core/profile.c)
 * and the profiler's words for restricted counters (src/gpu/prof.c, no
 * GPU needed): the JSON codec round-trips every metric and leaves out
 * what was not collected; the diagnosis names the bound from the numbers
 * (memory, compute, latency), the top stalls and the bytes moved per byte
 * needed, and says why a profile is not available.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "prof.h"
#include "profile.h"
#include "wire.h"

static int has(const char *s, const char *what)
{
    return s && strstr(s, what) != NULL;
}

static void one_launch(struct kprof *p, double dram, double sm, double tc)
{
    prof_init(p);
    p->available = 1;
    p->n = 1;
    snprintf(p->l[0].kernel, sizeof p->l[0].kernel, "k");
    p->l[0].m[PM_DURATION_NS] = 1e5;
    p->l[0].m[PM_DRAM_READ] = 3e8;
    p->l[0].m[PM_DRAM_WRITE] = 1e8;
    p->l[0].m[PM_DRAM_PCT] = dram;
    p->l[0].m[PM_SM_PCT] = sm;
    p->l[0].m[PM_TENSOR_GMMA_PCT] = tc;
    p->l[0].m[PM_ISSUE_PCT] = 22;
}

static void test_codec(void)
{
    struct kprof p, q;
    char err[128];
    one_launch(&p, 91, 30, 0);
    p.l[0].m[PM_STALL_BARRIER] = 12345;
    p.l[0].regs = 96;
    snprintf(p.l[0].limiter, sizeof p.l[0].limiter, "shared memory");
    p.passes = 38;
    p.cost_ms = 12.5;
    cJSON *o = wire_profile_json(&p);
    char *txt = cJSON_PrintUnformatted(o);
    CHECK(has(txt, "\"dram_pct\":91"));
    CHECK(has(txt, "\"stall_barrier\":12345"));
    CHECK(!has(txt, "l2_hit_pct")); /* not collected: left out */
    CHECK(wire_profile_parse(o, &q) == KEVO_OK);
    CHECK(q.available && q.n == 1 && q.passes == 38 && q.cost_ms == 12.5);
    CHECK(q.l[0].m[PM_DRAM_PCT] == 91 && q.l[0].regs == 96);
    CHECK(!strcmp(q.l[0].limiter, "shared memory"));
    CHECK(isnan(q.l[0].m[PM_L2_HIT_PCT]));
    cJSON_Delete(o);
    free(txt);
    /* bad input names the member */
    o = cJSON_Parse("{\"available\":true,\"launches\":[{\"kernel\":\"k\"}]}");
    CHECK(prof_parse(o, &q, err, sizeof err) == KEVO_EPARSE);
    CHECK(has(err, "launch 1 has no 'metrics'"));
    cJSON_Delete(o);
    o = cJSON_Parse("{\"note\":\"x\"}");
    CHECK(prof_parse(o, &q, err, sizeof err) == KEVO_EPARSE);
    CHECK(has(err, "'available'"));
    cJSON_Delete(o);
}

static void test_diagnosis(void)
{
    struct kprof p;
    char d[512];
    struct prof_ctx c = {4e8, 0};
    one_launch(&p, 91, 30, 0);
    p.l[0].m[PM_STALL_LONG_SB] = 48;
    p.l[0].m[PM_STALL_BARRIER] = 21;
    p.l[0].m[PM_STALL_WAIT] = 9;   /* under 10 %: not named */
    p.l[0].m[PM_STALL_MIO] = 22;
    prof_diagnose(&p, &c, d, sizeof d);
    CHECK_MSG(has(d, "memory-bound: DRAM 91 % of peak (SM 30 %); 1.00 bytes "
                     "moved per byte needed; stalls: long scoreboard 48 %, "
                     "mio throttle 22 %, barrier 21 %"), "%s", d);
    CHECK(!has(d, "wait"));
    one_launch(&p, 20, 85, 78);
    prof_diagnose(&p, NULL, d, sizeof d);
    CHECK_MSG(has(d, "compute-bound: SM 85 % of peak, tensor pipe 78 %"),
              "%s", d);
    one_launch(&p, 12, 15, 0);
    prof_diagnose(&p, NULL, d, sizeof d);
    CHECK_MSG(has(d, "latency-bound: DRAM 12 % and SM 15 % of peak, issue "
                     "slots busy 22 %"), "%s", d);
    one_launch(&p, 50, 45, 0);
    prof_diagnose(&p, NULL, d, sizeof d);
    CHECK_MSG(has(d, "balanced: DRAM 50 %, SM 45 % of peak"), "%s", d);
    /* deterministic: the same numbers, the same text */
    char d2[512];
    prof_diagnose(&p, NULL, d2, sizeof d2);
    CHECK(!strcmp(d, d2));
    /* the main launch of several is named */
    one_launch(&p, 91, 30, 0);
    p.n = 2;
    p.l[1] = p.l[0];
    p.l[0].m[PM_DURATION_NS] = 1e3;
    snprintf(p.l[1].kernel, sizeof p.l[1].kernel, "main");
    prof_diagnose(&p, NULL, d, sizeof d);
    CHECK_MSG(has(d, "launch 2 of 2 (main, 99 % of the time): memory-bound"),
              "%s", d);
}

static void test_unavailable(void)
{
    char note[256], d[512];
    struct kprof p;
    prof_error_note(35, "cuptiProfilerGetCounterAvailability", note,
                    sizeof note);
    CHECK(has(note, "(CUPTI error 35): the driver restricts GPU performance "
                    "counters to admin users "
                    "(NVreg_RestrictProfilingToAdminUsers=1"));
    prof_error_note(39, "cuptiRangeProfilerEnable", note, sizeof note);
    CHECK(has(note, "another profiler (ncu, nsys, a sanitizer) is attached"));
    prof_set_unavailable(&p, "counters not available: %s", note);
    prof_diagnose(&p, NULL, d, sizeof d);
    CHECK(has(d, "not available: counters not available: "
                 "cuptiRangeProfilerEnable failed (CUPTI error 39)"));
    cJSON *o = prof_json(&p);
    char *t = cJSON_PrintUnformatted(o);
    CHECK(has(t, "\"available\":false"));
    CHECK(!has(t, "launches"));
    cJSON_Delete(o);
    free(t);
}

int main(void)
{
    RUN(test_codec, "a profile round-trips through JSON; what was not "
        "collected stays out; bad input names the member");
    RUN(test_diagnosis, "the diagnosis names the bound, the bytes per byte "
        "needed and the top stalls, deterministically");
    RUN(test_unavailable, "restricted counters or another profiler: the "
        "note says why and what to do");
    TEST_DONE();
}
