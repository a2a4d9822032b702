/*
 * test_gpu_nodev.c - the GPU evaluation stack on a machine without a GPU:
 * clean "needs a GPU" failures (library, worker, CLI), message framing,
 * the coordinator's watchdog against fake workers that die or hang, and
 * that every harness kernel compiles for sm_90a. Tests that need the
 * absence of a driver skip themselves where one is present.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "fsutil.h"
#include "gpu.h"
#include "gpueval.h"
#include "hx.h"
#include "jit.h"
#include "problem.h"
#include "wmsg.h"
#include "worker.h"
#include "worker_client.h"

static const char *kevo_bin(void)
{
    const char *k = getenv("KEVO");
    return k && *k ? k : NULL;
}

static void gpu_load_without_driver_is_enodev(void)
{
    if (gpu_driver_present())
        return; /* a GPU machine: nothing to test here */
    const struct gpu_api *cu = NULL;
    char err[256] = "";
    CHECK(gpu_load(&cu, err, sizeof err) == KEVO_ENODEV);
    CHECK(cu == NULL);
    CHECK_MSG(strstr(err, "libcuda.so.1 not found") &&
                  strstr(err, "needs a GPU"),
              "err = '%s'", err);
    struct gpu g;
    CHECK(gpu_open(&g, 0, err, sizeof err) == KEVO_ENODEV);
}

static void error_names_work_without_the_driver(void)
{
    CHECK(!strcmp(gpu_errname((CUresult)700), "CUDA_ERROR_ILLEGAL_ADDRESS"));
    CHECK(gpu_err_sticky((CUresult)700));
    CHECK(gpu_err_sticky((CUresult)719));
    CHECK(!gpu_err_sticky((CUresult)1));   /* invalid value: a bad launch */
    CHECK(!gpu_err_sticky((CUresult)701)); /* out of resources */
}

static void frames_round_trip_with_json_and_blob(void)
{
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    char blob[3000];
    for (size_t i = 0; i < sizeof blob; i++)
        blob[i] = (char)(i * 7);
    CHECK(wmsg_send(sv[0], WM_JOB, "{\"seq\":3}", blob, sizeof blob) == 0);
    CHECK(wmsg_send(sv[0], WM_QUIT, NULL, NULL, 0) == 0);
    struct wmsg m;
    wmsg_init(&m);
    CHECK(wmsg_recv(sv[1], 1000, &m) == 0);
    CHECK(m.type == WM_JOB);
    CHECK(m.json && !strcmp(m.json, "{\"seq\":3}"));
    CHECK(m.blob_len == sizeof blob && !memcmp(m.blob, blob, sizeof blob));
    CHECK(wmsg_recv(sv[1], 1000, &m) == 0);
    CHECK(m.type == WM_QUIT && m.json_len == 0 && m.blob == NULL);
    wmsg_release(&m);
    close(sv[0]);
    close(sv[1]);
}

static void a_silent_peer_times_out_and_a_closed_one_is_eof(void)
{
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    struct wmsg m;
    wmsg_init(&m);
    CHECK(wmsg_recv(sv[1], 50, &m) == KEVO_ETIMEOUT);
    CHECK(write(sv[0], "garbage-header!!", 16) == 16);
    CHECK(wmsg_recv(sv[1], 1000, &m) == KEVO_EPARSE);
    close(sv[0]);
    CHECK(wmsg_recv(sv[1], 1000, &m) == KEVO_EIO);
    /* writing to a closed peer is an error, not SIGPIPE */
    CHECK(wmsg_send(sv[1], WM_QUIT, NULL, NULL, 0) == KEVO_EIO);
    close(sv[1]);
}

static const char init_json[] =
    "{\"problem\":\"softmax\",\"dtype\":\"fp32\",\"shape\":[64,100],"
    "\"seed\":\"00000000000000aa\"}";

static void the_worker_says_needs_a_gpu_without_a_driver(void)
{
    if (!kevo_bin() || gpu_driver_present())
        return;
    struct wclient_opts o = {.exe = kevo_bin(), .init_json = init_json};
    struct wclient *w = NULL;
    char err[512] = "";
    CHECK(wclient_new(&o, &w, err, sizeof err) == KEVO_ENODEV);
    CHECK(w == NULL);
    CHECK_MSG(strstr(err, "needs a GPU"), "err = '%s'", err);
}

static void gpueval_without_a_driver_is_enodev(void)
{
    if (gpu_driver_present())
        return;
    struct gpueval_opts o = {.problem = problem_find("gemm"),
                             .dtype = DTYPE_FP32,
                             .shape = {3, {64, 64, 64}}};
    struct evaluator ev;
    char err[512] = "";
    CHECK(gpueval_new(&o, &ev, NULL, err, sizeof err) == KEVO_ENODEV);
    CHECK_MSG(strstr(err, "needs a GPU"), "err = '%s'", err);
}

/* A fake worker script for shell in /tmp; returns its path (the next
 * call's overwrites it), NULL if it cannot be written. */
static const char *fake_script(const char *shell, const char *name,
                               const char *body)
{
    static char path[256];
    snprintf(path, sizeof path, "/tmp/kevo-test-%ld-%s", (long)getpid(),
             name);
    FILE *f = fopen(path, "w");
    if (!f)
        return NULL;
    fprintf(f, "#!%s\n%s\n", shell, body);
    fclose(f);
    chmod(path, 0700);
    return path;
}

static const char *fake_worker(const char *name, const char *body)
{
    return fake_script("/bin/sh", name, body);
}

/* A bash fake worker's first frame: its READY (fd in $2). */
#define FAKE_READY "printf 'KVWM\\x10\\0\\0\\0\\x02\\0\\0\\0\\0\\0\\0\\0{}' >&$2\n"

/* A client of the fake worker at path (NULL: none), started and ready,
 * each phase's deadline kernel_ms; NULL (a failed check) if it does not
 * start. */
static struct wclient *fake_client(const char *path, int kernel_ms)
{
    struct wclient_opts o = {.exe = path, .init_json = init_json,
                             .kernel_timeout_ms = kernel_ms};
    struct wclient *w = NULL;
    char err[512] = "";
    int rc = path ? wclient_new(&o, &w, err, sizeof err) : KEVO_EIO;
    CHECK_MSG(rc == KEVO_OK, "wclient_new: %d %s", rc, err);
    return rc ? NULL : w;
}

static void a_worker_that_dies_at_start_is_reported(void)
{
    const char *exe = fake_worker("dies", "exit 7");
    struct wclient_opts o = {.exe = exe, .init_json = init_json};
    struct wclient *w = NULL;
    char err[512] = "";
    CHECK(exe && wclient_new(&o, &w, err, sizeof err) != KEVO_OK);
    CHECK_MSG(strstr(err, "exited with status 7") ||
                  strstr(err, "did not start"),
              "err = '%s'", err);
    unlink(exe);
}

static void a_worker_that_hangs_is_killed_at_the_deadline(void)
{
    const char *exe = fake_worker("hangs", "exec sleep 30");
    struct wclient_opts o = {.exe = exe, .init_json = init_json,
                         .init_timeout_ms = 300};
    struct wclient *w = NULL;
    char err[512] = "";
    long long t0 = fs_now_ns();
    CHECK(exe && wclient_new(&o, &w, err, sizeof err) == KEVO_ETIMEOUT);
    double ms = (fs_now_ns() - t0) / 1e6;
    CHECK_MSG(ms < 5000, "took %.0f ms", ms);
    CHECK_MSG(strstr(err, "no answer within 300 ms (phase: init)"),
              "err = '%s'", err);
    unlink(exe);
}

static int idle_calls;
/* the idle hook: counts its calls and takes 20 ms (a compile pool's
 * service), so the reply's idle_ms has something to add up */
static void count_idle(void *ud)
{
    (void)ud;
    idle_calls++;
    struct timespec ts = {0, 20 * 1000000L};
    nanosleep(&ts, NULL);
}

/* wclient_send + wclient_await (the evaluator's pipeline): one request at a time,
 * the idle hook runs while the worker works, progress is skipped and the
 * answer is the worker's. A bash fake worker writes the frames itself. */
static void send_then_await_calls_idle_while_waiting(void)
{
    static const char body[] =
        "fd=$2\n"
        "printf 'KVWM\\x10\\0\\0\\0\\x02\\0\\0\\0\\0\\0\\0\\0{}' >&$fd\n"
        "sleep 0.4\n"
        "printf 'KVWM\\x11\\0\\0\\0\\x12\\0\\0\\0\\0\\0\\0\\0"
        "{\"phase\":\"timing\"}' >&$fd\n"
        "printf 'KVWM\\x12\\0\\0\\0\\x10\\0\\0\\0\\0\\0\\0\\0"
        "{\"outcome\":\"ok\"}' >&$fd\n"
        "sleep 0.5";
    const char *path = fake_script("/bin/bash", "pipe", body);
    struct wclient *w = fake_client(path, 5000);
    if (!w) {
        if (path)
            unlink(path);
        return;
    }
    struct wclient_reply rep, rep2;
    long long sent = fs_now_ns();
    CHECK(wclient_send(w, WM_JOB, "{}", "cubin", 5, &rep) == KEVO_OK);
    CHECK(wclient_send(w, WM_JOB, "{}", NULL, 0, &rep2) == KEVO_EINTERNAL);
    idle_calls = 0;
    wclient_await(w, &rep, count_idle, NULL);
    long long got = fs_now_ns();
    CHECK_MSG(rep.status == WCLIENT_ANSWER && rep.type == WM_RESULT,
              "status %d type %d reason '%s'", rep.status, rep.type,
              rep.reason);
    CHECK(rep.json && strstr(rep.json, "\"ok\""));
    CHECK_MSG(!strcmp(rep.phase, "timing"), "phase '%s'", rep.phase);
    CHECK_MSG(idle_calls >= 2, "idle called %d times", idle_calls);
    /* the time in the hook is the reply's idle_ms (each call 20 ms or a
     * little more), the answer's reading time within the wait */
    CHECK_MSG(rep.idle_ms >= 20.0 * idle_calls &&
                  rep.idle_ms <= (got - sent) / 1e6,
              "idle %.1f ms for %d calls in %.1f ms", rep.idle_ms, idle_calls,
              (got - sent) / 1e6);
    CHECK(rep.read_ns > sent && rep.read_ns <= got);
    wclient_reply_release(&rep);
    /* the request is answered: the next one may go out */
    CHECK(wclient_send(w, WM_JOB, "{}", NULL, 0, &rep) == KEVO_OK);
    wclient_free(w);
    unlink(path);
}

/* wclient_queue (worker.h 12): a second request behind the first; the
 * answers come in order, the second's deadline counts from the first's
 * answer (the fake answers at 0.3 s and 0.6 s; a deadline of 450 ms from
 * the second's send would have killed it), at most one is queued, and a
 * worker that dies on the first loses the second (none outstanding). */
static void a_queued_request_waits_its_turn(void)
{
    static const char two[] =
        FAKE_READY
        "fd=$2\n"
        "sleep 0.3\n"
        "printf 'KVWM\\x12\\0\\0\\0\\x07\\0\\0\\0\\0\\0\\0\\0{\"n\":1}' >&$fd\n"
        "sleep 0.3\n"
        "printf 'KVWM\\x12\\0\\0\\0\\x07\\0\\0\\0\\0\\0\\0\\0{\"n\":2}' >&$fd\n"
        "sleep 2";
    const char *path = fake_script("/bin/bash", "queue", two);
    struct wclient *w = fake_client(path, 450);
    if (!w) {
        if (path)
            unlink(path);
        return;
    }
    struct wclient_reply a, b;
    CHECK(!wclient_queue(w, WM_JOB, "{}", NULL, 0)); /* none out */
    CHECK(wclient_send(w, WM_JOB, "{}", "cubin", 5, &a) == KEVO_OK);
    CHECK(wclient_queue(w, WM_JOB, "{}", "cubin", 5));
    CHECK(!wclient_queue(w, WM_JOB, "{}", NULL, 0)); /* one queued */
    CHECK(wclient_outstanding(w) == 2);
    wclient_await(w, &a, NULL, NULL);
    CHECK_MSG(a.status == WCLIENT_ANSWER && a.json && strstr(a.json, "1"),
              "first: status %d '%s' '%s'", a.status, a.json ? a.json : "",
              a.reason);
    CHECK(wclient_outstanding(w) == 1);
    memset(&b, 0, sizeof b);
    wclient_await(w, &b, NULL, NULL);
    CHECK_MSG(b.status == WCLIENT_ANSWER && b.json && strstr(b.json, "2"),
              "second: status %d '%s' '%s'", b.status, b.json ? b.json : "",
              b.reason);
    CHECK(wclient_outstanding(w) == 0 && wclient_restarts(w) == 0);
    wclient_reply_release(&a);
    wclient_reply_release(&b);
    wclient_free(w);
    unlink(path);
    /* one that dies on the first: the second is lost with it */
    const char *dies = fake_script("/bin/bash", "queue-dies",
                                   FAKE_READY "sleep 0.2; exit 9");
    if ((w = fake_client(dies, 5000))) {
        CHECK(wclient_send(w, WM_JOB, "{}", NULL, 0, &a) == KEVO_OK);
        CHECK(wclient_queue(w, WM_JOB, "{}", NULL, 0));
        wclient_await(w, &a, NULL, NULL);
        CHECK_MSG(a.status == WCLIENT_CRASHED && strstr(a.reason, "9"),
                  "status %d '%s'", a.status, a.reason);
        CHECK(wclient_outstanding(w) == 0);
        wclient_reply_release(&a);
        wclient_free(w);
    }
    if (dies)
        unlink(dies);
    /* a frame the socket cannot take whole is not queued (its write would
     * wait for the worker to read it: behind a hung job, never, and the
     * watchdog would not run); the hung job still times out */
    const char *hangs = fake_script("/bin/bash", "queue-hangs",
                                    FAKE_READY "exec sleep 30");
    size_t big = 64u << 20;
    char *blob = calloc(1, big);
    CHECK(blob);
    if (blob && (w = fake_client(hangs, 500))) {
        CHECK(wclient_send(w, WM_JOB, "{}", NULL, 0, &a) == KEVO_OK);
        long long t0 = fs_now_ns();
        CHECK(!wclient_queue(w, WM_JOB, "{}", blob, big));
        double ms = (fs_now_ns() - t0) / 1e6;
        CHECK_MSG(ms < 1000, "the refused queue took %.0f ms", ms);
        CHECK(wclient_outstanding(w) == 1);
        wclient_await(w, &a, NULL, NULL);
        CHECK_MSG(a.status == WCLIENT_TIMEOUT, "status %d '%s'", a.status,
                  a.reason);
        wclient_reply_release(&a);
        wclient_free(w);
    }
    free(blob);
    if (hangs)
        unlink(hangs);
}

/* wclient_start (the profiler's worker, started while the run compiles):
 * it returns before the worker is ready; wclient_wait_ready reads the
 * READY, a send waits for it first, a failed start is an error then, and
 * freeing one still starting does not wait for its init. */
static void a_worker_started_ahead_is_waited_for_once(void)
{
    static const char slow[] =
        "fd=$2\n"
        "sleep 0.4\n"
        "printf 'KVWM\\x10\\0\\0\\0\\x0b\\0\\0\\0\\0\\0\\0\\0"
        "{\"ready\":1}' >&$fd\n"
        "printf 'KVWM\\x12\\0\\0\\0\\x10\\0\\0\\0\\0\\0\\0\\0"
        "{\"outcome\":\"ok\"}' >&$fd\n"
        "sleep 0.5";
    const char *path = fake_script("/bin/bash", "ahead", slow);
    if (!path)
        return;
    struct wclient_opts o = {.exe = path, .init_json = init_json,
                             .kernel_timeout_ms = 5000};
    struct wclient *w = NULL;
    char err[512] = "";
    long long t0 = fs_now_ns();
    int rc = wclient_start(&o, &w, err, sizeof err);
    double start_ms = (fs_now_ns() - t0) / 1e6;
    CHECK_MSG(rc == KEVO_OK && w, "wclient_start: %d %s", rc, err);
    if (rc) {
        unlink(path);
        return;
    }
    CHECK_MSG(start_ms < 300, "wclient_start took %.0f ms", start_ms);
    CHECK(wclient_starting(w) && wclient_pid(w) > 0);
    CHECK(!strcmp(wclient_ready_json(w), "{}")); /* (none yet) */
    idle_calls = 0; /* the idle hook serves the caller's pool meanwhile */
    CHECK(wclient_wait_ready(w, count_idle, NULL, err, sizeof err) ==
          KEVO_OK);
    CHECK_MSG(idle_calls >= 2, "idle called %d times", idle_calls);
    double ready_ms = (fs_now_ns() - t0) / 1e6;
    CHECK_MSG(ready_ms >= 350, "ready after %.0f ms", ready_ms);
    CHECK(!wclient_starting(w));
    CHECK(wclient_ready_json(w) && strstr(wclient_ready_json(w), "ready"));
    CHECK(wclient_wait_ready(w, NULL, NULL, err, sizeof err) ==
          KEVO_OK); /* once */
    wclient_free(w);
    /* a send to one still starting waits for its READY, then goes out */
    w = NULL;
    CHECK(wclient_start(&o, &w, err, sizeof err) == KEVO_OK && w);
    struct wclient_reply rep;
    if (w && wclient_send(w, WM_JOB, "{}", NULL, 0, &rep) == KEVO_OK) {
        CHECK(!wclient_starting(w) && strstr(wclient_ready_json(w), "ready"));
        wclient_await(w, &rep, NULL, NULL);
        CHECK_MSG(rep.status == WCLIENT_ANSWER && rep.type == WM_RESULT,
                  "status %d type %d '%s'", rep.status, rep.type,
                  rep.reason);
        wclient_reply_release(&rep);
    } else {
        CHECK_MSG(0, "send to a starting worker failed: %s", rep.reason);
    }
    wclient_free(w);
    unlink(path);
    /* a READY that came in time, read after the init deadline (the
     * caller busy meanwhile): ready, not a timeout */
    const char *quick = fake_worker(
        "ahead-quick", "printf 'KVWM\\020\\0\\0\\0\\002\\0\\0\\0"
                       "\\0\\0\\0\\0{}' >&$2; exec sleep 5");
    struct wclient_opts oq = o;
    oq.exe = quick;
    oq.init_timeout_ms = 300;
    w = NULL;
    CHECK(quick && wclient_start(&oq, &w, err, sizeof err) == KEVO_OK);
    struct timespec late = {0, 600 * 1000000L};
    nanosleep(&late, NULL);
    if (w) {
        rc = wclient_wait_ready(w, NULL, NULL, err, sizeof err);
        CHECK_MSG(rc == KEVO_OK, "late read: %d '%s'", rc, err);
        wclient_free(w);
    }
    if (quick)
        unlink(quick);
    /* one that dies while starting: the wait says how */
    const char *dies = fake_worker("ahead-dies", "sleep 0.2; exit 7");
    struct wclient_opts od = o;
    od.exe = dies;
    w = NULL;
    rc = dies ? wclient_start(&od, &w, err, sizeof err) : KEVO_EIO;
    CHECK(rc == KEVO_OK); /* (it reads no init: the send cannot fail) */
    if (!rc) {
        err[0] = '\0';
        CHECK(wclient_wait_ready(w, NULL, NULL, err, sizeof err) !=
              KEVO_OK);
        CHECK_MSG(strstr(err, "exited with status 7"), "err = '%s'", err);
        CHECK(!wclient_starting(w) && wclient_pid(w) == 0);
        wclient_free(w);
    }
    if (dies)
        unlink(dies);
    /* freed while its init runs: killed, not waited for */
    const char *hangs = fake_worker("ahead-hangs", "exec sleep 30");
    struct wclient_opts oh = o;
    oh.exe = hangs;
    w = NULL;
    CHECK(hangs && wclient_start(&oh, &w, err, sizeof err) == KEVO_OK);
    t0 = fs_now_ns();
    wclient_free(w);
    double free_ms = (fs_now_ns() - t0) / 1e6;
    CHECK_MSG(free_ms < 1000, "free took %.0f ms", free_ms);
    if (hangs)
        unlink(hangs);
}

static int run_quiet(const char *cmd, char *out, size_t cap)
{
    FILE *p = popen(cmd, "r");
    size_t n = 0;
    if (!p)
        return -1;
    while (n + 1 < cap && fgets(out + n, (int)(cap - n), p))
        n += strlen(out + n);
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void cli_eval_and_doctor_exit_3_without_a_gpu(void)
{
    if (!kevo_bin() || gpu_driver_present())
        return;
    char cmd[1024], out[8192];
    snprintf(cmd, sizeof cmd, "'%s' doctor 2>&1", kevo_bin());
    CHECK(run_quiet(cmd, out, sizeof out) == 3);
    CHECK_MSG(strstr(out, "PASS compile") && strstr(out, "no GPU:") &&
                  strstr(out, "needs a GPU"),
              "doctor said: %s", out);
    const char *t = "/tmp/kevo-test-eval.cu";
    FILE *f = fopen(t, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fputs("// kevo: problem softmax\n// kevo: dtypes fp32\n"
          "// kevo: launch k\n// kevo: grid ROWS\n// kevo: block 32\n"
          "extern \"C\" __global__ void k(const elem_t *x, elem_t *y, int "
          "ROWS, int COLS, void *ws) {}\n", f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "'%s' eval %s --shape 64x100 2>&1", kevo_bin(),
             t);
    CHECK(run_quiet(cmd, out, sizeof out) == 3);
    CHECK_MSG(strstr(out, "needs a GPU"), "eval said: %s", out);
    snprintf(cmd, sizeof cmd, "'%s' eval 2>&1", kevo_bin());
    CHECK(run_quiet(cmd, out, sizeof out) == 2);
    snprintf(cmd, sizeof cmd, "'%s' eval --help 2>&1", kevo_bin());
    CHECK(run_quiet(cmd, out, sizeof out) == 0);
    snprintf(cmd, sizeof cmd, "'%s' doctor --help 2>&1", kevo_bin());
    CHECK(run_quiet(cmd, out, sizeof out) == 0);
    unlink(t);
}

static void harness_kernels_compile_for_sm_90a(void)
{
    struct jit_output o;
    CHECK(jit_compile(hx_core_source(), "kevo_core", "sm_90a", &o) == 0);
    CHECK_MSG(o.ok, "%s", o.log ? o.log : "");
    jit_output_release(&o);
    for (int i = 0; problem_builtin(i); i++) {
        const struct problem *p = problem_builtin(i);
        if (!p->harness_src)
            continue;
        for (int dt = 0; dt < DTYPE_COUNT; dt++) {
            if (!(p->dtype_mask & 1u << dt))
                continue;
            const char *pre = p->prelude(p, (enum dtype)dt);
            char *src = malloc(strlen(pre) + strlen(p->harness_src) + 1);
            strcpy(src, pre);
            strcat(src, p->harness_src);
            CHECK(jit_compile(src, p->name, "sm_90a", &o) == 0);
            CHECK_MSG(o.ok, "%s %s: %s", p->name, dtype_name((enum dtype)dt),
                      o.log ? o.log : "");
            jit_output_release(&o);
            free(src);
        }
    }
}

static void problems_fill_every_gpu_slot(void)
{
    for (int i = 0; problem_builtin(i); i++) {
        const struct problem *p = problem_builtin(i);
        CHECK_MSG(p->gen_inputs && p->reference && p->baseline &&
                      p->harness_src,
                  "%s", p->name);
    }
}

static void quantiles_interpolate(void)
{
    double v[5] = {1, 2, 3, 4, 5};
    CHECK(hx_quantile(v, 5, 0.5) == 3);
    CHECK(hx_quantile(v, 5, 0.0) == 1);
    CHECK(hx_quantile(v, 5, 1.0) == 5);
    CHECK(hx_quantile(v, 5, 0.9) > 4.5 && hx_quantile(v, 5, 0.9) < 4.7);
    CHECK(hx_seed(1, 0) != hx_seed(1, 1) && hx_seed(1, 0) != hx_seed(2, 0));
}

/* Feeds rep times to hx_time_stop in hx_time_loop's batches (racing: 1,
 * 2, 2, then 5 at a time) until it stops; returns why, *n the reps used. */
static enum hx_stop drive(const struct hx_time_opts *o, const double *seq,
                          int len, int *n, struct hx_time_stats *st)
{
    memset(st, 0, sizeof *st);
    double total = 0;
    *n = 0;
    while (*n < len) {
        int batch = *n == 0 ? (o->best_ns > 0 ? 1 : 3) : *n < 3 ? 3 - *n
                    : *n == 3 ? 2 : 5;
        for (int i = 0; i < batch && *n < len; i++)
            total += seq[(*n)++];
        double s[64];
        memcpy(s, seq, (size_t)*n * sizeof *s);
        for (int i = 1; i < *n; i++) /* insertion sort */
            for (int j = i; j > 0 && s[j - 1] > s[j]; j--) {
                double t = s[j];
                s[j] = s[j - 1];
                s[j - 1] = t;
            }
        st->reps = *n;
        st->median_ns = hx_quantile(s, *n, 0.5);
        st->min_ns = s[0];
        st->spread = (hx_quantile(s, *n, 0.9) - hx_quantile(s, *n, 0.1)) /
                     st->median_ns;
        enum hx_stop why = hx_time_stop(o, seq, *n, total, st);
        if (why != HX_GO)
            return why;
    }
    return HX_GO;
}

static void timing_stops_when_no_rep_comes_near_the_best(void)
{
    struct hx_time_opts o;
    struct hx_time_stats st;
    int n;
    hx_time_opts_default(&o);
    o.warmup = 0;
    o.quick_spread = 0.005;
    o.best_ns = 100;
    o.race_margin = 0.03;
    /* 4-8 % slower, too noisy for the spread stop: raced at 5 reps */
    double slow[40] = {104, 108, 104.5, 107, 105.5};
    for (int i = 5; i < 40; i++)
        slow[i] = i % 2 ? 104 : 108;
    CHECK(drive(&o, slow, 40, &n, &st) == HX_STOP_RACED);
    CHECK(n == 5 && st.raced && !st.cascaded && !st.quick);
    /* off without a margin or without a best: the cap ends it (30x the
     * first rep of timed GPU time) */
    o.race_margin = 0;
    CHECK(drive(&o, slow, 40, &n, &st) == HX_STOP_CAP);
    CHECK(n == 30 && !st.raced);
    o.race_margin = 0.03;
    o.best_ns = 0;
    CHECK(drive(&o, slow, 40, &n, &st) == HX_STOP_CAP && !st.raced);
    o.best_ns = 100;
    /* one rep within the margin (median still 5 % over): more reps */
    double near[40];
    memcpy(near, slow, sizeof near);
    near[3] = 102.9;
    CHECK(drive(&o, near, 40, &n, &st) == HX_STOP_CAP && !st.raced);
    /* 1.5x the best after one rep: the cascade, before any race */
    double far[40];
    for (int i = 0; i < 40; i++)
        far[i] = 160 + i % 3;
    CHECK(drive(&o, far, 40, &n, &st) == HX_STOP_CASCADE);
    CHECK(n == 1 && st.cascaded && !st.raced);
    /* three reps within 0.5 %: the quick stop */
    double flat[40];
    for (int i = 0; i < 40; i++)
        flat[i] = 110 + 0.1 * (i % 3);
    CHECK(drive(&o, flat, 40, &n, &st) == HX_STOP_QUICK && n == 3);
    /* converged at 5 reps (spread < 2 %): the spread stop, not raced */
    double tight[40];
    for (int i = 0; i < 40; i++)
        tight[i] = 110 + 0.3 * ((i * 2) % 5);
    CHECK(drive(&o, tight, 40, &n, &st) == HX_STOP_SPREAD);
    CHECK(n == 5 && !st.raced && !st.quick);
    /* under 1.5x after one rep, over it by the median of 3: cascaded */
    double late[40] = {140, 170, 165};
    for (int i = 3; i < 40; i++)
        late[i] = 160;
    CHECK(drive(&o, late, 40, &n, &st) == HX_STOP_CASCADE && n == 3);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    RUN(gpu_load_without_driver_is_enodev,
        "gpu init without a driver returns KEVO_ENODEV with the message");
    RUN(error_names_work_without_the_driver,
        "CUDA error names and stickiness are known without the driver");
    RUN(frames_round_trip_with_json_and_blob,
        "message frames round-trip with JSON and a binary blob");
    RUN(a_silent_peer_times_out_and_a_closed_one_is_eof,
        "a silent peer times out, a bad header is refused, a closed peer is "
        "end of file");
    RUN(the_worker_says_needs_a_gpu_without_a_driver,
        "the worker spawn fails cleanly with 'needs a GPU' on no GPU");
    RUN(gpueval_without_a_driver_is_enodev,
        "the GPU evaluator refuses to start without a driver");
    RUN(a_worker_that_dies_at_start_is_reported,
        "a worker that dies at start is reported with its exit status");
    RUN(a_worker_that_hangs_is_killed_at_the_deadline,
        "a worker that hangs is killed at the deadline, naming the phase");
    RUN(send_then_await_calls_idle_while_waiting,
        "wclient_send/wclient_await: one request at a time, idle hook while "
        "waiting, its time and the answer's arrival recorded");
    RUN(a_queued_request_waits_its_turn,
        "a request queued behind another is answered after it, its "
        "deadline from that answer; one that dies on the first loses it; "
        "one the socket cannot take whole is not queued");
    RUN(a_worker_started_ahead_is_waited_for_once,
        "wclient_start returns before the worker is ready; the wait (its "
        "idle hook called), or a send, reads its READY once, also one read "
        "after the init deadline; a failed start is reported then; one "
        "freed mid-init is killed at once");
    RUN(cli_eval_and_doctor_exit_3_without_a_gpu,
        "kevo doctor and kevo eval exit 3 with the needs-a-GPU message");
    RUN(harness_kernels_compile_for_sm_90a,
        "every harness kernel compiles for sm_90a in every dtype");
    RUN(problems_fill_every_gpu_slot,
        "every problem fills harness, inputs, reference and baseline");
    RUN(quantiles_interpolate, "quantiles interpolate and seeds differ");
    RUN(timing_stops_when_no_rep_comes_near_the_best,
        "timing stops at 5 reps when every rep is over 3 % slower than the "
        "best (racing), not without a best or a margin, nor when one rep "
        "comes near");
    TEST_DONE();
}
