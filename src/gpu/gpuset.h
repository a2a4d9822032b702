/*
 * gpuset.h - several GPUs of one host as one evaluator: one GPU evaluator
 * (gpueval.h, its own worker process: context, CUPTI subscription,
 * baselines) per listed GPU, all fed by one compile pool, under the
 * fan-out (fanout.h). Refuses GPUs whose fitness would not be comparable.
 */
#ifndef KEVO_GPUSET_H
#define KEVO_GPUSET_H

#include <stddef.h>

#include "eval.h"
#include "gpueval.h"
#include "status.h"
#include "tpl.h"

/* Tolerances of the match check (fraction of the first GPU's value). */
#define GPUSET_CLOCK_TOL 0.02  /* max SM and memory clocks */
#define GPUSET_POWER_TOL 0.05  /* enforced power limit, application clock */

/*
 * Starts one GPU evaluator per GPU in ids[0..n) (all = 1: every GPU the
 * first worker sees, ids ignored), with o's settings and the first one's
 * compile pool shared by all (o->device and o->pool are ignored), checks
 * that they match (gpuset_match) and returns the fan-out over them in
 * *out; *dev gets the first GPU's facts. Errors name the GPU: KEVO_EINVAL
 * for a GPU number past the last one or GPUs that do not match,
 * gpueval_new's errors otherwise. Test aid: env KEVO_WORKERS_PER_GPU=N
 * starts N workers on each listed GPU (they share it, so their timings
 * disturb each other: for testing the fan-out on a one-GPU machine only).
 */
int gpuset_new(const struct gpueval_opts *o, int all, const int *ids, int n,
               struct evaluator *out, struct tpl_device *dev, char *err,
               size_t errcap) KEVO_WUR;

/* The fan-out's take (fanout_opts.take) for gpuset_new, read before any
 * worker starts: KEVO_FANOUT_TAKE=N (1 to FANOUT_TAKE_MAX; unset or
 * empty: 0, the default), to measure other takes without a rebuild.
 * KEVO_EINVAL, naming the variable, for any other value. */
int gpuset_take_env(int *take, char *err, size_t errcap) KEVO_WUR;

/*
 * 0 if two GPUs, described by their evaluators' environment JSON text (the
 * "device" and "nvml" objects of the worker's ready answer), give
 * comparable fitness: the same model name and multiprocessor count, max
 * SM and memory clocks within GPUSET_CLOCK_TOL, power limit and
 * application clock (when NVML reports them) within GPUSET_POWER_TOL.
 * Else 1 with a message naming both GPUs (ga, gb) and what differs.
 */
int gpuset_match(const char *env_a, int ga, const char *env_b, int gb,
                 char *why, size_t cap);

#endif
