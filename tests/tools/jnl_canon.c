/*
 * jnl_canon.c - prints a journal with its wall-clock members removed ("t",
 * the per-phase "ms" times and a "gen" record's "engine_ms") and the
 * machine's compile processes (a
 * "gen" record's "compilers": none under MPI), one record per line, so
 * that two runs of the same seed can be compared with cmp(1). Used only
 * by tests.
 */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>

#include "jnl.h"

int main(int argc, char **argv)
{
    cJSON *recs, *r;
    char err[512];
    if (argc != 2) {
        fprintf(stderr, "usage: jnl_canon journal.jsonl\n");
        return 2;
    }
    if (jnl_read_all(argv[1], &recs, err, sizeof err)) {
        fprintf(stderr, "jnl_canon: %s\n", err);
        return 1;
    }
    cJSON_ArrayForEach(r, recs)
    {
        cJSON_DeleteItemFromObjectCaseSensitive(r, "t");
        cJSON_DeleteItemFromObjectCaseSensitive(r, "ms");
        cJSON_DeleteItemFromObjectCaseSensitive(r, "engine_ms");
        cJSON_DeleteItemFromObjectCaseSensitive(r, "compilers");
        char *s = cJSON_PrintUnformatted(r);
        printf("%s\n", s);
        free(s);
    }
    cJSON_Delete(recs);
    return 0;
}
