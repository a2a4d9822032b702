/*
 * bandit.c - adaptive operator choice (see bandit.h): a discounted
 * UCB-style score per arm, sampled in proportion to its 4th power.
 *
 * Every update discounts all arms (discounted UCB, Garivier & Moulines
 * 2011), so the statistics follow a search whose best operator changes;
 * an arm left alone keeps its value per cost but its count decays, which
 * grows its exploration bonus until it is tried again. Picks are sampled,
 * not the argmax, because the engine picks a whole generation's operators
 * before any reward comes back. The arithmetic is + - * / and sqrt only
 * (IEEE exact, no libm transcendentals) so a replay on another machine
 * makes the same choices; the state round-trips through JSON bit for bit.
 */
#include "bandit.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define DEFAULT_DISCOUNT 0.98 /* memory of about 50 updates */
#define DEFAULT_EXPLORE 0.5
#define MIN_COST 1e-12 /* a cost below this counts as this */

void bandit_init(struct bandit *b, int n, const char *const *names)
{
    memset(b, 0, sizeof *b);
    if (n < 0)
        n = 0;
    if (n > BANDIT_MAX_ARMS)
        n = BANDIT_MAX_ARMS;
    b->n = n;
    for (int i = 0; i < n; i++)
        snprintf(b->arm[i].name, sizeof b->arm[i].name, "%s", names[i]);
    b->discount = DEFAULT_DISCOUNT;
    b->explore = DEFAULT_EXPLORE;
}

static int is_allowed(const int *allowed, int i)
{
    return !allowed || allowed[i];
}

/* Improvement per unit cost of a pulled arm. */
static double value(const struct bandit_arm *a)
{
    return a->cost > 0 ? a->reward / a->cost : 0;
}

/*
 * score = value / best value among the allowed (in [0, 1]; 0 while no arm
 * has improved anything) + explore / sqrt(discounted pulls). Under
 * discounting the total count stays below 1 / (1 - discount), so UCB's
 * log(total) factor is nearly constant and is left out.
 */
int bandit_pick(struct bandit *b, struct rng *rng, const int *allowed)
{
    double vmax = 0, w[BANDIT_MAX_ARMS], sum = 0;
    int any = -1;
    for (int i = 0; i < b->n; i++) {
        if (!is_allowed(allowed, i))
            continue;
        if (b->arm[i].pulls == 0)
            return i; /* every allowed arm is tried once, in order */
        if (value(&b->arm[i]) > vmax)
            vmax = value(&b->arm[i]);
        any = i;
    }
    if (any < 0)
        return -1;
    for (int i = 0; i < b->n; i++) {
        w[i] = 0;
        if (!is_allowed(allowed, i))
            continue;
        double s = (vmax > 0 ? value(&b->arm[i]) / vmax : 0) +
                   b->explore / sqrt(b->arm[i].pulls);
        w[i] = s * s * s * s;
        sum += w[i];
    }
    if (!(sum > 0) || !isfinite(sum))
        return any; /* explore 0 and no value yet: the last allowed */
    double u = rng_unit(rng) * sum;
    for (int i = 0; i < b->n; i++) {
        if (w[i] > 0 && u < w[i])
            return i;
        u -= w[i];
    }
    return any; /* rounding at the top end */
}

void bandit_update(struct bandit *b, int arm, double improvement, double cost)
{
    if (arm < 0 || arm >= b->n)
        return;
    if (!(improvement > 0) || !isfinite(improvement))
        improvement = 0;
    if (!(cost >= MIN_COST) || !isfinite(cost))
        cost = MIN_COST;
    for (int i = 0; i < b->n; i++) {
        b->arm[i].pulls *= b->discount;
        b->arm[i].reward *= b->discount;
        b->arm[i].cost *= b->discount;
    }
    b->arm[arm].pulls += 1;
    b->arm[arm].reward += improvement;
    b->arm[arm].cost += cost;
}

/* ---- JSON: doubles as raw "%.17g" numbers, which parse back to the
 * same bits (cJSON's own printing may keep only 15 digits). */

static void add_double(cJSON *o, const char *key, double v)
{
    char buf[40];
    snprintf(buf, sizeof buf, "%.17g", v);
    cJSON_AddRawToObject(o, key, buf);
}

cJSON *bandit_to_json(const struct bandit *b)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    add_double(o, "discount", b->discount);
    add_double(o, "explore", b->explore);
    cJSON *arms = cJSON_AddArrayToObject(o, "arms");
    for (int i = 0; arms && i < b->n; i++) {
        cJSON *a = cJSON_CreateObject();
        if (!a)
            break;
        cJSON_AddStringToObject(a, "name", b->arm[i].name);
        add_double(a, "pulls", b->arm[i].pulls);
        add_double(a, "reward", b->arm[i].reward);
        add_double(a, "cost", b->arm[i].cost);
        cJSON_AddItemToArray(arms, a);
    }
    if (!arms || cJSON_GetArraySize(arms) != b->n) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* A finite number >= 0 from o[key], or -1. */
static int get_num(const cJSON *o, const char *key, double *out)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble) ||
        it->valuedouble < 0)
        return -1;
    *out = it->valuedouble;
    return 0;
}

int bandit_from_json(struct bandit *b, const cJSON *j)
{
    struct bandit t;
    memset(&t, 0, sizeof t);
    const cJSON *arms = cJSON_GetObjectItemCaseSensitive(j, "arms");
    int n = cJSON_IsArray(arms) ? cJSON_GetArraySize(arms) : -1;
    if (n < 0 || n > BANDIT_MAX_ARMS || get_num(j, "discount", &t.discount) ||
        get_num(j, "explore", &t.explore) || !(t.discount > 0) ||
        t.discount > 1)
        return KEVO_EPARSE;
    t.n = n;
    for (int i = 0; i < n; i++) {
        const cJSON *a = cJSON_GetArrayItem(arms, i);
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(a, "name");
        struct bandit_arm *m = &t.arm[i];
        if (!cJSON_IsString(name) ||
            strlen(name->valuestring) >= sizeof m->name ||
            get_num(a, "pulls", &m->pulls) ||
            get_num(a, "reward", &m->reward) || get_num(a, "cost", &m->cost))
            return KEVO_EPARSE;
        memcpy(m->name, name->valuestring, strlen(name->valuestring) + 1);
    }
    *b = t;
    return KEVO_OK;
}
