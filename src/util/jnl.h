/*
 * jnl.h - the run journal: journal.jsonl, one JSON object per line, one
 * line per evaluation, confirmation and generation.
 *
 * Each record is written with a single write(2) before the engine moves
 * on, so a process killed at any moment (kill -9) leaves every finished
 * record on disk; generation records are also fdatasync'ed. A line cut by
 * a crash mid-write is the only possible damage; jnl_open_resume() repairs
 * it by truncating to the last complete line (it holds no finished record).
 */
#ifndef KEVO_JNL_H
#define KEVO_JNL_H

#include <cJSON.h>

#include "status.h"

struct jnl;

/* Creates path, which must not exist. *out is new; jnl_close() frees. */
int jnl_create(const char *path, struct jnl **out) KEVO_WUR;
/*
 * Opens an existing journal to continue it: reads every record into a new
 * cJSON array *records (caller deletes), truncates a torn last line, and
 * positions for appending. A malformed complete line is KEVO_EPARSE with
 * "<path>:<line>: ..." in err.
 */
int jnl_open_resume(const char *path, struct jnl **out, cJSON **records,
                    char *err, size_t errcap) KEVO_WUR;
/* Reads all records without opening for writing (for status/report). */
int jnl_read_all(const char *path, cJSON **records, char *err,
                 size_t errcap) KEVO_WUR;
/* Appends rec as one line. sync = 1 also fdatasyncs. */
int jnl_append(struct jnl *j, const cJSON *rec, int sync) KEVO_WUR;
/* Appends one record given as its JSON text (no newline in it). */
int jnl_append_text(struct jnl *j, const char *text, int sync) KEVO_WUR;
/* Number of records written through j plus those present at open. */
/* The path the journal was opened with. */
const char *jnl_path(const struct jnl *j);
long jnl_count(const struct jnl *j);
void jnl_close(struct jnl *j);

#endif
