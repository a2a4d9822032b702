/*
 * mpieval.h - on rank 0 of an MPI job, one serving rank seen as a few
 * evaluators (struct evaluator, eval.h), one per slot of its queue, so
 * that the fan-out keeps several candidates on it: eval_batch ships the
 * candidates (template text the first time that rank sees the template,
 * point values, instantiated source and hashes) and streams the results
 * back in index order, in the journal's result codec (record.h), so
 * a remote result is exactly what the remote evaluator gave. The serving
 * side is mpiserve.c. Built only with `make MPI=1`.
 *
 * No confirm (a champion is confirmed on rank 0's own GPU, ABAB), no
 * admit; set_best travels with the next batch. A rank that fails is
 * reported on stderr once and fails every later batch of all its
 * proxies, so that the fan-out (fanout.h) gives its work to the others.
 */
#ifndef KEVO_MPIEVAL_H
#define KEVO_MPIEVAL_H

#include <stddef.h>

#include "eval.h"
#include "spec.h"
#include "status.h"
#include "tpl.h"

/* Sends the run's spec to serving rank `rank`, which starts making its
 * evaluator; mpieval_new waits for its answer. Sending every hello
 * first lets all ranks start their GPUs at once. */
int mpieval_hello(int rank, const struct spec *s, char *err,
                  size_t errcap) KEVO_WUR;
/* Waits for rank's answer to the hello and fills out[0..depth) with the
 * rank's proxies, its queue slots: each has at most one batch in flight,
 * so the rank holds up to depth candidates at once and compiles the
 * queued ones while it measures (mpiserve.c). Destroy each; the last one
 * sends MPX_QUIT. Errors (nothing is made, the rank still waits for its
 * quit; err names rank and host): the rank could not make its evaluator
 * (its reason), or its device facts differ from dev, or its GPU's name
 * from device (rank 0's; NULL: not compared), KEVO_EINVAL. */
int mpieval_new(int rank, int depth, const struct tpl_device *dev,
                const char *device, struct evaluator *out, char *err,
                size_t errcap) KEVO_WUR;
/* Tells a serving rank that has no proxy to leave (a run that ends
 * before or while the proxies are made). */
void mpieval_quit(int rank);

#endif
