/*
 * test_options.c - the options table (run/options.c): 64-bit seeds come
 * back exactly through the manifest's JSON (also after cJSON re-prints
 * it, as rundir.c and mpiserve.c do), every numeric setting round-trips,
 * ranges are one for flags and spec files, and --help lists each flag of
 * its command.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "options.h"
#include "spec.h"

/* A whole spec (a manifest's), with defaults. */
static void whole(struct spec *s)
{
    spec_defaults(s);
    snprintf(s->name, sizeof s->name, "r");
    snprintf(s->problem, sizeof s->problem, "gemm");
    s->shape = (struct shape){3, {64, 64, 64}};
    spec_resolve_budgets(s); /* as a manifest holds it */
}

/* s through spec_to_json, a cJSON re-print, and spec_parse_json. */
static int round_trip(const struct spec *s, struct spec *back)
{
    char err[512];
    cJSON *j = spec_to_json(s);
    char *once = cJSON_Print(j);
    cJSON *again = cJSON_Parse(once);
    char *twice = cJSON_PrintUnformatted(again);
    spec_defaults(back);
    int rc = spec_parse_json(back, twice, "t.json", err, sizeof err);
    if (rc)
        fprintf(stderr, "  %s\n", err);
    free(once);
    free(twice);
    cJSON_Delete(j);
    cJSON_Delete(again);
    return rc;
}

static void seeds_round_trip_exactly(void)
{
    static const uint64_t seeds[] = {
        0, 1, 999999999999999ULL, 1000000000000000ULL,
        9007199254740991ULL, 9007199254740992ULL, 9007199254740993ULL,
        18446744073709551615ULL};
    for (size_t i = 0; i < sizeof seeds / sizeof *seeds; i++) {
        struct spec s, b;
        whole(&s);
        s.seed = seeds[i];
        CHECK(round_trip(&s, &b) == KEVO_OK);
        CHECK_MSG(b.seed == seeds[i], "%llu came back as %llu",
                  (unsigned long long)seeds[i], (unsigned long long)b.seed);
    }
}

static void numeric_settings_round_trip(void)
{
    struct spec s, b;
    whole(&s);
    s.islands = 64;
    s.max_evals = 1000000000;
    s.max_time_s = 28200;
    s.crossover_prob = 0.125;
    s.llm_budget_usd = 5.5;
    s.max_generations = 100000000;
    CHECK(round_trip(&s, &b) == KEVO_OK);
    CHECK(b.islands == 64 && b.max_evals == 1000000000 &&
          b.max_time_s == 28200 && b.crossover_prob == 0.125 &&
          b.llm_budget_usd == 5.5 && b.max_generations == 100000000);
}

static void a_rounded_number_is_refused(void)
{
    struct spec s;
    char err[512] = "";
    spec_defaults(&s);
    CHECK(spec_parse_json(&s, "{\"seed\": 9007199254740993}", "t.json", err,
                          sizeof err) == KEVO_EPARSE);
    CHECK(strstr(err, "t.json:1: 'seed' must be an integer") != NULL);
    CHECK(spec_parse_json(&s, "{\"seed\": \"-1\"}", "t.json", err,
                          sizeof err) == KEVO_EPARSE);
    CHECK(spec_parse_json(&s, "{\"islands\": \"4\"}", "t.json", err,
                          sizeof err) == KEVO_EPARSE);
}

static void flags_and_spec_share_one_range(void)
{
    const struct kopt *o = opt_by_flag("islands");
    struct spec s;
    char why[256];
    spec_defaults(&s);
    CHECK(o && o == opt_by_key("islands"));
    CHECK(opt_parse_text(o, "65", &s, why, sizeof why) == KEVO_EINVAL);
    CHECK(strstr(why, "[1, 64]") != NULL);
    char err[512];
    CHECK(spec_parse_json(&s, "{\"islands\": 65}", "t.json", err,
                          sizeof err) == KEVO_EPARSE);
    CHECK(strstr(err, "[1, 64]") != NULL);
    o = opt_by_flag("seed");
    CHECK(opt_parse_text(o, "18446744073709551615", &s, why,
                         sizeof why) == KEVO_OK &&
          s.seed == UINT64_MAX);
    CHECK(opt_parse_text(o, "-1", &s, why, sizeof why) == KEVO_EINVAL);
    CHECK(opt_parse_text(o, " 1", &s, why, sizeof why) == KEVO_EINVAL);
    o = opt_by_flag("time");
    CHECK(opt_parse_text(o, "7h50m", &s, why, sizeof why) == KEVO_OK &&
          s.max_time_s == 28200);
}

static void help_lists_each_flag_of_its_command(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    opt_print_help(f, OPTC_RESUME);
    fclose(f);
    CHECK(strstr(text, "--evals N") && strstr(text, "--time T") &&
          strstr(text, "--gpus") && !strstr(text, "--islands"));
    free(text);
    f = open_memstream(&text, &len);
    opt_print_help(f, OPTC_RUN);
    fclose(f);
    for (const struct kopt *o = kevo_options; o->flag || o->key; o++)
        if (o->flag && o->help && (o->cmds & OPTC_RUN)) {
            char want[64];
            snprintf(want, sizeof want, "  --%s", o->flag);
            CHECK_MSG(strstr(text, want) != NULL, "no %s", want);
        }
    free(text);
}

int main(void)
{
    RUN(seeds_round_trip_exactly,
        "seeds up to 2^64-1 come back exactly through the manifest");
    RUN(numeric_settings_round_trip, "numeric settings round-trip");
    RUN(a_rounded_number_is_refused,
        "a JSON number the reader may have rounded is refused");
    RUN(flags_and_spec_share_one_range,
        "a flag and its spec member have one range");
    RUN(help_lists_each_flag_of_its_command,
        "--help lists each flag of its command");
    TEST_DONE();
}
