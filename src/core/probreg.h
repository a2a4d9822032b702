/*
 * probreg.h - the problem registry: every problem a process knows, of every
 * kind, found by name. Three kinds, one registry (DESIGN.md "Problems"):
 *
 *   built-in   complete C records from the plug-in folder fitness/, handed
 *              in at start-up with problem_register();
 *   file       a .problem file, parsed in core (probfile.c); its GPU hooks
 *              (input generator, reference runner, baselines) live in
 *              fitness/ and are handed in with problem_kind_attach();
 *   torch      a PyTorch module in KernelBench's format (.py), added with
 *              problem_kind_add() by fitness/torchprob.c.
 *
 * Nothing below core names a plug-in: main.c (and each test binary, through
 * tests/support/plugins.c) calls fitness_register() first thing, the way
 * SQLite's pager is handed its callbacks. Registration is for start-up, on
 * one thread; lookups after it need no lock.
 */
#ifndef KEVO_PROBREG_H
#define KEVO_PROBREG_H

#include <stddef.h>
#include <stdint.h>

#include "problem.h"
#include "status.h"

/*
 * The GPU side of a problem kind: called inside the worker only, with the
 * problem as their p (same contracts as struct problem's hooks).
 */
struct problem_gpu {
    /* CUDA placed before each problem's own source (a .problem file's
     * reference) in its harness module; "" for none. */
    const char *harness_src;
    int (*gen_inputs)(const struct problem *p, struct hx *h,
                      const struct shape *s, enum dtype dt, uint64_t seed);
    int (*reference)(const struct problem *p, struct hx *h,
                     const struct shape *s, enum dtype dt, double *ref_dev,
                     double *scale_dev);
    /* (optional) */
    int (*baseline)(const struct problem *p, struct hx *h,
                    const struct shape *s, enum dtype dt,
                    struct baseline_result *out);
};

/*
 * A kind of problem read from a file (swappable: one table each, listed in
 * probreg.c's kinds[]).
 */
struct problem_kind {
    const char *name;   /* "file": for problem_kind_attach and messages */
    const char *suffix; /* file names it reads, ".problem"; NULL: the kind
                           for any other name */
    /* Parses text (read from path, which only names it in messages) into
     * a new problem whose GPU hooks come from gpu (NULL: not attached, the
     * problem cannot run on a GPU). Errors are "path:line: what". */
    int (*parse)(const char *path, const char *text,
                 const struct problem_gpu *gpu, struct problem **out,
                 char *err, size_t errcap);
    /* (optional) Builds the problem from record, the file_record a parse
     * of text made earlier (kept by a run directory; rec_path names it in
     * messages), running nothing; the problem gets no GPU hooks. Errors
     * are "rec_path: field: what". */
    int (*parse_record)(const char *path, const char *text,
                        const char *rec_path, const char *record,
                        const struct problem_gpu *gpu, struct problem **out,
                        char *err, size_t errcap);
    /* Frees a problem parse made. */
    void (*free)(struct problem *p);
    /* (optional) Takes the tolerance a worker established for output k
     * of p (-1: every output; PyTorch problems calibrate one per output
     * there), so that p->out_tolerance(), p->tolerance() and
     * p->tolerance_note agree with the worker's in the coordinator
     * (prompts, reports). t's note is copied. */
    void (*set_tolerance)(struct problem *p, int k, const struct out_tol *t);
};

/* Adds a kind of problem file (borrowed for the life of the process),
 * matched by its suffix before the catch-all .problem kind; adding the same
 * kind again is a no-op. KEVO_EEXIST for another kind of that name,
 * KEVO_ENOMEM past the table's size. */
int problem_kind_add(const struct problem_kind *kind) KEVO_WUR;
/* Adds a built-in problem (borrowed for the life of the process).
 * KEVO_EEXIST if its name is taken, KEVO_ENOMEM past the table's size. */
int problem_register(const struct problem *p) KEVO_WUR;
/* Hands kind (by name) its GPU hooks (borrowed for the life of the
 * process); problems loaded afterwards use them. KEVO_EINVAL for an
 * unknown kind. */
int problem_kind_attach(const char *kind, const struct problem_gpu *gpu)
    KEVO_WUR;
/* The i-th built-in problem, in registration order; NULL past the last. */
const struct problem *problem_builtin(int i);

/* Finds a problem by name: a built-in one, else a loaded one; NULL if
 * none. */
const struct problem *problem_find(const char *name);
/* A loaded (file) problem by name; NULL if none. */
const struct problem *problem_find_user(const char *name);

/*
 * Problems from files (a .problem file: README "User-defined problems").
 * problem_load_file reads and parses a file (with the kind its name's
 * suffix picks) and registers its problem for problem_find (for the life of
 * the process); loading the same text again returns the same problem,
 * another text under a loaded name is KEVO_EEXIST. Errors are
 * "path:line: what".
 */
int problem_load_file(const char *path, const struct problem **out, char *err,
                      size_t errcap) KEVO_WUR;
/* The same from text already read; path only names it in messages (and
 * picks the kind). */
int problem_load_text(const char *path, const char *text,
                      const struct problem **out, char *err,
                      size_t errcap) KEVO_WUR;
/* The same from text and the record of an earlier load of it (the
 * problem's file_record, kept in a run directory at rec_path), running
 * nothing (README "PyTorch problems": status, report, export of a run do
 * not run its module). KEVO_EINVAL if path's kind keeps no record. */
int problem_load_record(const char *path, const char *text,
                        const char *rec_path, const char *record,
                        const struct problem **out, char *err,
                        size_t errcap) KEVO_WUR;
/* Parses without registering (kevo list, tests); free with
 * problem_free_user. */
int problem_parse_file_text(const char *path, const char *text,
                            struct problem **out, char *err,
                            size_t errcap) KEVO_WUR;
/* Hands a loaded problem the tolerance its worker reported for output k
 * (-1: every output; the kind's set_tolerance); a no-op for built-in
 * problems and kinds without it. */
void problem_set_tolerance(const struct problem *p, int k,
                           const struct out_tol *t);
/* Frees a problem from problem_parse_file_text; NULL is a no-op. */
void problem_free_user(struct problem *p);

#endif
