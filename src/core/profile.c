/*
 * profile.c - a candidate's hardware profile: JSON codec and diagnosis
 * (see profile.h). Pure functions of the numbers: the same profile gives
 * the same text, so prompts (keyed by their text) stay replayable.
 *
 * Diagnosis thresholds (the usual speed-of-light reading, as in Nsight
 * Compute's "GPU Speed Of Light" rule: a unit above 60 % of its peak is
 * the bound; both under 40 % means neither is used well, so latency is):
 * memory-bound when DRAM >= 60 % and >= SM; compute-bound when SM or a
 * tensor pipe >= 60 %; latency-bound when DRAM and SM are both < 40 %;
 * else "balanced". Stall reasons under 10 % of all stalls are not named.
 */
#include "profile.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "record.h"

static const char *const keys[PM_COUNT] = {
    [PM_DURATION_NS] = "duration_ns",
    [PM_DRAM_READ] = "dram_read_bytes",
    [PM_DRAM_WRITE] = "dram_write_bytes",
    [PM_DRAM_PCT] = "dram_pct",
    [PM_SM_PCT] = "sm_pct",
    [PM_TENSOR_GMMA_PCT] = "tensor_gmma_pct",
    [PM_TENSOR_HMMA_PCT] = "tensor_hmma_pct",
    [PM_FMA_PCT] = "fma_pct",
    [PM_ALU_PCT] = "alu_pct",
    [PM_OCC_PCT] = "achieved_occupancy_pct",
    [PM_L2_HIT_PCT] = "l2_hit_pct",
    [PM_SHARED_CONFLICTS] = "shared_bank_conflicts",
    [PM_ISSUE_PCT] = "issue_busy_pct",
    [PM_STALL_LONG_SB] = "stall_long_scoreboard",
    [PM_STALL_SHORT_SB] = "stall_short_scoreboard",
    [PM_STALL_BARRIER] = "stall_barrier",
    [PM_STALL_MIO] = "stall_mio_throttle",
    [PM_STALL_LG] = "stall_lg_throttle",
    [PM_STALL_WAIT] = "stall_wait",
    [PM_STALL_MATH] = "stall_math_pipe_throttle",
    [PM_STALL_NOT_SELECTED] = "stall_not_selected",
    [PM_STALL_MEMBAR] = "stall_membar",
    [PM_STALL_NO_INST] = "stall_no_instruction",
    [PM_STALL_BRANCH] = "stall_branch_resolving",
    [PM_STALL_DISPATCH] = "stall_dispatch_stall",
    [PM_STALL_SLEEPING] = "stall_sleeping",
    [PM_STALL_TEX] = "stall_tex_throttle",
    [PM_STALL_DRAIN] = "stall_drain",
    [PM_STALL_MISC] = "stall_misc",
};

const char *prof_metric_key(enum prof_metric m)
{
    return (unsigned)m < PM_COUNT ? keys[m] : "?";
}

static const char *const stall_names[PM_COUNT - PM_STALL_FIRST] = {
    "long scoreboard", "short scoreboard", "barrier", "mio throttle",
    "lg throttle", "wait", "math pipe throttle", "not selected", "membar",
    "no instruction", "branch resolving", "dispatch stall", "sleeping",
    "tex throttle", "drain", "misc",
};

const char *prof_stall_name(enum prof_metric m)
{
    if (m < PM_STALL_FIRST || m >= PM_COUNT)
        return NULL;
    return stall_names[m - PM_STALL_FIRST];
}

void prof_init(struct kprof *p)
{
    memset(p, 0, sizeof *p);
    for (int i = 0; i < TPL_MAX_LAUNCHES; i++)
        for (int m = 0; m < PM_COUNT; m++)
            p->l[i].m[m] = NAN;
}

void prof_set_unavailable(struct kprof *p, const char *fmt, ...)
{
    va_list ap;
    prof_init(p);
    va_start(ap, fmt);
    vsnprintf(p->note, sizeof p->note, fmt, ap);
    va_end(ap);
}

int prof_unavailable_everywhere(const struct kprof *p)
{
    return !p->available &&
           (!strncmp(p->note, PROF_NO_COUNTERS, strlen(PROF_NO_COUNTERS)) ||
            !strncmp(p->note, PROF_NO_WORKER, strlen(PROF_NO_WORKER)));
}

/* ---- JSON */

cJSON *prof_json(const struct kprof *p)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddBoolToObject(o, "available", p->available);
    cJSON_AddStringToObject(o, "note", p->note);
    if (!p->available)
        return o;
    cJSON_AddNumberToObject(o, "passes", p->passes);
    cJSON_AddNumberToObject(o, "cost_ms", p->cost_ms);
    cJSON *ls = cJSON_AddArrayToObject(o, "launches");
    for (int i = 0; ls && i < p->n; i++) {
        const struct prof_launch *l = &p->l[i];
        cJSON *j = cJSON_CreateObject();
        if (!j)
            break;
        cJSON_AddStringToObject(j, "kernel", l->kernel);
        cJSON_AddNumberToObject(j, "regs", l->regs);
        cJSON_AddNumberToObject(j, "smem_bytes", l->smem_bytes);
        cJSON_AddNumberToObject(j, "threads", l->threads);
        cJSON_AddNumberToObject(j, "blocks_per_sm", l->blocks_per_sm);
        cJSON_AddNumberToObject(j, "theoretical_occupancy_pct",
                                l->theo_occ_pct);
        cJSON_AddStringToObject(j, "occupancy_limiter", l->limiter);
        cJSON *m = cJSON_AddObjectToObject(j, "metrics");
        for (int k = 0; m && k < PM_COUNT; k++)
            if (isfinite(l->m[k]))
                cJSON_AddNumberToObject(m, keys[k], l->m[k]);
        cJSON_AddItemToArray(ls, j);
    }
    return o;
}

static void copy_str(char *dst, size_t cap, const char *s)
{
    snprintf(dst, cap, "%s", s ? s : "");
}

int prof_parse(const cJSON *o, struct kprof *p, char *err, size_t errcap)
{
    prof_init(p);
    const cJSON *av = cJSON_GetObjectItemCaseSensitive(o, "available");
    if (!cJSON_IsObject(o) || !cJSON_IsBool(av)) {
        snprintf(err, errcap, "profile: 'available' is missing");
        return KEVO_EPARSE;
    }
    p->available = cJSON_IsTrue(av);
    copy_str(p->note, sizeof p->note, record_str(o, "note"));
    if (!p->available)
        return KEVO_OK;
    p->passes = record_int(o, "passes", 0);
    p->cost_ms = record_num(o, "cost_ms", 0);
    const cJSON *ls = cJSON_GetObjectItemCaseSensitive(o, "launches");
    int n = cJSON_IsArray(ls) ? cJSON_GetArraySize(ls) : -1;
    if (n < 0 || n > TPL_MAX_LAUNCHES) {
        snprintf(err, errcap, "profile: 'launches' is not an array of at "
                 "most %d", TPL_MAX_LAUNCHES);
        return KEVO_EPARSE;
    }
    p->n = n;
    for (int i = 0; i < n; i++) {
        const cJSON *j = cJSON_GetArrayItem(ls, i);
        struct prof_launch *l = &p->l[i];
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "metrics");
        if (!cJSON_IsObject(j) || !cJSON_IsObject(m)) {
            snprintf(err, errcap, "profile: launch %d has no 'metrics'",
                     i + 1);
            return KEVO_EPARSE;
        }
        copy_str(l->kernel, sizeof l->kernel, record_str(j, "kernel"));
        l->regs = record_int(j, "regs", 0);
        l->smem_bytes = record_int(j, "smem_bytes", 0);
        l->threads = record_int(j, "threads", 0);
        l->blocks_per_sm = record_int(j, "blocks_per_sm", 0);
        l->theo_occ_pct = record_num(j, "theoretical_occupancy_pct", 0);
        copy_str(l->limiter, sizeof l->limiter,
                 record_str(j, "occupancy_limiter"));
        for (int k = 0; k < PM_COUNT; k++)
            l->m[k] = record_num(m, keys[k], NAN);
    }
    return KEVO_OK;
}

/* ---- diagnosis */

int prof_main_launch(const struct kprof *p)
{
    int best = 0;
    for (int i = 1; i < p->n; i++)
        if (p->l[i].m[PM_DURATION_NS] > p->l[best].m[PM_DURATION_NS])
            best = i;
    return best;
}

/* Appends to out (keeps it NUL-terminated). */
static void add(char *out, size_t cap, const char *fmt, ...)
    KEVO_PRINTF(3, 4);
static void add(char *out, size_t cap, const char *fmt, ...)
{
    size_t n = strlen(out);
    if (n + 1 >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out + n, cap - n, fmt, ap);
    va_end(ap);
}

static double val(const struct prof_launch *l, enum prof_metric m)
{
    return isfinite(l->m[m]) ? l->m[m] : 0;
}

/* "memory-bound: DRAM 91 % of peak" and the like, for one launch. */
static void bound_text(const struct prof_launch *l, char *out, size_t cap)
{
    double dram = val(l, PM_DRAM_PCT), sm = val(l, PM_SM_PCT),
           tc = fmax(val(l, PM_TENSOR_GMMA_PCT), val(l, PM_TENSOR_HMMA_PCT));
    if (dram >= 60 && dram >= sm) {
        add(out, cap, "memory-bound: DRAM %.0f %% of peak (SM %.0f %%)", dram,
            sm);
    } else if (sm >= 60 || tc >= 60) {
        add(out, cap, "compute-bound: SM %.0f %% of peak", sm);
        if (tc > 0)
            add(out, cap, ", tensor pipe %.0f %%", tc);
        if (isfinite(l->m[PM_FMA_PCT]))
            add(out, cap, ", FMA pipe %.0f %%", val(l, PM_FMA_PCT));
        add(out, cap, " (DRAM %.0f %%)", dram);
    } else if (dram < 40 && sm < 40) {
        add(out, cap, "latency-bound: DRAM %.0f %% and SM %.0f %% of peak",
            dram, sm);
        if (isfinite(l->m[PM_ISSUE_PCT]))
            add(out, cap, ", issue slots busy %.0f %%", val(l, PM_ISSUE_PCT));
    } else {
        add(out, cap, "balanced: DRAM %.0f %%, SM %.0f %% of peak", dram, sm);
        if (tc > 0)
            add(out, cap, ", tensor pipe %.0f %%", tc);
    }
    if (isfinite(l->m[PM_OCC_PCT])) {
        add(out, cap, "; achieved occupancy %.0f %%", val(l, PM_OCC_PCT));
        if (l->theo_occ_pct > 0)
            add(out, cap, " of %.0f %% theoretical", l->theo_occ_pct);
        if (l->limiter[0])
            add(out, cap, " (limited by %s)", l->limiter);
    }
}

/* "; stalls: long scoreboard 48 %, barrier 21 %" (shares of all stalls
 * >= 10 %, largest first, at most 3). */
static void stall_text(const struct prof_launch *l, char *out, size_t cap)
{
    double total = 0;
    for (int m = PM_STALL_FIRST; m < PM_COUNT; m++)
        total += val(l, m);
    if (!(total > 0))
        return;
    int used[PM_COUNT] = {0}, named = 0;
    for (int k = 0; k < 3; k++) {
        int best = -1;
        for (int m = PM_STALL_FIRST; m < PM_COUNT; m++)
            if (!used[m] && (best < 0 || val(l, m) > val(l, best)))
                best = m;
        if (best < 0 || val(l, best) < 0.10 * total)
            break;
        used[best] = 1;
        add(out, cap, "%s%s %.0f %%", named++ ? ", " : "; stalls: ",
            prof_stall_name(best), 100 * val(l, best) / total);
    }
}

void prof_diagnose(const struct kprof *p, const struct prof_ctx *c, char *out,
                   size_t cap)
{
    if (!cap)
        return;
    out[0] = 0;
    if (!p->available) {
        add(out, cap, "not available: %s", p->note[0] ? p->note : "no "
            "profile was taken");
        return;
    }
    if (p->n < 1) {
        add(out, cap, "no launch was profiled");
        return;
    }
    int mi = prof_main_launch(p);
    const struct prof_launch *l = &p->l[mi];
    double total_ns = 0, moved = 0;
    for (int i = 0; i < p->n; i++) {
        total_ns += val(&p->l[i], PM_DURATION_NS);
        moved += val(&p->l[i], PM_DRAM_READ) + val(&p->l[i], PM_DRAM_WRITE);
    }
    if (p->n > 1)
        add(out, cap, "launch %d of %d (%s, %.0f %% of the time): ", mi + 1,
            p->n, l->kernel,
            total_ns > 0 ? 100 * val(l, PM_DURATION_NS) / total_ns : 0);
    bound_text(l, out, cap);
    if (c && c->bytes_needed > 0 && moved > 0)
        add(out, cap, "; %.2f bytes moved per byte needed", moved /
            c->bytes_needed);
    if (isfinite(l->m[PM_L2_HIT_PCT]))
        add(out, cap, "; L2 hit rate %.0f %%", val(l, PM_L2_HIT_PCT));
    if (val(l, PM_SHARED_CONFLICTS) > 0)
        add(out, cap, "; %.3g shared-memory bank conflicts",
            val(l, PM_SHARED_CONFLICTS));
    stall_text(l, out, cap);
}

void prof_launch_text(const struct prof_launch *l, char *out, size_t cap)
{
    if (!cap)
        return;
    out[0] = 0;
    const double *m = l->m;
    if (isfinite(m[PM_DURATION_NS]))
        add(out, cap, "duration %.4g us; ", m[PM_DURATION_NS] / 1e3);
    add(out, cap, "DRAM read %.4g MB, written %.4g MB, %.1f %% of peak; "
        "SM %.1f %% of peak", val(l, PM_DRAM_READ) / 1e6,
        val(l, PM_DRAM_WRITE) / 1e6, val(l, PM_DRAM_PCT), val(l, PM_SM_PCT));
    static const struct {
        enum prof_metric m;
        const char *name;
    } pct[] = {{PM_TENSOR_GMMA_PCT, "tensor pipe (wgmma)"},
               {PM_TENSOR_HMMA_PCT, "tensor pipe"},
               {PM_FMA_PCT, "FMA pipe"}, {PM_ALU_PCT, "ALU pipe"},
               {PM_ISSUE_PCT, "issue slots busy"},
               {PM_L2_HIT_PCT, "L2 hit rate"},
               {PM_OCC_PCT, "achieved occupancy"}};
    for (size_t i = 0; i < sizeof pct / sizeof pct[0]; i++)
        if (isfinite(m[pct[i].m]))
            add(out, cap, "; %s %.1f %%", pct[i].name, m[pct[i].m]);
    if (l->limiter[0])
        add(out, cap, " (theoretical %.0f %%: %d registers/thread, %d bytes "
            "of shared memory and %d threads/block, %d block%s/SM, limited "
            "by %s)", l->theo_occ_pct, l->regs, l->smem_bytes, l->threads,
            l->blocks_per_sm, l->blocks_per_sm == 1 ? "" : "s", l->limiter);
    if (isfinite(m[PM_SHARED_CONFLICTS]))
        add(out, cap, "; shared bank conflicts %.4g", m[PM_SHARED_CONFLICTS]);
    double total = 0;
    for (int k = PM_STALL_FIRST; k < PM_COUNT; k++)
        total += val(l, k);
    if (!(total > 0))
        return;
    add(out, cap, "; stalls (share of all):");
    int sep = 0;
    for (int k = PM_STALL_FIRST; k < PM_COUNT; k++)
        if (val(l, k) >= 0.01 * total)
            add(out, cap, "%s %s %.1f %%", sep++ ? "," : "",
                prof_stall_name(k), 100 * val(l, k) / total);
}

struct prof_ctx prof_ctx_of(const struct problem *p, const struct shape *s,
                            enum dtype dt)
{
    return (struct prof_ctx){p->min_bytes ? p->min_bytes(p, s, dt) : 0,
                             p->flops ? p->flops(p, s, dt) : 0};
}
