/*
 * cmd_sanitize.h - the sanitizer pass over a run's winner (issue 29, item
 * 2): `kevo verify --sanitize <run-dir>` runs the winner under each
 * compute-sanitizer tool (sanitizer.h), one call on exact-size buffers in
 * a one-shot process (`kevo __sanitize-probe`, sanprobe.h), and records
 * the verdict in <run-dir>/sanitize.json:
 *
 *   {"kernel": "<genome hash>", "template": "...", "dtype": "fp32",
 *    "shape": "4096x4096", "sanitizer": "/usr/local/cuda/bin/...",
 *    "date": 1795000000, "verdict": "clean" | "findings" | "failed",
 *    "tools": [{"tool": "memcheck", "result": "findings", "errors": 1,
 *               "exit": 86, "first": "Invalid __global__ read ..."}, ...]}
 *
 * A finding blocks `kevo promote` and `kevo export` of that kernel
 * (--no-sanitize overrides); for an LLM-born winner without a record they
 * run the pass first. report and leaderboard show the verdict.
 */
#ifndef KEVO_CMD_SANITIZE_H
#define KEVO_CMD_SANITIZE_H

#include <stddef.h>

#include "runview.h"

struct sanitize_opts {
    const char *sanitizer;  /* --sanitizer-path; NULL = san_find's search */
    int timeout_s;          /* per tool (0 = 600) */
    int quiet;              /* 1: no progress lines on stderr */
};

/* `kevo verify --sanitize ...` (argv as cmd_verify_main got it). Exit
 * status: 0 clean, 1 findings, a failed tool or an error, 2 usage, 3 no
 * GPU (nothing recorded then). */
int cmd_sanitize_main(int argc, char **argv);

/* The hidden `kevo __sanitize-probe <run-dir>`: the winner, once
 * (sanprobe_run). Exit 0 done, 3 no GPU, 1 anything else (the reason on
 * stderr, one line). */
int cmd_sanprobe_main(int argc, char **argv);

/*
 * Runs the pass on the winner of rv (run_view_load'ed) and writes
 * sanitize.json. Returns KEVO_OK when the pass ran to a verdict (*clean
 * says which); KEVO_ENODEV without a GPU, KEVO_ENOENT without
 * compute-sanitizer (nothing written); else an error; err says why.
 */
int sanitize_run(const struct run_view *rv, const struct sanitize_opts *o,
                 int *clean, char *err, size_t errcap);

/*
 * The gate before promote/export of rv's winner. mode: -1 skip
 * (--no-sanitize), 0 default (a recorded finding blocks; an LLM-born
 * winner with no record for it is sanitized now), 1 always (sanitize now
 * unless recorded clean). KEVO_OK to go on; KEVO_EINVAL with the reason
 * (the first finding and the way out) in err for a finding or a failed
 * pass; KEVO_ENODEV when the pass had to run and cannot here (no GPU, or
 * no compute-sanitizer), the reason and the way out in err.
 */
int sanitize_gate(const struct run_view *rv, int mode,
                  const struct sanitize_opts *o, char *err, size_t errcap);

/* One line on the sanitizer verdict recorded in dir for kernel hex (NULL
 * = whichever): "clean (memcheck, racecheck, synccheck, initcheck)",
 * "FINDINGS: memcheck: Invalid __global__ read ...", "failed: ...";
 * "" when there is no record for it. */
void sanitize_summary(const char *dir, const char *hex, char *out,
                      size_t cap);

/* Appends "sanitizer: <sanitize_summary>" to note[cap] (after "; " when
 * note is not empty); nothing when there is no record for hex. */
void sanitize_note(const char *dir, const char *hex, char *note, size_t cap);

#endif
