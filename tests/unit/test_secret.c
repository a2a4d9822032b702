/*
 * test_secret.c - secret registration and scrubbing (src/util/secret.c):
 * the raw key, its JSON and base64 forms at every alignment, a key cut
 * at a text's edge, short values ignored, idempotence.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "secret.h"

static const char key[] = "sk-proj-Zq8vR2xT9mLk4Wc7";

/* Plain base64 of n bytes (RFC 4648), a test oracle. New string. */
static char *b64(const unsigned char *s, size_t n)
{
    static const char a[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *o = malloc(n / 3 * 4 + 8), *p = o;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)s[i] << 16 |
                     (i + 1 < n ? (unsigned)s[i + 1] << 8 : 0) |
                     (i + 2 < n ? s[i + 2] : 0);
        *p++ = a[v >> 18 & 63];
        *p++ = a[v >> 12 & 63];
        *p++ = i + 1 < n ? a[v >> 6 & 63] : '=';
        *p++ = i + 2 < n ? a[v & 63] : '=';
    }
    *p = '\0';
    return o;
}

static void test_raw(void)
{
    char s[256];
    snprintf(s, sizeof s, "error: OPENAI_API_KEY=%s; again %s.", key, key);
    CHECK(secret_scrub(s) == 2);
    CHECK_MSG(!strcmp(s, "error: OPENAI_API_KEY=***; again ***."), "%s", s);
    CHECK(secret_scrub(s) == 0); /* idempotent */
    CHECK(!secret_found(s));
    snprintf(s, sizeof s, "%s", "nothing secret here");
    CHECK(secret_scrub(s) == 0 && !strcmp(s, "nothing secret here"));
}

static void test_base64(void)
{
    /* /proc/self/environ base64-encoded with the key at each alignment */
    for (int pad = 0; pad < 3; pad++) {
        char env[128];
        snprintf(env, sizeof env, "%.*sOPENAI_API_KEY=%s%cHOME=/root", pad,
                 "xy", key, '\0');
        size_t n = strlen(env) + 1 + strlen("HOME=/root");
        char *enc = b64((const unsigned char *)env, n);
        CHECK_MSG(secret_found(enc), "alignment %d: %s", pad, enc);
        secret_scrub(enc);
        CHECK(!secret_found(enc));
        free(enc);
    }
}

static void test_edges_and_json(void)
{
    char s[256];
    /* a log line cut in the middle of the key */
    snprintf(s, sizeof s, "In file included: ANTHROPIC_API_KEY=%.12s", key);
    CHECK(secret_scrub(s) == 1);
    CHECK_MSG(!strcmp(s, "In file included: ANTHROPIC_API_KEY=***"), "%s", s);
    snprintf(s, sizeof s, "%s tail of a log", key + 9);
    CHECK(secret_scrub(s) == 1 && !strcmp(s, "*** tail of a log"));
    /* a short piece is not taken for the key */
    snprintf(s, sizeof s, "uses sk-proj");
    CHECK(secret_scrub(s) == 0);
    /* a key with characters JSON escapes, inside JSON text */
    CHECK(secret_add("pa\"ss\\word-12345") == KEVO_OK);
    snprintf(s, sizeof s, "{\"detail\":\"pa\\\"ss\\\\word-12345\"}");
    CHECK(secret_scrub(s) == 1);
    CHECK_MSG(!strcmp(s, "{\"detail\":\"***\"}"), "%s", s);
}

static void test_registration(void)
{
    char s[64];
    secret_clear();
    snprintf(s, sizeof s, "key %s", key);
    CHECK(secret_scrub(s) == 0); /* nothing registered */
    CHECK(secret_add("short") == KEVO_OK && secret_add(NULL) == KEVO_OK);
    snprintf(s, sizeof s, "a short word");
    CHECK(secret_scrub(s) == 0);
    setenv("KEVO_TEST_SECRET", key, 1);
    CHECK(secret_add_env("KEVO_TEST_SECRET") == KEVO_OK);
    CHECK(secret_add(key) == KEVO_OK); /* twice: once */
    snprintf(s, sizeof s, "key %s", key);
    CHECK(secret_scrub(s) == 1 && !strcmp(s, "key ***"));
}

int main(void)
{
    if (secret_add(key))
        return 1;
    RUN(test_raw, "a registered key is replaced wherever it appears");
    RUN(test_base64, "its base64 form is found at every byte alignment");
    RUN(test_edges_and_json, "a key cut at a text's edge and its JSON form "
                             "are replaced");
    RUN(test_registration, "short values are ignored, environment keys "
                           "registered once");
    TEST_DONE();
}
