/*
 * test_sanitizer.c - reading compute-sanitizer reports (sanitizer.h) and
 * finding the tool, without a GPU: recorded report shapes of memcheck,
 * racecheck and a clean run, a probe that found no GPU, a crash without
 * a summary, and san_run on a stand-in script with a time limit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "sanitizer.h"

static const char memcheck_oob[] =
    "========= COMPUTE-SANITIZER\n"
    "kevo sanitize probe: the winner ran once\n"
    "========= Invalid __global__ read of size 4 bytes\n"
    "=========     at sm_rows+0x2d0 in cand.cu:31\n"
    "=========     by thread (255,0,0) in block (999,0,0)\n"
    "=========     Address 0x7f02c3a3d200 is out of bounds\n"
    "=========     and is 16 bytes after the nearest allocation at "
    "0x7f02c3800000 of size 4096000 bytes\n"
    "=========     Saved host backtrace up to driver entry point at kernel "
    "launch time\n"
    "=========         Host Frame:  [0x2f2a6f] in libcuda.so.1\n"
    "=========\n"
    "========= Invalid __global__ read of size 4 bytes\n"
    "=========     at sm_rows+0x2d0 in cand.cu:31\n"
    "=========\n"
    "========= ERROR SUMMARY: 2 errors\n";

static const char racecheck[] =
    "========= COMPUTE-SANITIZER\n"
    "========= Error: Race reported between Write access at "
    "sm_rows+0x1f0 in cand.cu:20\n"
    "=========     and Read access at sm_rows+0x220 in cand.cu:22 [128 "
    "hazards]\n"
    "=========\n"
    "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 "
    "warnings)\n";

static void test_parse(void)
{
    struct san_result r;
    san_parse(memcheck_oob, SAN_ERROR_EXIT, &r);
    CHECK(r.status == SAN_FINDINGS && r.errors == 2 && r.exit_code == 86);
    CHECK_MSG(!strcmp(r.first, "Invalid __global__ read of size 4 bytes at "
                      "sm_rows+0x2d0 in cand.cu:31 by thread (255,0,0) in "
                      "block (999,0,0)"), "first: '%s'", r.first);
    /* racecheck's summary line has no ERROR SUMMARY; the exit code says */
    san_parse(racecheck, SAN_ERROR_EXIT, &r);
    CHECK(r.status == SAN_FINDINGS);
    CHECK_MSG(!strncmp(r.first, "Error: Race reported between Write access "
                       "at sm_rows+0x1f0 in cand.cu:20", 60),
              "first: '%s'", r.first);
    san_parse("========= COMPUTE-SANITIZER\nkevo sanitize probe: ok\n"
              "========= ERROR SUMMARY: 0 errors\n", 0, &r);
    CHECK(r.status == SAN_CLEAN && r.errors == 0 && !r.first[0]);
    san_parse("========= COMPUTE-SANITIZER\n========= RACECHECK SUMMARY: 0 "
              "hazards displayed (0 errors, 0 warnings)\n", 0, &r);
    CHECK(r.status == SAN_CLEAN);
    san_parse("========= COMPUTE-SANITIZER\nkevo sanitize probe: no NVIDIA "
              "driver (libcuda.so.1 not found): this command needs a GPU\n"
              "========= ERROR SUMMARY: 0 errors\n", SAN_PROBE_NODEV, &r);
    CHECK(r.status == SAN_NODEV &&
          strstr(r.detail, "needs a GPU") == NULL); /* the last line */
    CHECK(!strcmp(r.detail, "ERROR SUMMARY: 0 errors"));
    /* errors zero but the probe failed: not clean */
    san_parse("kevo sanitize probe: cuCtxSynchronize: "
              "CUDA_ERROR_ILLEGAL_ADDRESS\n", 1, &r);
    CHECK(r.status == SAN_FAILED && strstr(r.detail, "ILLEGAL_ADDRESS"));
    san_parse("", 1, &r);
    CHECK(r.status == SAN_FAILED && strstr(r.detail, "no report"));
}

static char dir[64];

static void script(const char *name, const char *body, char *path,
                   size_t cap)
{
    snprintf(path, cap, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f) {
        fprintf(f, "#!/bin/sh\n%s", body);
        fclose(f);
    }
    chmod(path, 0755);
}

static void test_find_and_run(void)
{
    char fake[256], out[4096], err[512];
    CHECK(san_find("/nonexistent/compute-sanitizer", out, sizeof out, err,
                   sizeof err) == KEVO_ENOENT);
    CHECK(!strcmp(err, "compute-sanitizer not found at "
                       "'/nonexistent/compute-sanitizer'"));
    script("compute-sanitizer",
           "[ \"$2\" = memcheck ] && [ \"$3\" = --error-exitcode ] && "
           "[ \"$7 $8 $9\" = '--padding 65536 probe' ] || exit 5\n"
           "echo '========= Invalid __global__ write of size 8 bytes'\n"
           "echo '=========     at k+0x10 in c.cu:3'\n"
           "echo '========= ERROR SUMMARY: 1 error'\n"
           "exit $4\n", fake, sizeof fake);
    CHECK(san_find(fake, out, sizeof out, err, sizeof err) == KEVO_OK);
    /* on PATH */
    char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
    setenv("CUDA_HOME", "/nonexistent", 1);
    setenv("PATH", dir, 1);
    CHECK(san_find(NULL, out, sizeof out, err, sizeof err) == KEVO_OK &&
          !strcmp(out, fake));
    setenv("PATH", "/nonexistent", 1);
    CHECK(san_find(NULL, out, sizeof out, err, sizeof err) == KEVO_ENOENT &&
          strstr(err, "'/nonexistent/bin/compute-sanitizer' nor on PATH"));
    if (old)
        setenv("PATH", old, 1);
    free(old);
    char *argv[] = {"probe", NULL};
    struct san_result r;
    CHECK(san_run(fake, "memcheck", argv, 30, &r) == KEVO_OK);
    CHECK_MSG(r.status == SAN_FINDINGS && r.exit_code == 86 &&
              !strcmp(r.first, "Invalid __global__ write of size 8 bytes at "
                      "k+0x10 in c.cu:3"), "status %d exit %d first '%s'",
              r.status, r.exit_code, r.first);
    char slow[256];
    script("slow", "sleep 30\n", slow, sizeof slow);
    CHECK(san_run(slow, "memcheck", argv, 1, &r) == KEVO_OK &&
          r.status == SAN_TIMEOUT && strstr(r.detail, "killed after 1 s"));
    remove(slow);
    remove(fake);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/kevo-test-san-XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    RUN(test_parse, "reports give findings with their first place, clean, "
        "no GPU and failures");
    RUN(test_find_and_run, "compute-sanitizer is found by path, CUDA_HOME "
        "or PATH, run with the tool, and killed at its time limit");
    rmdir(dir);
    TEST_DONE();
}
