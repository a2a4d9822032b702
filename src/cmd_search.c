/*
 * cmd_search.c - `kevo table` and `kevo bench-search` (see cmd_search.h).
 */
#include "cmd_search.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_run.h"
#include "simtable.h"

/* ----------------------------------------------------------- kevo table */

static const char table_usage[] =
    "usage: kevo table RUN [--out FILE]\n"
    "\n"
    "Writes the measured points of RUN (a run directory, e.g. a kevo run\n"
    "--strategy sweep; or a table) as a compact table: one JSON line per\n"
    "template (its text) and per point (outcome, fitness, median time), to\n"
    "FILE or stdout. 'kevo run --simulate FILE' searches it without a GPU.\n";

int cmd_table_main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"out", 1, 0, 'o'}, {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
    const char *out = NULL;
    char err[1024] = "";
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
        if (c == 'h') {
            fputs(table_usage, stdout);
            return EXIT_DONE;
        }
        if (c != 'o') {
            fprintf(stderr, "kevo table: unknown option '%s' (see kevo "
                    "table --help)\n", argv[optind - 1]);
            return EXIT_USAGE;
        }
        out = optarg;
    }
    if (optind != argc - 1) {
        fprintf(stderr, "kevo table: expected one run directory (see kevo "
                "table --help)\n");
        return EXIT_USAGE;
    }
    struct simtable *t;
    if (simtable_load(argv[optind], &t, err, sizeof err)) {
        fprintf(stderr, "kevo table: %s\n", err);
        return EXIT_ERROR;
    }
    FILE *f = out ? fopen(out, "w") : stdout;
    int rc = f ? simtable_write(t, f) : KEVO_EIO;
    if (f && f != stdout && fclose(f))
        rc = KEVO_EIO;
    else if (f == stdout && fflush(f))
        rc = KEVO_EIO;
    if (rc)
        fprintf(stderr, "kevo table: cannot write '%s': %s\n",
                out ? out : "stdout", kevo_strerror(rc));
    else
        fprintf(stderr, "kevo table: %ld points of %d templates (%s %s) "
                "from %s\n", t->n, t->n_tpls, t->problem,
                dtype_name(t->dtype), argv[optind]);
    simtable_free(t);
    return rc ? EXIT_ERROR : EXIT_DONE;
}

int cmd_bench_search_main(int argc, char **argv)
{
    fprintf(stderr, "kevo bench-search: not yet\n");
    return EXIT_ERROR;
}
