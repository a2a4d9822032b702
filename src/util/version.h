/*
 * version.h - which kevo this is: the release number and the git commit
 * it was built from, written into manifests, fingerprints, exports, bench
 * results and --version. A leaf module: includes nothing of kevo, so any
 * layer can name the version without pulling in the run directory.
 */
#ifndef KEVO_VERSION_H
#define KEVO_VERSION_H

#ifndef KEVO_VERSION
#define KEVO_VERSION "0.1.0"
#endif

/* The commit kevo was built from (`git describe --always --dirty`, or
 * "unknown" outside a git checkout). A fixed string; do not free. */
const char *kevo_git_commit(void);

#endif
