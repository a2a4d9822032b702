/*
 * test_fsutil.c - unit tests of the bounded file reader and the errno
 * mapping of src/util/fsutil.c, and of the small input checks issue 10 added
 * elsewhere: URL redaction (llm.c), run names and budget resolution
 * (spec.c); guarded directories (no link followed on write, issue 29.9)
 * and the quoting of untrusted text (quote.c, 29.8 and 29.11).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "fsutil.h"
#include "llm.h"
#include "quote.h"
#include "spec.h"

static char dir[64];

static void path_of(char *out, size_t cap, const char *name)
{
    snprintf(out, cap, "%s/%s", dir, name);
}

static void write_text(const char *name, const char *text)
{
    char p[128];
    path_of(p, sizeof p, name);
    FILE *f = fopen(p, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* rc of fs_read_file_max(path, max), freeing what it read */
static int read_rc(const char *path, size_t max, size_t *len)
{
    char *buf = NULL;
    int rc = fs_read_file_max(path, max, &buf, len);
    CHECK(rc == KEVO_OK ? buf != NULL : buf == NULL);
    free(buf);
    return rc;
}

static void reads_a_whole_regular_file(void)
{
    char p[128], *buf = NULL;
    size_t len = 0;
    write_text("a.txt", "hello\n");
    path_of(p, sizeof p, "a.txt");
    CHECK(fs_read_file(p, &buf, &len) == KEVO_OK);
    CHECK(len == 6 && buf && !strcmp(buf, "hello\n"));
    free(buf);
    CHECK(read_rc(p, 6, &len) == KEVO_OK && len == 6);
}

static void a_file_past_the_cap_is_too_large(void)
{
    char p[128];
    path_of(p, sizeof p, "a.txt");
    CHECK(read_rc(p, 5, NULL) == KEVO_ETOOBIG);
    CHECK(strstr(kevo_strerror(KEVO_ETOOBIG), "too large") != NULL);
}

static void devices_fifos_and_links_to_them_are_refused(void)
{
    char p[128], l[128];
    CHECK(read_rc("/dev/zero", FS_READ_MAX, NULL) == KEVO_ENOTREG);
    CHECK(read_rc("/dev/null", FS_READ_MAX, NULL) == KEVO_ENOTREG);
    path_of(p, sizeof p, "fifo");
    CHECK(mkfifo(p, 0600) == 0);
    /* would block forever in open() or read() without O_NONBLOCK */
    CHECK(read_rc(p, FS_READ_MAX, NULL) == KEVO_ENOTREG);
    path_of(l, sizeof l, "zero.json");
    CHECK(symlink("/dev/zero", l) == 0);
    CHECK(read_rc(l, FS_READ_MAX, NULL) == KEVO_ENOTREG);
}

static void a_directory_and_a_missing_file_say_so(void)
{
    char p[128];
    CHECK(read_rc(dir, FS_READ_MAX, NULL) == KEVO_EISDIR);
    CHECK(!strcmp(kevo_strerror(KEVO_EISDIR), "is a directory"));
    path_of(p, sizeof p, "nope");
    CHECK(read_rc(p, FS_READ_MAX, NULL) == KEVO_ENOENT);
    path_of(p, sizeof p, "a.txt/x");
    CHECK(read_rc(p, FS_READ_MAX, NULL) == KEVO_ENOTDIR);
}

static void mkdirs_refuses_a_file_in_the_path(void)
{
    char p[128];
    path_of(p, sizeof p, "d/e/f");
    CHECK(fs_mkdirs(p) == KEVO_OK && fs_is_dir(p));
    CHECK(fs_mkdirs(p) == KEVO_OK);
    path_of(p, sizeof p, "a.txt/g");
    CHECK(fs_mkdirs(p) == KEVO_ENOTDIR);
    path_of(p, sizeof p, "a.txt");
    CHECK(fs_mkdirs(p) == KEVO_ENOTDIR);
    CHECK(!fs_is_dir(p));
}

static void redact(const char *in, const char *want)
{
    char out[256];
    llm_redact(in, out, sizeof out);
    CHECK_MSG(!strcmp(out, want), "'%s' -> '%s', want '%s'", in, out, want);
}

static void the_userinfo_of_a_url_is_redacted(void)
{
    redact("openai:m@http://user:sk-X@host/v1", "openai:m@http://***@host/v1");
    redact("http://sk-X@host:8080", "http://***@host:8080");
    redact("openai:gpt-5", "openai:gpt-5");
    redact("openai:m@https://host/v1?a=b@c", "openai:m@https://host/v1?a=b@c");
    redact("anthropic:m@http://a:b@c@host/x/y@z",
           "anthropic:m@http://***@host/x/y@z");
    char buf[64] = "openai:m@http://u:p@h/v1"; /* in place */
    llm_redact(buf, buf, sizeof buf);
    CHECK(!strcmp(buf, "openai:m@http://***@h/v1"));
}

static void run_names_are_plain(void)
{
    CHECK(spec_name_ok("run-1"));
    CHECK(spec_name_ok("..x"));
    CHECK(!spec_name_ok(""));
    CHECK(!spec_name_ok("."));
    CHECK(!spec_name_ok(".."));
    CHECK(!spec_name_ok("a/b"));
}

static void a_time_or_eval_budget_lifts_the_generation_cap(void)
{
    struct spec s;
    spec_defaults(&s);
    spec_resolve_budgets(&s);
    CHECK(s.max_generations == SPEC_GENERATIONS_DEFAULT);
    spec_defaults(&s);
    s.max_time_s = 600;
    spec_resolve_budgets(&s);
    CHECK(s.max_generations == 0);
    spec_defaults(&s);
    s.max_evals = 100;
    spec_resolve_budgets(&s);
    CHECK(s.max_generations == 0);
    spec_defaults(&s);
    s.max_time_s = 600;
    s.max_generations = 7; /* given: it stands */
    spec_resolve_budgets(&s);
    CHECK(s.max_generations == 7);
}

static void non_finite_durations_are_refused(void)
{
    CHECK(spec_parse_duration("90s") == 90);
    CHECK(spec_parse_duration("nan") < 0);
    CHECK(spec_parse_duration("inf") < 0);
    CHECK(spec_parse_duration("1e400") < 0);
    CHECK(spec_parse_duration("1e306h") < 0);
}

static int wrote_outside(const char *out, const char *name)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", out, name);
    return access(p, F_OK) == 0;
}

static void a_guarded_directory_is_written_through_no_link(void)
{
    char run[128], out[128], p[256], q[256];
    path_of(run, sizeof run, "run");
    path_of(out, sizeof out, "outside");
    CHECK(mkdir(run, 0755) == 0 && mkdir(out, 0755) == 0);
    snprintf(p, sizeof p, "%s/sub", run);
    CHECK(symlink(out, p) == 0);             /* run/sub -> outside */
    snprintf(q, sizeof q, "%s/j.txt", run);
    snprintf(p, sizeof p, "%s/j.txt", out);
    CHECK(symlink(p, q) == 0);               /* run/j.txt -> outside/j.txt */
    snprintf(p, sizeof p, "%s/sub/a.txt", run);
    /* before the guard: followed (the old behaviour, for contrast) */
    CHECK(fs_guard_check(p) == KEVO_OK);
    CHECK(fs_guard_dir(run) == KEVO_OK);
    CHECK(fs_guard_dir(run) == KEVO_OK);     /* twice is one guard */
    CHECK(fs_write_atomic(p, "x", 1) == KEVO_ELINK);
    CHECK(fs_write_new(p, "x", 1, 0) == KEVO_ELINK);
    snprintf(p, sizeof p, "%s/sub/d/e", run);
    CHECK(fs_mkdirs(p) == KEVO_ELINK);
    int fd = -1;
    CHECK(fs_open_write(q, O_APPEND, &fd) == KEVO_ELINK && fd < 0);
    CHECK(fs_write_atomic(q, "x", 1) == KEVO_ELINK);
    CHECK(!wrote_outside(out, "a.txt") && !wrote_outside(out, "d") &&
          !wrote_outside(out, "j.txt"));
    snprintf(p, sizeof p, "%s/../outside/up.txt", run);
    CHECK(fs_write_atomic(p, "x", 1) == KEVO_ELINK &&
          !wrote_outside(out, "up.txt"));
    /* what is not a link is written; missing parts are made */
    snprintf(p, sizeof p, "%s/real/b.txt", run);
    snprintf(q, sizeof q, "%s/real", run);
    CHECK(fs_mkdirs(q) == KEVO_OK && fs_write_atomic(p, "y", 1) == KEVO_OK);
    /* a FIFO below the guard is refused, not waited on */
    snprintf(p, sizeof p, "%s/fifo", run);
    CHECK(mkfifo(p, 0644) == 0);
    CHECK(fs_open_write(p, O_TRUNC, &fd) == KEVO_ENOTREG);
    /* outside every guard a link the user names is followed */
    snprintf(p, sizeof p, "%s/userlink", dir);
    CHECK(symlink(out, p) == 0);
    snprintf(q, sizeof q, "%s/userlink/c.txt", dir);
    CHECK(fs_write_atomic(q, "z", 1) == KEVO_OK && wrote_outside(out, "c.txt"));
}

static void a_full_device_is_no_space_left(void)
{
    int rc = KEVO_OK;
    FILE *f = fs_fopen_write("/dev/full", &rc);
    CHECK(f != NULL);
    if (f) {
        fputs("x", f);
        CHECK(fs_close_written(f) == KEVO_ENOSPC);
    }
    CHECK(!strcmp(kevo_strerror(KEVO_ENOSPC), "no space left on device"));
}

static char *mem_of(void (*put)(FILE *, const char *), const char *s)
{
    char *t = NULL;
    size_t n;
    FILE *f = open_memstream(&t, &n);
    put(f, s);
    fclose(f);
    return t;
}

static void put_comment(FILE *f, const char *s) { quote_c_comment(f, s); }
static void put_cstr(FILE *f, const char *s) { quote_c_string(f, s); }
static void put_py(FILE *f, const char *s) { quote_py_string(f, s, 0); }

static void untrusted_text_cannot_end_its_quotes(void)
{
    char *c = mem_of(put_comment, "a */ b ?\?/ \x1b");
    CHECK(c && !strstr(c, "*/") && !strstr(c, "??") && !strchr(c, 0x1b));
    free(c);
    c = mem_of(put_cstr, "a\"b\\c?\?=\n\xff");
    CHECK(c && !strcmp(c, "a\\\"b\\\\c\\?\\?=\\012\\377"));
    free(c);
    c = mem_of(put_py, "\"\"\"; import os\\\n\xc3\xa9\xff");
    CHECK(c && !strcmp(c, "\\\"\\\"\\\"; import os\\\\\\n\xc3\xa9\\xff"));
    free(c);
    char out[64];
    CHECK(!strcmp(quote_term("ok \x1b[2J\xc2\x9b\xe2\x82\xac\n", out,
                             sizeof out),
                  "ok \\x1b[2J\\xc2\\x9b\xe2\x82\xac\n"));
    int line = 0;
    CHECK(!quote_check_text("a\nb\tc\xe2\x82\xac\n", 9, &line));
    CHECK(!strcmp(quote_check_text("a\nb\0c", 5, &line), "contains a NUL "
                  "byte") && line == 2);
    CHECK(!strcmp(quote_check_text("a\n\n\xe9", 4, &line), "is not UTF-8") &&
          line == 3);
    CHECK(!strcmp(quote_check_text("\x1b", 1, &line), "contains a control "
                  "character") && line == 1);
}

/* fs_abstime_in: the wall clock that far ahead, nanoseconds carried. */
static void abstime_carries_the_nanoseconds(void)
{
    struct timespec now, a = fs_abstime_in(1999999999LL);
    clock_gettime(CLOCK_REALTIME, &now);
    double d = (double)(a.tv_sec - now.tv_sec) +
               (double)(a.tv_nsec - now.tv_nsec) * 1e-9;
    CHECK(a.tv_nsec >= 0 && a.tv_nsec < 1000000000L);
    CHECK_MSG(d > 1.5 && d <= 2.0, "%.3f s ahead", d);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/kevo-fsutil.XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    RUN(reads_a_whole_regular_file, "reads a whole regular file");
    RUN(abstime_carries_the_nanoseconds,
        "an absolute time ns ahead carries into seconds");
    RUN(a_file_past_the_cap_is_too_large, "a file past the cap is too large");
    RUN(devices_fifos_and_links_to_them_are_refused,
        "devices, FIFOs and links to them are refused without blocking");
    RUN(a_directory_and_a_missing_file_say_so,
        "a directory, a missing file and a file in the path say so");
    RUN(mkdirs_refuses_a_file_in_the_path, "mkdirs refuses a file in the path");
    RUN(the_userinfo_of_a_url_is_redacted, "the userinfo of a URL is redacted");
    RUN(run_names_are_plain, "run names are plain names");
    RUN(a_time_or_eval_budget_lifts_the_generation_cap,
        "a time or evaluation budget lifts the default generation cap");
    RUN(non_finite_durations_are_refused, "non-finite durations are refused");
    RUN(a_guarded_directory_is_written_through_no_link,
        "a guarded directory is written through no link, FIFO or '..'");
    RUN(a_full_device_is_no_space_left, "a full device is no space left");
    RUN(untrusted_text_cannot_end_its_quotes,
        "untrusted text cannot end its comment, string or terminal line");
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
    TEST_DONE();
}
