/*
 * status.h - the one status code enum of kevo, and its fixed texts.
 *
 * Every function that can fail returns an int from this enum; 0 is success.
 * A candidate kernel that is wrong, crashes or hangs is NOT an error: that is
 * an evaluation outcome (see eval.h) inside a KEVO_OK return.
 */
#ifndef KEVO_STATUS_H
#define KEVO_STATUS_H

enum kevo_status {
    KEVO_OK = 0,
    KEVO_ENOMEM,   /* out of memory */
    KEVO_EIO,      /* file or pipe I/O failed */
    KEVO_EPARSE,   /* malformed input: spec, template, journal, answer */
    KEVO_EINVAL,   /* invalid argument or option */
    KEVO_ENOENT,   /* no such file, template, problem or run */
    KEVO_EEXIST,   /* would overwrite something that exists */
    KEVO_ENODEV,   /* needs a GPU / driver / library that is not there */
    KEVO_ECUDA,    /* a CUDA driver call failed outside a candidate */
    KEVO_ECOMPILE, /* the compiler itself failed (not a candidate's error) */
    KEVO_ETIMEOUT, /* an operation ran past its deadline */
    KEVO_EHTTP,    /* an HTTP request failed */
    KEVO_ESTOPPED, /* stopped on request (signal); state is resumable */
    KEVO_EDIVERGE, /* a replay or resume diverged from the record */
    KEVO_EINTERNAL, /* a bug in kevo */
    KEVO_ETOOBIG,  /* a file is larger than kevo reads */
    KEVO_EISDIR,   /* a directory where a file is wanted */
    KEVO_ENOTREG,  /* not a regular file: device, FIFO, socket */
    KEVO_ENOTDIR,  /* a file where a directory is wanted */
    KEVO_EACCES,   /* permission denied */
    KEVO_ELINK,    /* a symbolic link where kevo writes in a run directory */
    KEVO_ENOSPC    /* no space left on the device (or quota exceeded) */
};

/* Returns a fixed, lower-case description of rc; never NULL. */
const char *kevo_strerror(int rc);

#if defined(__GNUC__)
#define KEVO_WUR __attribute__((warn_unused_result))
#define KEVO_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define KEVO_WUR
#define KEVO_PRINTF(a, b)
#endif

#endif
