/*
 * test_duration.c - the one duration parser (util/duration.c): plain
 * seconds, single units, compound durations such as the README's Slurm
 * recipe's "7h50m", and clear reasons for bad ones.
 */
#include <string.h>

#include "check.h"
#include "duration.h"

static double secs(const char *text)
{
    double s = -1;
    char why[128];
    return dur_parse(text, &s, why, sizeof why) == KEVO_OK ? s : -1;
}

static const char *why_of(const char *text)
{
    static char why[128];
    double s;
    why[0] = '\0';
    return dur_parse(text, &s, why, sizeof why) == KEVO_EINVAL ? why : NULL;
}

static void single_units_and_plain_seconds(void)
{
    CHECK(secs("90") == 90);
    CHECK(secs("90s") == 90);
    CHECK(secs("30m") == 1800);
    CHECK(secs("8h") == 28800);
    CHECK(secs("1.5h") == 5400);
    CHECK(secs("2d") == 172800);
    CHECK(secs("0") == 0);
}

static void compound_durations_add_up(void)
{
    CHECK(secs("7h50m") == 7 * 3600 + 50 * 60);
    CHECK(secs("1h30m") == 5400);
    CHECK(secs("2m30s") == 150);
    CHECK(secs("1d2h") == 93600);
    CHECK(secs("1d2h3m4s") == 86400 + 7200 + 180 + 4);
}

static void bad_durations_say_why(void)
{
    const char *w;
    CHECK((w = why_of("7x")) && strstr(w, "unknown unit 'x'"));
    CHECK((w = why_of("30m1h")) && strstr(w, "largest first"));
    CHECK((w = why_of("1h1h")) && strstr(w, "largest first"));
    CHECK((w = why_of("1h30")) && strstr(w, "without a unit"));
    CHECK((w = why_of("")) && strstr(w, "empty"));
    CHECK(why_of("h") != NULL);
    CHECK(why_of("-5s") != NULL);
    CHECK(why_of("1 h") != NULL);
    CHECK(why_of("nan") != NULL);
    CHECK(why_of("inf") != NULL);
    CHECK(why_of("1e400") != NULL);
    CHECK(why_of("99999999999999999999d") != NULL);
}

int main(void)
{
    RUN(single_units_and_plain_seconds,
        "single units and plain seconds are read");
    RUN(compound_durations_add_up, "compound durations such as 7h50m add up");
    RUN(bad_durations_say_why, "a bad duration is refused with its reason");
    TEST_DONE();
}
