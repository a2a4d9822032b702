/*
 * test_mutators.c - the mutator table is the one truth (issue 28.1): a
 * mutator added through the registry alone - this test links its own
 * kevo_mutators[] in place of mutators/registry.c, as a developer adds a
 * line there - is applied, with and without the operator bandit, its
 * children are journaled under its name, and the bandit's pulls of it
 * are in the checkpoint.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "engine.h"
#include "fsutil.h"
#include "jnl.h"
#include "mutator.h"
#include "record.h"
#include "testeval.h"

/* "mirror": one parameter to its mirror image in the value list. */
static int mirror_apply(const struct mut_ctx *ctx,
                        const struct genome *const *par, struct genome *child)
{
    const struct tpl *t = ctx->tpls[par[0]->tpl];
    for (int tries = 0; tries < 16; tries++) {
        *child = *par[0];
        int i = (int)rng_below(ctx->rng, (uint64_t)t->n_params);
        int at = tpl_value_index(t, i, child->vals[i]);
        const struct tpl_param *p = &t->params[i];
        if (at < 0 || p->n_values - 1 - at == at)
            continue;
        child->vals[i] = p->values[p->n_values - 1 - at];
        if (tpl_point_valid(t, child->vals, ctx->dev))
            return 0;
    }
    return -1;
}

static const struct mutator mut_mirror = {
    .name = "mirror",
    .summary = "one parameter to its mirror image (test only)",
    .n_parents = 1,
    .apply = mirror_apply,
};

extern const struct mutator mut_tweak;
extern const struct mutator mut_crossover;

/* The registry of this test binary: the shipped table plus one line. */
const struct mutator *const kevo_mutators[] = {
    &mut_tweak,
    &mut_crossover,
    &mut_mirror,
    NULL,
};

static const char tpl_a[] =
    "// kevo: problem gemm\n"
    "// kevo: dtypes fp32\n"
    "// kevo: param BM 16 32 64 128 default=64\n"
    "// kevo: param BN 16 32 64 128 default=64\n"
    "// kevo: param TM 1 2 4 8 default=4\n"
    "// kevo: param UNROLL 1 2 4 default=2\n"
    "// kevo: constraint (BM / TM) * BN <= 1024\n"
    "// kevo: launch ka\n"
    "// kevo: grid cdiv(N, BN), cdiv(M, BM)\n"
    "// kevo: block (BM / TM) * BN\n"
    "extern \"C\" __global__ void ka(const elem_t *A, const elem_t *B,\n"
    "    elem_t *C, int M, int N, int K, void *ws)\n"
    "{ int x = BM + BN + TM + UNROLL; (void)x; }\n";

struct counts {
    long mirror, tweak, crossover; /* children in the journal */
    double pulls;                  /* the bandit's, of "mirror" (-1: none) */
};

static void count_journal(const char *dir, struct counts *n)
{
    char path[300], err[512];
    cJSON *recs = NULL, *r;
    snprintf(path, sizeof path, "%s/journal.jsonl", dir);
    CHECK(jnl_read_all(path, &recs, err, sizeof err) == KEVO_OK);
    cJSON_ArrayForEach(r, recs)
    {
        const char *m = record_str(r, "mutator");
        if (!m)
            continue;
        n->mirror += !strcmp(m, "mirror");
        n->tweak += !strcmp(m, "tweak");
        n->crossover += !strcmp(m, "crossover");
    }
    cJSON_Delete(recs);
}

/* Pulls of arm "mirror" in dir's checkpoint.json (-1: no such arm). */
static double checkpoint_pulls(const char *dir)
{
    char path[300], *text = NULL;
    snprintf(path, sizeof path, "%s/checkpoint.json", dir);
    if (fs_read_file(path, &text, NULL))
        return -1;
    cJSON *ck = cJSON_Parse(text);
    free(text);
    double pulls = -1;
    const cJSON *llm = cJSON_GetObjectItemCaseSensitive(ck, "llm");
    const cJSON *arms = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(llm, "bandit"), "arms");
    const cJSON *a;
    cJSON_ArrayForEach(a, arms)
    {
        const char *name = record_str(a, "name");
        if (name && !strcmp(name, "mirror"))
            pulls = record_num(a, "pulls", -1);
    }
    cJSON_Delete(ck);
    return pulls;
}

/* A test-evaluator run of 8 generations; bandit = 1 turns the operator
 * bandit on (LLM on, but no request allowed: cheap arms only). */
static void run(int bandit, struct counts *n)
{
    char dir[64] = "/tmp/kevo-test-mutators.XXXXXX", src[128], path[128];
    char err[512];
    struct tpl *t = NULL;
    struct spec spec;
    struct evaluator ev;
    struct jnl *j = NULL;
    struct runlog *log = NULL;
    struct engine *e = NULL;
    memset(n, 0, sizeof *n);
    CHECK(mkdtemp(dir) != NULL);
    snprintf(src, sizeof src, "%s/sources", dir);
    snprintf(path, sizeof path, "%s/journal.jsonl", dir);
    CHECK(fs_mkdirs(src) == KEVO_OK);
    CHECK(tpl_parse("ka", NULL, tpl_a, &t, err, sizeof err) == KEVO_OK);
    spec_defaults(&spec);
    snprintf(spec.problem, sizeof spec.problem, "gemm");
    spec.shape = (struct shape){3, {1000, 1000, 1000}};
    spec.islands = 2;
    spec.population = 6;
    spec.offspring = 8;
    spec.max_generations = 8;
    spec.llm_per_gen = 0;
    spec.llm_propose = 0;
    CHECK(testeval_new(&ev, NULL) == KEVO_OK);
    CHECK(jnl_create(path, &j) == KEVO_OK);
    struct runlog_cfg lc = {.live = 1, .jnl = j, .ev = ev, .llm_dir = dir};
    CHECK(runlog_new(&lc, &log) == KEVO_OK);
    struct engine_env env = {
        .spec = &spec, .problem = problem_find("gemm"), .tpls = &t,
        .n_tpls = 1, .dev = tpl_device_default, .log = log, .run_dir = dir,
        .llm_on = bandit};
    int rc = engine_new(&env, NULL, &e, err, sizeof err);
    if (!rc)
        rc = engine_run(e, err, sizeof err);
    CHECK_MSG(rc == KEVO_OK, "%s", err);
    engine_free(e);
    runlog_free(log);
    jnl_close(j);
    ev.ops->destroy(ev.self);
    count_journal(dir, n);
    n->pulls = checkpoint_pulls(dir);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
    tpl_free(t);
}

static void a_registered_mutator_makes_children(void)
{
    struct counts n;
    run(0, &n);
    CHECK_MSG(n.mirror > 0 && n.tweak > 0, "mirror %ld, tweak %ld children",
              n.mirror, n.tweak);
}

static void the_bandit_applies_the_arm_it_picked(void)
{
    struct counts n;
    run(1, &n);
    CHECK_MSG(n.mirror > 0, "mirror made %ld children", n.mirror);
    /* its children are credited to its arm (discounted pulls) */
    CHECK_MSG(n.pulls > 0, "checkpoint: %g pulls of mirror, journal: %ld "
              "children", n.pulls, n.mirror);
}

int main(void)
{
    RUN(a_registered_mutator_makes_children,
        "a mutator added to the registry alone makes children");
    RUN(the_bandit_applies_the_arm_it_picked,
        "the bandit's pick is the mutator applied, and its pulls are "
        "checkpointed");
    TEST_DONE();
}
