/*
 * outpath.c - reasons an output file cannot be written (see outpath.h).
 */
#include "outpath.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

void outpath_why(const char *path, int err_no, char *out, size_t cap)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash == dir)
        dir[1] = '\0'; /* "/x": "/" */
    else if (slash)
        *slash = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    struct stat st;
    if (err_no == ENOENT && stat(dir, &st) != 0)
        snprintf(out, cap, "no such directory '%s'", dir);
    else if (err_no == ENOTDIR)
        snprintf(out, cap, "'%s' is not a directory", dir);
    else
        snprintf(out, cap, "%s", strerror(err_no));
}
