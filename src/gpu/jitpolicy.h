/*
 * jitpolicy.h - which files a candidate's source may make NVRTC read.
 *
 * NVRTC resolves #include itself and puts the text of what it read into
 * the compile log (an error quotes the offending line; a static_assert
 * message can be any of it), and kevo journals that log and sends it back
 * to the LLM: `#include "/proc/self/environ"` would leak the API key
 * (issue 29, item 3). So a candidate may include only headers of the CUDA
 * toolkit (found under <cuda>/include or <cuda>/include/cccl, the only -I
 * paths jit.c passes, with -no-source-include so the working directory is
 * not searched) and kevo's own in-memory headers ("kevo/..."), each named
 * by a literal, relative path without "..".
 */
#ifndef KEVO_JITPOLICY_H
#define KEVO_JITPOLICY_H

#include <stddef.h>

/*
 * Screens src for include-like directives (#include, #include_next,
 * #import, #embed; also spelled with the %: digraph or the ??= trigraph,
 * split by backslash-newlines or with comments between their parts).
 * Conservative: a directive first on any line (or right after a line's
 * first comment end) counts, even on a line a scanner would place inside
 * a comment or a raw string, so no reading of the text the preprocessor
 * might take is missed; "#include" in the middle of a comment line is
 * free. Each one's header name must be a literal "x" or
 * <x> (a macro is refused: it could expand to any path) that
 * jitpolicy_header_allowed() accepts. Returns 0 if src passes, else 1
 * with a one-line reason in why[cap] naming the line (as the compiler
 * would: "#line N" directives count).
 */
int jitpolicy_check_includes(const char *src, char *why, size_t cap);

/*
 * 1 if name (the text between the quotes or angle brackets) may be
 * included: relative, no "..", no "//", only [A-Za-z0-9_./+-]; and
 * either "kevo/..." (kevo's in-memory headers; a name NVRTC does not
 * have in memory is searched only in the CUDA folders) or a regular
 * file under <cuda>/include or <cuda>/include/cccl (<cuda> as in
 * jit_default_options). Else 0.
 */
int jitpolicy_header_allowed(const char *name);

#endif
