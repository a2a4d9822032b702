/*
 * duration.h - the one parser of durations kevo reads (--time of run,
 * resume and bench, "time" of a spec or bench case). Knows nothing of
 * runs; formats nothing.
 */
#ifndef KEVO_DURATION_H
#define KEVO_DURATION_H

#include <stddef.h>

#include "status.h"

/*
 * Parses text as a duration into *out_s (seconds): a plain number of
 * seconds ("90", "1.5"), or one or more terms NUMBER UNIT with units d, h,
 * m, s, each unit at most once and largest first ("8h", "1.5h", "7h50m",
 * "2m30s", "1d2h"). No signs, exponents or spaces. Returns KEVO_OK, or
 * KEVO_EINVAL with the reason in why (e.g. "unknown unit 'x'"; no quotes
 * of text itself, the caller names it).
 */
int dur_parse(const char *text, double *out_s, char *why,
              size_t whycap) KEVO_WUR;

/* What the messages of callers show as examples of valid durations. */
#define DUR_EXAMPLES "90s, 30m, 8h, 7h50m, 1d2h"

#endif
