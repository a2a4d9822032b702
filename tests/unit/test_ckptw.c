/*
 * test_ckptw.c - the checkpoint's writer thread (ckptw.h): each put is
 * written, in order, whole; a write that fails is reported by the next
 * put or the wait, with its path, once; release writes what is left.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "check.h"
#include "ckptw.h"
#include "fsutil.h"

static char dir[64];

static cJSON *doc(int gen)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "gen", gen);
    cJSON *a = cJSON_AddArrayToObject(o, "v"); /* (some size to write) */
    for (int i = 0; i < 20000; i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber(i * 0.5 + gen));
    return o;
}

/* The "gen" of the file at path; -1 if it is not a whole document. */
static int gen_of(const char *path)
{
    char *text;
    size_t n;
    if (fs_read_file(path, &text, &n))
        return -1;
    cJSON *o = cJSON_Parse(text);
    free(text);
    const cJSON *g = cJSON_GetObjectItem(o, "gen");
    int v = cJSON_IsNumber(g) && cJSON_GetArraySize(cJSON_GetObjectItem(
                                     o, "v")) == 20000 ? g->valueint : -1;
    cJSON_Delete(o);
    return v;
}

static void test_in_order(void)
{
    struct ckptw w = {0};
    char path[128];
    snprintf(path, sizeof path, "%s/checkpoint.json", dir);
    for (int g = 0; g < 5; g++)
        CHECK(ckptw_put(&w, path, doc(g)) == KEVO_OK);
    CHECK(ckptw_wait(&w) == KEVO_OK);
    CHECK(gen_of(path) == 4);
    CHECK(w.started);
    CHECK(ckptw_put(&w, path, doc(7)) == KEVO_OK);
    ckptw_release(&w); /* writes what is left */
    CHECK(gen_of(path) == 7);
    CHECK(!w.started);
}

static void test_failure_reported(void)
{
    struct ckptw w = {0};
    char bad[128], good[128];
    snprintf(bad, sizeof bad, "%s/no/such/dir/checkpoint.json", dir);
    snprintf(good, sizeof good, "%s/c2.json", dir);
    CHECK(ckptw_put(&w, bad, doc(1)) == KEVO_OK); /* (not written yet) */
    int rc = ckptw_put(&w, good, doc(2));
    CHECK_MSG(rc != KEVO_OK, "the failed write was not reported");
    CHECK(!strcmp(w.failed, bad));
    /* ...and once: what follows is written as usual */
    CHECK(ckptw_put(&w, good, doc(3)) == KEVO_OK);
    CHECK(ckptw_wait(&w) == KEVO_OK && gen_of(good) == 3);
    CHECK(ckptw_put(&w, bad, doc(4)) == KEVO_OK);
    CHECK(ckptw_wait(&w) != KEVO_OK && !strcmp(w.failed, bad));
    CHECK(ckptw_wait(&w) == KEVO_OK);
    ckptw_release(&w);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/kevo-test-ckptw-XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    RUN(test_in_order, "checkpoints written whole and in order; release "
        "writes the last");
    RUN(test_failure_reported, "a failed write is reported by the next put "
        "or the wait, with its path, once");
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) {
        /* (a temporary directory left behind) */
    }
    TEST_DONE();
}
