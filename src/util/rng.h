/*
 * rng.h - the seeded PRNG (xoshiro256**, seeded through splitmix64). One
 * seed fixes every random choice of a run; the state is saved in
 * checkpoints so a resumed run continues the same sequence.
 */
#ifndef KEVO_RNG_H
#define KEVO_RNG_H

#include <stdint.h>

struct rng {
    uint64_t s[4]; /* use the functions */
};

void rng_seed(struct rng *r, uint64_t seed);
uint64_t rng_next(struct rng *r);
/* Uniform integer in [0, n); n > 0. Unbiased (rejection). */
uint64_t rng_below(struct rng *r, uint64_t n);
/* Uniform double in [0, 1). */
double rng_unit(struct rng *r);

#endif
