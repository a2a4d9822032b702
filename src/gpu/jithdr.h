/*
 * jithdr.h - the CUDA headers kevo itself provides to candidates, by the
 * name a source #includes them with ("kevo/sm90.cuh"). Their text is
 * compiled into kevo (templates/include/, embedded like the harness
 * kernels) and handed to NVRTC in memory (jit.c), so a candidate that
 * includes one reads no host file. The cache key covers their text. Also
 * what `kevo export` inlines and what LLM prompts show.
 */
#ifndef KEVO_JITHDR_H
#define KEVO_JITHDR_H

#include <stddef.h>

/* Number of kevo-provided headers. */
int jithdr_count(void);
/* The include names and the texts, jithdr_count() each, as
 * nvrtcCreateProgram takes them; static storage. */
const char *const *jithdr_names(void);
const char *const *jithdr_texts(void);
/* Include name of header i (0 <= i < jithdr_count()), e.g.
 * "kevo/sm90.cuh"; static storage. */
const char *jithdr_name(int i);
/* Text of header i; static storage, NUL-terminated. */
const char *jithdr_text(int i);
/* Text of the header called name, or NULL when kevo provides none. */
const char *jithdr_find(const char *name);
/*
 * The include name of the kevo header that the line at line (up to its
 * end or '\n') includes, as in `#include "kevo/sm90.cuh"` (spaces allowed
 * around '#' and "include"; quotes or angle brackets), or NULL when the
 * line is no such include. Used by export, which inlines the text.
 */
const char *jithdr_included(const char *line);
/*
 * Returns a new copy of src (caller frees) where every line that
 * includes a kevo header is replaced by that header's text between two
 * comment lines naming it; a header included twice is inlined once.
 * NULL on allocation failure. The result compiles without kevo (nvcc,
 * torch's load_inline).
 */
char *jithdr_inline(const char *src);

#endif
