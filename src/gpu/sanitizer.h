/*
 * sanitizer.h - running a command under NVIDIA's compute-sanitizer and
 * reading its verdict (issue 29, item 2): memcheck (out-of-bounds and
 * misaligned accesses, which kevo's guard bands cannot see when a read
 * lands in mapped memory and its value is discarded), racecheck (shared
 * memory hazards), synccheck (barrier misuse), initcheck (reads of device
 * memory never written). Knows nothing of runs or candidates: the command
 * it wraps is the caller's (kevo's one-shot probe, sanprobe.h).
 */
#ifndef KEVO_SANITIZER_H
#define KEVO_SANITIZER_H

#include <stddef.h>

#include "status.h"

#define SAN_N_TOOLS 4
/* "memcheck", "racecheck", "synccheck", "initcheck", in the order run */
extern const char *const san_tools[SAN_N_TOOLS];

/* The probe's exit status when there is no GPU to run on. */
#define SAN_PROBE_NODEV 3
#define SAN_ERROR_EXIT 86 /* --error-exitcode: the tool found errors */

enum san_status {
    SAN_CLEAN,     /* ran to the end, no error reported */
    SAN_FINDINGS,  /* the tool reported errors */
    SAN_NODEV,     /* the probe found no GPU */
    SAN_FAILED,    /* the probe or the sanitizer failed otherwise */
    SAN_TIMEOUT,   /* killed at the time limit */
};

struct san_result {
    enum san_status status;
    int errors;            /* "ERROR SUMMARY: N errors" (-1 = not seen) */
    int exit_code;         /* of the sanitizer (-1 = killed by a signal) */
    char first[512];       /* the first finding, one line: the error and
                              its "at" / "by thread" lines ("" = none) */
    char detail[512];      /* for SAN_FAILED/NODEV/TIMEOUT: why, one line
                              (the output's last line) */
};

/* "clean", "findings", "no GPU", "failed", "timeout". */
const char *san_status_name(enum san_status s);

/*
 * Finds compute-sanitizer: given (an explicit path, must be an executable
 * file) if not NULL, else <cuda>/bin/compute-sanitizer (<cuda> from
 * $CUDA_HOME, $CUDA_PATH, /usr/local/cuda), else the first on $PATH.
 * Writes the path into out[cap]; KEVO_ENOENT with "compute-sanitizer not
 * found at 'X'" (and where else it looked) in err otherwise.
 */
int san_find(const char *given, char *out, size_t cap, char *err,
             size_t errcap) KEVO_WUR;

/*
 * Runs `sanitizer --tool tool --error-exitcode 86 --print-limit 20
 * [--padding 65536 for memcheck] argv[0] argv[1] ...` (argv
 * NULL-terminated), its stdout and stderr
 * read together (at most 256 KiB kept), killed after timeout_s, and fills
 * *out from its output (san_parse). The command's own stdout lines must
 * not start with "=========". Returns KEVO_OK whatever the verdict;
 * KEVO_EIO when it cannot be started.
 */
int san_run(const char *sanitizer, const char *tool, char *const argv[],
            int timeout_s, struct san_result *out) KEVO_WUR;

/* Reads a compute-sanitizer report (text) and the exit status into *out.
 * Pure: the CPU tests feed it recorded reports. */
void san_parse(const char *text, int exit_code, struct san_result *out);

#endif
