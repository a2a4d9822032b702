/*
 * mpijob.c - the MPI hooks of the search commands (see mpijob.h). Owns
 * which ranks still need a quit from rank 0; the messages themselves are
 * mpieval.c's and mpiserve.c's.
 */
#include "mpijob.h"

#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccost.h"
#include "fanout.h"
#include "gpueval.h"
#include "holdorder.h"
#include "localq.h"
#include "mpieval.h"
#include "mpiserve.h"
#include "mpx.h"
#include "record.h"

/* What rank 0 still owes each rank: a quit, unless a proxy owns it. */
enum rank_state { RK_WAITING, RK_HELLOED, RK_PROXIED, RK_QUIT };

/* Queue slots per rank at least (rank_depth). */
#define MPIJOB_DEPTH 8

static enum rank_state state[FANOUT_MAX_SUBS];
static int in_job;             /* 1: MPI initialised, several ranks */
static int rank_compilers;     /* compile processes a rank runs (hello) */
static struct holdorder *job_order; /* rank 0: orders the batches */

int mpijob_enter(const struct evaluator_factory *factories, int *served,
                 char *err, size_t errcap)
{
    *served = 0;
    long tasks = mpx_unmanaged_tasks();
    if (tasks) {
        snprintf(err, errcap, "Slurm started %ld tasks without an MPI "
                 "process manager: each would be a separate run; start kevo "
                 "with 'srun --mpi=pmix' (or pmi2) or with mpirun", tasks);
        return KEVO_EINVAL;
    }
    if (!mpx_launched())
        return KEVO_OK;
    int rc = mpx_init(err, errcap);
    if (rc)
        return rc;
    if (mpx_size() > FANOUT_MAX_SUBS) {
        snprintf(err, errcap, "%d ranks: kevo drives at most %d", mpx_size(),
                 FANOUT_MAX_SUBS);
        if (mpx_rank() != 0) { /* rank 0 says the same; nobody waits */
            *served = 1;
            mpx_finalize();
        }
        return KEVO_EINVAL;
    }
    in_job = mpx_size() > 1;
    if (in_job)
        mpx_pick_gpu();
    if (mpx_rank() == 0)
        return KEVO_OK;
    *served = 1;
    rc = mpiserve_run(factories, err, errcap);
    mpx_finalize();
    return rc;
}

int mpijob_hello(struct spec *s, char *err, size_t errcap)
{
    if (!in_job)
        return KEVO_OK;
    for (int r = 1; r < mpx_size(); r++) {
        int rc = mpieval_hello(r, s, err, errcap);
        if (rc)
            return rc;
        state[r] = RK_HELLOED;
    }
    s->compilers = mpx_compilers(s->compilers);
    rank_compilers = s->compilers;
    return KEVO_OK;
}

/* The device name in rank 0's own environment, or NULL (new string). */
static char *local_device(const struct evaluator *ev)
{
    char *env = ev->ops->environment ? ev->ops->environment(ev->self) : NULL;
    cJSON *e = env ? cJSON_Parse(env) : NULL;
    const char *n =
        record_str(cJSON_GetObjectItemCaseSensitive(e, "device"), "name");
    char *name = n ? strdup(n) : NULL;
    cJSON_Delete(e);
    free(env);
    return name;
}

/* Proxies (queue slots) per rank, rank 0 included. A slot holds one
 * candidate that needs a compile (or several that need none), so the
 * slots are all a rank's compile pool ever gets: one per compile process
 * (the fan-out keeps no more compiles than that at a rank while there is
 * other work: group_compiles) and four more for its GPU (measured on 2
 * H200s, bench/results/2026-11-24-h200x2-scaling: 8 slots for 16
 * compilers a rank gave mpirun -np 2 half the evaluations of one GPU), at
 * least MPIJOB_DEPTH, within the fan-out's limit; KEVO_MPI_DEPTH
 * overrides it (1 = one candidate at a time). */
static int rank_depth(int n_ranks)
{
    const char *e = getenv("KEVO_MPI_DEPTH");
    int d = rank_compilers + 4 > MPIJOB_DEPTH ? rank_compilers + 4
                                              : MPIJOB_DEPTH;
    if (e && atoi(e) > 0)
        d = atoi(e);
    int most = FANOUT_MAX_SUBS / n_ranks;
    return d < most ? d : most;
}

int mpijob_wrap(struct evaluator *ev, const struct tpl_device *dev, char *err,
                size_t errcap)
{
    if (!in_job)
        return KEVO_OK;
    struct fanout_sub subs[FANOUT_MAX_SUBS];
    struct evaluator px[FANOUT_MAX_SUBS];
    int n = mpx_size(), depth = rank_depth(n), k = 0, rc = KEVO_OK;
    char *device = local_device(ev);
    memset(subs, 0, sizeof subs);
    /* rank 0's own GPU: queued like the others' (sub 0 confirms) */
    const struct localq_hooks gpu_hooks = {gpueval_prefetch, gpueval_ready,
                                           gpueval_poll};
    int is_gpu = ev->ops->name && !strcmp(ev->ops->name, "gpu");
    if ((rc = localq_new(*ev, depth, is_gpu ? &gpu_hooks : NULL, px))) {
        free(device);
        snprintf(err, errcap, "out of memory");
        return rc;
    }
    for (; k < depth; k++) {
        subs[k].ev = px[k];
        snprintf(subs[k].label, sizeof subs[k].label, "rank 0");
    }
    /* every rank answers its hello, also after a refusal, so that each
     * one is left waiting only for its quit */
    for (int r = 1; r < n; r++) {
        char why[1024];
        int rrc = mpieval_new(r, depth, dev, device, px, why, sizeof why);
        if (rrc && !rc) {
            rc = rrc;
            snprintf(err, errcap, "%s", why);
        }
        state[r] = rrc ? RK_HELLOED : RK_PROXIED;
        for (int j = 0; !rrc && j < depth; j++, k++) {
            subs[k].ev = px[j];
            subs[k].gpu = r;
            snprintf(subs[k].label, sizeof subs[k].label, "rank %d", r);
        }
    }
    free(device);
    if (rc) { /* the proxies quit their ranks; the others, leave */
        for (int j = 0; j < k; j++)
            subs[j].ev.ops->destroy(subs[j].ev.self);
        for (int r = 1; r < n; r++)
            if (state[r] == RK_PROXIED)
                state[r] = RK_QUIT;
        return rc;
    }
    /* every rank's results teach rank 0 which sources have a binary and
     * how long compiles take; the batch goes out in that order (those
     * with a binary spread among the others, holdorder.h) */
    struct fanout_opts fo = {.order = holdorder_order,
                             .learn = holdorder_learn,
                             .built = holdorder_built,
                             .group_compiles = rank_compilers};
    fo.prefetch_ud = job_order =
        holdorder_new(ccost_wanted() ? ccost_new() : NULL);
    return fanout_new(fo.prefetch_ud ? &fo : NULL, subs, k, ev, err,
                      errcap); /* owns subs */
}

int mpijob_ranks(void)
{
    return in_job ? mpx_size() : 1;
}

void mpijob_leave(void)
{
    if (mpx_rank() != 0)
        return;
    if (in_job)
        for (int r = 1; r < mpx_size(); r++)
            if (state[r] == RK_WAITING || state[r] == RK_HELLOED) {
                mpieval_quit(r);
                state[r] = RK_QUIT;
            }
    holdorder_free(job_order); /* the fan-out that used it is gone */
    job_order = NULL;
    mpx_finalize();
}
