/*
 * cmd_sanitize.c - the sanitizer pass over a run's winner (see
 * cmd_sanitize.h): `kevo verify --sanitize`, the one-shot probe process it
 * wraps, sanitize.json, and the gate promote and export pass through. The
 * record is its own file, apart from verify.json: the two passes answer
 * different questions (is it fast, is it memory-safe) and run apart.
 */
#include "cmd_sanitize.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "cli.h"
#include "fsutil.h"
#include "record.h"
#include "rundir.h"
#include "sanitizer.h"
#include "sanprobe.h"

#define DEFAULT_TIMEOUT_S 600
#define RECORD "sanitize.json"

static const char usage[] =
    "usage: kevo verify --sanitize <run-dir> [--sanitizer-path PATH]\n"
    "                   [--sanitize-timeout SECONDS] [--json]\n"
    "\n"
    "Runs the run's winner under compute-sanitizer: memcheck (out-of-bounds\n"
    "and misaligned accesses), racecheck (shared-memory races), synccheck\n"
    "(barrier misuse) and initcheck (reads of memory never written), one\n"
    "call each at the run's shape, on buffers of exactly their size (no\n"
    "guard bands), in a one-shot process. Writes <run-dir>/sanitize.json;\n"
    "a finding blocks kevo promote and kevo export of that kernel.\n"
    "\n"
    "  --sanitizer-path PATH  compute-sanitizer to use (default:\n"
    "                         $CUDA_HOME/bin/compute-sanitizer, else PATH)\n"
    "  --sanitize-timeout S   per tool (default 600)\n"
    "  --json                 print sanitize.json on stdout\n"
    "\n"
    "exit status: 0 clean, 1 a finding, a failed tool or an error, 2 usage,\n"
    "3 no GPU\n";

/* ---- the probe process */

int cmd_sanprobe_main(int argc, char **argv)
{
    struct run_view rv;
    char err[1024], rel[256];
    if (argc != 2) {
        fprintf(stderr, "usage: kevo __sanitize-probe <run-dir>\n");
        return EXIT_USAGE;
    }
    rundir_run_problem_code(1); /* it evaluates: a PyTorch module runs */
    if (run_view_load(argv[1], &rv, err, sizeof err)) {
        fprintf(stderr, "kevo sanitize probe: %s\n", err);
        return EXIT_ERROR;
    }
    int rc = KEVO_ENOENT;
    char *src = rv.has_best && rv.best_tpl
                    ? run_view_source(&rv, rel, sizeof rel) : NULL;
    if (!src)
        snprintf(err, sizeof err, "run '%s' has no winner to probe",
                 argv[1]);
    else
        rc = sanprobe_run(rv.prob, rv.spec.dtype, &rv.spec.shape,
                          rv.best_tpl, rv.best_vals, src, err, sizeof err);
    free(src);
    run_view_release(&rv);
    if (rc)
        fprintf(stderr, "kevo sanitize probe: %s\n", err);
    else
        fprintf(stderr, "kevo sanitize probe: the winner ran once\n");
    return !rc ? EXIT_DONE : rc == KEVO_ENODEV ? SAN_PROBE_NODEV : EXIT_ERROR;
}

/* ---- the pass */

static cJSON *tool_json(const char *tool, const struct san_result *r)
{
    cJSON *t = cJSON_CreateObject();
    cJSON_AddStringToObject(t, "tool", tool);
    cJSON_AddStringToObject(t, "result", san_status_name(r->status));
    cJSON_AddNumberToObject(t, "errors", r->errors);
    cJSON_AddNumberToObject(t, "exit", r->exit_code);
    cJSON_AddStringToObject(t, "first", r->status == SAN_FINDINGS ? r->first
                                                                  : r->detail);
    return t;
}

static int write_record(const struct run_view *rv, cJSON *j, char *err,
                        size_t errcap)
{
    char path[4096], *text = cJSON_Print(j);
    int rc = text ? rundir_path(path, sizeof path, rv->dir, RECORD)
                  : KEVO_ENOMEM;
    if (!rc)
        rc = fs_write_atomic(path, text, strlen(text));
    if (rc)
        snprintf(err, errcap, "cannot write '%s/%s': %s", rv->dir, RECORD,
                 kevo_strerror(rc));
    free(text);
    return rc;
}

static cJSON *record_head(const struct run_view *rv, const char *sanitizer)
{
    char shape[128];
    problem_format_shape(&rv->spec.shape, shape, sizeof shape);
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "kernel", rv->best_hex);
    cJSON_AddStringToObject(j, "template", rv->best_tpl->name);
    cJSON_AddStringToObject(j, "dtype", dtype_name(rv->spec.dtype));
    cJSON_AddStringToObject(j, "shape", shape);
    cJSON_AddStringToObject(j, "sanitizer", sanitizer);
    cJSON_AddNumberToObject(j, "date", (double)time(NULL));
    return j;
}

/* Runs every tool; stops at the first that finds no GPU. */
static int run_tools(const struct run_view *rv, const char *sanitizer,
                     const struct sanitize_opts *o, cJSON *tools, int *n_bad,
                     char *err, size_t errcap)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        snprintf(err, errcap, "cannot find the kevo binary (/proc/self/exe)");
        return KEVO_ENOENT;
    }
    exe[n] = '\0';
    char *argv[] = {exe, "__sanitize-probe", (char *)rv->dir, NULL};
    for (int i = 0; i < SAN_N_TOOLS; i++) {
        struct san_result r;
        if (!o->quiet)
            fprintf(stderr, "sanitizer pass: %s ...\n", san_tools[i]);
        int rc = san_run(sanitizer, san_tools[i], argv,
                         o->timeout_s > 0 ? o->timeout_s : DEFAULT_TIMEOUT_S,
                         &r);
        if (rc) {
            snprintf(err, errcap, "cannot run '%s'", sanitizer);
            return rc;
        }
        if (r.status == SAN_NODEV) {
            snprintf(err, errcap, "the sanitizer pass needs a GPU: %s",
                     r.detail);
            return KEVO_ENODEV;
        }
        *n_bad += r.status != SAN_CLEAN;
        if (!o->quiet)
            fprintf(stderr, "sanitizer pass: %s: %s%s%s\n", san_tools[i],
                    san_status_name(r.status),
                    r.status == SAN_CLEAN ? "" : ": ",
                    r.status == SAN_FINDINGS ? r.first : r.detail);
        cJSON_AddItemToArray(tools, tool_json(san_tools[i], &r));
    }
    return KEVO_OK;
}

static const char *verdict_of(const cJSON *tools)
{
    int findings = 0, failed = 0;
    const cJSON *t;
    cJSON_ArrayForEach(t, tools) {
        const char *r = record_str(t, "result");
        findings |= r && !strcmp(r, "findings");
        failed |= !r || strcmp(r, "clean");
    }
    return findings ? "findings" : failed ? "failed" : "clean";
}

int sanitize_run(const struct run_view *rv, const struct sanitize_opts *o,
                 int *clean, char *err, size_t errcap)
{
    char sanitizer[4096];
    *clean = 0;
    if (!rv->has_best || !rv->best_tpl) {
        snprintf(err, errcap, "run '%s' has no winner to sanitize", rv->dir);
        return KEVO_ENOENT;
    }
    int rc = san_find(o->sanitizer, sanitizer, sizeof sanitizer, err, errcap);
    if (rc)
        return rc;
    cJSON *j = record_head(rv, sanitizer);
    cJSON *tools = cJSON_AddArrayToObject(j, "tools");
    int n_bad = 0;
    rc = run_tools(rv, sanitizer, o, tools, &n_bad, err, errcap);
    if (!rc) {
        const char *v = verdict_of(tools);
        cJSON_AddStringToObject(j, "verdict", v);
        *clean = !strcmp(v, "clean");
        rc = write_record(rv, j, err, errcap);
    }
    cJSON_Delete(j);
    return rc;
}

/* ---- reading the record */

/* sanitize.json of dir, or NULL. Caller deletes. */
static cJSON *load_record(const char *dir)
{
    char path[4096], *text = NULL;
    if (rundir_path(path, sizeof path, dir, RECORD) ||
        fs_read_file_max(path, 1 << 20, &text, NULL))
        return NULL;
    cJSON *j = cJSON_Parse(text);
    free(text);
    if (j && !cJSON_IsObject(j)) {
        cJSON_Delete(j);
        j = NULL;
    }
    return j;
}

/* The first finding (or failure) of record j, "tool: text". */
static void first_of(const cJSON *j, char *out, size_t cap)
{
    const cJSON *t;
    out[0] = '\0';
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(j, "tools")) {
        const char *r = record_str(t, "result"), *f = record_str(t, "first");
        if (r && strcmp(r, "clean")) {
            snprintf(out, cap, "%s: %s%s%s", record_str(t, "tool") ?
                     record_str(t, "tool") : "?", r, f && *f ? ": " : "",
                     f ? f : "");
            if (!strcmp(r, "findings"))
                return; /* a finding outranks a failure */
        }
    }
}

void sanitize_summary(const char *dir, const char *hex, char *out,
                      size_t cap)
{
    cJSON *j = load_record(dir);
    const char *k = j ? record_str(j, "kernel") : NULL,
               *v = j ? record_str(j, "verdict") : NULL;
    out[0] = '\0';
    if (j && k && v && (!hex || !strcmp(k, hex))) {
        char first[600];
        first_of(j, first, sizeof first);
        if (!strcmp(v, "clean"))
            snprintf(out, cap, "clean (memcheck, racecheck, synccheck, "
                     "initcheck)");
        else
            snprintf(out, cap, "%s: %s", !strcmp(v, "findings") ? "FINDINGS"
                     : v, first);
    }
    cJSON_Delete(j);
}

void sanitize_note(const char *dir, const char *hex, char *note, size_t cap)
{
    char line[700];
    sanitize_summary(dir, hex, line, sizeof line);
    size_t n = strlen(note);
    if (line[0] && n + 1 < cap)
        snprintf(note + n, cap - n, "%ssanitizer: %s", n ? "; " : "", line);
}

static int llm_born(const struct run_view *rv)
{
    for (int i = 0; i < rv->n_llm_tpls; i++)
        if (rv->llm_tpls[i] == rv->best_tpl)
            return 1;
    return 0;
}

int sanitize_gate(const struct run_view *rv, int mode,
                  const struct sanitize_opts *o, char *err, size_t errcap)
{
    char line[700];
    if (mode < 0 || !rv->has_best)
        return KEVO_OK;
    sanitize_summary(rv->dir, rv->best_hex, line, sizeof line);
    if (!strncmp(line, "FINDINGS", 8)) {
        snprintf(err, errcap, "the winner %s failed the sanitizer pass "
                 "(%s/%s): %s; fix the kernel, or pass --no-sanitize",
                 rv->best_hex, rv->dir, RECORD, line + 10);
        return KEVO_EINVAL;
    }
    if (!strncmp(line, "clean", 5) || (mode == 0 && !llm_born(rv)))
        return KEVO_OK;
    int clean = 0;
    char why[1024];
    int rc = sanitize_run(rv, o, &clean, why, sizeof why);
    if (rc) {
        snprintf(err, errcap, "the %swinner %s is not sanitized and the "
                 "pass cannot run here: %s (run kevo verify --sanitize %s on "
                 "a GPU machine, or pass --no-sanitize)",
                 llm_born(rv) ? "LLM-born " : "", rv->best_hex, why, rv->dir);
        return rc == KEVO_ENODEV || rc == KEVO_ENOENT ? KEVO_ENODEV
                                                      : KEVO_EINVAL;
    }
    if (clean)
        return KEVO_OK;
    sanitize_summary(rv->dir, rv->best_hex, line, sizeof line);
    snprintf(err, errcap, "the winner %s failed the sanitizer pass (%s/%s): "
             "%s; fix the kernel, or pass --no-sanitize", rv->best_hex,
             rv->dir, RECORD, line);
    return KEVO_EINVAL;
}

/* ---- kevo verify --sanitize */

static int parse_args(int argc, char **argv, struct sanitize_opts *o,
                      const char **dir, int *json)
{
    static const struct option opts[] = {
        {"sanitize", no_argument, NULL, 's'},
        {"sanitizer-path", required_argument, NULL, 'p'},
        {"sanitize-timeout", required_argument, NULL, 't'},
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 's':
            break;
        case 'p':
            o->sanitizer = optarg;
            break;
        case 't':
            o->timeout_s = (int)strtol(optarg, &end, 10);
            if (*end || o->timeout_s <= 0 || o->timeout_s > 86400) {
                fprintf(stderr, "kevo verify: --sanitize-timeout '%s' is not "
                        "a number of seconds in 1..86400\n", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'j':
            *json = o->quiet = 1;
            break;
        case 'h':
            fputs(usage, stdout);
            return -1;
        default:
            fprintf(stderr, "kevo verify --sanitize: unknown option '%s'\n%s",
                    argv[optind - 1], usage);
            return EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        fputs(usage, stderr);
        return EXIT_USAGE;
    }
    *dir = argv[optind];
    return 0;
}

int cmd_sanitize_main(int argc, char **argv)
{
    struct sanitize_opts o = {0};
    struct run_view rv;
    const char *dir = NULL;
    int json = 0, clean = 0;
    char err[2048];
    int x = parse_args(argc, argv, &o, &dir, &json);
    if (x)
        return x < 0 ? EXIT_DONE : x;
    rundir_run_problem_code(1); /* it evaluates: a PyTorch module runs */
    int rc = run_view_load(dir, &rv, err, sizeof err);
    if (rc) {
        fprintf(stderr, "kevo verify: %s\n", err);
        return EXIT_ERROR;
    }
    /* a run in progress would share the GPU (as kevo verify) */
    rc = rundir_lock(dir, err, sizeof err);
    if (!rc)
        rc = sanitize_run(&rv, &o, &clean, err, sizeof err);
    if (rc) {
        fprintf(stderr, "kevo verify: %s\n", err);
    } else {
        char line[700];
        cJSON *j = json ? load_record(dir) : NULL;
        char *text = j ? cJSON_Print(j) : NULL;
        sanitize_summary(dir, rv.best_hex, line, sizeof line);
        if (text)
            puts(text);
        else
            printf("sanitizer: %s (%s/%s)\n", line, dir, RECORD);
        free(text);
        cJSON_Delete(j);
    }
    run_view_release(&rv);
    if (rc)
        return rc == KEVO_ENODEV ? EXIT_NOGPU : EXIT_ERROR;
    return clean ? EXIT_DONE : EXIT_ERROR;
}
