/*
 * bandit.h - adaptive operator choice: which mutator makes the next child.
 * Arms are the mutators (tweak, crossover, llm_rewrite, ...); an arm's
 * value is its recent improvement per unit cost (cost: GPU seconds of the
 * child's evaluation plus, for LLM arms, the request's cost converted to
 * the same scale). Deterministic given the PRNG and the rewards, so runs
 * resume and replay exactly; its state goes into the checkpoint.
 */
#ifndef KEVO_BANDIT_H
#define KEVO_BANDIT_H

#include <cJSON.h>
#include <stdint.h>

#include "rng.h"
#include "status.h"

#define BANDIT_MAX_ARMS 16

struct bandit_arm {
    char name[32];
    double pulls;     /* discounted count */
    double reward;    /* discounted sum of reward */
    double cost;      /* discounted sum of cost */
};

struct bandit {
    int n;
    struct bandit_arm arm[BANDIT_MAX_ARMS];
    double discount;  /* per update, e.g. 0.98 */
    double explore;   /* exploration weight */
};

void bandit_init(struct bandit *b, int n, const char *const *names);
/* Picks an arm among those with allowed[i] != 0; -1 if none allowed. */
int bandit_pick(struct bandit *b, struct rng *rng, const int *allowed);
/* improvement: relative fitness gain of the child over its best parent
 * (0 if none or not ok); cost > 0. */
void bandit_update(struct bandit *b, int arm, double improvement,
                   double cost);
cJSON *bandit_to_json(const struct bandit *b);
int bandit_from_json(struct bandit *b, const cJSON *j) KEVO_WUR;

#endif
