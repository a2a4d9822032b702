/*
 * test_bgwrite.c - the run directory's writer thread (bgwrite.h): each
 * checkpoint written whole, in order, sources created only where none
 * is; a write that fails is reported once, with its path, by the next
 * wait or checkpoint; release writes what is left.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <unistd.h>

#include <cJSON.h>

#include "check.h"
#include "bgwrite.h"
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
    struct bgwrite w = {0};
    char path[128];
    snprintf(path, sizeof path, "%s/checkpoint.json", dir);
    for (int g = 0; g < 5; g++)
        CHECK(bgwrite_json(&w, path, doc(g)) == KEVO_OK);
    CHECK(bgwrite_wait(&w) == KEVO_OK);
    CHECK(gen_of(path) == 4);
    CHECK(w.started);
    CHECK(bgwrite_json(&w, path, doc(7)) == KEVO_OK);
    bgwrite_release(&w); /* writes what is left */
    CHECK(gen_of(path) == 7);
    CHECK(!w.started);
}

static void test_failure_reported(void)
{
    struct bgwrite w = {0};
    char bad[128], good[128];
    snprintf(bad, sizeof bad, "%s/no/such/dir/checkpoint.json", dir);
    snprintf(good, sizeof good, "%s/c2.json", dir);
    CHECK(bgwrite_json(&w, bad, doc(1)) == KEVO_OK); /* (queued) */
    CHECK(bgwrite_json(&w, good, doc(2)) == KEVO_OK);
    CHECK_MSG(bgwrite_wait(&w) != KEVO_OK, "the failed write was not "
              "reported");
    CHECK(!strcmp(w.failed, bad));
    /* ...once; what came after it was written */
    CHECK(bgwrite_wait(&w) == KEVO_OK && gen_of(good) == 2);
    CHECK(bgwrite_json(&w, good, doc(3)) == KEVO_OK);
    CHECK(bgwrite_wait(&w) == KEVO_OK && gen_of(good) == 3);
    bgwrite_release(&w);
}

static void test_sources(void)
{
    struct bgwrite w = {0};
    char a[128], b[128], bad[128];
    snprintf(a, sizeof a, "%s/a.cu", dir);
    snprintf(b, sizeof b, "%s/b.cu", dir);
    snprintf(bad, sizeof bad, "%s/none/c.cu", dir);
    CHECK(bgwrite_new(&w, a, strdup("first")) == KEVO_OK);
    CHECK(bgwrite_new(&w, a, strdup("second")) == KEVO_OK); /* exists */
    CHECK(bgwrite_new(&w, b, strdup("bee")) == KEVO_OK);
    CHECK(bgwrite_wait(&w) == KEVO_OK);
    char *t = NULL;
    size_t n;
    CHECK(fs_read_file(a, &t, &n) == KEVO_OK && t && !strcmp(t, "first"));
    free(t);
    t = NULL;
    CHECK(fs_read_file(b, &t, &n) == KEVO_OK && t && !strcmp(t, "bee"));
    free(t);
    /* a source that cannot be written: the wait says which */
    CHECK(bgwrite_new(&w, bad, strdup("x")) == KEVO_OK);
    CHECK(bgwrite_new(&w, b, strdup("y")) == KEVO_OK);
    CHECK(bgwrite_wait(&w) != KEVO_OK && !strcmp(w.failed, bad));
    /* ...a checkpoint queued behind a failed source is dropped, and says
     * why */
    char c[128];
    snprintf(c, sizeof c, "%s/ck.json", dir);
    CHECK(bgwrite_new(&w, bad, strdup("x")) == KEVO_OK);
    CHECK(bgwrite_wait(&w) != KEVO_OK);
    CHECK(bgwrite_new(&w, bad, strdup("x")) == KEVO_OK);
    pthread_mutex_lock(&w.mu); /* (until the thread has written it) */
    while (w.head || w.busy)
        pthread_cond_wait(&w.cv, &w.mu);
    pthread_mutex_unlock(&w.mu);
    CHECK(bgwrite_json(&w, c, doc(9)) != KEVO_OK && !strcmp(w.failed, bad));
    CHECK(bgwrite_wait(&w) == KEVO_OK && gen_of(c) == -1);
    bgwrite_release(&w);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/kevo-test-ckptw-XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    RUN(test_in_order, "checkpoints written whole and in order; release "
        "writes the last");
    RUN(test_failure_reported, "a failed write is reported by the next "
        "checkpoint or the wait, with its path, once");
    RUN(test_sources, "sources created only where none is; one that "
        "cannot be written reported by the wait, a checkpoint behind it "
        "dropped");
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) {
        /* (a temporary directory left behind) */
    }
    TEST_DONE();
}
