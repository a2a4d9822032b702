/*
 * evfactory.h - how a command makes the evaluator a run names: a table of
 * factories that the executable provides (kevo: "gpu"; the test tools add
 * their deterministic evaluator; simtable.c "simulate"), so the run code
 * never names a GPU.
 */
#ifndef KEVO_EVFACTORY_H
#define KEVO_EVFACTORY_H

#include <stddef.h>

#include "eval.h"
#include "problem.h"
#include "spec.h"
#include "tpl.h"

struct evaluator_factory {
    const char *name;
    /* Makes an evaluator for spec s. Fills *dev with the device facts
     * (or leaves the defaults). KEVO_ENODEV with a message = no GPU. */
    int (*create)(const struct spec *s, const struct problem *p,
                  struct evaluator *out, struct tpl_device *dev, char *err,
                  size_t errcap);
};

#endif
