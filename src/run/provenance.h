/*
 * provenance.h - the "// kevo: provenance KEY VALUE" lines of a template:
 * where a template that kevo promote took from a run comes from (run,
 * model, prompt, answer, GPU, shape, measured fitness, verify drift).
 * tpl.c only checks their form; this reads, strips and writes them. Knows
 * nothing of runs.
 */
#ifndef KEVO_PROVENANCE_H
#define KEVO_PROVENANCE_H

#include <stdint.h>

#include <cJSON.h>

/* 1 if line s[0..len) is a provenance directive (the same form tpl.c's
 * directive pattern matches: optional blanks, "//", blanks, "kevo:",
 * blanks, "provenance", then a blank or the end). */
int prov_is_line(const char *s, size_t len);
/*
 * The provenance lines of text as a new JSON object {KEY: VALUE} in file
 * order (a repeated KEY's values joined with "; "); an empty object when
 * there are none. NULL without memory. Caller frees with cJSON_Delete().
 */
cJSON *prov_read(const char *text);
/* text without its provenance lines. New string (caller frees), NULL
 * without memory. */
char *prov_strip(const char *text);
/* hash_final of prov_strip(text): two templates with the same body (the
 * same code and directives, whatever their provenance) hash the same; 0
 * without memory. */
uint64_t prov_body_hash(const char *text);

#endif
