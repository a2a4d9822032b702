/*
 * test_jitpolicy.c - candidate sources cannot make NVRTC read host files
 * (jitpolicy.h, issue 29 item 3), through jit_compile and the pool's
 * screen (no GPU needed): a planted secret file and an environment
 * variable reached by #include, by absolute path, by macro, by "..", by
 * the %: digraph, split by a line splice or a comment, by #include_next
 * or through the working directory, are refused, and their text is never
 * in the compile log; CUDA toolkit headers still compile.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "fsutil.h"
#include "jit.h"
#include "jitpolicy.h"

#define ARCH "sm_90a"
#define MARK "kevo_secret_4b1d9e"

static char dir[64];     /* holds secret.h and kevo/secret.h */
static char secret[128]; /* absolute path of secret.h */

/* The file's text would make NVRTC quote MARK in its first error. */
static void plant(const char *path)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(MARK " = 1;\n", f);
        fclose(f);
    }
}

/* Compiles src; 1 if it was refused without the secret reaching the log
 * and the log's refusal contains want. */
static int refused(const char *src, const char *want)
{
    struct jit_output o;
    int rc = jit_compile(src, "cand.cu", ARCH, &o);
    const char *log = o.log ? o.log : "";
    int ok = rc == KEVO_OK && !o.ok && !strstr(log, MARK) &&
             !strstr(log, "KEVO_TEST_KEY") && strstr(log, want);
    if (!ok)
        fprintf(stderr, "  rc %d ok %d log: %.600s\n", rc, o.ok, log);
    jit_output_release(&o);
    return ok;
}

static void test_host_files(void)
{
    char src[512];
    snprintf(src, sizeof src, "#include \"%s\"\n", secret);
    CHECK(refused(src, "kevo: rejected: policy: line 1: '#include \""));
    CHECK(refused("#include \"/proc/self/environ\"\n",
                  "'#include \"/proc/self/environ\"' is not allowed"));
    CHECK(refused("#include </etc/passwd>\n", "is not allowed"));
    /* through a macro: the name is not literal */
    snprintf(src, sizeof src, "#define P \"%s\"\n#include P\n", secret);
    CHECK(refused(src, "line 2: '#include' must name a header literally"));
    CHECK(refused("#define E(x) #x\n#include E(/proc/self/environ)\n",
                  "must name a header literally"));
    /* relative paths up and out, from the working directory */
    CHECK(refused("#include \"../../../../../../../../proc/self/environ\"\n",
                  "is not allowed"));
    /* other spellings of the directive */
    snprintf(src, sizeof src, "%%:include \"%s\"\n", secret);
    CHECK(refused(src, "is not allowed"));
    snprintf(src, sizeof src, "#inc\\\nlude \"%s\"\n", secret);
    CHECK(refused(src, "is not allowed"));
    snprintf(src, sizeof src, "# /* a\n comment */ include \"%s\"\n", secret);
    CHECK(refused(src, "is not allowed"));
    snprintf(src, sizeof src, "#include_next \"%s\"\n", secret);
    CHECK(refused(src, "'#include_next"));
    snprintf(src, sizeof src, "__global__ void k() {}\n  #  include <%s>\n",
             secret);
    CHECK(refused(src, "line 2:"));
    /* numbered as the compiler does, after tpl_instantiate's #line 1 */
    snprintf(src, sizeof src, "// kevo: t\n#define A 1\n#line 1\n// x\n"
             "#include \"%s\"\n", secret);
    CHECK(refused(src, "policy: line 2: '#include"));
}

static void test_working_dir(void)
{
    /* "kevo/..." names pass the screen (kevo's in-memory headers); NVRTC
     * must not find them in the working directory (-no-source-include) */
    char here[4096];
    CHECK(getcwd(here, sizeof here) != NULL);
    CHECK(chdir(dir) == 0);
    CHECK(jitpolicy_header_allowed("kevo/secret.h"));
    CHECK(refused("#include \"kevo/secret.h\"\n",
                  "cannot open source file \"kevo/secret.h\""));
    CHECK(chdir(here) == 0);
}

static void test_cuda_headers(void)
{
    CHECK(jitpolicy_header_allowed("cuda_fp16.h"));
    CHECK(jitpolicy_header_allowed("cuda/barrier")); /* in include/cccl */
    CHECK(jitpolicy_header_allowed("cooperative_groups.h"));
    CHECK(!jitpolicy_header_allowed("cuda/../../../etc/passwd"));
    CHECK(!jitpolicy_header_allowed("/usr/local/cuda/include/cuda_fp16.h"));
    CHECK(!jitpolicy_header_allowed("no_such_header.h"));
    CHECK(!jitpolicy_header_allowed(""));
    struct jit_output o;
    const char *src = "#include <cuda_fp16.h>\n"
                      "#include \"cuda_pipeline.h\"\n"
                      "// #include <cuda_bf16.h> in a comment is fine too\n"
                      "extern \"C\" __global__ void k(__half *a)\n"
                      "{ a[threadIdx.x] = __float2half(1.f); }\n";
    CHECK(jit_compile(src, "fp16.cu", ARCH, &o) == KEVO_OK && o.ok);
    jit_output_release(&o);
    char why[256];
    CHECK(jit_check_source(src, why, sizeof why) == 0);
    /* prose about includes in a comment is free; a directive-looking
     * line in a comment is not (the scan does not guess comment state) */
    CHECK(jit_check_source("// no #include needed, not '#include x'\n"
                           "/* we #include \"/etc/passwd\" nowhere */\n",
                           why, sizeof why) == 0);
    CHECK(jit_check_source("/*\n#include \"/etc/passwd\"\n*/\n", why,
                           sizeof why) == 1);
    CHECK(jit_check_source("/* a\n b */ #include \"/etc/passwd\"\n", why,
                           sizeof why) == 1);
    CHECK(jit_check_source("\xef\xbb\xbf#include \"/etc/passwd\"\n", why,
                           sizeof why) == 1);
}

static void test_pool_screen(void)
{
    /* the pool answers a refused source at submit, with the same reason */
    struct jit_pool_opts po = {.n_procs = 1, .arch = ARCH};
    struct jit_pool *p = NULL;
    CHECK(jit_pool_new(&po, &p) == KEVO_OK);
    if (!p)
        return;
    int t = jit_pool_submit(p, "#include \"/proc/self/environ\"\n", "e.cu");
    struct jit_output o;
    memset(&o, 0, sizeof o);
    CHECK(t >= 0 && jit_pool_wait(p, t, &o) == KEVO_OK);
    CHECK(!o.ok && o.log && strstr(o.log, "is not allowed") &&
          !strstr(o.log, "KEVO_TEST_KEY"));
    jit_output_release(&o);
    jit_pool_free(p);
}

int main(void)
{
    char path[256];
    setenv("KEVO_TEST_KEY", MARK, 1);
    snprintf(dir, sizeof dir, "/tmp/kevo-test-jitpolicy-XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(secret, sizeof secret, "%s/secret.h", dir);
    plant(secret);
    snprintf(path, sizeof path, "%s/kevo", dir);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/kevo/secret.h", dir);
    plant(path);
    RUN(test_pool_screen, "the pool refuses an include of a host file at "
        "submit");
    RUN(test_host_files, "host files are refused by literal path, macro, "
        "'..', digraph, splice, comment and #include_next; their text "
        "never reaches the log");
    RUN(test_working_dir, "the working directory is not searched for "
        "quoted includes");
    RUN(test_cuda_headers, "CUDA toolkit headers are allowed and compile");
    remove(path);
    snprintf(path, sizeof path, "%s/kevo", dir);
    rmdir(path);
    remove(secret);
    rmdir(dir);
    TEST_DONE();
}
