/*
 * codescan.h - the judge's rules on compiled code: what a candidate's PTX
 * may not contain, decided from what NVRTC produced, not from the source
 * text (a ban on spellings is defeated by token pasting, split string
 * literals in inline asm and macros from headers; issue 29).
 *
 * Banned: reads of the global timer (%globaltimer, _lo, _hi: a kernel
 * could tell timed runs apart), the device heap (malloc, free, the
 * aligned-malloc syscall: memory that outlives a launch can carry a memo
 * or a launch counter) and device-side launches (cudaLaunchDevice*,
 * cudaGetParameterBuffer*: work the timer does not see). printf is refused
 * from the cubin's vprintf import by the worker (worker.h). Comments in
 * the source say what they like: the PTX has none of the source's
 * comments.
 */
#ifndef KEVO_CODESCAN_H
#define KEVO_CODESCAN_H

#include <stddef.h>

/*
 * Scans PTX text (NUL-terminated, as nvrtcGetPTX gives it) outside its
 * comments and string literals for the banned constructs above, as whole
 * PTX identifiers. Returns 0 if it holds none, else 1 with a one-line
 * reason in why[cap] ("policy: the compiled code reads the global timer
 * (%globaltimer)"). Pure: no NVRTC needed.
 */
int codescan_ptx(const char *ptx, char *why, size_t cap);

#endif
