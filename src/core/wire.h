/*
 * wire.h - the bodies of the GPU worker's protocol, with one encoder and
 * one decoder each, used by both ends (gpu/gpueval.c sends, gpu/worker.c
 * receives; the framing is util/wmsg.c):
 *
 *   job     a candidate's launch plan (tpl_plan) and how to treat it:
 *           whether its template declares itself nondeterministic, the
 *           best time so far (for cascades), and its sequence number;
 *   result  the eval_result, in the journal's own codec (core/record.c),
 *           so a result has one JSON shape from the GPU to the journal;
 *   profile the answer to a profile request (whose body is a job): the
 *           candidate's hardware profile in the journal's codec
 *           (core/profile.c).
 */
#ifndef KEVO_WIRE_H
#define KEVO_WIRE_H

#include <cJSON.h>

#include "eval.h"
#include "profile.h"
#include "status.h"
#include "tpl.h"

struct wire_job {
    long long seq;             /* the evaluator's candidate number */
    struct launch_plan plan;
    int nondet;                /* the template says it is nondeterministic */
    double best_ns;            /* best median so far (0 = none) */
};

/* New object (NULL without memory). */
cJSON *wire_job_json(const struct wire_job *j);
/* KEVO_EPARSE for a malformed job (bad launch count or dims, tensor map
 * count, missing kernel names). */
int wire_job_parse(const cJSON *o, struct wire_job *j) KEVO_WUR;

/* A result as an object: record_put_result with the evidence given as an
 * object (taken over; may be NULL) instead of r->evidence_json text. */
cJSON *wire_result_json(const struct eval_result *r, cJSON *evidence);
/* record_get_result of a worker's answer; KEVO_EPARSE if malformed. */
int wire_result_parse(const cJSON *o, struct eval_result *r) KEVO_WUR;

/* A profile answer as an object {"profile": {...}} (NULL without
 * memory). */
cJSON *wire_profile_json(const struct kprof *p);
/* prof_parse of a worker's profile answer; KEVO_EPARSE if malformed. */
int wire_profile_parse(const cJSON *o, struct kprof *p) KEVO_WUR;

#endif
