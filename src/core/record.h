/*
 * record.h - journal records of evaluations: struct eval_result to JSON
 * and back, so that a resumed or replayed run takes a recorded result
 * exactly as the evaluator first gave it; and the baselines a worker
 * measures, the same way.
 */
#ifndef KEVO_RECORD_H
#define KEVO_RECORD_H

#include <stdint.h>

#include <cJSON.h>

#include "eval.h"

/* Adds the result's members (outcome, fitness, times, resources, detail,
 * evidence) to object o. */
void record_put_result(cJSON *o, const struct eval_result *r);
/* The same with the evidence as its text, unparsed (a raw item: printed
 * as it is, compared by rec_first_difference as what it parses to): for
 * a result whose evidence_json is known to be one JSON object
 * (record_evidence_ok), so that the journal does not print its numbers
 * again (~45 of them, most of a record's cost). */
void record_put_result_text(cJSON *o, const struct eval_result *r);
/* 1 if s is one JSON object, nothing after it, on one line. */
int record_evidence_ok(const char *s);
/* Reads them back into *r (initialised by the caller; evidence_json is
 * set when present). KEVO_EPARSE if a required member is missing. */
int record_get_result(const cJSON *o, struct eval_result *r) KEVO_WUR;
/* A baseline the GPU worker measured (its ready answer's "baselines",
 * kept in the manifest's environment): the problem's reference
 * implementation, timed like a candidate. */
struct record_baseline {
    char name[64];             /* e.g. "cublas"; "" if absent */
    double median_ns;
    double fitness;            /* in the problem's work unit; 0 if absent */
    double wall_ns;            /* CUDA events around one call (launch
                                  overhead included); 0 if not measured */
};

/* Adds b's members (name, median_ns, fitness) to object o. */
void record_put_baseline(cJSON *o, const struct record_baseline *b);
/* Reads a baseline entry (never fails: what is missing is "" / 0). */
void record_get_baseline(const cJSON *o, struct record_baseline *b);
/* Number member k of o, or dflt. */
double record_num(const cJSON *o, const char *k, double dflt);
/* The same as an integer: truncated toward zero, clamped to the type's
 * range (a journal or message is foreign: 1e300 must not reach a cast);
 * dflt when absent or not a number (NaN). */
int record_int(const cJSON *o, const char *k, int dflt);
int64_t record_i64(const cJSON *o, const char *k, int64_t dflt);
/* A duration in ms: 0 when absent, negative, not finite or above 1e9 ms
 * (11.6 days, no phase of one evaluation). */
double record_ms(const cJSON *o, const char *k);
/* String member k of o, or NULL. */
const char *record_str(const cJSON *o, const char *k);
/* Member k1 of o, or member k2 of that when k2 is not NULL; NULL if absent. */
const cJSON *record_at(const cJSON *o, const char *k1, const char *k2);

#endif
