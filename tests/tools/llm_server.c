/*
 * llm_server.c - a fake LLM API on loopback, for tests only: a small
 * HTTP/1.1 server (one thread per connection, "Connection: close") that
 * speaks OpenAI chat completions (POST /v1/chat/completions and
 * /chat/completions) and Anthropic Messages (POST /v1/messages).
 *
 *   llm_server [--port N] [--log FILE] [--key-env VAR] [--lifetime S]
 *              [--answers DIR] [--mode CASE] [--usage JSON]
 *
 * Prints the port it listens on (port 0 = any free one) as the first line
 * of stdout. Each request is logged to FILE as one JSON line: method,
 * path, api, whether the key was present and correct ("auth": "ok",
 * "wrong", "none"; never the key itself), the anthropic-version header
 * and the parsed JSON body. With --key-env the expected key is read from
 * that variable and a wrong or missing key gets the API's 401.
 *
 * Behaviour is chosen by markers in the request body (the user text):
 *   [[case:NAME]]  ok (default), blocks, 429, 500, 400, slow, drop,
 *                  malformed, nocontent, truncated, 401, 401echo, 404,
 *                  nocode, wrongabi, undeclared, hang (read the request,
 *                  never answer, hold the connection until the client
 *                  closes it), echokey (an ok answer that quotes the
 *                  request's key in its prose and in a code comment)
 *   [[times:N]]    429/500/drop/malformed fail the first N requests with
 *                  this exact body, then answer ok (default 1; -1 always)
 *   [[delay:MS]]   wait before answering (slow: default 2000)
 *   [[id:TEXT]]    echoed in the answer ("id: TEXT") to match answers
 *   [[usage:JSON]] the answer's output token count as this JSON text
 *                  (1e308, -5, null; "string" gives the string "500")
 * --mode CASE is the case of requests without a [[case:]] marker (for
 * engine tests, whose prompts carry none). --usage JSON puts JSON (any
 * text: 1e308, -5, "12", null) as the answer's output token count.
 * With --answers DIR, the n-th request that gets a normal answer is
 * answered with the text of the (n mod count)-th file of DIR (sorted by
 * name): realistic model answers for engine tests.
 * Model "no-such-model" gets the API's 404. Answers report usage of 1000
 * input and 500 output tokens (truncated: 1000 and the request's
 * max_tokens). The process ends after --lifetime seconds (default 120).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>
#include <dirent.h>

#include "hash.h"

#define HEAD_CAP 65536
#define BODY_CAP (8 << 20)
#define MAX_SEEN 4096

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static FILE *logf_;          /* request log, NULL = none */
static const char *want_key; /* NULL = any key is fine */
static long n_requests;
static uint64_t seen_hash[MAX_SEEN]; /* bodies seen, for [[times:N]] */
static int seen_count[MAX_SEEN];
static int n_seen;
static const char *mode = "ok"; /* --mode: case without a marker */
static const char *usage_raw;   /* --usage: raw output token count */

enum api { API_OPENAI, API_ANTHROPIC };

struct req {
    char method[16], path[256];
    char auth[512];   /* Authorization or x-api-key value */
    char version[64]; /* anthropic-version */
    long content_length;
    int expect_continue;
    char *body;
    enum api api;
};

static const char tpl_ok[] =
    "// kevo: problem gemm\n"
    "// kevo: dtypes fp32\n"
    "// kevo: param TILE 16 32 default=16\n"
    "// kevo: launch gemm_llm\n"
    "// kevo: grid cdiv(N, TILE), cdiv(M, TILE)\n"
    "// kevo: block TILE, TILE\n"
    "extern \"C\" __global__ void gemm_llm(const elem_t *__restrict__ A,\n"
    "    const elem_t *__restrict__ B, elem_t *__restrict__ C, int M,\n"
    "    int N, int K, void *ws)\n"
    "{\n"
    "    __shared__ float As[TILE][TILE + 1], Bs[TILE][TILE + 1];\n"
    "    int tx = threadIdx.x, ty = threadIdx.y;\n"
    "    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;\n"
    "    float acc = 0.f;\n"
    "    for (int k0 = 0; k0 < K; k0 += TILE) {\n"
    "        As[ty][tx] = row < M && k0 + tx < K\n"
    "            ? TO_F32(A[(long long)row * K + k0 + tx]) : 0.f;\n"
    "        Bs[ty][tx] = k0 + ty < K && col < N\n"
    "            ? TO_F32(B[(long long)(k0 + ty) * N + col]) : 0.f;\n"
    "        __syncthreads();\n"
    "#pragma unroll\n"
    "        for (int k = 0; k < TILE; ++k)\n"
    "            acc = fmaf(As[ty][k], Bs[k][tx], acc);\n"
    "        __syncthreads();\n"
    "    }\n"
    "    if (row < M && col < N)\n"
    "        C[(long long)row * N + col] = FROM_F32(acc);\n"
    "}\n";

static const char tpl_wrong_abi[] =
    "// kevo: problem gemm\n"
    "// kevo: dtypes fp32\n"
    "// kevo: param TILE 16 32 default=16\n"
    "// kevo: launch gemm_llm\n"
    "// kevo: grid cdiv(N, TILE), cdiv(M, TILE)\n"
    "// kevo: block TILE, TILE\n"
    "extern \"C\" __global__ void gemm_llm(float *C, const float *A,\n"
    "    const float *B, int N)\n"
    "{\n"
    "    int i = blockIdx.x * TILE + threadIdx.x;\n"
    "    if (i < N) C[i] = A[i] * B[i];\n"
    "}\n";

static const char tpl_undeclared[] =
    "// kevo: problem gemm\n"
    "// kevo: dtypes fp32\n"
    "// kevo: param TILE 16 32 default=16\n"
    "// kevo: launch gemm_llm\n"
    "// kevo: grid cdiv(N, TILE), cdiv(M, TILE)\n"
    "// kevo: block TILE, TILE\n"
    "extern \"C\" __global__ void gemm_llm(const elem_t *__restrict__ A,\n"
    "    const elem_t *__restrict__ B, elem_t *__restrict__ C, int M,\n"
    "    int N, int K, void *ws)\n"
    "{\n"
    "    int row = blockIdx.y * TILE + threadIdx.y;\n"
    "    int col = blockIdx.x * TILE + threadIdx.x;\n"
    "    float acc = 0.f;\n"
    "    for (int k = 0; k < K; k += UNROLL) /* UNROLL: not declared */\n"
    "        acc += TO_F32(A[(long long)row * K + k]) *\n"
    "               TO_F32(B[(long long)k * N + col]);\n"
    "    if (row < M && col < N)\n"
    "        C[(long long)row * N + col] = FROM_F32(acc);\n"
    "}\n";

/* ---- I/O */

static int send_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) && errno == EINTR)
        ;
}

static const char *reason(int code)
{
    switch (code) {
    case 200:
        return "OK";
    case 400:
        return "Bad Request";
    case 401:
        return "Unauthorized";
    case 404:
        return "Not Found";
    case 429:
        return "Too Many Requests";
    default:
        return "Internal Server Error";
    }
}

static void respond(int fd, int code, const char *extra, const char *body)
{
    char head[512];
    snprintf(head, sizeof head,
             "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\n"
             "Content-Length: %zu\r\nConnection: close\r\n%s\r\n",
             code, reason(code), strlen(body), extra ? extra : "");
    if (send_all(fd, head, strlen(head)) == 0)
        send_all(fd, body, strlen(body));
}

/* ---- request parsing */

static void header_value(const char *line, const char *name, char *out,
                         size_t cap)
{
    size_t n = strlen(name);
    if (strncasecmp(line, name, n) != 0 || line[n] != ':')
        return;
    const char *v = line + n + 1;
    while (*v == ' ')
        v++;
    snprintf(out, cap, "%s", v);
}

static int parse_head(char *head, struct req *r)
{
    char *save = NULL, *line = strtok_r(head, "\r\n", &save);
    if (!line || sscanf(line, "%15s %255s", r->method, r->path) != 2)
        return -1;
    while ((line = strtok_r(NULL, "\r\n", &save))) {
        char cl[32] = "", ex[64] = "", bearer[520] = "";
        header_value(line, "content-length", cl, sizeof cl);
        header_value(line, "expect", ex, sizeof ex);
        header_value(line, "authorization", bearer, sizeof bearer);
        header_value(line, "x-api-key", r->auth, sizeof r->auth);
        header_value(line, "anthropic-version", r->version, sizeof r->version);
        if (cl[0])
            r->content_length = atol(cl);
        if (strncasecmp(ex, "100-continue", 12) == 0)
            r->expect_continue = 1;
        if (strncmp(bearer, "Bearer ", 7) == 0)
            snprintf(r->auth, sizeof r->auth, "%s", bearer + 7);
    }
    return 0;
}

static int read_request(int fd, struct req *r)
{
    char *buf = malloc(HEAD_CAP + 1), *end = NULL;
    size_t n = 0;
    if (!buf)
        return -1;
    while (!end && n < HEAD_CAP) {
        ssize_t k = recv(fd, buf + n, HEAD_CAP - n, 0);
        if (k <= 0) {
            free(buf);
            return -1;
        }
        n += (size_t)k;
        buf[n] = '\0';
        end = strstr(buf, "\r\n\r\n");
    }
    if (!end) {
        free(buf);
        return -1;
    }
    size_t head_len = (size_t)(end - buf) + 4, have = n - head_len;
    end[2] = '\0';
    if (parse_head(buf, r) || r->content_length < 0 ||
        r->content_length > BODY_CAP || have > (size_t)r->content_length) {
        free(buf);
        return -1;
    }
    r->body = malloc((size_t)r->content_length + 1);
    if (r->body)
        memcpy(r->body, buf + head_len, have);
    free(buf);
    if (!r->body)
        return -1;
    if (r->expect_continue && have < (size_t)r->content_length)
        send_all(fd, "HTTP/1.1 100 Continue\r\n\r\n", 25);
    while (have < (size_t)r->content_length) {
        ssize_t k =
            recv(fd, r->body + have, (size_t)r->content_length - have, 0);
        if (k <= 0)
            return -1;
        have += (size_t)k;
    }
    r->body[have] = '\0';
    return 0;
}

/* ---- markers and state */

static void marker(const char *body, const char *name, char *out, size_t cap)
{
    char open[32];
    snprintf(open, sizeof open, "[[%s:", name);
    const char *p = strstr(body, open);
    out[0] = '\0';
    if (!p)
        return;
    p += strlen(open);
    const char *q = strstr(p, "]]");
    size_t n = q ? (size_t)(q - p) : 0;
    if (n >= cap)
        n = cap - 1;
    memcpy(out, p, n);
    out[n] = '\0';
}

static long marker_long(const char *body, const char *name, long dflt)
{
    char v[32];
    marker(body, name, v, sizeof v);
    return v[0] ? atol(v) : dflt;
}

/* How many earlier requests had exactly this body. */
static int times_seen(const char *body)
{
    uint64_t h = hash_final(hash_str(HASH_SEED, body));
    int k = 0;
    pthread_mutex_lock(&mu);
    int i;
    for (i = 0; i < n_seen && seen_hash[i] != h; i++)
        ;
    if (i < n_seen) {
        k = seen_count[i]++;
    } else if (n_seen < MAX_SEEN) {
        seen_hash[n_seen] = h;
        seen_count[n_seen++] = 1;
    }
    pthread_mutex_unlock(&mu);
    return k;
}

static const char *auth_state(const struct req *r)
{
    if (!r->auth[0])
        return "none";
    return !want_key || strcmp(r->auth, want_key) == 0 ? "ok" : "wrong";
}

static void log_request(const struct req *r, const cJSON *body)
{
    cJSON *o = cJSON_CreateObject();
    pthread_mutex_lock(&mu);
    cJSON_AddNumberToObject(o, "n", (double)n_requests++);
    cJSON_AddStringToObject(o, "method", r->method);
    cJSON_AddStringToObject(o, "path", r->path);
    cJSON_AddStringToObject(o, "api",
                            r->api == API_OPENAI ? "openai" : "anthropic");
    cJSON_AddStringToObject(o, "auth", auth_state(r));
    if (r->version[0])
        cJSON_AddStringToObject(o, "anthropic_version", r->version);
    else
        cJSON_AddNullToObject(o, "anthropic_version");
    if (body)
        cJSON_AddItemToObject(o, "body", cJSON_Duplicate(body, 1));
    else
        cJSON_AddStringToObject(o, "body", r->body);
    char *s = cJSON_PrintUnformatted(o);
    if (logf_ && s) {
        fprintf(logf_, "%s\n", s);
        fflush(logf_);
    }
    pthread_mutex_unlock(&mu);
    free(s);
    cJSON_Delete(o);
}

/* ---- answers */

static char **answer_files; /* --answers: texts, sorted by file name */
static int n_answer_files;
static long n_answered;

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int load_answers(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char *names[256];
    int n = 0;
    if (!d)
        return -1;
    while ((e = readdir(d)) && n < 256)
        if (e->d_name[0] != '.')
            names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp_str);
    answer_files = calloc((size_t)n + 1, sizeof *answer_files);
    for (int i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        free(names[i]);
        FILE *f = fopen(path, "rb");
        if (!f)
            return -1;
        fseek(f, 0, SEEK_END);
        long len = ftell(f);
        fseek(f, 0, SEEK_SET);
        char *t = malloc((size_t)len + 1);
        if (!t || fread(t, 1, (size_t)len, f) != (size_t)len) {
            fclose(f);
            return -1;
        }
        t[len] = '\0';
        fclose(f);
        answer_files[n_answer_files++] = t;
    }
    return n_answer_files ? 0 : -1;
}

/* t with key quoted in a sentence before it and in a comment at the
 * top of its first code block (echokey). New string. */
static char *with_key(const char *t, const char *key)
{
    const char *fence = strstr(t, "```cuda\n");
    size_t at = fence ? (size_t)(fence - t) + 8 : 0;
    size_t n = strlen(t) + 2 * strlen(key) + 128;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "Your key %s works.\n%.*s// served with key %s\n%s",
                 key, (int)at, t, key, t + at);
    return s;
}

static char *answer_text(const char *kase, const char *id, const char *key)
{
    if (strcmp(kase, "echokey") == 0) {
        char *t = answer_text("ok", id, key);
        char *s = t ? with_key(t, key) : NULL;
        free(t);
        return s;
    }
    if (n_answer_files && strcmp(kase, "ok") == 0) {
        pthread_mutex_lock(&mu);
        const char *t = answer_files[n_answered++ % n_answer_files];
        pthread_mutex_unlock(&mu);
        return strdup(t);
    }
    const char *code = tpl_ok, *intro = "Here is a tiled variant.";
    if (strcmp(kase, "nocode") == 0)
        code = NULL, intro = "I would tile the loads and unroll the k loop.";
    else if (strcmp(kase, "wrongabi") == 0)
        code = tpl_wrong_abi;
    else if (strcmp(kase, "undeclared") == 0)
        code = tpl_undeclared;
    size_t n = strlen(intro) + (code ? strlen(code) : 0) + strlen(id) + 64;
    char *s = malloc(n);
    if (!s)
        return NULL;
    if (code)
        snprintf(s, n, "%s\n\n```cuda\n%s```\nid: %s\n", intro, code, id);
    else
        snprintf(s, n, "%s\nid: %s\n", intro, id);
    if (strcmp(kase, "truncated") == 0)
        s[strlen(s) / 2] = '\0'; /* cut inside the code block */
    return s;
}

static char *ok_body(const struct req *r, const char *kase, const char *id,
                     const cJSON *req)
{
    char raw[64];
    const char *usage_text = usage_raw;
    marker(r->body, "usage", raw, sizeof raw);
    if (raw[0])
        usage_text = strcmp(raw, "string") == 0 ? "\"500\"" : raw;
    char *text = answer_text(kase, id, r->auth);
    int cut = strcmp(kase, "truncated") == 0;
    const cJSON *mt = cJSON_GetObjectItem(req, "max_tokens");
    if (!mt)
        mt = cJSON_GetObjectItem(req, "max_completion_tokens");
    double out_tokens = cut && cJSON_IsNumber(mt) ? mt->valuedouble : 500;
    cJSON *o = cJSON_CreateObject(), *usage;
    if (r->api == API_OPENAI) {
        cJSON_AddStringToObject(o, "id", "chatcmpl-test");
        cJSON_AddStringToObject(o, "object", "chat.completion");
        cJSON *ch = cJSON_AddArrayToObject(o, "choices");
        cJSON *c0 = cJSON_CreateObject();
        cJSON *m = cJSON_AddObjectToObject(c0, "message");
        cJSON_AddStringToObject(m, "role", "assistant");
        cJSON_AddStringToObject(m, "content", text ? text : "");
        cJSON_AddNullToObject(m, "refusal");
        cJSON_AddStringToObject(c0, "finish_reason", cut ? "length" : "stop");
        cJSON_AddItemToArray(ch, c0);
        usage = cJSON_AddObjectToObject(o, "usage");
        cJSON_AddNumberToObject(usage, "prompt_tokens", 1000);
        if (usage_text)
            cJSON_AddRawToObject(usage, "completion_tokens", usage_text);
        else
            cJSON_AddNumberToObject(usage, "completion_tokens", out_tokens);
    } else {
        cJSON_AddStringToObject(o, "id", "msg_test");
        cJSON_AddStringToObject(o, "type", "message");
        cJSON_AddStringToObject(o, "role", "assistant");
        cJSON *content = cJSON_AddArrayToObject(o, "content");
        size_t half =
            strcmp(kase, "blocks") == 0 && text ? strlen(text) / 2 : 0;
        for (int i = 0; i < (half ? 2 : 1); i++) {
            cJSON *b = cJSON_CreateObject();
            char *part = text ? strdup(i ? text + half : text) : strdup("");
            if (half && i == 0 && part)
                part[half] = '\0';
            cJSON_AddStringToObject(b, "type", "text");
            cJSON_AddStringToObject(b, "text", part ? part : "");
            cJSON_AddItemToArray(content, b);
            free(part);
        }
        cJSON_AddStringToObject(o, "stop_reason",
                                cut ? "max_tokens" : "end_turn");
        usage = cJSON_AddObjectToObject(o, "usage");
        cJSON_AddNumberToObject(usage, "input_tokens", 1000);
        if (usage_text)
            cJSON_AddRawToObject(usage, "output_tokens", usage_text);
        else
            cJSON_AddNumberToObject(usage, "output_tokens", out_tokens);
    }
    char *s = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    free(text);
    return s;
}

static char *error_body(enum api api, const char *type, const char *msg)
{
    cJSON *o = cJSON_CreateObject(), *e;
    if (api == API_ANTHROPIC)
        cJSON_AddStringToObject(o, "type", "error");
    e = cJSON_AddObjectToObject(o, "error");
    cJSON_AddStringToObject(e, "type", type);
    cJSON_AddStringToObject(e, "message", msg);
    char *s = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return s;
}

static void send_error(int fd, const struct req *r, int code, const char *extra,
                       const char *type, const char *msg)
{
    char *b = error_body(r->api, type, msg);
    respond(fd, code, extra, b ? b : "{}");
    free(b);
}

static void send_401(int fd, const struct req *r, int echo)
{
    char msg[700];
    if (r->api == API_ANTHROPIC)
        snprintf(msg, sizeof msg, "invalid x-api-key%s%s", echo ? ": " : "",
                 echo ? r->auth : "");
    else
        snprintf(msg, sizeof msg,
                 "Incorrect API key provided: %s. You can "
                 "find your API key at https://platform.openai.com.",
                 echo ? r->auth : "sk-****");
    send_error(fd, r, 401, NULL,
               r->api == API_ANTHROPIC ? "authentication_error"
                                       : "invalid_request_error",
               msg);
}

static void send_404_model(int fd, const struct req *r, const char *model)
{
    char msg[300];
    if (r->api == API_ANTHROPIC)
        snprintf(msg, sizeof msg, "model: %.200s", model);
    else
        snprintf(msg, sizeof msg,
                 "The model `%.200s` does not exist or you "
                 "do not have access to it.",
                 model);
    send_error(fd, r, 404, NULL,
               r->api == API_ANTHROPIC ? "not_found_error"
                                       : "invalid_request_error",
               msg);
}

/* Sends a 200 head promising more body than follows, then hangs up. */
static void send_drop(int fd)
{
    static const char part[] =
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
        "Content-Length: 4000\r\nConnection: close\r\n\r\n"
        "{\"id\":\"chatcmpl-test\",\"choices\":[{\"message\":{\"content\":"
        "\"Here";
    send_all(fd, part, sizeof part - 1);
}

static int failing(const char *kase, const char *body)
{
    if (strcmp(kase, "429") && strcmp(kase, "500") && strcmp(kase, "drop") &&
        strcmp(kase, "malformed"))
        return 0;
    long times = marker_long(body, "times", 1);
    int seen = times_seen(body);
    return times < 0 || seen < times;
}

static void serve(int fd, struct req *r)
{
    cJSON *req = cJSON_Parse(r->body);
    log_request(r, req);
    char kase[32], id[64];
    marker(r->body, "case", kase, sizeof kase);
    marker(r->body, "id", id, sizeof id);
    if (!kase[0])
        snprintf(kase, sizeof kase, "%s", mode);
    if (strcmp(kase, "hang") == 0) { /* until the client gives up */
        char b[256];
        while (recv(fd, b, sizeof b, 0) > 0)
            ;
        cJSON_Delete(req);
        return;
    }
    const cJSON *model = cJSON_GetObjectItem(req, "model");
    long delay =
        marker_long(r->body, "delay", strcmp(kase, "slow") == 0 ? 2000 : 0);
    if (delay > 0)
        sleep_ms(delay);
    if (!req || !cJSON_IsString(model)) {
        send_error(fd, r, 400, NULL, "invalid_request_error",
                   "body is not JSON with a model");
    } else if (strcmp(auth_state(r), "ok") != 0 || strcmp(kase, "401") == 0 ||
               strcmp(kase, "401echo") == 0) {
        send_401(fd, r, strcmp(kase, "401echo") == 0);
    } else if (strcmp(model->valuestring, "no-such-model") == 0 ||
               strcmp(kase, "404") == 0) {
        send_404_model(fd, r, model->valuestring);
    } else if (strcmp(kase, "400") == 0) {
        send_error(fd, r, 400, NULL, "invalid_request_error",
                   "max_tokens: must be at most 4096");
    } else if (failing(kase, r->body)) {
        if (strcmp(kase, "429") == 0)
            send_error(fd, r, 429, "Retry-After: 1\r\n", "rate_limit_error",
                       "Rate limit reached, please try again in 1s");
        else if (strcmp(kase, "500") == 0)
            send_error(fd, r, 500, NULL, "api_error", "Internal server error");
        else if (strcmp(kase, "drop") == 0)
            send_drop(fd);
        else
            respond(fd, 200, NULL,
                    "{\"id\": \"chatcmpl-test\", \"choices\": [");
    } else if (strcmp(kase, "nocontent") == 0) {
        respond(fd, 200, NULL,
                r->api == API_OPENAI
                    ? "{\"id\":\"chatcmpl-test\",\"choices\":[]}"
                    : "{\"id\":\"msg_test\",\"type\":\"message\"}");
    } else {
        char *b = ok_body(r, kase, id, req);
        respond(fd, 200, NULL, b ? b : "{}");
        free(b);
    }
    cJSON_Delete(req);
}

static void *conn_main(void *arg)
{
    int fd = (int)(intptr_t)arg;
    struct req r;
    memset(&r, 0, sizeof r);
    if (read_request(fd, &r) == 0) {
        int openai = strcmp(r.path, "/v1/chat/completions") == 0 ||
                     strcmp(r.path, "/chat/completions") == 0;
        int anthropic = strcmp(r.path, "/v1/messages") == 0;
        r.api = anthropic ? API_ANTHROPIC : API_OPENAI;
        if (strcmp(r.method, "POST") || (!openai && !anthropic)) {
            log_request(&r, NULL);
            send_error(fd, &r, 404, NULL, "not_found_error", "no such route");
        } else {
            serve(fd, &r);
        }
    }
    free(r.body);
    shutdown(fd, SHUT_WR);
    close(fd);
    return NULL;
}

static int usage(void)
{
    fprintf(stderr, "usage: llm_server [--port N] [--log FILE] "
                    "[--key-env VAR] [--lifetime S] [--answers DIR]\n"
                    "                  [--mode CASE] [--usage JSON]\n");
    return 2;
}

int main(int argc, char **argv)
{
    int port = 0, lifetime = 120;
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc)
            return usage();
        if (strcmp(argv[i], "--port") == 0) {
            port = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--lifetime") == 0) {
            lifetime = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--key-env") == 0) {
            want_key = getenv(argv[++i]);
        } else if (strcmp(argv[i], "--mode") == 0) {
            mode = argv[++i];
        } else if (strcmp(argv[i], "--usage") == 0) {
            usage_raw = argv[++i];
        } else if (strcmp(argv[i], "--answers") == 0) {
            if (load_answers(argv[++i])) {
                fprintf(stderr, "llm_server: no answer files in '%s'\n",
                        argv[i]);
                return 1;
            }
        } else if (strcmp(argv[i], "--log") == 0) {
            if (!(logf_ = fopen(argv[++i], "a"))) {
                fprintf(stderr, "llm_server: cannot open '%s'\n", argv[i]);
                return 1;
            }
        } else {
            return usage();
        }
    }
    signal(SIGPIPE, SIG_IGN);
    alarm((unsigned)lifetime);
    int s = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t alen = sizeof a;
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) || listen(s, 64) ||
        getsockname(s, (struct sockaddr *)&a, &alen)) {
        perror("llm_server: cannot listen on 127.0.0.1");
        return 1;
    }
    printf("%d\n", ntohs(a.sin_port));
    fflush(stdout);
    for (;;) {
        int fd = accept(s, NULL, NULL);
        if (fd < 0) {
            if (errno == EINTR)
                continue;
            perror("llm_server: accept");
            return 1;
        }
        pthread_t t;
        if (pthread_create(&t, NULL, conn_main, (void *)(intptr_t)fd))
            close(fd);
        else
            pthread_detach(t);
    }
}
