/*
 * kvhdr.h - the CUDA headers kevo itself provides to candidates, by the
 * name a source #includes them with ("kevo/sm90.cuh"). Their text is
 * compiled into kevo (templates/include/, embedded like the harness
 * kernels) and handed to NVRTC in memory (jit.c), so a candidate that
 * includes one reads no host file. The cache key covers their text. Also
 * what `kevo export` inlines and what LLM prompts show. In core (text
 * only), so the compiler (gpu), the prompts (mutators) and export reach it.
 */
#ifndef KEVO_KVHDR_H
#define KEVO_KVHDR_H

#include <stddef.h>

/* Number of kevo-provided headers. */
int kvhdr_count(void);
/* The include names and the texts, kvhdr_count() each, as
 * nvrtcCreateProgram takes them; static storage. */
const char *const *kvhdr_names(void);
const char *const *kvhdr_texts(void);
/* Include name of header i (0 <= i < kvhdr_count()), e.g.
 * "kevo/sm90.cuh"; static storage. */
const char *kvhdr_name(int i);
/* Text of header i; static storage, NUL-terminated. */
const char *kvhdr_text(int i);
/* Text of the header called name, or NULL when kevo provides none. */
const char *kvhdr_find(const char *name);
/*
 * The include name of the kevo header that the line at line (up to its
 * end or '\n') includes, as in `#include "kevo/sm90.cuh"` (spaces allowed
 * around '#' and "include"; quotes or angle brackets), or NULL when the
 * line is no such include. Used by export, which inlines the text.
 */
const char *kvhdr_included(const char *line);
/*
 * Returns a new copy of src (caller frees) where every line that
 * includes a kevo header is replaced by that header's text between two
 * comment lines naming it; a header included twice is inlined once.
 * NULL on allocation failure. The result compiles without kevo (nvcc,
 * torch's load_inline).
 */
char *kvhdr_inline(const char *src);

#endif
