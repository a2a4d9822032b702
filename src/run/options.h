/*
 * options.h - the one table of a run's settings (issue 28.2): for each,
 * its command-line flag, its spec/manifest member, type, range, default
 * and help. It drives the parsers of `kevo run` and `kevo resume`, the
 * spec file parser, the manifest writer and both --help texts, so a
 * setting is declared, ranged and documented once.
 *
 * Numeric settings are parsed and written here. Text settings (problem,
 * shape, llm, ...) are listed for the flags and the help; their own
 * checks stay with their users (cmd_run.c, spec.c). 64-bit integers are
 * exact: a JSON number holds integers up to 2^53 exactly, and cJSON's
 * printer (which re-prints a manifest's spec) only 15 digits, so from
 * 10^15 on they are written as JSON strings of digits
 * ("9007199254740993") and read back from either form; manifests written
 * before keep loading.
 */
#ifndef KEVO_OPTIONS_H
#define KEVO_OPTIONS_H

#include <cJSON.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "spec.h"
#include "status.h"

enum opt_type {
    OPTT_FLAG,     /* no value (--quiet); command line only */
    OPTT_TEXT,     /* a string, checked by its user */
    OPTT_INT,      /* an int member of struct spec */
    OPTT_LONG,     /* a long member */
    OPTT_U64,      /* a uint64_t member, exact */
    OPTT_NUM,      /* a double member */
    OPTT_DURATION, /* a double member, seconds: "7h50m" or a number */
};

#define OPTC_RUN 1u    /* kevo run takes the flag */
#define OPTC_RESUME 2u /* kevo resume takes it (this session's value) */

/* The largest integer a JSON number (an IEEE double) holds exactly. */
#define OPT_JSON_EXACT ((uint64_t)1 << 53)
/* The largest integer written as a JSON number (15 digits survive any
 * cJSON re-print). */
#define OPT_JSON_NUMBER_MAX 999999999999999ULL

struct kopt {
    const char *flag;  /* "seed" for --seed; NULL: spec files only */
    const char *key;   /* spec member "seed"; NULL: command line only */
    enum opt_type type;
    size_t off;        /* offsetof(struct spec, member); numeric types */
    uint64_t lo, hi;   /* range of the integer types */
    double dlo, dhi;   /* range of OPTT_NUM and OPTT_DURATION */
    double dflt;       /* default of the numeric types */
    unsigned cmds;     /* OPTC_* with this flag */
    const char *arg;   /* value name in --help ("N"); NULL: none */
    const char *help;  /* --help text; '\n' starts a continuation line;
                          NULL: not shown */
};

/* The table, ending with an entry whose flag and key are NULL. */
extern const struct kopt kevo_options[];

/* The entry with flag name (without "--") or spec member key; NULL if
 * none. */
const struct kopt *opt_by_flag(const char *flag);
const struct kopt *opt_by_key(const char *key);
/* Sets every numeric setting of *s to its default. */
void opt_defaults(struct spec *s);
/*
 * Parses text (a command-line value) into o's member of *s; o must be
 * numeric. KEVO_EINVAL with why such as "'x' is not an integer in
 * [0, 64]" (the caller adds "--flag: ").
 */
int opt_parse_text(const struct kopt *o, const char *text, struct spec *s,
                   char *why, size_t whycap) KEVO_WUR;
/*
 * Parses JSON value it (a spec member) into o's member of *s: a number,
 * or for 64-bit integers also a string of digits, for durations also a
 * string ("8h"). KEVO_EPARSE with why such as "'seed' must be an integer
 * in [0, 18446744073709551615]" (the caller adds file and line).
 */
int opt_parse_json(const struct kopt *o, const cJSON *it, struct spec *s,
                   char *why, size_t whycap) KEVO_WUR;
/* Adds o's member of s to obj under o->key (numeric types): a number, or
 * a string of digits for an integer past OPT_JSON_NUMBER_MAX. */
void opt_add_json(const struct kopt *o, const struct spec *s, cJSON *obj);
/* The option lines of --help for command cmd (OPTC_*), in table order. */
void opt_print_help(FILE *f, unsigned cmd);

#endif
