/*
 * test_llm.c - the LLM client against the fake API server
 * (tests/tools/llm_server, found as $BUILD/tests/llm_server): both wire
 * formats, retries and backoff, Retry-After, timeouts, dropped and
 * malformed answers, fatal errors, concurrency, budgets, the transcript
 * cache, replay, and that the API key never leaves the process.
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "check.h"
#include "fsutil.h"
#include "llm.h"
#include "llm_http.h"
#include "llm_store.h"
#include "secret.h"

#define KEY_ENV "KEVO_TEST_LLM_KEY"
#define WRONG_ENV "KEVO_TEST_LLM_WRONG_KEY"

static char tmp[256];     /* scratch dir for runs and the log */
static char logpath[300]; /* the server's request log */
static char key[64], wrong[64];
static pid_t server_pid;
static int port;
static const char sys_text[] = "You write CUDA kernels for kevo.";

/* ---- the server */

static int start_server(void)
{
    const char *build = getenv("BUILD");
    char bin[4096];
    int fds[2];
    snprintf(bin, sizeof bin, "%s/tests/llm_server", build ? build : "build");
    if (access(bin, X_OK)) {
        fprintf(stderr, "no server '%s' (set BUILD)\n", bin);
        return -1;
    }
    if (pipe(fds))
        return -1;
    server_pid = fork();
    if (server_pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGTERM); /* dies with the test */
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        execl(bin, bin, "--port", "0", "--log", logpath, "--key-env", KEY_ENV,
              "--lifetime", "90", (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    char line[32] = "";
    ssize_t n = read(fds[0], line, sizeof line - 1);
    close(fds[0]);
    port = n > 0 ? atoi(line) : 0;
    return port > 0 ? 0 : -1;
}

static void stop_server(void)
{
    if (server_pid > 0) {
        kill(server_pid, SIGTERM);
        waitpid(server_pid, NULL, 0);
        server_pid = 0;
    }
}

/* Requests the server has logged so far. */
static int log_count(void)
{
    char *s;
    int n = 0;
    if (fs_read_file(logpath, &s, NULL))
        return 0;
    for (char *p = s; *p; p++)
        n += *p == '\n';
    free(s);
    return n;
}

/* The last logged request (caller deletes). */
static cJSON *log_last(void)
{
    char *s;
    if (fs_read_file(logpath, &s, NULL))
        return NULL;
    size_t n = strlen(s);
    while (n > 0 && s[n - 1] == '\n')
        s[--n] = '\0';
    char *last = strrchr(s, '\n');
    cJSON *o = cJSON_Parse(last ? last + 1 : s);
    free(s);
    return o;
}

static const char *jstr(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static double jnum(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/* ---- clients */

static void cfg_for(struct llm_cfg *c, enum llm_provider p)
{
    llm_cfg_defaults(c);
    c->provider = p;
    snprintf(c->base_url, sizeof c->base_url, "http://127.0.0.1:%d%s", port,
             p == LLM_OPENAI ? "/v1" : "");
    snprintf(c->model, sizeof c->model, "test-model");
    snprintf(c->key_env, sizeof c->key_env, "%s", KEY_ENV);
    c->max_tokens = 256;
    c->timeout_ms = 5000;
    c->connect_timeout_ms = 2000;
    c->max_retries = 2;
    c->price_in = 2;
    c->price_out = 10;
}

static void run_dir(const char *name, char *out, size_t cap)
{
    snprintf(out, cap, "%s/%s", tmp, name);
}

static struct llm *client(const struct llm_cfg *c, const char *run)
{
    struct llm *l = NULL;
    char err[512] = "";
    int rc = llm_new(c, run, &l, err, sizeof err);
    CHECK_MSG(rc == KEVO_OK, "llm_new: %s", err);
    return rc ? NULL : l;
}

static int ask(struct llm *l, const char *user, struct llm_ans *a)
{
    struct llm_req r = {.kind = "propose", .system = sys_text, .user = user,
                         .seq = -1};
    long t;
    memset(a, 0, sizeof *a);
    int rc = llm_submit(l, &r, &t);
    return rc ? rc : llm_wait(l, t, a);
}

static int has(const char *s, const char *sub)
{
    return s && strstr(s, sub) != NULL;
}

static void check_no_key(const struct llm_ans *a)
{
    CHECK(!has(a->detail, key) && !has(a->detail, wrong));
}

/* One question to a fresh client; the answer in *a. */
static void ask_once(const struct llm_cfg *c, const char *run, const char *user,
                     struct llm_ans *a)
{
    struct llm *l = client(c, run);
    memset(a, 0, sizeof *a);
    if (!l)
        return;
    CHECK(ask(l, user, a) == KEVO_OK);
    check_no_key(a);
    llm_free(l);
}

/* ---- configuration */

static void test_cfg_parse(void)
{
    struct llm_cfg c;
    char err[256] = "";
    llm_cfg_defaults(&c);
    CHECK(c.max_tokens == 8192 && c.max_inflight == 4 && c.max_retries == 4);
    CHECK(llm_cfg_parse("openai:gpt-5", &c, err, sizeof err) == KEVO_OK);
    CHECK(c.provider == LLM_OPENAI && strcmp(c.model, "gpt-5") == 0 &&
          c.base_url[0] == '\0');
    CHECK(llm_cfg_parse("anthropic:claude-x@http://h:8/v1", &c, err,
                        sizeof err) == KEVO_OK);
    CHECK(c.provider == LLM_ANTHROPIC && strcmp(c.model, "claude-x") == 0 &&
          strcmp(c.base_url, "http://h:8/v1") == 0);
    CHECK(llm_cfg_parse("replay:runs/a", &c, err, sizeof err) == KEVO_OK);
    CHECK(c.provider == LLM_REPLAY && strcmp(c.replay_dir, "runs/a") == 0);
    CHECK(llm_cfg_parse("off", &c, err, sizeof err) == KEVO_ENOENT);
    CHECK(llm_cfg_parse("none", &c, err, sizeof err) == KEVO_ENOENT);
    CHECK(llm_cfg_parse("foo:bar", &c, err, sizeof err) == KEVO_EINVAL);
    CHECK(strcmp(err,
                 "--llm: unknown provider 'foo' (openai, anthropic, replay)") ==
          0);
    CHECK(llm_cfg_parse("openai:", &c, err, sizeof err) == KEVO_EINVAL &&
          has(err, "no model"));
    CHECK(llm_cfg_parse("openai:m@ftp://x", &c, err, sizeof err) ==
              KEVO_EINVAL &&
          has(err, "ftp://x"));
    CHECK(llm_cfg_parse("gpt-5", &c, err, sizeof err) == KEVO_EINVAL &&
          has(err, "'gpt-5'"));
    CHECK(llm_cfg_parse("replay:", &c, err, sizeof err) == KEVO_EINVAL);
}

static void test_budget_parse(void)
{
    struct llm_cfg c;
    char err[256] = "";
    llm_cfg_defaults(&c);
    CHECK(llm_budget_parse("200k", &c, err, sizeof err) == KEVO_OK &&
          c.budget_tokens == 200000);
    CHECK(llm_budget_parse("2M", &c, err, sizeof err) == KEVO_OK &&
          c.budget_tokens == 2e6);
    CHECK(llm_budget_parse("$5", &c, err, sizeof err) == KEVO_OK &&
          c.budget_usd == 5);
    CHECK(llm_budget_parse("2.5usd", &c, err, sizeof err) == KEVO_OK &&
          c.budget_usd == 2.5);
    CHECK(llm_budget_parse("abc", &c, err, sizeof err) == KEVO_EINVAL &&
          has(err, "--llm-budget") && has(err, "'abc'"));
    CHECK(llm_budget_parse("-3", &c, err, sizeof err) == KEVO_EINVAL);
    CHECK(llm_budget_parse("$", &c, err, sizeof err) == KEVO_EINVAL);
    CHECK(llm_budget_parse("5x", &c, err, sizeof err) == KEVO_EINVAL);
}

static void test_missing_key(void)
{
    struct llm_cfg c;
    struct llm *l = NULL;
    char err[256] = "";
    cfg_for(&c, LLM_ANTHROPIC);
    snprintf(c.key_env, sizeof c.key_env, "KEVO_TEST_LLM_UNSET");
    unsetenv("KEVO_TEST_LLM_UNSET");
    CHECK(llm_new(&c, NULL, &l, err, sizeof err) == KEVO_ENOENT);
    CHECK(has(err, "KEVO_TEST_LLM_UNSET"));
    c.model[0] = '\0';
    snprintf(c.key_env, sizeof c.key_env, "-");
    CHECK(llm_new(&c, NULL, &l, err, sizeof err) == KEVO_EINVAL &&
          has(err, "no model"));
}

/* ---- wire formats */

static void test_wire_helpers(void)
{
    char url[256], msg[200], date[64];
    struct llm_cfg c;
    CHECK(llm_http_url(&llm_api_anthropic, "https://api.anthropic.com/", url,
                       sizeof url) == KEVO_OK &&
          !strcmp(url, "https://api.anthropic.com/v1/messages"));
    CHECK(llm_http_url(&llm_api_anthropic, "http://h/v1", url, sizeof url) ==
              KEVO_OK &&
          !strcmp(url, "http://h/v1/messages"));
    CHECK(llm_http_url(&llm_api_openai, "http://h:8000/v1", url, sizeof url) ==
              KEVO_OK &&
          !strcmp(url, "http://h:8000/v1/chat/completions"));
    CHECK(llm_http_is_openai_com("https://api.openai.com/v1") &&
          !llm_http_is_openai_com("https://api.openai.com.evil/v1"));
    /* OpenAI itself: max_completion_tokens; reasoning models: no
     * temperature */
    llm_cfg_defaults(&c);
    snprintf(c.model, sizeof c.model, "gpt-5");
    char *b = llm_api_openai.body(&c, "https://api.openai.com/v1", "s", "u");
    CHECK(has(b, "\"max_completion_tokens\":8192") && !has(b, "temperature"));
    free(b);
    snprintf(c.model, sizeof c.model, "qwen");
    b = llm_api_openai.body(&c, "http://localhost:8000/v1", "", "u");
    CHECK(has(b, "\"max_tokens\":8192") && has(b, "\"temperature\":0.7") &&
          !has(b, "system"));
    free(b);
    llm_http_error_message("{\"type\":\"error\",\"error\":{\"type\":"
                           "\"overloaded_error\",\"message\":\"Overloaded\"}}",
                           msg, sizeof msg);
    CHECK(!strcmp(msg, "Overloaded"));
    llm_http_error_message("{\"error\":\"model  not\n found\"}", msg,
                           sizeof msg);
    CHECK(!strcmp(msg, "model not found"));
    llm_http_error_message("<html>bad gateway</html>", msg, sizeof msg);
    CHECK(msg[0] == '\0');
    CHECK(llm_http_retry_after(" 7", 0) == 7);
    CHECK(llm_http_retry_after("soon", 0) < 0);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&(time_t){now + 30}, &tm);
    strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", &tm);
    double s = llm_http_retry_after(date, (double)now);
    CHECK_MSG(s >= 29 && s <= 31, "'%s' -> %g", date, s);
}

static void test_openai_answer(void)
{
    struct llm_cfg c;
    struct llm_ans a;
    char run[400];
    cfg_for(&c, LLM_OPENAI);
    run_dir("openai", run, sizeof run);
    ask_once(&c, run, "write a gemm [[id:o1]]", &a);
    CHECK_MSG(a.status == LLM_OK, "%s", a.detail);
    CHECK(a.attempts == 1 && a.http_status == 200 && !a.cached);
    CHECK(has(a.text, "```cuda\n// kevo: problem gemm") &&
          has(a.text, "id: o1"));
    CHECK(a.tokens_in == 1000 && a.tokens_out == 500 && !a.truncated);
    CHECK(a.cost_usd > 0.00699 && a.cost_usd < 0.00701);
    cJSON *r = log_last(), *b = cJSON_GetObjectItem(r, "body");
    cJSON *m = cJSON_GetObjectItem(b, "messages");
    CHECK(strcmp(jstr(r, "path"), "/v1/chat/completions") == 0);
    CHECK(strcmp(jstr(r, "auth"), "ok") == 0);
    CHECK(strcmp(jstr(b, "model"), "test-model") == 0);
    CHECK(jnum(b, "max_tokens") == 256 &&
          !cJSON_GetObjectItem(b, "max_completion_tokens"));
    CHECK(jnum(b, "temperature") > 0.69 && jnum(b, "temperature") < 0.71);
    CHECK(cJSON_GetArraySize(m) == 2);
    CHECK(strcmp(jstr(cJSON_GetArrayItem(m, 0), "role"), "system") == 0);
    CHECK(strcmp(jstr(cJSON_GetArrayItem(m, 0), "content"), sys_text) == 0);
    CHECK(strcmp(jstr(cJSON_GetArrayItem(m, 1), "role"), "user") == 0);
    CHECK(strcmp(jstr(cJSON_GetArrayItem(m, 1), "content"),
                 "write a gemm [[id:o1]]") == 0);
    cJSON_Delete(r);
    /* the transcript and the index */
    char path[600], *s = NULL;
    snprintf(path, sizeof path, "%s/llm/%s.json", run, a.key);
    CHECK(fs_read_file(path, &s, NULL) == KEVO_OK);
    cJSON *t = s ? cJSON_Parse(s) : NULL;
    CHECK(strcmp(jstr(t, "status"), "ok") == 0 &&
          strcmp(jstr(t, "text"), a.text ? a.text : "-") == 0 &&
          strcmp(jstr(t, "provider"), "openai") == 0 &&
          strcmp(jstr(t, "model"), "test-model") == 0 &&
          jnum(t, "attempts") == 1 && jnum(t, "tokens_out") == 500);
    cJSON_Delete(t);
    free(s);
    snprintf(path, sizeof path, "%s/llm/index.jsonl", run);
    CHECK(fs_read_file(path, &s, NULL) == KEVO_OK);
    t = s ? cJSON_Parse(s) : NULL;
    CHECK(jnum(t, "seq") == 0 && strcmp(jstr(t, "key"), a.key) == 0 &&
          strcmp(jstr(t, "kind"), "propose") == 0);
    cJSON_Delete(t);
    free(s);
    llm_ans_release(&a);
}

static void test_anthropic_answer(void)
{
    struct llm_cfg c;
    struct llm_ans a;
    cfg_for(&c, LLM_ANTHROPIC);
    ask_once(&c, NULL, "write a gemm [[case:blocks]] [[id:a1]]", &a);
    CHECK_MSG(a.status == LLM_OK, "%s", a.detail);
    CHECK(a.attempts == 1 && a.tokens_in == 1000 && a.tokens_out == 500);
    /* two text blocks joined back into one answer */
    CHECK(has(a.text, "```cuda\n// kevo: problem gemm") &&
          has(a.text, "id: a1"));
    cJSON *r = log_last(), *b = cJSON_GetObjectItem(r, "body");
    cJSON *m = cJSON_GetObjectItem(b, "messages");
    CHECK(strcmp(jstr(r, "path"), "/v1/messages") == 0);
    CHECK(strcmp(jstr(r, "auth"), "ok") == 0);
    CHECK(strcmp(jstr(r, "anthropic_version"), "2023-06-01") == 0);
    CHECK(strcmp(jstr(b, "model"), "test-model") == 0);
    CHECK(jnum(b, "max_tokens") == 256);
    CHECK(strcmp(jstr(b, "system"), sys_text) == 0);
    CHECK(cJSON_GetArraySize(m) == 1 &&
          strcmp(jstr(cJSON_GetArrayItem(m, 0), "role"), "user") == 0);
    cJSON_Delete(r);
    llm_ans_release(&a);
    /* no key for a local server: nothing sent, the server sees none */
    snprintf(c.key_env, sizeof c.key_env, "-");
    ask_once(&c, NULL, "hello [[id:a2]]", &a);
    CHECK(a.status == LLM_FATAL && a.http_status == 401);
    r = log_last();
    CHECK(strcmp(jstr(r, "auth"), "none") == 0);
    cJSON_Delete(r);
    llm_ans_release(&a);
}

static void test_truncated(void)
{
    struct llm_cfg c;
    struct llm_ans a;
    for (int p = 0; p < 2; p++) {
        cfg_for(&c, p ? LLM_ANTHROPIC : LLM_OPENAI);
        ask_once(&c, NULL, "long one [[case:truncated]]", &a);
        CHECK_MSG(a.status == LLM_OK, "%s", a.detail);
        CHECK(a.truncated == 1 && a.tokens_out == 256);
        CHECK(has(a.text, "```cuda") && !has(a.text, "id:"));
        llm_ans_release(&a);
    }
}

/* ---- retries and failures */

static void test_retry_after(void)
{
    struct llm_cfg c;
    struct llm_ans a;
    cfg_for(&c, LLM_OPENAI);
    long long t0 = fs_now_ns();
    ask_once(&c, NULL, "busy [[case:429]]", &a);
    double s = (double)(fs_now_ns() - t0) / 1e9;
    CHECK_MSG(a.status == LLM_OK, "%s", a.detail);
    CHECK(a.attempts == 2 && a.http_status == 200);
    CHECK_MSG(s >= 1.0 && s < 4, "took %.3f s", s);
    llm_ans_release(&a);
}

static void test_server_errors(void)
{
    struct llm_cfg c;
    struct llm_ans a;
    cfg_for(&c, LLM_ANTHROPIC);
    ask_once(&c, NULL, "flaky [[case:500]]", &a);
    CHECK_MSG(a.status == LLM_OK && a.attempts == 2, "%s", a.detail);
    llm_ans_release(&a);
    int before = log_count();
    ask_once(&c, NULL, "down [[case:500]] [[times:-1]]", &a);
    CHECK(a.status == LLM_FAILED && a.attempts == 3 && a.http_status == 500);
    CHECK_MSG(has(a.detail, "HTTP 500 (Internal server error)") &&
                  has(a.detail, "after 3 attempts"),
              "%s", a.detail);
    CHECK(log_count() - before == 3 && !a.text);
    llm_ans_release(&a);
    ask_once(&c, NULL, "bad [[case:400]]", &a);
    CHECK(a.status == LLM_FAILED && a.attempts == 1 && a.http_status == 400);
    CHECK_MSG(has(a.detail, "HTTP 400 (max_tokens: must be at most 4096)"),
              "%s", a.detail);
    llm_ans_release(&a);
}

static void test_timeout_and_drop(void)
{
    struct llm_cfg c;
    struct llm_ans a;
    cfg_for(&c, LLM_OPENAI);
    c.timeout_ms = 300;
    c.max_retries = 1;
    long long t0 = fs_now_ns();
    ask_once(&c, NULL, "slow [[case:slow]]", &a);
    double s = (double)(fs_now_ns() - t0) / 1e9;
    CHECK(a.status == LLM_FAILED && a.attempts == 2);
    CHECK_MSG(has(a.detail, "timed out") && has(a.detail, "after 2 attempts"),
              "%s", a.detail);
    CHECK_MSG(s < 1.9, "took %.3f s: the timeout did not cut it", s);
    llm_ans_release(&a);
    cfg_for(&c, LLM_OPENAI);
    ask_once(&c, NULL, "cut [[case:drop]]", &a);
    CHECK_MSG(a.status == LLM_OK && a.attempts == 2, "%s", a.detail);
    llm_ans_release(&a);
}

static void test_malformed(void)
{
    struct llm_cfg c;
    struct llm_ans a;
    cfg_for(&c, LLM_OPENAI);
    c.max_retries = 4;
    ask_once(&c, NULL, "junk [[case:malformed]] [[times:-1]]", &a);
    /* asked again once, not max_retries times */
    CHECK(a.status == LLM_FAILED && a.attempts == 2 && a.http_status == 200);
    CHECK_MSG(has(a.detail, "malformed answer"), "%s", a.detail);
    llm_ans_release(&a);
    ask_once(&c, NULL, "junk once [[case:malformed]]", &a);
    CHECK(a.status == LLM_OK && a.attempts == 2);
    llm_ans_release(&a);
    for (int p = 0; p < 2; p++) {
        cfg_for(&c, p ? LLM_ANTHROPIC : LLM_OPENAI);
        ask_once(&c, NULL, "empty [[case:nocontent]]", &a);
        CHECK(a.status == LLM_FAILED && !a.text);
        CHECK_MSG(has(a.detail, p ? "no content" : "no choices[0]"), "%s",
                  a.detail);
        llm_ans_release(&a);
    }
}

static void test_fatal(void)
{
    struct llm_cfg c;
    struct llm_ans a;
    char why[256] = "";
    cfg_for(&c, LLM_OPENAI);
    snprintf(c.key_env, sizeof c.key_env, "%s", WRONG_ENV);
    struct llm *l = client(&c, NULL);
    if (!l)
        return;
    int before = log_count();
    CHECK(ask(l, "hi [[id:f1]]", &a) == KEVO_OK);
    CHECK(a.status == LLM_FATAL && a.attempts == 1 && a.http_status == 401);
    CHECK_MSG(has(a.detail, "openai: HTTP 401 (Incorrect API key") &&
                  has(a.detail, "check " WRONG_ENV),
              "%s", a.detail);
    check_no_key(&a);
    CHECK(llm_disabled(l, why, sizeof why) == 1 && has(why, WRONG_ENV));
    llm_ans_release(&a);
    CHECK(ask(l, "again [[id:f2]]", &a) == KEVO_OK);
    CHECK(a.status == LLM_FATAL && a.attempts == 0 &&
          has(a.detail, "provider disabled"));
    CHECK(log_count() - before == 1);
    llm_ans_release(&a);
    llm_free(l);
    /* a server that echoes the key: the detail does not */
    cfg_for(&c, LLM_ANTHROPIC);
    ask_once(&c, NULL, "echo [[case:401echo]]", &a);
    CHECK_MSG(a.status == LLM_FATAL &&
                  has(a.detail, "invalid x-api-key: ***") &&
                  has(a.detail, "check " KEY_ENV),
              "%s", a.detail);
    llm_ans_release(&a);
    snprintf(c.model, sizeof c.model, "no-such-model");
    ask_once(&c, NULL, "who", &a);
    CHECK(a.status == LLM_FATAL && a.http_status == 404);
    CHECK_MSG(has(a.detail, "HTTP 404 (model: no-such-model)") &&
                  has(a.detail, "check the model"),
              "%s", a.detail);
    llm_ans_release(&a);
}

/* ---- concurrency, budgets, cache, replay */

static double run_batch(const struct llm_cfg *c, int n, long delay0,
                        const char *tag, int *ok)
{
    struct llm *l = client(c, NULL);
    long t[8];
    *ok = 0;
    if (!l)
        return 0;
    long long t0 = fs_now_ns();
    for (int i = 0; i < n; i++) {
        char user[128];
        snprintf(user, sizeof user, "[[delay:%ld]] [[id:%s%d]]",
                 delay0 > 0 ? delay0 * (n - i) : -delay0, tag, i);
        struct llm_req r = {.kind = "propose", .system = "", .user = user,
                            .seq = -1};
        CHECK(llm_submit(l, &r, &t[i]) == KEVO_OK && t[i] == i);
    }
    for (int i = 0; i < n; i++) {
        struct llm_ans a;
        char id[32];
        snprintf(id, sizeof id, "id: %s%d\n", tag, i);
        CHECK(llm_wait(l, t[i], &a) == KEVO_OK);
        *ok += a.status == LLM_OK && has(a.text, id);
        llm_ans_release(&a);
    }
    double s = (double)(fs_now_ns() - t0) / 1e9;
    struct llm_ans again;
    CHECK(llm_wait(l, t[0], &again) == KEVO_EINVAL); /* collected once */
    struct llm_usage u;
    llm_usage(l, &u);
    CHECK(u.requests == n && u.tokens_in == 1000L * n);
    llm_free(l);
    return s;
}

static void test_concurrency(void)
{
    struct llm_cfg c;
    int ok;
    cfg_for(&c, LLM_OPENAI);
    c.max_inflight = 4;
    /* 800, 600, 400, 200 ms: answers arrive in reverse order */
    double s = run_batch(&c, 4, 200, "c", &ok);
    CHECK(ok == 4);
    CHECK_MSG(s >= 0.8 && s < 1.6, "4 in flight took %.3f s", s);
    c.max_inflight = 2;
    s = run_batch(&c, 4, -400, "d", &ok);
    CHECK(ok == 4);
    CHECK_MSG(s >= 0.8, "2 in flight took %.3f s", s);
}

static void test_budget(void)
{
    struct llm_cfg c;
    struct llm_ans a;
    char run[400];
    cfg_for(&c, LLM_OPENAI);
    c.budget_tokens = 1000;
    run_dir("budget", run, sizeof run);
    struct llm *l = client(&c, run);
    if (!l)
        return;
    int before = log_count();
    CHECK(ask(l, "first", &a) == KEVO_OK && a.status == LLM_OK);
    llm_ans_release(&a);
    CHECK(ask(l, "second", &a) == KEVO_OK);
    CHECK(a.status == LLM_BUDGET && a.attempts == 0 && !a.text);
    CHECK_MSG(has(a.detail, "token budget spent: 1500 of 1000"), "%s",
              a.detail);
    CHECK(log_count() - before == 1);
    llm_ans_release(&a);
    llm_free(l);
    /* a resumed run remembers what it spent */
    ask_once(&c, run, "third", &a);
    CHECK(a.status == LLM_BUDGET && log_count() - before == 1);
    llm_ans_release(&a);
    cfg_for(&c, LLM_ANTHROPIC);
    c.budget_usd = 0.005; /* one answer costs $0.007 */
    l = client(&c, NULL);
    if (!l)
        return;
    CHECK(ask(l, "usd 1", &a) == KEVO_OK && a.status == LLM_OK);
    llm_ans_release(&a);
    CHECK(ask(l, "usd 2", &a) == KEVO_OK && a.status == LLM_BUDGET);
    CHECK_MSG(has(a.detail, "cost budget spent"), "%s", a.detail);
    llm_ans_release(&a);
    llm_free(l);
}

static void test_cache(void)
{
    struct llm_cfg c;
    struct llm_ans a, b;
    char run[400];
    cfg_for(&c, LLM_OPENAI);
    run_dir("cache", run, sizeof run);
    int before = log_count();
    struct llm *l = client(&c, run);
    if (!l)
        return;
    CHECK(ask(l, "same prompt [[id:k]]", &a) == KEVO_OK && !a.cached);
    CHECK(ask(l, "same prompt [[id:k]]", &b) == KEVO_OK);
    CHECK(b.cached == 1 && b.attempts == 0 && b.cost_usd == 0 &&
          b.status == LLM_OK && a.text && b.text && !strcmp(a.text, b.text) &&
          !strcmp(a.key, b.key));
    llm_ans_release(&b);
    /* two identical requests in flight together: one is sent */
    struct llm_req r = {.kind = "rewrite", .system = "", .user = "twin",
                        .seq = -1};
    long t1, t2;
    CHECK(llm_submit(l, &r, &t1) == KEVO_OK && llm_submit(l, &r, &t2) == 0);
    CHECK(llm_wait(l, t2, &b) == KEVO_OK && b.status == LLM_OK && b.cached);
    llm_ans_release(&b);
    CHECK(llm_wait(l, t1, &b) == KEVO_OK && b.status == LLM_OK && !b.cached);
    llm_ans_release(&b);
    struct llm_usage u;
    llm_usage(l, &u);
    CHECK(u.requests == 2 && u.cached == 2);
    llm_free(l);
    CHECK(log_count() - before == 2);
    /* a new session on the same run: answers and failures from the store */
    ask_once(&c, run, "down [[case:500]] [[times:-1]] cache", &b);
    CHECK(b.status == LLM_FAILED && b.attempts == 3);
    llm_ans_release(&b);
    int mid = log_count();
    ask_once(&c, run, "same prompt [[id:k]]", &b);
    CHECK(b.cached && b.status == LLM_OK && a.text && b.text &&
          !strcmp(a.text, b.text));
    llm_ans_release(&b);
    ask_once(&c, run, "down [[case:500]] [[times:-1]] cache", &b);
    CHECK(b.cached && b.status == LLM_FAILED && b.attempts == 0 &&
          has(b.detail, "HTTP 500"));
    CHECK(log_count() == mid);
    llm_ans_release(&b);
    llm_ans_release(&a);
}

static void test_replay(void)
{
    struct llm_cfg c;
    struct llm_ans a;
    char rec[400], run[400], err[512] = "";
    char *texts[2] = {NULL, NULL};
    cfg_for(&c, LLM_ANTHROPIC);
    run_dir("recorded", rec, sizeof rec);
    struct llm *l = client(&c, rec);
    if (!l)
        return;
    for (int i = 0; i < 2; i++) {
        char user[64];
        snprintf(user, sizeof user, "variant [[id:r%d]]", i);
        CHECK(ask(l, user, &a) == KEVO_OK && a.status == LLM_OK);
        texts[i] = a.text;
        a.text = NULL;
    }
    CHECK(ask(l, "[[case:400]] replayed", &a) == KEVO_OK &&
          a.status == LLM_FAILED);
    llm_free(l);
    int before = log_count();
    llm_cfg_defaults(&c);
    snprintf(err, sizeof err, "replay:%s", rec);
    CHECK(llm_cfg_parse(err, &c, err, sizeof err) == KEVO_OK);
    run_dir("replayed", run, sizeof run);
    l = client(&c, run);
    if (!l)
        return;
    struct llm_ans b;
    for (int i = 0; i < 4; i++) {
        CHECK(ask(l, i == 0 ? "anything" : "other", &b) == KEVO_OK);
        CHECK(b.cached == 1 && b.attempts == 0);
        if (i < 2)
            CHECK(b.status == LLM_OK && texts[i] && b.text &&
                  !strcmp(b.text, texts[i]));
        else if (i == 2)
            CHECK(b.status == LLM_FAILED && has(b.detail, "HTTP 400"));
        else
            CHECK_MSG(b.status == LLM_FAILED &&
                          has(b.detail, "recorded only 3 answers"),
                      "%s", b.detail);
        llm_ans_release(&b);
    }
    CHECK(strncmp(llm_describe(l), "replay:", 7) == 0);
    llm_free(l);
    CHECK(log_count() == before); /* no request reached the server */
    char path[600], *s;
    snprintf(path, sizeof path, "%s/llm/index.jsonl", run);
    int lines = 0;
    if (fs_read_file(path, &s, NULL) == KEVO_OK) {
        for (char *p = s; *p; p++)
            lines += *p == '\n';
        free(s);
    }
    CHECK(lines == 4);
    llm_cfg_defaults(&c);
    c.provider = LLM_REPLAY;
    snprintf(c.replay_dir, sizeof c.replay_dir, "%s/nothing", tmp);
    CHECK(llm_new(&c, NULL, &l, err, sizeof err) == KEVO_ENOENT &&
          has(err, "nothing/llm/index.jsonl"));
    free(texts[0]);
    free(texts[1]);
}

/* ---- the key stays in the process */

static int file_has(const char *path, const char *a, const char *b)
{
    char *s;
    size_t n;
    if (fs_read_file(path, &s, &n))
        return 0;
    int hit = memmem(s, n, a, strlen(a)) || memmem(s, n, b, strlen(b));
    free(s);
    return hit;
}

static int tree_has_key(const char *dir, int *files)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int hit = 0;
    if (!d)
        return 0;
    while ((e = readdir(d))) {
        char p[1024];
        struct stat st;
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (stat(p, &st))
            continue;
        if (S_ISDIR(st.st_mode)) {
            hit |= tree_has_key(p, files);
        } else {
            ++*files;
            if (file_has(p, key, wrong)) {
                fprintf(stderr, "  key found in '%s'\n", p);
                hit = 1;
            }
        }
    }
    closedir(d);
    return hit;
}

static char errpath[300];

static void test_echoed_key(void)
{
    struct llm_cfg c;
    struct llm_ans a;
    char run[400], user[300];
    int files = 0;
    cfg_for(&c, LLM_OPENAI);
    run_dir("echo", run, sizeof run);
    struct llm *l = client(&c, run);
    if (!l)
        return;
    CHECK(ask(l, "[[case:echokey]] [[id:e1]]", &a) == KEVO_OK &&
          a.status == LLM_OK);
    CHECK_MSG(a.text && !has(a.text, key) &&
              has(a.text, "// served with key ***") &&
              has(a.text, "Your key *** works"), "%s", a.text);
    llm_ans_release(&a);
    /* a prompt quoting the key (a compile log of /proc/self/environ) */
    snprintf(user, sizeof user, "[[id:e2]] error: %s=%s in environ", KEY_ENV,
             key);
    CHECK(ask(l, user, &a) == KEVO_OK && a.status == LLM_OK);
    llm_ans_release(&a);
    cJSON *last = log_last();
    char *body = last ? cJSON_PrintUnformatted(last) : NULL;
    CHECK_MSG(body && !has(body, key) && has(body, KEY_ENV "=*** in"),
              "sent: %s", body ? body : "(nothing)");
    free(body);
    cJSON_Delete(last);
    llm_free(l);
    CHECK(!tree_has_key(run, &files));
    CHECK(files >= 3); /* two transcripts and the index */
    /* the credential of a base URL is a key too */
    CHECK(!secret_found("pw-of-the-proxy-77"));
    snprintf(c.base_url, sizeof c.base_url,
             "http://kevo:pw-of-the-proxy-77@127.0.0.1:%d/v1", port);
    if ((l = client(&c, NULL)))
        llm_free(l);
    CHECK(secret_found("a log line with pw-of-the-proxy-77 in it"));
}

static void test_hostile_usage(void)
{
    static const struct {
        const char *usage;
        long lo, hi; /* tokens_out counted */
    } cases[] = {
        {"1e308", 1000000000L, 1000000000L}, /* clamped, not overflowed */
        {"1e999", 1000000000L, 1000000000L},
        {"-5", 100, 2000},     /* estimated from the answer's bytes */
        {"string", 100, 2000}, /* "500": not a number */
        {"null", 100, 2000},
    };
    struct llm_cfg c;
    struct llm_ans a;
    char user[128];
    cfg_for(&c, LLM_OPENAI);
    c.price_in = c.price_out = 1;
    struct llm *l = client(&c, NULL);
    if (!l)
        return;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        snprintf(user, sizeof user, "[[usage:%s]] [[id:u%zu]]",
                 cases[i].usage, i);
        CHECK(ask(l, user, &a) == KEVO_OK && a.status == LLM_OK);
        CHECK_MSG(a.tokens_out >= cases[i].lo && a.tokens_out <= cases[i].hi &&
                  a.cost_usd >= 0 && a.tokens_in == 1000,
                  "usage %s: %ld tokens out, $%g", cases[i].usage,
                  a.tokens_out, a.cost_usd);
        llm_ans_release(&a);
    }
    struct llm_usage u;
    llm_usage(l, &u);
    CHECK(u.tokens_out > 0 && u.cost_usd > 0);
    llm_free(l);
    /* the budget is reached by a hostile answer, not passed forever */
    c.budget_tokens = 200000;
    for (int api = 0; api < 2; api++) {
        cfg_for(&c, api ? LLM_ANTHROPIC : LLM_OPENAI);
        c.budget_tokens = 200000;
        if (!(l = client(&c, NULL)))
            return;
        int before = log_count();
        snprintf(user, sizeof user, "[[usage:1e308]] [[id:b%d]]", api);
        CHECK(ask(l, user, &a) == KEVO_OK && a.status == LLM_OK);
        llm_ans_release(&a);
        CHECK(ask(l, "after the hostile answer", &a) == KEVO_OK);
        CHECK_MSG(a.status == LLM_BUDGET && log_count() - before == 1,
                  "%s: %s", llm_status_name(a.status), a.detail);
        llm_ans_release(&a);
        llm_free(l);
    }
}

static void test_key_never_written(void)
{
    int files = 0;
    CHECK(!tree_has_key(tmp, &files));
    CHECK(files >= 10); /* transcripts, indexes and the server log */
    CHECK(!file_has(errpath, key, wrong));
}

int main(void)
{
    alarm(120); /* a hang is a failure, not a stuck test run */
    snprintf(tmp, sizeof tmp, "/tmp/kevo-test-llm.XXXXXX");
    if (!mkdtemp(tmp))
        return 1;
    snprintf(logpath, sizeof logpath, "%s/server.jsonl", tmp);
    snprintf(errpath, sizeof errpath, "%s.stderr", tmp);
    snprintf(key, sizeof key, "sk-kevo-test-%d-%lld", (int)getpid(),
             fs_now_ns() % 1000000007LL);
    snprintf(wrong, sizeof wrong, "sk-kevo-wrong-%d", (int)getpid());
    setenv(KEY_ENV, key, 1);
    setenv(WRONG_ENV, wrong, 1);
    RUN(test_cfg_parse, "--llm values parse, bad ones say what is wrong");
    RUN(test_budget_parse, "--llm-budget takes tokens (200k, 2M) or dollars");
    RUN(test_missing_key, "a missing key or model is an error naming it");
    RUN(test_wire_helpers, "URLs, bodies, error messages and Retry-After "
                           "dates");
    if (start_server()) {
        fprintf(stderr, "FAIL cannot start the test LLM server\n");
        return 1;
    }
    /* everything the client says to stderr is kept and searched for keys */
    int saved = dup(2), fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, 2);
    close(fd);
    RUN(test_openai_answer, "an OpenAI answer: wire format, usage, cost, "
                            "transcript");
    RUN(test_anthropic_answer, "an Anthropic answer: headers, system, "
                               "text blocks joined");
    RUN(test_truncated, "an answer cut at max_tokens is marked truncated");
    RUN(test_retry_after, "429 with Retry-After: 1 waits a second, then "
                          "succeeds");
    RUN(test_server_errors, "5xx is retried up to max_retries, 400 is not");
    RUN(test_timeout_and_drop, "a timeout fails after retries; a dropped "
                               "connection is retried");
    RUN(test_malformed, "a malformed answer is asked again once, then fails");
    RUN(test_fatal, "401 and 404 are fatal, disable the provider and never "
                    "show the key");
    RUN(test_concurrency, "requests run concurrently up to max_inflight");
    RUN(test_budget, "a spent budget stops requests before sending");
    RUN(test_cache, "an identical prompt is answered from the transcripts");
    RUN(test_replay, "replay answers with the recorded answers in order");
    RUN(test_echoed_key, "a key echoed in an answer or quoted in a prompt is "
                         "neither stored nor sent");
    RUN(test_hostile_usage, "hostile usage numbers are clamped or estimated "
                            "and a budget still stops requests");
    stop_server();
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char *captured;
    if (fs_read_file(errpath, &captured, NULL) == KEVO_OK) {
        fputs(captured, stderr);
        free(captured);
    }
    RUN(test_key_never_written, "the API key is in no file and not on "
                                "stderr");
    if (!check_failed_) {
        char cmd[700];
        snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", tmp, errpath);
        if (system(cmd) != 0)
            fprintf(stderr, "cannot remove '%s'\n", tmp);
    }
    TEST_DONE();
}
