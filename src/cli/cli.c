/*
 * cli.c - what the commands share: finding kevo's data directories, the
 * LLM inputs of an existing run, and writing outputs.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "fsutil.h"
#include "hash.h"
#include "rundir.h"

/* A data directory: given, else $env, else ./rel, else rel next to the
 * executable or one or two levels up (build/, build/bundle/). */
static int find_dir(const char *given, const char *env_name, const char *rel,
                    char *out, size_t cap)
{
    const char *env = getenv(env_name);
    char exe[PATH_MAX], cand[PATH_MAX + 64];
    if (given || env) {
        snprintf(out, cap, "%s", given ? given : env);
        return fs_is_dir(out) ? KEVO_OK
               : fs_exists(out) ? KEVO_ENOTDIR
                                : KEVO_ENOENT;
    }
    if (fs_exists(rel)) {
        snprintf(out, cap, "%s", rel);
        return KEVO_OK;
    }
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return KEVO_ENOENT;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    static const char *const up[] = {"", "../", "../../"};
    for (size_t i = 0; i < sizeof up / sizeof *up; i++) {
        snprintf(cand, sizeof cand, "%s/%s%s", exe, up[i], rel);
        if (fs_exists(cand)) {
            snprintf(out, cap, "%s", cand);
            return KEVO_OK;
        }
    }
    return KEVO_ENOENT;
}

int cli_templates_dir(const char *given, char *out, size_t cap)
{
    return find_dir(given, "KEVO_TEMPLATES", "templates", out, cap);
}

int cli_problems_dir(const char *given, char *out, size_t cap)
{
    int rc = find_dir(given, "KEVO_PROBLEMS", "problems", out, cap);
    if (rc == KEVO_ENOENT && !given && !getenv("KEVO_PROBLEMS"))
        rc = find_dir(NULL, "KEVO_PROBLEMS", "examples/problems", out, cap);
    return rc;
}

int cli_user_problem(const char *name, char *err, size_t errcap)
{
    char dir[4096], path[4096 + 160];
    const struct problem *p;
    if (strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_") !=
            strlen(name) ||
        cli_problems_dir(NULL, dir, sizeof dir))
        return KEVO_ENOENT;
    for (int flat = 0; flat < 2; flat++) {
        if (snprintf(path, sizeof path, "%s/%s%s%s.problem", dir,
                     flat ? "" : name, flat ? "" : "/", name) >=
            (int)sizeof path)
            return KEVO_ENOENT;
        if (fs_exists(path))
            return problem_load_file(path, &p, err, errcap);
    }
    return KEVO_ENOENT;
}

int cli_prompts_dir(char *out, size_t cap)
{
    return find_dir(NULL, "KEVO_PROMPTS", "mutators/prompts", out, cap);
}

int cli_llm_inputs(const char *run_dir, char *prompts, size_t cap,
                   char **facts, char *err, size_t errcap)
{
    char path[4096];
    int rc;
    if (cli_prompts_dir(prompts, cap)) {
        snprintf(err, errcap, "LLM prompt files not found (mutators/prompts; "
                 "set KEVO_PROMPTS)");
        return KEVO_ENOENT;
    }
    if ((rc = rundir_path(path, sizeof path, run_dir, "gpu_facts.txt")) ||
        (rc = fs_read_file(path, facts, NULL))) {
        snprintf(err, errcap, "cannot read '%s': %s", path, kevo_strerror(rc));
        return rc;
    }
    if (!(*facts)[strspn(*facts, " \t\r\n")]) { /* kevo never writes it so */
        free(*facts);
        *facts = NULL;
        snprintf(err, errcap, "'%s' is empty: the GPU facts the run's LLM "
                 "prompts state are lost, so its requests cannot be made "
                 "again", path);
        return KEVO_EPARSE;
    }
    return KEVO_OK;
}

int outputs_write_file(const char *path, const char *text)
{
    int rc;
    FILE *f = fs_fopen_write(path, &rc); /* no link in a run dir */
    if (!f)
        return rc;
    fwrite(text, 1, strlen(text), f);
    return fs_close_written(f);
}

void outputs_print_json(const cJSON *o)
{
    char *t = cJSON_Print(o);
    if (t)
        printf("%s\n", t);
    free(t);
}


uint64_t cli_fresh_seed(void)
{
    return hash_final(hash_u64(hash_u64(HASH_SEED, (uint64_t)fs_now_ns()),
                               (uint64_t)getpid()));
}
