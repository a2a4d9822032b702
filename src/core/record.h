/*
 * record.h - journal records of evaluations: struct eval_result to JSON
 * and back, so that a resumed or replayed run takes a recorded result
 * exactly as the evaluator first gave it.
 */
#ifndef KEVO_RECORD_H
#define KEVO_RECORD_H

#include <cJSON.h>

#include "eval.h"

/* Adds the result's members (outcome, fitness, times, resources, detail,
 * evidence) to object o. */
void record_put_result(cJSON *o, const struct eval_result *r);
/* Reads them back into *r (initialised by the caller; evidence_json is
 * set when present). KEVO_EPARSE if a required member is missing. */
int record_get_result(const cJSON *o, struct eval_result *r) KEVO_WUR;
/* Number member k of o, or dflt. */
double record_num(const cJSON *o, const char *k, double dflt);
/* String member k of o, or NULL. */
const char *record_str(const cJSON *o, const char *k);

#endif
