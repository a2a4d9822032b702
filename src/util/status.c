/*
 * status.c - texts for enum kevo_status.
 */
#include "status.h"

const char *kevo_strerror(int rc)
{
    switch (rc) {
    case KEVO_OK: return "success";
    case KEVO_ENOMEM: return "out of memory";
    case KEVO_EIO: return "input/output error";
    case KEVO_EPARSE: return "malformed input";
    case KEVO_EINVAL: return "invalid argument";
    case KEVO_ENOENT: return "not found";
    case KEVO_EEXIST: return "already exists";
    case KEVO_ENODEV: return "needs a GPU";
    case KEVO_ECUDA: return "CUDA driver error";
    case KEVO_ECOMPILE: return "compiler failure";
    case KEVO_ETIMEOUT: return "timed out";
    case KEVO_EHTTP: return "HTTP request failed";
    case KEVO_ESTOPPED: return "stopped";
    case KEVO_EDIVERGE: return "diverged from the record";
    case KEVO_EINTERNAL: return "internal error";
    case KEVO_ETOOBIG:
        return "file too large (kevo reads at most 64 MiB, 4 GiB for a "
               "journal)";
    case KEVO_EISDIR: return "is a directory";
    case KEVO_ENOTREG: return "not a regular file (a device, FIFO or socket)";
    case KEVO_ENOTDIR: return "not a directory";
    case KEVO_EACCES: return "permission denied";
    case KEVO_ELINK:
        return "a symbolic link inside the run directory (kevo writes "
               "through none)";
    case KEVO_ENOSPC: return "no space left on device";
    }
    return "unknown status";
}
