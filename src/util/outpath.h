/*
 * outpath.h - why an output file cannot be written, said for people:
 * "no such directory 'runs/tables'" rather than "input/output error".
 * Only explains; writes nothing.
 */
#ifndef KEVO_OUTPATH_H
#define KEVO_OUTPATH_H

#include <stddef.h>

/*
 * The reason a file at path could not be opened for writing with errno
 * err_no, into out: "no such directory 'D'" when its folder D is
 * missing, "'D' is not a directory" when D is a file, else the system's
 * text of err_no.
 */
void outpath_why(const char *path, int err_no, char *out, size_t cap);

#endif
