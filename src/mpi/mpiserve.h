/*
 * mpiserve.h - the life of an MPI rank other than 0: waits for rank 0's
 * spec, makes its own evaluator with the executable's factories (the GPU
 * evaluator over its GPU, with its own compile pool; the test evaluator
 * in CI), then evaluates the batches rank 0 sends and streams each
 * result back until told to quit. It writes nothing to disk: rank 0 owns
 * the run directory. Built only with `make MPI=1`.
 */
#ifndef KEVO_MPISERVE_H
#define KEVO_MPISERVE_H

#include <stddef.h>

#include "evfactory.h"
#include "status.h"

/* Serves rank 0 until it says quit. factories ends with a NULL name.
 * Returns KEVO_OK after a quit, or the error that ended the service
 * (reason in err, which names this rank and host). */
int mpiserve_run(const struct evaluator_factory *factories, char *err,
                 size_t errcap) KEVO_WUR;

#endif
