/*
 * cmd_promote.h - `kevo promote <run> [template]`: grows the template
 * library from runs. Copies a template born from an LLM answer in a run,
 * once `kevo verify` has confirmed its measurement, into the library
 * (templates/<problem>/<name>.cu) with "// kevo: provenance" lines that
 * say where it comes from, so the next run on any shape starts from it.
 */
#ifndef KEVO_CMD_PROMOTE_H
#define KEVO_CMD_PROMOTE_H

/* argv[0] = "promote". Returns the exit code: 0 promoted, 1 refused or an
 * error (the message says why and what to do), 2 usage. */
int cmd_promote_main(int argc, char **argv);

#endif
