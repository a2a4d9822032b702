/*
 * rundir.h - the run directory runs/<name>/:
 *   manifest.json    full spec, seed, kevo version and commit, environment
 *   journal.jsonl    one record per evaluation / confirmation / generation
 *   checkpoint.json  engine state at the last generation end (atomic)
 *   templates/       the templates the run uses, copied at creation, so a
 *                    resume never depends on the repository changing
 *   sources/<hash>.cu  every evaluated candidate's exact source
 *   best.json, best.cu the accepted best so far
 *   problem.problem  a user-defined problem's file (README "User-defined
 *                    problems"), copied at creation; rundir_load_manifest
 *                    loads it first: no later command reads the original
 *   problem.torch/<name>.py, describe.json  a PyTorch problem's module and
 *                    the description its load derived; only commands that
 *                    evaluate run the module (rundir_run_problem_code)
 * Nothing here overwrites or truncates an existing file except the atomic
 * replacement of checkpoint.json and best.*, and the repair of a journal
 * line torn by a crash (jnl.h).
 */
#ifndef KEVO_RUNDIR_H
#define KEVO_RUNDIR_H

#include <cJSON.h>

#include "spec.h"
#include "status.h"
#include "tpl.h"

#define RUNDIR_PROBLEM_FILE "problem.problem"
/* the folder of a PyTorch problem's module copy, kept as <name>.py: its
 * kind and the problem's name are read from the file name */
#define RUNDIR_TORCH_DIR "problem.torch"
/* the description of that module recorded at the run's start (what
 * loading it derived by running it: sizes, ABI, dtypes); commands that do
 * not evaluate build the problem from it and never run the module */
#define RUNDIR_TORCH_RECORD RUNDIR_TORCH_DIR "/describe.json"

/* Whether rundir_load_manifest may run a run's problem code (a PyTorch
 * module) to load its problem: commands that evaluate (resume, verify)
 * call it with 1 first; by default (0) such a problem is built from its
 * recorded description, running nothing, and a run without one is an
 * error saying how to record it. */
void rundir_run_problem_code(int yes);
/* Whether dir's problem is code that evaluating it runs (a PyTorch
 * module's copy): 1 with its path in path[cap], else 0. */
int rundir_problem_code(const char *dir, char *path, size_t cap);

/*
 * Creates dir (which must not exist, or be empty) with manifest.json,
 * templates/ and sources/. env_json (may be NULL) is the evaluator's
 * environment object. KEVO_EEXIST if dir holds anything.
 */
int rundir_create(const char *dir, const struct spec *s,
                  struct tpl *const *tpls, int n_tpls, const char *env_json,
                  char *err, size_t errcap) KEVO_WUR;
/* Checks that dir can become a new run directory: it does not exist, or
 * is an empty directory. KEVO_EEXIST (with a message) if not. Writes
 * nothing. */
int rundir_check_new(const char *dir, char *err, size_t errcap) KEVO_WUR;
/*
 * Checks a run's journal against its checkpoint: a journal with fewer
 * records (n_records) than the checkpoint was written after has lost
 * records. KEVO_EPARSE with a message naming both counts if so.
 */
int rundir_check_journal(const char *dir, const cJSON *checkpoint,
                         long n_records, char *err, size_t errcap) KEVO_WUR;
/*
 * Reads dir's journal into a new array *records (caller deletes). A run
 * killed between its manifest and its journal (no journal, not started:
 * see rundir_has_started) reads as no records with *not_started = 1; a
 * started run whose journal is gone is KEVO_ENOENT with a message.
 */
int rundir_read_journal(const char *dir, cJSON **records, int *not_started,
                        char *err, size_t errcap) KEVO_WUR;
/* 1 if the run has started: it has a checkpoint or an evaluated source.
 * A run without a journal that has not started was killed between its
 * manifest and its journal; one that has started lost its journal. */
int rundir_has_started(const char *dir);
/* Takes an exclusive lock on dir (held until the process exits); fails
 * with KEVO_EEXIST if another process holds it, with the reason if .lock
 * cannot be opened (rundir_open_lock). Guards dir (fsutil.h). */
int rundir_lock(const char *dir, char *err, size_t errcap) KEVO_WUR;
/* Opens dir/.lock into *fd (caller closes): read-write and created when
 * create (which guards dir first), else read-only; never through a link (KEVO_ELINK),
 * never waiting on a FIFO, only a regular file (else KEVO_ENOTREG). */
int rundir_open_lock(const char *dir, int create, int *fd) KEVO_WUR;
/* Reads manifest.json: the spec into *s and the whole object into
 * *manifest (caller deletes; may be NULL). */
int rundir_load_manifest(const char *dir, struct spec *s, cJSON **manifest,
                         char *err, size_t errcap) KEVO_WUR;
/* Loads the run's own copy of its templates. */
int rundir_load_templates(const char *dir, struct tpl ***tpls, int *n,
                          char *err, size_t errcap) KEVO_WUR;
/* Reads checkpoint.json into *ck; *ck = NULL (and KEVO_OK) if absent. */
int rundir_load_checkpoint(const char *dir, cJSON **ck, char *err,
                           size_t errcap) KEVO_WUR;
/* Writes best.json (record) and best.cu (source) atomically. */
int rundir_write_best(const char *dir, const cJSON *record,
                      const char *source) KEVO_WUR;
/* dir + "/" + name into out[cap]. */
int rundir_path(char *out, size_t cap, const char *dir,
                const char *name) KEVO_WUR;

#endif
