/*
 * bench_pool.c - the host's cost of a GPU batch in the compile pool (issue
 * 32; a benchmark, not a test; no GPU needed): what the GPU evaluator asks
 * of kevo's NVRTC pool (jitpool.c) for every candidate of a generation
 * before and after the GPU measures it, with every compile a cache hit,
 * so that only the bookkeeping is timed: the cache key, the source rules,
 * the memo of cache answers, the disk cache and the tickets. The GPU waits
 * through that at every generation's start (bench/results/
 * 2026-11-30-h200x2-s32: 100-230 ms from one generation's record to the
 * next job on two H200s, of which the engine's own work explained 50-140).
 *
 * The batches are a real run's: each generation of RUN's journal, its
 * evaluations in order, each by its recorded source (RUN/sources/), as the
 * GPU evaluator hands them to the pool.
 * Every source's cubin is stored in a fresh disk cache first (CUBIN_KB of
 * bytes each), as if the run had compiled it; the pool starts PROCS
 * compiler processes (NVRTC's warm-up) that never get a job.
 *
 * Prints per generation the candidates and the ms of: a prefetch of each
 * (what the fan-out over several GPUs does on its calling thread before
 * any GPU gets the batch, fanout.c), a submit of each, jit_pool_ready of
 * each (the fan-out asks it of every slot) and a wait of each; and the
 * totals.
 *
 * usage: bench_pool RUN [CUBIN_KB [PROCS [ARCH]]]   (40 KB, 2, sm_90a)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cJSON.h>

#include "fsutil.h"
#include "hash.h"
#include "jit.h"

static double now_ms(void)
{
    return (double)fs_now_ns() / 1e6;
}

struct src {
    uint64_t hash;
    char *text;
};

/* The text of source hex h of RUN (loaded once into *v). */
static const char *source_of(const char *run, const char *hex,
                             struct src **v, int *n, int *cap)
{
    uint64_t h;
    if (hash_parse(hex, &h))
        return NULL;
    for (int i = 0; i < *n; i++)
        if ((*v)[i].hash == h)
            return (*v)[i].text;
    char path[4096];
    snprintf(path, sizeof path, "%s/sources/%s.cu", run, hex);
    char *text;
    size_t len;
    if (fs_read_file(path, &text, &len))
        return NULL;
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 256;
        *v = realloc(*v, (size_t)*cap * sizeof **v);
        if (!*v)
            exit(2);
    }
    (*v)[(*n)++] = (struct src){h, text};
    return text;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_pool RUN [CUBIN_KB [PROCS [ARCH]]]\n");
        return 2;
    }
    const char *run = argv[1];
    size_t cubin = (size_t)(argc > 2 ? atoi(argv[2]) : 40) * 1024;
    int procs = argc > 3 ? atoi(argv[3]) : 2;
    const char *arch = argc > 4 ? argv[4] : "sm_90a";
    char path[4096], *jnl;
    size_t len;
    snprintf(path, sizeof path, "%s/journal.jsonl", run);
    if (fs_read_file(path, &jnl, &len)) {
        fprintf(stderr, "bench_pool: cannot read %s\n", path);
        return 1;
    }
    /* the batches: per generation, the sources of its evaluations */
    struct src *srcs = NULL;
    int n_src = 0, cap_src = 0, n_gen = 0;
    const char **cand = NULL;
    int *gen_of = NULL, n = 0, cap = 0;
    for (char *line = strtok(jnl, "\n"); line; line = strtok(NULL, "\n")) {
        cJSON *r = cJSON_Parse(line);
        const cJSON *ty = cJSON_GetObjectItem(r, "type");
        const cJSON *g = cJSON_GetObjectItem(r, "gen");
        const cJSON *s = cJSON_GetObjectItem(r, "source");
        if (cJSON_IsString(ty) && !strcmp(ty->valuestring, "eval") &&
            cJSON_IsNumber(g) && cJSON_IsString(s)) {
            const char *t = source_of(run, s->valuestring, &srcs, &n_src,
                                      &cap_src);
            if (!t) {
                fprintf(stderr, "bench_pool: no source %s in %s\n",
                        s->valuestring, run);
                return 1;
            }
            if (n == cap) {
                cap = cap ? 2 * cap : 4096;
                cand = realloc(cand, (size_t)cap * sizeof *cand);
                gen_of = realloc(gen_of, (size_t)cap * sizeof *gen_of);
                if (!cand || !gen_of)
                    return 2;
            }
            cand[n] = t;
            gen_of[n++] = g->valueint;
            if (g->valueint + 1 > n_gen)
                n_gen = g->valueint + 1;
        }
        cJSON_Delete(r);
    }
    /* a fresh disk cache holding every source's cubin */
    char cache[] = "/tmp/kevo-bench-pool.XXXXXX";
    if (!mkdtemp(cache))
        return 1;
    char *blob = malloc(cubin);
    if (!blob)
        return 2;
    for (size_t i = 0; i < cubin; i++)
        blob[i] = (char)(i * 131 + 7);
    for (int i = 0; i < n_src; i++) {
        struct jit_output o = {.ok = 1, .cubin = blob, .cubin_len = cubin,
                               .log = "", .regs = 32};
        if (jit_cache_store(cache, jit_cache_key(srcs[i].text, arch), &o)) {
            fprintf(stderr, "bench_pool: cannot store in %s\n", cache);
            return 1;
        }
    }
    struct jit_pool_opts po = {.n_procs = procs, .arch = arch,
                               .cache_dir = cache};
    struct jit_pool *p;
    if (jit_pool_new(&po, &p)) {
        fprintf(stderr, "bench_pool: the pool does not start\n");
        return 1;
    }
    printf("%d evaluations in %d generations, %d sources, %zu KB cubins, "
           "%d compiler processes\n", n, n_gen, n_src, cubin / 1024, procs);
    printf("gen  candidates  prefetch ms  submit ms  ready ms  wait ms\n");
    int *tk = malloc(sizeof *tk * (size_t)(n > 0 ? n : 1));
    double all[4] = {0};
    for (int g = 0, at = 0; g < n_gen; g++) {
        int b = at;
        while (at < n && gen_of[at] == g)
            at++;
        int k = at - b;
        double tp = now_ms();
        for (int i = 0; i < k; i++)
            if (jit_pool_prefetch(p, cand[b + i], "k")) {
                fprintf(stderr, "bench_pool: %s\n", jit_pool_errmsg(p));
                return 1;
            }
        double t0 = now_ms();
        for (int i = 0; i < k; i++)
            if ((tk[i] = jit_pool_submit(p, cand[b + i], "k")) < 0) {
                fprintf(stderr, "bench_pool: %s\n", jit_pool_errmsg(p));
                return 1;
            }
        double t1 = now_ms();
        for (int i = 0; i < k; i++)
            (void)jit_pool_ready(p, cand[b + i]);
        double t2 = now_ms();
        for (int i = 0; i < k; i++) {
            struct jit_output o;
            if (jit_pool_wait(p, tk[i], &o) || !o.ok) {
                fprintf(stderr, "bench_pool: wait: %s\n", jit_pool_errmsg(p));
                return 1;
            }
            jit_output_release(&o);
        }
        double t3 = now_ms();
        printf("%3d  %10d  %11.1f  %9.1f  %8.1f  %7.1f\n", g, k, t0 - tp,
               t1 - t0, t2 - t1, t3 - t2);
        all[0] += t0 - tp;
        all[1] += t1 - t0;
        all[2] += t2 - t1;
        all[3] += t3 - t2;
    }
    printf("all  %10d  %11.1f  %9.1f  %8.1f  %7.1f\n", n, all[0], all[1],
           all[2], all[3]);
    jit_pool_free(p);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", cache);
    return system(cmd) ? 1 : 0;
}
