/*
 * test_provenance.c - unit tests of src/run/provenance.c and of the template
 * parser's "provenance" directive (src/core/tpl.c): which lines are provenance,
 * reading them into KEY: VALUE, stripping them, the body hash that ignores
 * them, and that a template with them parses (before its problem line
 * too) while a malformed one, or a parameter named only in one, fails.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hash.h"
#include "provenance.h"
#include "record.h"
#include "tpl.h"

static char err[512];

/* A minimal good softmax template; head goes before its first line. */
static char *with_head(const char *head)
{
    static const char body[] =
        "// kevo: problem softmax\n"
        "// kevo: dtypes fp32\n"
        "// kevo: param T 128 256 default=128\n"
        "// kevo: launch k\n"
        "// kevo: grid ROWS\n"
        "// kevo: block T\n"
        "extern \"C\" __global__ void k(const elem_t *x, elem_t *y, int ROWS,"
        " int COLS, void *ws) { (void)T; }\n";
    size_t n = strlen(head) + sizeof body;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s%s", head, body);
    return s;
}

static void test_lines(void)
{
    static const char *const yes[] = {
        "// kevo: provenance run runs/x", "  //kevo:provenance a b",
        "\t// kevo:  provenance   k v  ", "// kevo: provenance"};
    static const char *const no[] = {
        "// kevo: problem softmax", "// kevo: provenances a b",
        "/* kevo: provenance a b */", "// provenance a b",
        "x; // kevo: provenance a b", ""};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
        CHECK_MSG(prov_is_line(yes[i], strlen(yes[i])), "%s", yes[i]);
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        CHECK_MSG(!prov_is_line(no[i], strlen(no[i])), "%s", no[i]);
}

static void test_read(void)
{
    const char *text = "// kevo: provenance run runs/x\n"
                       "code();\n"
                       "//kevo:   provenance  model  openai:gpt-5  \r\n"
                       "// kevo: provenance run again\n"
                       "// kevo: param T 1 2\n";
    cJSON *o = prov_read(text);
    CHECK(o && cJSON_GetArraySize(o) == 2);
    CHECK(o && !strcmp(o->child->string, "run"));
    CHECK(!strcmp(record_str(o, "run") ? record_str(o, "run") : "",
                  "runs/x; again"));
    CHECK(!strcmp(record_str(o, "model") ? record_str(o, "model") : "",
                  "openai:gpt-5"));
    cJSON_Delete(o);
    o = prov_read("// kevo: problem softmax\nint x;\n");
    CHECK(o && cJSON_IsObject(o) && !o->child);
    cJSON_Delete(o);
}

static void test_strip(void)
{
    char *plain = with_head(""), *promoted = with_head(
        "// kevo: provenance run runs/x\n// kevo: provenance gpu H100\n");
    char *edited = with_head("// kevo: provenance run runs/x\nint y;\n");
    if (!plain || !promoted || !edited)
        return;
    char *s = prov_strip(promoted);
    CHECK(s && !strcmp(s, plain));
    free(s);
    s = prov_strip("a\n// kevo: provenance k v"); /* last line, no '\n' */
    CHECK(s && !strcmp(s, "a\n"));
    free(s);
    CHECK(prov_body_hash(promoted) == prov_body_hash(plain));
    CHECK(prov_body_hash(plain) == hash_final(hash_str(HASH_SEED, plain)));
    CHECK(prov_body_hash(edited) != prov_body_hash(plain));
    free(plain);
    free(promoted);
    free(edited);
}

/* Parses head + the good template; returns the status, err filled. */
static int parse_with(const char *head)
{
    char *text = with_head(head);
    struct tpl *t = NULL;
    if (!text)
        return KEVO_ENOMEM;
    int rc = tpl_parse("t", NULL, text, &t, err, sizeof err);
    if (!rc)
        CHECK(!strcmp(t->problem, "softmax") && t->n_params == 1);
    tpl_free(t);
    free(text);
    return rc;
}

static void test_parse(void)
{
    int rc = parse_with("// kevo: provenance run runs/x (2026)\n"
                        "// kevo: provenance verify drift +0.40%, noise 1%\n");
    CHECK_MSG(rc == KEVO_OK, "%s", err);
    CHECK(parse_with("// kevo: provenance onlykey\n") == KEVO_EPARSE &&
          strstr(err, "t:1: 'provenance' takes a KEY"));
    CHECK(parse_with("// kevo: provenance\n") == KEVO_EPARSE);
    CHECK(parse_with("// kevo: provenance 1run x\n") == KEVO_EPARSE);
    CHECK(parse_with("// kevo: provenance "
                     "a_key_of_more_than_thirty_one_chars x\n") ==
          KEVO_EPARSE);
    /* a parameter named only in a provenance line is still unused */
    char *text = with_head("// kevo: provenance point U=1\n");
    if (!text)
        return;
    char *p = strstr(text, "// kevo: launch");
    const char extra[] = "// kevo: param U 1 2\n";
    size_t n = strlen(text) + sizeof extra;
    char *t2 = malloc(n);
    struct tpl *t = NULL;
    if (t2) {
        snprintf(t2, n, "%.*s%s%s", (int)(p - text), text, extra, p);
        CHECK(tpl_parse("t", NULL, t2, &t, err, sizeof err) == KEVO_EPARSE &&
              strstr(err, "param 'U' is never used"));
    }
    tpl_free(t);
    free(t2);
    free(text);
}

int main(void)
{
    RUN(test_lines, "provenance lines are recognised as tpl.c's directives");
    RUN(test_read, "provenance reads KEY VALUE in order, repeats joined");
    RUN(test_strip, "stripping provenance leaves the body; its hash ignores "
                    "provenance");
    RUN(test_parse, "templates parse with provenance lines; malformed ones "
                    "and params named only there fail");
    TEST_DONE();
}
