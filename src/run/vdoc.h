/*
 * vdoc.h - verify.json, the record `kevo verify` leaves in a run directory
 * (README "kevo verify"): one struct, one writer and one reader, used by
 * kevo verify (writes it), kevo leaderboard, kevo bench and kevo promote
 * (read it, through run_view or on their own). No other file reads or
 * writes its keys.
 *
 * The reader is lenient as readers of stored formats must be: a member that
 * is missing or of another type takes its default (0, "", -1 where noted),
 * and files of older kevo versions load (a "gpu" that is the UUID string;
 * no baseline_rounds_ns). Only a document that is not an object is refused.
 */
#ifndef KEVO_VDOC_H
#define KEVO_VDOC_H

#include <stddef.h>
#include <stdint.h>

#include <cJSON.h>

#include "problem.h"
#include "status.h"
#include "tpl.h"

#define VDOC_MAX_ENTRIES 32 /* kevo verify --top's limit */
#define VDOC_MAX_ROUNDS 50  /* kevo verify --reps's limit */

/* The GPU a measurement ran on (from its fingerprint); "" = unknown. */
struct vdoc_gpu {
    char name[128];
    char uuid[64];
};

/* The software stack (from the fingerprint); "" / -1 = unknown. */
struct vdoc_sw {
    char driver[64];           /* "580.159.04" */
    char cuda_driver[32];      /* the driver's CUDA, "13.0" */
    char cuda[32];             /* headers kevo compiled with */
    char nvrtc[32];
    double cupti, cublas;      /* versions; -1 = not loaded */
};

/* One re-measured kernel. */
struct vdoc_entry {
    char hash[17];             /* genome hash, 16 hex digits */
    char tpl[TPL_NAME_MAX];    /* its template */
    int n_params;
    char param_names[TPL_MAX_PARAMS][TPL_NAME_MAX];
    int64_t params[TPL_MAX_PARAMS];
    int best;                  /* the run's accepted best */
    double recorded_ns, measured_ns; /* median: the run's, now */
    double drift;              /* measured / recorded - 1 */
    double noise;              /* relative spread that counts as noise */
    int within_noise;
    char outcome[24];          /* "ok", or a failing round's outcome */
    char detail[512];          /* its reason ("" none) */
    double recorded_ratio, measured_ratio; /* to the first baseline */
    double measured_fitness;   /* in unit */
    double vs_baseline_interleaved; /* baseline timed after every round;
                                       0 = not measured */
    double vs_baseline_paired; /* launch by launch; 0 = not measured */
    double vs_baseline_paired_noise;
    int vs_baseline_pairs;
    char unit[16];             /* "FLOP/s", "B/s" */
    int n_rounds;
    double rounds_ns[VDOC_MAX_ROUNDS]; /* median of each correct round */
    cJSON *profile;            /* verify --profile: the hardware profile
                                  (core/profile.h codec); owned, NULL =
                                  not profiled */
    char diagnosis[1024];      /* its diagnosis ("" = none) */
};

struct vdoc_baseline {
    char name[64];             /* "cublas" */
    double recorded_ns, measured_ns;
    int has_drift;             /* both times known */
    double drift;              /* measured / recorded - 1 */
};

struct vdoc {
    char run[4096];            /* the run directory as given */
    char date[32];             /* local time, ISO 8601 */
    struct vdoc_gpu gpu;       /* where it re-measured */
    struct vdoc_sw software;
    int same_gpu, same_software; /* as the run's */
    int verified;              /* every kernel within noise, same both */
    char differences[1024];    /* what differs from the run ("" none) */
    char best_hash[17];        /* the run's best (else the fastest) ... */
    double drift, noise;       /* ... and its drift and noise */
    struct vdoc_gpu recorded_gpu; /* the run's */
    struct vdoc_sw recorded_software;
    char harness_seed[17];
    int reps;                  /* rounds */
    char kevo_version[32];
    char kevo_commit[64];
    int n_baselines;
    struct vdoc_baseline baselines[PROB_MAX_BASELINES];
    int n_baseline_rounds;     /* -1: none recorded (older files) */
    double baseline_rounds_ns[VDOC_MAX_ROUNDS + 1]; /* first baseline:
                                  at the start, then after each round */
    int n_entries;
    struct vdoc_entry entries[VDOC_MAX_ENTRIES];
    cJSON *fingerprint;        /* the verify machine's, as fingerprint.h
                                  makes it; owned, may be NULL */
    cJSON *nvml_end;           /* NVML sample after the rounds; owned,
                                  may be NULL */
};

/* A new, empty document (NULL without memory); free with vdoc_free. */
struct vdoc *vdoc_new(void);
/* Frees d and the objects it owns; NULL is a no-op. */
void vdoc_free(struct vdoc *d);

/* The document as an object (NULL without memory); d stays d's. */
cJSON *vdoc_json(const struct vdoc *d);
/*
 * Reads o (verify.json's text, parsed) into a new document *out (free with
 * vdoc_free). KEVO_EPARSE ("'path': ...", path only names it) when o is not
 * an object; KEVO_ENOMEM.
 */
int vdoc_parse(const cJSON *o, const char *path, struct vdoc **out,
               char *err, size_t errcap) KEVO_WUR;

/* The entry of the kernel with this hash (16 hex digits); NULL if none. */
const struct vdoc_entry *vdoc_find(const struct vdoc *d, const char *hash);

#endif
