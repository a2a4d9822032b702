/*
 * duration.c - durations such as "7h50m" (see duration.h).
 */
#include "duration.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const struct {
    char unit;
    double s;
} units[] = {{'d', 86400}, {'h', 3600}, {'m', 60}, {'s', 1}};

#define N_UNITS (int)(sizeof units / sizeof *units)

/* Digits with at most one '.', at p; its length (0: none) into *len. */
static double number_at(const char *p, size_t *len)
{
    size_t n = 0, digits = 0;
    int dot = 0;
    for (;; n++) {
        if (p[n] >= '0' && p[n] <= '9')
            digits++;
        else if (p[n] == '.' && !dot)
            dot = 1;
        else
            break;
    }
    char buf[64];
    if (!digits || n >= sizeof buf) {
        *len = 0;
        return 0;
    }
    memcpy(buf, p, n);
    buf[n] = '\0';
    *len = n;
    double v;
    return sscanf(buf, "%lf", &v) == 1 ? v : 0;
}

static int unit_index(char c)
{
    for (int i = 0; i < N_UNITS; i++)
        if (units[i].unit == c)
            return i;
    return -1;
}

int dur_parse(const char *text, double *out_s, char *why, size_t whycap)
{
    double total = 0;
    int last = -1, terms = 0;
    const char *p = text;
    if (!*p) {
        snprintf(why, whycap, "empty");
        return KEVO_EINVAL;
    }
    while (*p) {
        size_t len;
        double v = number_at(p, &len);
        if (!len) {
            snprintf(why, whycap, "expected a number at '%.16s'", p);
            return KEVO_EINVAL;
        }
        p += len;
        terms++;
        if (!*p && terms == 1) { /* a plain number: seconds */
            total = v;
            break;
        }
        int u = unit_index(*p);
        if (u < 0) {
            if (*p)
                snprintf(why, whycap, "unknown unit '%c' (d, h, m or s)", *p);
            else
                snprintf(why, whycap, "a number without a unit after "
                         "another term");
            return KEVO_EINVAL;
        }
        if (u <= last) {
            snprintf(why, whycap, "unit '%c' after '%c' (largest first, "
                     "each once)", *p, units[last].unit);
            return KEVO_EINVAL;
        }
        last = u;
        total += v * units[u].s;
        p++;
    }
    if (!isfinite(total) || total > 1e12) {
        snprintf(why, whycap, "too long");
        return KEVO_EINVAL;
    }
    *out_s = total;
    return KEVO_OK;
}
