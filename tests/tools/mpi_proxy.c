/*
 * mpi_proxy.c - the MPI proxy (src/mpi/mpieval.c) and serve loop
 * (mpiserve.c) driven directly, under `mpirun -np 3` (tests/cli/mpi.sh),
 * where the fan-out never goes: batches of several candidates whose
 * results equal the test evaluator's own, in order; a callback that stops
 * mid-batch (CANCEL: exactly the results before the stop, and the next
 * batch of that slot still right); two slots of one rank in flight at
 * once from two threads; a rank that cannot make its evaluator, refused
 * with its reason; a deadline that has passed reaches the rank's
 * evaluator, whose unmeasured results come back deferred; give_back
 * mid-batch hands back the rest deferred. Rank 1 serves with the test evaluator, rank 2 is asked
 * for an evaluator that does not exist. Used only by tests; without
 * KEVO_MPI it only says so.
 */
#include <stdio.h>

#ifndef KEVO_MPI
int main(void)
{
    puts("mpi_proxy: not an MPI build");
    return 0;
}
#else

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "genome.h"
#include "hash.h"
#include "mpieval.h"
#include "mpiserve.h"
#include "mpx.h"
#include "testeval.h"

#define N_CANDS 12

static int failed;

static void check(int ok, const char *what)
{
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    failed |= !ok;
}

struct cands {
    struct candidate c[N_CANDS];
    const struct candidate *p[N_CANDS];
    int64_t vals[N_CANDS][TPL_MAX_PARAMS];
    char *src[N_CANDS];
};

/* Candidates of two templates, at points stepping their first param. */
static void make_cands(struct cands *cs, struct tpl *a, struct tpl *b,
                       const struct shape *shape)
{
    for (int k = 0; k < N_CANDS; k++) {
        struct tpl *t = k % 2 ? b : a;
        tpl_default_point(t, cs->vals[k]);
        cs->vals[k][0] = t->params[0].values[k / 2 % t->params[0].n_values];
        cs->src[k] = tpl_instantiate(t, cs->vals[k], DTYPE_FP32, shape);
        cs->c[k] = (struct candidate){t, cs->vals[k],
                                      genome_hash(t, cs->vals[k]), cs->src[k],
                                      hash_final(hash_str(HASH_SEED,
                                                          cs->src[k])), 0};
        cs->p[k] = &cs->c[k];
    }
}

struct seen {
    const struct cands *cs;
    int base;                  /* index of the batch's first candidate */
    int n;                     /* callbacks */
    int stop_at;               /* ask to stop at this index (-1: never) */
    int bad;                   /* a result out of order or not the test
                                  evaluator's */
    int deferred;              /* results that came back deferred (2, the
                                  test evaluator's odd hashes past the
                                  deadline; 1 after give_back: any other is
                                  bad) */
    int give_at;               /* calls give_back at this index (0: never) */
    const struct evaluator *px;/* (with give_at) the proxy measuring */
    int kind;                  /* the deferred kind expected: 2 or 1 */
};

static int on_result(void *ud, int i, const struct eval_result *r)
{
    struct seen *s = ud;
    const struct candidate *c = &s->cs->c[s->base + i];
    enum eval_outcome o;
    double f = testeval_fitness(c->tpl, c->vals, c->genome_hash, &o);
    if (s->give_at && i == s->give_at) /* (from the proxy's own thread) */
        s->px->ops->give_back(s->px->self);
    if (r->deferred) {
        s->bad |= i != s->n || r->deferred != s->kind ||
                  (s->kind == 2 && !(c->genome_hash % 2));
        s->deferred++;
        s->n++;
        return i == s->stop_at;
    }
    s->bad |= i != s->n || r->outcome != o || r->fitness != f;
    s->n++;
    return i == s->stop_at;
}

struct job {
    struct evaluator ev;
    struct seen s;
    int rc;
};

static void *run_job(void *p)
{
    struct job *j = p;
    j->rc = j->ev.ops->eval_batch(j->ev.self, j->s.cs->p + j->s.base, 6,
                                  on_result, &j->s);
    return NULL;
}

static int coordinator(void)
{
    struct spec s;
    char err[1024];
    struct tpl **tpls = NULL, *a = NULL, *b = NULL;
    int n_tpls = 0;
    spec_defaults(&s);
    snprintf(s.name, sizeof s.name, "proxy");
    snprintf(s.problem, sizeof s.problem, "gemm");
    snprintf(s.evaluator, sizeof s.evaluator, "test");
    spec_resolve_budgets(&s);
    if (problem_parse_shape(problem_find("gemm"), "256x256x256", &s.shape,
                            err, sizeof err) ||
        tpl_load_dir("templates", &tpls, &n_tpls, err, sizeof err)) {
        printf("FAIL setup: %s\n", err);
        return 1;
    }
    for (int i = 0; i < n_tpls; i++)
        if (!strcmp(tpls[i]->problem, "gemm") && tpls[i]->n_params > 0) {
            if (!a)
                a = tpls[i];
            else if (!b)
                b = tpls[i];
        }
    struct cands cs;
    make_cands(&cs, a, b, &s.shape);

    /* rank 2 cannot make the evaluator it is asked for */
    struct spec bad = s;
    struct evaluator px[2];
    snprintf(bad.evaluator, sizeof bad.evaluator, "nope");
    int rc = mpieval_hello(1, &s, err, sizeof err);
    if (!rc)
        rc = mpieval_hello(2, &bad, err, sizeof err);
    rc = rc ? rc : mpieval_new(2, 2, &tpl_device_default, NULL, px, err,
                               sizeof err);
    check(rc == KEVO_EINVAL && strstr(err, "rank 2 (") &&
              strstr(err, "no evaluator 'nope'"),
          "a rank that cannot make its evaluator is refused, naming itself "
          "and why");
    if (rc != KEVO_EINVAL)
        printf("     (%d: %s)\n", rc, err);
    mpieval_quit(2);
    rc = mpieval_new(1, 2, &tpl_device_default, NULL, px, err, sizeof err);
    check(rc == KEVO_OK, "rank 1 serves with the test evaluator");
    if (rc) {
        printf("     (%d: %s)\n", rc, err);
        mpieval_quit(1);
        return 1;
    }

    struct seen s1 = {&cs, 0, 0, -1, 0, 0, 0, NULL, 2};
    rc = px[0].ops->eval_batch(px[0].self, cs.p, N_CANDS, on_result, &s1);
    check(!rc && s1.n == N_CANDS && !s1.bad,
          "a batch of 12: every result, in order, the test evaluator's own");
    struct seen s2 = {&cs, 0, 0, 3, 0, 0, 0, NULL, 2};
    rc = px[1].ops->eval_batch(px[1].self, cs.p, N_CANDS, on_result, &s2);
    check(rc == KEVO_ESTOPPED && s2.n == 4 && !s2.bad,
          "a callback that stops at the 4th result: stopped, 4 results");
    struct seen s3 = {&cs, 0, 0, -1, 0, 0, 0, NULL, 2};
    rc = px[1].ops->eval_batch(px[1].self, cs.p, N_CANDS, on_result, &s3);
    check(!rc && s3.n == N_CANDS && !s3.bad,
          "the stopped slot's next batch: complete and right");

    /* a deadline passed: the rank's evaluator hands back what it cannot
     * measure (the test evaluator: the odd hashes) as "deferred" */
    int odd = 0;
    for (int k = 0; k < N_CANDS; k++)
        odd += (int)(cs.c[k].genome_hash % 2);
    px[0].ops->set_deadline(px[0].self, fs_now_ns());
    struct seen s4 = {&cs, 0, 0, -1, 0, 0, 0, NULL, 2};
    rc = px[0].ops->eval_batch(px[0].self, cs.p, N_CANDS, on_result, &s4);
    check(!rc && s4.n == N_CANDS && !s4.bad && odd > 0 && s4.deferred == odd,
          "with set_deadline passed, the rank hands back unmeasured what it "
          "cannot measure by then (deferred 2, in order with the rest)");
    px[0].ops->set_deadline(px[0].self, 0);
    struct seen s5 = {&cs, 0, 0, -1, 0, 0, 0, NULL, 2};
    rc = px[0].ops->eval_batch(px[0].self, cs.p, N_CANDS, on_result, &s5);
    check(!rc && s5.n == N_CANDS && !s5.bad && s5.deferred == 0,
          "...and with the deadline lifted, the next batch is measured whole");

    /* give_back mid-batch (rank 1 takes 30 ms a candidate): the results
     * up to the one being measured, then the rest deferred (1); the
     * slot's next batch whole */
    struct seen s6 = {&cs, 0, 0, -1, 0, 0, 1, &px[1], 1};
    rc = px[1].ops->eval_batch(px[1].self, cs.p, N_CANDS, on_result, &s6);
    check(!rc && s6.n == N_CANDS && !s6.bad && s6.deferred >= 1 &&
              s6.deferred <= N_CANDS - 3,
          "give_back mid-batch: what was measured, then the rest deferred "
          "(1), in order");
    if (s6.bad || s6.deferred < 1 || s6.deferred > N_CANDS - 3)
        printf("     (%d results, %d deferred, rc %d)\n", s6.n, s6.deferred,
               rc);
    struct seen s7 = {&cs, 0, 0, -1, 0, 0, 0, NULL, 1};
    rc = px[1].ops->eval_batch(px[1].self, cs.p, N_CANDS, on_result, &s7);
    check(!rc && s7.n == N_CANDS && !s7.bad && s7.deferred == 0,
          "...and that slot's next batch is measured whole");

    struct job j[2] = {{px[0], {&cs, 0, 0, -1, 0, 0, 0, NULL, 2}, -1},
                       {px[1], {&cs, 6, 0, -1, 0, 0, 0, NULL, 2}, -1}};
    pthread_t th[2];
    for (int k = 0; k < 2; k++)
        pthread_create(&th[k], NULL, run_job, &j[k]);
    for (int k = 0; k < 2; k++)
        pthread_join(th[k], NULL);
    check(!j[0].rc && !j[1].rc && j[0].s.n == 6 && j[1].s.n == 6 &&
              !j[0].s.bad && !j[1].s.bad,
          "two slots of one rank in flight at once, from two threads: "
          "each gets its own results");
    for (int k = 0; k < 2; k++)
        px[k].ops->destroy(px[k].self);
    for (int k = 0; k < N_CANDS; k++)
        free(cs.src[k]);
    for (int i = 0; i < n_tpls; i++)
        tpl_free(tpls[i]);
    free(tpls);
    return failed;
}

int main(void)
{
    char err[1024];
    struct evaluator_factory f[2] = {testeval_factory, {NULL, NULL}};
    int rc = mpx_launched() ? mpx_init(err, sizeof err) : KEVO_EINVAL;
    if (rc || mpx_size() != 3) {
        fprintf(stderr, "mpi_proxy: run me under mpirun -np 3\n");
        return 2;
    }
    if (mpx_rank() == 0) {
        rc = coordinator();
    } else {
        /* 30 ms a candidate: give_back comes while a batch is served */
        setenv("KEVO_TEST_EVAL_US", "30000", 1);
        if ((rc = mpiserve_run(f, err, sizeof err)))
            fprintf(stderr, "mpi_proxy: %s\n", err);
    }
    mpx_finalize();
    return rc ? 1 : 0;
}

#endif
