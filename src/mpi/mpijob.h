/*
 * mpijob.h - `kevo run` and `kevo resume` as one MPI job (mpirun -np N,
 * or srun): rank 0 runs the one engine and owns the run directory (one
 * journal, one checkpoint); every other rank serves it with its own
 * evaluator and compile pool (mpiserve.h). On rank 0 the evaluator the
 * engine drives is a fan-out (fanout.h) over rank 0's own evaluator
 * (sub 0: it confirms champions) and one proxy per other rank
 * (mpieval.h); a result's "gpu" member is the rank that measured it.
 * Why the islands stay in rank 0's engine: README "Several hosts (MPI)".
 *
 * Without `make MPI=1` (no KEVO_MPI) every hook below is an inline no-op,
 * so the commands call them unconditionally.
 */
#ifndef KEVO_MPIJOB_H
#define KEVO_MPIJOB_H

#include <stddef.h>

#include "eval.h"
#include "evfactory.h"
#include "spec.h"
#include "status.h"
#include "tpl.h"

#ifdef KEVO_MPI

/* First thing a search command does. Outside an MPI job of several
 * processes: nothing (*served = 0). Inside: initialises MPI and gives
 * each rank one GPU of its host (mpx_pick_gpu); rank 0 returns with
 * *served = 0 and runs the command; every other rank serves rank 0
 * until it quits, then ends MPI and returns with *served = 1 and the
 * outcome (the process's work is done). */
int mpijob_enter(const struct evaluator_factory *factories, int *served,
                 char *err, size_t errcap) KEVO_WUR;
/* Rank 0, before it makes its own evaluator: sends the spec to every
 * other rank, so all GPUs start at once, then turns *s into this rank's
 * share of the host (compile processes). */
int mpijob_hello(struct spec *s, char *err, size_t errcap) KEVO_WUR;
/* Rank 0, after: *ev (its own evaluator, dev its device facts) becomes
 * the fan-out over it and every other rank's proxy. Refuses a rank whose
 * evaluator failed or whose GPU differs from rank 0's (fitness is
 * comparable on one GPU model only). On error *ev is destroyed. */
int mpijob_wrap(struct evaluator *ev, const struct tpl_device *dev,
                char *err, size_t errcap) KEVO_WUR;
/* Rank 0, last: tells the ranks that no proxy releases to quit, and ends
 * MPI. Call after the evaluator is destroyed. */
void mpijob_leave(void);
/* The ranks of this MPI job after mpijob_enter: 1 outside one (each rank
 * runs a compile pool of its own). */
int mpijob_ranks(void);

#else

static inline int mpijob_enter(const struct evaluator_factory *factories,
                               int *served, char *err, size_t errcap)
{
    (void)factories, (void)err, (void)errcap;
    *served = 0;
    return KEVO_OK;
}

static inline int mpijob_hello(struct spec *s, char *err, size_t errcap)
{
    (void)s, (void)err, (void)errcap;
    return KEVO_OK;
}

static inline int mpijob_wrap(struct evaluator *ev,
                              const struct tpl_device *dev, char *err,
                              size_t errcap)
{
    (void)ev, (void)dev, (void)err, (void)errcap;
    return KEVO_OK;
}

static inline void mpijob_leave(void)
{
}

static inline int mpijob_ranks(void)
{
    return 1;
}

#endif

#endif
