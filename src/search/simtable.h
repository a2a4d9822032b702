/*
 * simtable.h - recorded tables of measured points and the evaluator that
 * answers from them (kevo run --simulate, kevo bench-search).
 *
 * A table is what a run measured: for each (template, point) its outcome
 * and fitness/time, with the templates' texts, the problem, dtype, shape
 * and device. It is read from a run directory (its manifest, templates/
 * and journal.jsonl; typically a `kevo run --strategy sweep`) or from a
 * compact table file (`kevo table RUN > t.jsonl`):
 *
 *   {"type":"table","problem":"gemm","dtype":"fp32","shape":"...",
 *    "device":{"name":..,"sms":..,"smem_optin":..,"l2_bytes":..},
 *    "unit":"GFLOP/s","source":"runs/x","points":N}
 *   {"type":"template","name":"sgemm_tiled","text":"..."}     (each)
 *   {"t":0,"v":[64,128,...],"o":"ok","f":3.1e13,"ns":4433.2} (each point:
 *    template index, values in declared order, outcome, fitness, median)
 *
 * The simulated evaluator answers a candidate with its recorded result,
 * deterministically and without a GPU, and admits only the table's points:
 * a simulated search space is the table's points, nothing else.
 */
#ifndef KEVO_SIMTABLE_H
#define KEVO_SIMTABLE_H

#include <stdio.h>

#include "evfactory.h"
#include "eval.h"
#include "problem.h"
#include "sample.h"
#include "tpl.h"

struct sim_point {
    uint64_t hash;              /* genome hash */
    int tpl;
    long row;                   /* index in the template's pointset */
    enum eval_outcome outcome;
    double fitness, median_ns, ratio;
};

struct simtable {
    char problem[32];
    enum dtype dtype;
    struct shape shape;
    struct tpl_device dev;
    char gpu[128];              /* device name ("" = unknown) */
    char source[1024];          /* where it was recorded */
    struct tpl **tpls;          /* owned */
    int n_tpls;
    struct pointset *pts;       /* per template: its recorded points */
    struct sim_point *p;        /* in recorded order */
    long n;
    long *slots;                /* hash index into p (-1 = empty) */
    long n_slots;
};

/*
 * Reads a table from path: a run directory, its journal.jsonl, or a
 * compact table file. Errors name the file (and line) and what is wrong;
 * a run with no evaluation is an error. *out is new; free with
 * simtable_free.
 */
int simtable_load(const char *path, struct simtable **out, char *err,
                  size_t errcap) KEVO_WUR;
void simtable_free(struct simtable *t);
/* Writes t as a compact table to f. */
int simtable_write(const struct simtable *t, FILE *f) KEVO_WUR;
/* Index in t->p of the point with genome hash h, or -1. */
long simtable_find(const struct simtable *t, uint64_t h);
/* Sets r's outcome (EVAL_UNSUPPORTED if absent) and, for an ok point,
 * its recorded fitness, time and ratio, from the point with genome hash
 * h; returns its index in t->p, or -1. */
long simtable_answer(const struct simtable *t, uint64_t h,
                     struct eval_result *r);
/* 1 if point vals of template tp is in t. */
int simtable_admits(const struct simtable *t, const struct tpl *tp,
                    const int64_t *vals);
/* Index of template name in t, or -1. */
int simtable_tpl_index(const struct simtable *t, const char *name);
/* Best fitness among the ok points of the templates keep marks (NULL =
 * all); 0 if none. */
double simtable_best(const struct simtable *t, const unsigned char *keep);
/*
 * An evaluator answering from t (borrowed; with own = 1 it is freed with
 * the evaluator): the recorded outcome, fitness and time of each
 * candidate ("unsupported" for a point not in the table, which admit()
 * never lets the engine make).
 */
int simtable_evaluator(struct simtable *t, int own, struct evaluator *out)
    KEVO_WUR;
/* The "simulate" factory for cmd_run: loads spec->table, checks that it
 * was recorded for the spec's problem, dtype and shape, and sets *dev to
 * the table's device facts. */
extern const struct evaluator_factory simtable_factory;
/*
 * The table's points of each of tpls[0..n) (matched by template text),
 * for engine_env.points: *out is a new array of n point lists borrowed
 * from t (an empty list for a template not in t); caller frees the array
 * (not the lists) before t.
 */
int simtable_points_for(const struct simtable *t, struct tpl *const *tpls,
                        int n, struct pointset **out) KEVO_WUR;
/*
 * For `kevo run --simulate PATH`: makes s a simulated run of the table at
 * PATH: s->table = its absolute path, evaluator "simulate", problem and
 * dtype from the table (a different --problem is an error), the table's
 * shape unless shape_given, and LLM mutation off unless s names an LLM
 * (a table has no point of an LLM's template; no API key is used). Also hands over the table's
 * templates (*tpls new, *n; caller frees each with tpl_free, then the
 * array) when tpls is not NULL.
 */
int simtable_setup_run(const char *path, struct spec *s, int shape_given,
                       struct tpl ***tpls, int *n, char *err,
                       size_t errcap) KEVO_WUR;

#endif
