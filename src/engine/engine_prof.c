/*
 * engine_prof.c - which candidates the engine profiles (the hardware
 * counters of core/profile.h), and the profiles it has: every accepted new
 * best and every parent of an LLM rewrite or crossover, once per genome.
 *
 * Budget: live, a profile is asked only while the profiles so far took
 * less than PROF_SHARE of the run's wall time (the first one is always
 * asked): a few % of GPU time. A replay or resume does not decide: the
 * journal's "profile" records say where profiles were taken, and they are
 * taken from it (runlog_profile), so resume and replay never re-profile.
 * Counters found unavailable (restricted, another profiler), or no
 * process for the profiler (gpu/worker.h 11), stop live profiling at the
 * record that says so, with one note (prof_unavailable_everywhere).
 * Live, before the run's first profile, the evaluator is told profiles
 * will come (profile_soon: the GPU's profiler's worker starts while
 * generation 0 compiles), so the first, at the first new best, does not
 * wait for that start.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_int.h"
#include "fsutil.h"
#include "hash.h"
#include "progress.h"
#include "runlog.h"

#define PROF_SHARE 0.03 /* of the run's wall time spent profiling */

struct prof_entry {
    uint64_t hash;
    struct kprof p;
};

struct engine_prof {
    struct prof_entry *v;
    int n, cap;
    double spent_ms;       /* cost_ms of the profiles taken */
    int off;               /* counters unavailable: no more live asks */
    int off_at;            /* the entry that said so */
    int noted;             /* the note was shown */
};

int engine_prof_init(struct engine *e)
{
    e->prof = calloc(1, sizeof *e->prof);
    return e->prof ? KEVO_OK : KEVO_ENOMEM;
}

void engine_prof_free(struct engine *e)
{
    if (e->prof)
        free(e->prof->v);
    free(e->prof);
    e->prof = NULL;
}

const struct kprof *engine_prof_find(const struct engine *e, uint64_t hash)
{
    const struct engine_prof *ep = e->prof;
    for (int i = 0; ep && i < ep->n; i++)
        if (ep->v[i].hash == hash)
            return &ep->v[i].p;
    return NULL;
}

const struct kprof *engine_prof_off(const struct engine *e)
{
    const struct engine_prof *ep = e->prof;
    return ep && ep->off ? &ep->v[ep->off_at].p : NULL;
}

static int keep(struct engine *e, uint64_t hash, const struct kprof *p)
{
    struct engine_prof *ep = e->prof;
    if (ep->n == ep->cap) {
        int cap = ep->cap ? 2 * ep->cap : 16;
        struct prof_entry *v = realloc(ep->v, sizeof *v * (size_t)cap);
        if (!v)
            return KEVO_ENOMEM;
        ep->v = v;
        ep->cap = cap;
    }
    ep->v[ep->n++] = (struct prof_entry){hash, *p};
    ep->spent_ms += p->available ? p->cost_ms : 0;
    if (prof_unavailable_everywhere(p) && !ep->off) {
        ep->off = 1;
        ep->off_at = ep->n - 1;
    }
    return KEVO_OK;
}

int engine_prof_note_record(struct engine *e, const cJSON *o)
{
    struct rec_profile r;
    char err[128];
    if (!e->prof || rec_profile_parse(o, &r, err, sizeof err))
        return KEVO_OK; /* (a malformed history record: no profile) */
    return engine_prof_find(e, r.hash) ? KEVO_OK : keep(e, r.hash, &r.p);
}

static double run_ms(const struct engine *e)
{
    return 1e3 * e->env.elapsed_before_s +
           (double)(fs_now_ns() - e->t0_ns) / 1e6;
}

static void note_once(struct engine *e, const struct kprof *p)
{
    if (e->prof->noted || !prof_unavailable_everywhere(p) || !e->env.prog)
        return;
    char line[PROF_NOTE_MAX + 64];
    snprintf(line, sizeof line, "%s; the run goes on without profiles",
             p->note);
    progress_log(e->env.prog, "note", line);
    e->prof->noted = 1;
}

void engine_prof_soon(struct engine *e)
{
    const struct engine_prof *ep = e->prof;
    if (ep && !ep->off && ep->n == 0 && e->env.spec->profile &&
        !runlog_replaying(e->env.log))
        runlog_profile_soon(e->env.log);
}

int engine_prof_take(struct engine *e, int tpl, const int64_t *vals,
                     uint64_t hash, const char *why)
{
    struct engine_prof *ep = e->prof;
    if (!ep || tpl < 0 || engine_prof_find(e, hash))
        return KEVO_OK;
    if (!runlog_replaying(e->env.log) &&
        (ep->off || !e->env.spec->profile || !runlog_profiles(e->env.log) ||
         (ep->n > 0 && ep->spent_ms >= PROF_SHARE * run_ms(e))))
        return KEVO_OK;
    const struct tpl *t = e->tpls[tpl];
    char *src = tpl_instantiate_hdr(t, vals, e->env.spec->dtype,
                                    &e->env.spec->shape,
                                    e->env.spec->source_header);
    if (!src)
        return KEVO_ENOMEM;
    struct candidate c = {t, vals, hash, src,
                          hash_final(hash_str(HASH_SEED, src)), 0};
    struct kprof p;
    int taken = 0;
    int rc = runlog_profile(e->env.log, e->gen, run_ms(e) / 1e3, &c, why, &p,
                            &taken);
    free(src);
    if (rc || !taken)
        return rc;
    note_once(e, &p);
    return keep(e, hash, &p);
}
