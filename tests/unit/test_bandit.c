/*
 * test_bandit.c - unit tests of src/search/bandit.c: untried arms first, the
 * allowed mask, preference for improvement per cost in a simulated run,
 * adaptation when the best arm changes, determinism, and the exact JSON
 * round trip (same state bits, same future choices).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bandit.h"
#include "check.h"

static const char *const names[] = {"tweak", "crossover", "llm_rewrite",
                                    "llm_propose"};

/* A simulated arm: improves by gain with probability p, costs cost. */
struct sim {
    double p, gain, cost;
};

/* One pick + reward step; returns the arm. env drives the rewards. */
static int step(struct bandit *b, struct rng *pick, struct rng *env,
                const struct sim *arms, const int *allowed)
{
    int a = bandit_pick(b, pick, allowed);
    if (a >= 0)
        bandit_update(b, a, rng_unit(env) < arms[a].p ? arms[a].gain : 0,
                      arms[a].cost);
    return a;
}

static void test_untried_first(void)
{
    struct bandit b;
    struct rng r;
    rng_seed(&r, 1);
    bandit_init(&b, 4, names);
    CHECK(b.n == 4 && !strcmp(b.arm[2].name, "llm_rewrite"));
    CHECK(b.discount > 0 && b.discount < 1 && b.explore > 0);
    int allowed[4] = {0, 1, 0, 1};
    CHECK(bandit_pick(&b, &r, allowed) == 1);
    bandit_update(&b, 1, 0, 1);
    CHECK(bandit_pick(&b, &r, allowed) == 3);
    bandit_update(&b, 3, 0, 1);
    CHECK(bandit_pick(&b, &r, NULL) == 0); /* NULL: all allowed */
    bandit_update(&b, 0, 0, 1);
    CHECK(bandit_pick(&b, &r, NULL) == 2);
    int none[4] = {0, 0, 0, 0};
    CHECK(bandit_pick(&b, &r, none) == -1);
}

/* Same rewards, ten times the cost: value per cost decides. */
static void test_value_per_cost_wins(void)
{
    const struct sim arms[4] = {
        {0.30, 0.02, 1.0},  /* cheap and good */
        {0.30, 0.02, 10.0}, /* as good, 10x the cost */
        {0.05, 0.02, 1.0},  /* cheap, rarely improves */
        {0.00, 0.00, 1.0},  /* never improves */
    };
    struct bandit b;
    struct rng pick, env;
    int count[4] = {0};
    rng_seed(&pick, 7);
    rng_seed(&env, 8);
    bandit_init(&b, 4, names);
    for (int i = 0; i < 1000; i++)
        count[step(&b, &pick, &env, arms, NULL)]++;
    CHECK_MSG(count[0] > count[1] && count[0] > count[2] && count[0] > count[3],
              "counts %d %d %d %d", count[0], count[1], count[2], count[3]);
    CHECK_MSG(count[0] > 500, "best arm only %d of 1000", count[0]);
    /* every arm keeps being explored a little */
    CHECK(count[1] > 0 && count[2] > 0 && count[3] > 0);
}

/* The discount lets the choice follow a change of the best arm. */
static void test_follows_a_change(void)
{
    struct sim arms[2] = {{0.4, 0.02, 1.0}, {0.02, 0.02, 1.0}};
    struct bandit b;
    struct rng pick, env;
    rng_seed(&pick, 11);
    rng_seed(&env, 12);
    bandit_init(&b, 2, names);
    for (int i = 0; i < 500; i++)
        step(&b, &pick, &env, arms, NULL);
    arms[0].p = 0.02;
    arms[1].p = 0.4;
    int late1 = 0;
    for (int i = 0; i < 1000; i++)
        late1 += step(&b, &pick, &env, arms, NULL) == 1 && i >= 500;
    CHECK_MSG(late1 > 300, "new best arm chosen %d of the last 500", late1);
}

static void test_mask_is_respected(void)
{
    const struct sim arms[4] = {{0.5, 0.05, 1.0},
                                {0.1, 0.01, 1.0},
                                {0.9, 0.10, 1.0}, /* best, but masked */
                                {0.1, 0.01, 1.0}};
    struct bandit b;
    struct rng pick, env;
    rng_seed(&pick, 3);
    rng_seed(&env, 4);
    bandit_init(&b, 4, names);
    int allowed[4] = {1, 1, 0, 1}, bad = 0;
    for (int i = 0; i < 1000; i++) {
        allowed[3] = i % 3 != 0; /* arm 3 allowed two times in three */
        int a = step(&b, &pick, &env, arms, allowed);
        bad += a < 0 || !allowed[a];
    }
    CHECK(bad == 0);
    CHECK(b.arm[2].pulls == 0);
}

static void test_deterministic(void)
{
    const struct sim arms[3] = {
        {0.3, 0.02, 1.0}, {0.2, 0.05, 3.0}, {0.1, 0.01, 0.5}};
    struct bandit b1, b2;
    struct rng p1, e1, p2, e2;
    rng_seed(&p1, 99);
    rng_seed(&e1, 100);
    p2 = p1;
    e2 = e1;
    bandit_init(&b1, 3, names);
    bandit_init(&b2, 3, names);
    int same = 1;
    for (int i = 0; i < 500; i++)
        same &=
            step(&b1, &p1, &e1, arms, NULL) == step(&b2, &p2, &e2, arms, NULL);
    CHECK(same && !memcmp(&b1, &b2, sizeof b1));
}

static void test_json_round_trip(void)
{
    const struct sim arms[4] = {{0.3, 0.0123456789, 1.37},
                                {0.2, 0.05, 3.1},
                                {0.1, 0.01, 0.5},
                                {0.05, 0.3, 30.0}};
    struct bandit b, c;
    struct rng pick, env;
    rng_seed(&pick, 42);
    rng_seed(&env, 43);
    bandit_init(&b, 4, names);
    b.discount = 0.97;
    b.explore = 0.3;
    for (int i = 0; i < 300; i++)
        step(&b, &pick, &env, arms, NULL);
    cJSON *j = bandit_to_json(&b);
    char *text = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    CHECK(text != NULL);
    cJSON *back = cJSON_Parse(text);
    memset(&c, 0xa5, sizeof c);
    CHECK(bandit_from_json(&c, back) == KEVO_OK);
    cJSON_Delete(back);
    free(text);
    /* every double bit for bit, names and counts */
    CHECK(c.n == b.n && c.discount == b.discount && c.explore == b.explore);
    for (int i = 0; i < b.n; i++) {
        CHECK(!strcmp(c.arm[i].name, b.arm[i].name));
        CHECK(!memcmp(&c.arm[i].pulls, &b.arm[i].pulls, sizeof(double)));
        CHECK(!memcmp(&c.arm[i].reward, &b.arm[i].reward, sizeof(double)));
        CHECK(!memcmp(&c.arm[i].cost, &b.arm[i].cost, sizeof(double)));
    }
    /* the same future: same picks from the same generator states */
    struct rng p2 = pick, e2 = env;
    int same = 1;
    for (int i = 0; i < 500; i++)
        same &=
            step(&b, &pick, &env, arms, NULL) == step(&c, &p2, &e2, arms, NULL);
    CHECK(same);
    for (int i = 0; i < b.n; i++)
        CHECK(!memcmp(&c.arm[i], &b.arm[i], sizeof b.arm[i]));
}

static void test_json_rejects_bad_state(void)
{
    static const char *const bad[] = {
        "{}",
        "{\"discount\":0.9,\"explore\":0.5}",
        "{\"discount\":0,\"explore\":0.5,\"arms\":[]}",
        "{\"discount\":1.5,\"explore\":0.5,\"arms\":[]}",
        "{\"discount\":0.9,\"explore\":-1,\"arms\":[]}",
        "{\"discount\":0.9,\"explore\":0.5,\"arms\":[{\"name\":\"a\","
        "\"pulls\":-1,\"reward\":0,\"cost\":0}]}",
        "{\"discount\":0.9,\"explore\":0.5,\"arms\":[{\"name\":\"a\","
        "\"pulls\":1,\"reward\":0}]}",
        "{\"discount\":0.9,\"explore\":0.5,\"arms\":[{\"name\":"
        "\"0123456789012345678901234567890123\",\"pulls\":1,\"reward\":0,"
        "\"cost\":1}]}",
        "{\"discount\":0.9,\"explore\":0.5,\"arms\":[1,2,3,4,5,6,7,8,9,10,11,"
        "12,13,14,15,16,17]}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct bandit b;
        bandit_init(&b, 2, names);
        struct bandit before = b;
        cJSON *j = cJSON_Parse(bad[i]);
        CHECK_MSG(bandit_from_json(&b, j) == KEVO_EPARSE, "case %zu", i);
        CHECK(!memcmp(&b, &before, sizeof b)); /* untouched on error */
        cJSON_Delete(j);
    }
}

static void test_bad_rewards_are_clamped(void)
{
    struct bandit b;
    bandit_init(&b, 2, names);
    bandit_update(&b, 0, NAN, 0);
    bandit_update(&b, 1, -0.5, -3);
    bandit_update(&b, 5, 1, 1); /* no such arm: ignored */
    CHECK(b.arm[0].reward == 0 && b.arm[1].reward == 0);
    CHECK(b.arm[0].cost > 0 && b.arm[1].cost > 0 && isfinite(b.arm[0].cost));
    struct rng r;
    rng_seed(&r, 1);
    int a = bandit_pick(&b, &r, NULL);
    CHECK(a == 0 || a == 1);
}

int main(void)
{
    RUN(test_untried_first, "untried allowed arms come first, in order");
    RUN(test_value_per_cost_wins,
        "the arm with more improvement per cost is chosen most");
    RUN(test_follows_a_change, "the choice follows a change of the best arm");
    RUN(test_mask_is_respected, "disallowed arms are never chosen");
    RUN(test_deterministic, "the same generator gives the same choices");
    RUN(test_json_round_trip,
        "a JSON round trip keeps every bit and the same future choices");
    RUN(test_json_rejects_bad_state, "malformed bandit JSON is rejected");
    RUN(test_bad_rewards_are_clamped, "bad rewards and costs are clamped");
    TEST_DONE();
}
