/*
 * rundir.c - creating and reading run directories (see rundir.h).
 */
#include "rundir.h"

#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "fingerprint.h"
#include "cpus.h"
#include "fsutil.h"
#include "secret.h"
#include "jnl.h"
#include "version.h"

int rundir_path(char *out, size_t cap, const char *dir, const char *name)
{
    return fs_join(out, cap, dir, name);
}

static int dir_is_empty(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOENT;
    struct dirent *de;
    int empty = 1;
    while ((de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            empty = 0;
    closedir(d);
    return empty;
}

static cJSON *host_json(void)
{
    cJSON *o = cJSON_CreateObject();
    struct utsname u;
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    cJSON_AddStringToObject(o, "hostname", host);
    if (!uname(&u)) {
        cJSON_AddStringToObject(o, "os", u.sysname);
        cJSON_AddStringToObject(o, "kernel", u.release);
        cJSON_AddStringToObject(o, "machine", u.machine);
    }
    cJSON_AddNumberToObject(o, "cpus", (double)cpus_usable());
    return o;
}

static cJSON *manifest_json(const struct spec *s, struct tpl *const *tpls,
                            int n, const char *env_json)
{
    char hex[17];
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "kevo_version", KEVO_VERSION);
    cJSON_AddStringToObject(m, "git_commit", kevo_git_commit());
    cJSON_AddNumberToObject(m, "created", fs_wall_s());
    cJSON_AddItemToObject(m, "spec", spec_to_json(s));
    /* the stop conditions in force, for a reader of the manifest */
    cJSON_AddItemToObject(m, "budgets", spec_budgets_json(s));
    cJSON *t = cJSON_AddArrayToObject(m, "templates");
    for (int i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", tpls[i]->name);
        snprintf(hex, sizeof hex, "%016llx", (unsigned long long)tpls[i]->hash);
        cJSON_AddStringToObject(o, "hash", hex);
        cJSON_AddNumberToObject(o, "params", tpls[i]->n_params);
        cJSON_AddItemToArray(t, o);
    }
    cJSON_AddItemToObject(m, "host", host_json());
    cJSON *env = env_json ? cJSON_Parse(env_json) : NULL;
    cJSON_AddItemToObject(m, "environment", env ? env : cJSON_CreateObject());
    /* what kevo verify and bench compare: GPU, software, clocks, kevo */
    cJSON_AddItemToObject(m, "fingerprint", fingerprint_new(env, 1));
    return m;
}

static int copy_templates(const char *dir, const struct spec *s,
                          struct tpl *const *tpls, int n)
{
    char path[4096];
    int rc = snprintf(path, sizeof path, "%s/templates/%s", dir, s->problem) <
                     (int)sizeof path
                 ? fs_mkdirs(path)
                 : KEVO_EINVAL;
    for (int i = 0; !rc && i < n; i++) {
        if (snprintf(path, sizeof path, "%s/templates/%s/%s.cu", dir,
                     s->problem, tpls[i]->name) >= (int)sizeof path)
            return KEVO_EINVAL;
        rc = fs_write_new(path, tpls[i]->text, strlen(tpls[i]->text), 1);
    }
    return rc;
}

int rundir_check_new(const char *dir, char *err, size_t errcap)
{
    struct stat st;
    if (stat(dir, &st))
        return KEVO_OK; /* a missing directory is made; other errors too */
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errcap, "'%s' exists and is not a directory (pick "
                 "another --name or --runs-dir)", dir);
        return KEVO_EEXIST;
    }
    if (!dir_is_empty(dir)) {
        snprintf(err, errcap,
                 "run directory '%s' already exists and is not empty "
                 "(continue it with 'kevo resume %s', or pick another --name)",
                 dir, dir);
        return KEVO_EEXIST;
    }
    return KEVO_OK;
}

int rundir_has_started(const char *dir)
{
    char path[4096];
    if (rundir_path(path, sizeof path, dir, "checkpoint.json") ||
        fs_exists(path))
        return 1;
    return rundir_path(path, sizeof path, dir, "sources") ||
           !dir_is_empty(path);
}

int rundir_read_journal(const char *dir, cJSON **records, int *not_started,
                        char *err, size_t errcap)
{
    char path[4096];
    *not_started = 0;
    if (rundir_path(path, sizeof path, dir, "journal.jsonl"))
        return KEVO_EINVAL;
    if (fs_exists(path))
        return jnl_read_all(path, records, err, errcap);
    if (rundir_has_started(dir)) {
        snprintf(err, errcap, "'%s' is missing: the run's record of its "
                 "evaluations is lost, so it cannot be resumed", path);
        return KEVO_ENOENT;
    }
    *not_started = 1;
    return (*records = cJSON_CreateArray()) ? KEVO_OK : KEVO_ENOMEM;
}

int rundir_check_journal(const char *dir, const cJSON *checkpoint,
                         long n_records, char *err, size_t errcap)
{
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(checkpoint,
                                                      "journal_records");
    if (!checkpoint || !cJSON_IsNumber(n) || n->valuedouble <= n_records)
        return KEVO_OK;
    snprintf(err, errcap, "'%s/journal.jsonl' has lost records: it holds "
             "%ld, but checkpoint.json was written after %.0f (the journal "
             "was cut or replaced); the run cannot be resumed", dir,
             n_records, n->valuedouble);
    return KEVO_EPARSE;
}

/* Whether this process runs a run directory's problem code (a PyTorch
 * module) to load its problem: set by the commands that evaluate. */
static int run_code;

void rundir_run_problem_code(int yes)
{
    run_code = yes;
}

/* A user-defined problem's file (README "User-defined problems"): the run
 * keeps its exact text, and every later command reads it from there. A
 * PyTorch module's goes to problem.torch/<name>.py, with the description
 * its load derived by running it (file_record) next to it. */
static int copy_problem_file(const char *dir, const struct spec *s)
{
    const struct problem *p = problem_find(s->problem);
    char path[4096];
    if (!p || !p->file_text)
        return KEVO_OK;
    int torch = p->kind->suffix && !strcmp(p->kind->suffix, ".py");
    char name[300];
    snprintf(name, sizeof name, RUNDIR_TORCH_DIR "/%s.py", p->name);
    int rc = rundir_path(path, sizeof path, dir,
                         torch ? name : RUNDIR_PROBLEM_FILE);
    if (!rc && torch) {
        char sub[4096];
        rc = rundir_path(sub, sizeof sub, dir, RUNDIR_TORCH_DIR);
        if (!rc && mkdir(sub, 0755) && errno != EEXIST)
            rc = KEVO_EIO;
    }
    if (!rc)
        rc = fs_write_new(path, p->file_text, strlen(p->file_text), 1);
    if (!rc && torch && p->file_record &&
        !(rc = rundir_path(path, sizeof path, dir, RUNDIR_TORCH_RECORD)))
        rc = fs_write_new(path, p->file_record, strlen(p->file_record), 1);
    return rc;
}

int rundir_problem_code(const char *dir, char *path, size_t cap)
{
    char pat[4096];
    glob_t g;
    int found = 0;
    if (rundir_path(pat, sizeof pat, dir, RUNDIR_TORCH_DIR "/*.py") ||
        glob(pat, 0, NULL, &g))
        return 0;
    found = g.gl_pathc > 0 &&
            snprintf(path, cap, "%s", g.gl_pathv[0]) < (int)cap;
    globfree(&g);
    return found;
}

/* A PyTorch module's problem, from its recorded description (nothing
 * runs), or by running it where this process evaluates (and then its
 * record is written where a run made before records lacks it). */
static int load_torch(const char *dir, const char *py, char *err,
                      size_t errcap)
{
    char rec[4096];
    char *text = NULL, *json = NULL;
    const struct problem *p;
    if (rundir_path(rec, sizeof rec, dir, RUNDIR_TORCH_RECORD))
        return KEVO_EINVAL;
    if (run_code) {
        int rc = problem_load_file(py, &p, err, errcap);
        if (!rc && p->file_record && !fs_exists(rec) &&
            (rc = fs_write_new(rec, p->file_record, strlen(p->file_record),
                               1)))
            snprintf(err, errcap, "cannot write '%s': %s", rec,
                     kevo_strerror(rc));
        return rc;
    }
    int rc = fs_read_file(py, &text, NULL);
    if (rc) {
        snprintf(err, errcap, "cannot read '%s': %s", py, kevo_strerror(rc));
        return rc;
    }
    if ((rc = fs_read_file(rec, &json, NULL))) {
        if (rc == KEVO_ENOENT)
            snprintf(err, errcap, "'%s' is missing: commands that do not "
                     "evaluate build a PyTorch problem from the description "
                     "recorded when its run started, and never run '%s' "
                     "(`kevo resume` or `kevo verify` run it, and record "
                     "it)", rec, py);
        else
            snprintf(err, errcap, "cannot read '%s': %s", rec,
                     kevo_strerror(rc));
    } else {
        rc = problem_load_record(py, text, rec, json, &p, err, errcap);
    }
    free(text);
    free(json);
    return rc;
}

/* Loads the run's copy of its problem file, when it has one. */
static int load_problem_file(const char *dir, char *err, size_t errcap)
{
    char path[4096];
    const struct problem *p;
    if (rundir_path(path, sizeof path, dir, RUNDIR_PROBLEM_FILE))
        return KEVO_EINVAL;
    if (fs_exists(path))
        return problem_load_file(path, &p, err, errcap);
    return rundir_problem_code(dir, path, sizeof path)
               ? load_torch(dir, path, err, errcap)
               : KEVO_OK;
}

/* The hidden sibling a run directory is built in: <parent>/.<name>.new.<pid> */
static int staging_path(char *out, size_t cap, const char *dir)
{
    const char *slash = strrchr(dir, '/');
    int plen = slash ? (int)(slash - dir) + 1 : 0;
    const char *base = slash ? slash + 1 : dir;
    return snprintf(out, cap, "%.*s.%s.new.%d", plen, dir, base,
                    (int)getpid()) >= (int)cap ? KEVO_EINVAL : KEVO_OK;
}

static int fill_new(const char *dir, const char *shown,
                    const struct spec *s, struct tpl *const *tpls,
                    int n_tpls, const char *env_json, char *err,
                    size_t errcap)
{
    char path[4096];
    int rc = fs_mkdirs(dir);
    if (!rc && !(rc = rundir_path(path, sizeof path, dir, "sources")))
        rc = fs_mkdirs(path);
    if (!rc)
        rc = copy_templates(dir, s, tpls, n_tpls);
    if (!rc)
        rc = copy_problem_file(dir, s);
    if (rc) {
        snprintf(err, errcap, "cannot create run directory '%s': %s", shown,
                 kevo_strerror(rc));
        return rc;
    }
    cJSON *m = manifest_json(s, tpls, n_tpls, env_json);
    char *text = cJSON_Print(m);
    cJSON_Delete(m);
    if (!text)
        return KEVO_ENOMEM;
    if (!(rc = rundir_path(path, sizeof path, dir, "manifest.json")))
        rc = fs_write_new(path, text, strlen(text), 1);
    free(text);
    if (rc)
        snprintf(err, errcap, "cannot write '%s/manifest.json': %s", shown,
                 kevo_strerror(rc));
    return rc;
}

/* Built in a hidden sibling and renamed into place, so a kill at any
 * moment leaves either no run directory or a whole one (manifest,
 * templates, sources), never one that resume cannot read. */
int rundir_create(const char *dir, const struct spec *s,
                  struct tpl *const *tpls, int n_tpls, const char *env_json,
                  char *err, size_t errcap)
{
    char tmp[4096];
    int rc = rundir_check_new(dir, err, errcap);
    if (rc)
        return rc;
    if (staging_path(tmp, sizeof tmp, dir)) {
        snprintf(err, errcap, "run directory path too long: '%s'", dir);
        return KEVO_EINVAL;
    }
    fs_remove_tree(tmp); /* a leftover of a killed process with our pid */
    rc = fill_new(tmp, dir, s, tpls, n_tpls, env_json, err, errcap);
    if (!rc && rename(tmp, dir)) {
        snprintf(err, errcap, "cannot create run directory '%s': %s", dir,
                 strerror(errno));
        rc = KEVO_EIO;
    }
    if (rc) {
        fs_remove_tree(tmp);
        return rc;
    }
    if ((rc = fs_guard_dir(dir)))
        return rc;
    return fs_sync_parent(dir);
}

int rundir_open_lock(const char *dir, int create, int *fd_out)
{
    char path[4096];
    struct stat st;
    int rc = rundir_path(path, sizeof path, dir, ".lock");
    if (!rc && create)
        rc = fs_guard_dir(dir);
    if (!rc)
        rc = fs_guard_check(path);
    if (rc)
        return rc;
    /* no link followed, no FIFO waited on, only a regular file used */
    int fd = open(path, (create ? O_RDWR | O_CREAT : O_RDONLY) | O_NOFOLLOW |
                            O_NONBLOCK | O_CLOEXEC, 0644);
    if (fd < 0)
        return fs_status_of(errno);
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        close(fd);
        return KEVO_ENOTREG;
    }
    *fd_out = fd;
    return KEVO_OK;
}

int rundir_lock(const char *dir, char *err, size_t errcap)
{
    char path[4096];
    int fd = -1, rc;
    if (rundir_path(path, sizeof path, dir, ".lock"))
        return KEVO_EINVAL;
    if ((rc = rundir_open_lock(dir, 1, &fd))) {
        snprintf(err, errcap, "cannot open '%s': %s", path,
                 kevo_strerror(rc));
        return rc;
    }
    if (flock(fd, LOCK_EX | LOCK_NB)) {
        close(fd);
        snprintf(err, errcap, "run '%s' is in use by another kevo process",
                 dir);
        return KEVO_EEXIST;
    }
    return KEVO_OK; /* fd stays open: the lock lives as long as we do */
}

int rundir_load_manifest(const char *dir, struct spec *s, cJSON **manifest,
                         char *err, size_t errcap)
{
    char path[4096], *text;
    if (rundir_path(path, sizeof path, dir, "manifest.json"))
        return KEVO_EINVAL;
    /* whoever reads a run may write in it: through no link (fsutil.h) */
    int rc = fs_guard_dir(dir);
    if (!rc)
        rc = fs_read_file(path, &text, NULL);
    if (!rc && (rc = load_problem_file(dir, err, errcap))) {
        free(text);
        return rc;
    }
    if (rc) {
        snprintf(err, errcap, "'%s' is not a kevo run directory: cannot read "
                 "'%s': %s", dir, path, kevo_strerror(rc));
        return rc;
    }
    cJSON *m = cJSON_Parse(text);
    const cJSON *sp = cJSON_GetObjectItemCaseSensitive(m, "spec");
    const cJSON *pn = cJSON_GetObjectItemCaseSensitive(sp, "problem");
    rc = KEVO_EPARSE;
    if (!sp) {
        snprintf(err, errcap, "%s: malformed manifest (no spec)", path);
    } else if (cJSON_IsString(pn) && !problem_find(pn->valuestring)) {
        /* not built in, and no problem.problem was loaded above */
        snprintf(err, errcap, "run '%s' is of problem '%.64s', which is not "
                 "built in, and its copy of the problem file '%s/"
                 RUNDIR_PROBLEM_FILE "' is missing", dir, pn->valuestring,
                 dir);
        rc = KEVO_ENOENT;
    } else {
        char *st = cJSON_Print(sp);
        spec_defaults(s);
        spec_legacy_search(s); /* a manifest without them predates them */
        rc = st ? spec_parse_json(s, st, path, err, errcap) : KEVO_ENOMEM;
        free(st);
        spec_resolve_budgets(s);
    }
    free(text);
    if (!rc && manifest)
        *manifest = m;
    else
        cJSON_Delete(m);
    return rc;
}

int rundir_load_templates(const char *dir, struct tpl ***tpls, int *n,
                          char *err, size_t errcap)
{
    char path[4096];
    if (rundir_path(path, sizeof path, dir, "templates"))
        return KEVO_EINVAL;
    return tpl_load_dir(path, tpls, n, err, errcap);
}

int rundir_load_checkpoint(const char *dir, cJSON **ck, char *err,
                           size_t errcap)
{
    char path[4096], *text;
    *ck = NULL;
    if (rundir_path(path, sizeof path, dir, "checkpoint.json"))
        return KEVO_EINVAL;
    int rc = fs_read_file(path, &text, NULL);
    if (rc == KEVO_ENOENT)
        return KEVO_OK;
    if (rc) {
        snprintf(err, errcap, "cannot read '%s': %s", path, kevo_strerror(rc));
        return rc;
    }
    *ck = cJSON_Parse(text);
    free(text);
    if (!*ck) {
        snprintf(err, errcap, "%s: malformed checkpoint", path);
        return KEVO_EPARSE;
    }
    return KEVO_OK;
}

int rundir_write_best(const char *dir, const cJSON *record, const char *source)
{
    char path[4096];
    char *text = cJSON_Print(record);
    if (!text)
        return KEVO_ENOMEM;
    int rc = rundir_path(path, sizeof path, dir, "best.json");
    if (!rc)
        rc = fs_write_atomic(path, text, strlen(text));
    free(text);
    char *clean = rc ? NULL : secret_scrub_dup(source, strlen(source));
    if (!rc && !clean)
        rc = KEVO_ENOMEM;
    if (!rc && !(rc = rundir_path(path, sizeof path, dir, "best.cu")))
        rc = fs_write_atomic(path, clean, strlen(clean));
    free(clean);
    return rc;
}
