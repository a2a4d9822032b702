/*
 * version.c - the commit kevo was built from (see version.h). The
 * Makefile passes -DKEVO_GIT_COMMIT and rebuilds this file on every make,
 * so the commit is never stale; it is this small on purpose.
 */
#include "version.h"

#ifndef KEVO_GIT_COMMIT
#define KEVO_GIT_COMMIT "unknown"
#endif

const char *kevo_git_commit(void)
{
    return KEVO_GIT_COMMIT;
}
