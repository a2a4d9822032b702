/*
 * runlog.h - the run's records, recorded or live: the one mechanism behind
 * a fresh run, a resume and a replay.
 *
 * The engine asks the run log for what it needs - the results of a batch
 * of candidates, a confirmation of a new best, the answer to an LLM
 * request - and hands it every record it makes (records.h). It never
 * knows where an answer came from:
 *
 *   - while recorded records remain (a resume re-deriving the records
 *     after its checkpoint, or a replay), the answer is the recorded one,
 *     after checking that the record is about the same candidate or
 *     request; every record the engine makes is compared with the recorded
 *     one on its decisions (rec_first_difference), and the first
 *     difference is a divergence (KEVO_EDIVERGE, runlog_divergence());
 *   - after them, a live run asks its evaluator (the GPU, a simulated
 *     table, a test double) and its LLM client, appends every record to
 *     the journal and goes on; a replay (live = 0) stops there with
 *     KEVO_ESTOPPED and runlog_ended() set: the recording ends.
 *
 * Results reach the engine exactly as journaled (values after one JSON
 * round trip), so a resumed engine continues from the same numbers as an
 * uninterrupted one.
 */
#ifndef KEVO_RUNLOG_H
#define KEVO_RUNLOG_H

#include <cJSON.h>

#include "eval.h"
#include "jnl.h"
#include "llm.h"
#include "status.h"

struct runlog_cfg {
    const cJSON *records;   /* recorded records (array) or NULL; borrowed */
    int live;               /* 1: new records may be made after them */
    struct jnl *jnl;        /* where new records go; NULL = nowhere */
    struct evaluator ev;    /* live evaluations (live runs); borrowed */
    struct llm *llm;        /* live LLM answers, or NULL; borrowed */
    const char *llm_dir;    /* the run whose llm/ holds the transcripts of
                               recorded answers */
};

struct runlog_divergence {
    long index;             /* 0-based record index; -1 = none */
    char what[1024];
    cJSON *recorded;        /* the differing member's values, or NULL */
    cJSON *produced;
};

struct runlog;

int runlog_new(const struct runlog_cfg *cfg, struct runlog **out) KEVO_WUR;
void runlog_free(struct runlog *rl);

/* Index of the next record; records before it are history. */
long runlog_pos(const struct runlog *rl);
/* Starts at record pos (a checkpoint's journal_records). KEVO_EINVAL if
 * beyond the recording. */
int runlog_seek(struct runlog *rl, long pos) KEVO_WUR;
/* Recorded record i (borrowed), or NULL. */
const cJSON *runlog_recorded(const struct runlog *rl, long i);
/* 1 if the next record is a recorded one (answers come from the record). */
int runlog_replaying(const struct runlog *rl);
/* 1 if new records are written to a journal (a run, not a replay). */
int runlog_writes(const struct runlog *rl);
/* 1 once a recording-only log was asked past its end. */
int runlog_ended(const struct runlog *rl);
/* The first divergence (index -1: none) and, for other errors, a message
 * ("" if none). */
const struct runlog_divergence *runlog_divergence(const struct runlog *rl);
const char *runlog_error(const struct runlog *rl);

/*
 * Results of cands[0..n), to cb in index order (the evaluator_ops
 * contract). cb must hand the candidate's eval record (its defer record
 * for a result with deferred set: a recorded "defer" record gives one)
 * to runlog_put before the next result (runlog_replaying() says
 * beforehand whether the result it got was recorded).
 */
int runlog_evaluate(struct runlog *rl, const struct candidate *const *cands,
                    int n, eval_cb cb, void *ud) KEVO_WUR;
/* The record at the log's position is one the engine cannot have made
 * (what says why): a divergence there. Returns KEVO_EDIVERGE. */
int runlog_refuse(struct runlog *rl, const char *what);
/* How many candidates of the next batch runlog_evaluate gets may come
 * back deferred (evaluator_ops.set_defer of the live evaluator; nothing
 * without one). Recorded results come as they were recorded, deferrals
 * included; those count against the allowance of a batch that goes on
 * live (a run resumed inside a generation). */
void runlog_set_defer(struct runlog *rl, int max_n);
/* The live evaluator's deadline (evaluator_ops.set_deadline; fs_now_ns,
 * 0: none): a candidate not measured by then comes back deferred (2),
 * whatever runlog_set_defer allows. Nothing in a replay. */
void runlog_set_deadline(struct runlog *rl, long long at_ns);
/* The live evaluator's set_drop (eval.h): optional candidates may come
 * back dropped (3). Nothing in a replay. */
void runlog_set_drop(struct runlog *rl, int on);
/* 1 if the live evaluator ends its batches at a deadline
 * (runlog_set_deadline). */
int runlog_can_end_on_time(const struct runlog *rl);
/* Hands cands[0..n) (borrowed), the batch runlog_evaluate gets next, to
 * the live evaluator's prefetch (eval.h) when the log is live and holds
 * no recorded result left to give (a replay, or a resume still re-deriving
 * its recorded tail, compiles nothing ahead); else nothing. */
void runlog_prefetch(struct runlog *rl, const struct candidate *const *cands,
                     int n);
/* Takes the engine's record rec (borrowed): compared with the recorded one,
 * or appended (sync: fsync after). */
int runlog_put(struct runlog *rl, const cJSON *rec, int sync) KEVO_WUR;
/* 1 if new bests are confirmed: the evaluator confirms (live), or the
 * recording holds confirmations (replay). */
int runlog_confirms(const struct runlog *rl);
/* Confirms challenger ch against incumbent in (recorded, or measured and
 * journaled as a "confirm" record of generation gen at run time t). */
int runlog_confirm(struct runlog *rl, int gen, double t,
                   const struct candidate *ch, const struct candidate *in,
                   int *accept) KEVO_WUR;
/*
 * The hardware profile of candidate c, wanted because of why ("best",
 * "parent"). While recorded records remain, the answer is the recorded
 * "profile" record when the next one is c's; otherwise nothing was
 * profiled here (*taken = 0; a recording made without profiles or past
 * its budget is replayed as it was). Live, the evaluator's profile
 * (none when it cannot profile: *taken = 0), journaled as a "profile"
 * record of generation gen at run time t.
 */
int runlog_profile(struct runlog *rl, int gen, double t,
                   const struct candidate *c, const char *why,
                   struct kprof *out, int *taken) KEVO_WUR;
/* 1 if live profiles can be asked for (the evaluator profiles). */
int runlog_profiles(const struct runlog *rl);
/* The live evaluator's profile_soon (eval.h); nothing when not live. */
void runlog_profile_soon(struct runlog *rl);

/* Forwards the evaluator's optional hooks (no-ops without one). */
void runlog_set_best(struct runlog *rl, double best_median_ns);
int runlog_has_admit(const struct runlog *rl);
int runlog_admit(const struct runlog *rl, const struct tpl *t,
                 const int64_t *vals);

/* Queues LLM request q live (*ticket = -1 when there is no LLM client). */
int runlog_ask(struct runlog *rl, const struct llm_req *q,
               long *ticket) KEVO_WUR;
/*
 * The answer to the request with hash prompt (ticket from runlog_ask, or
 * -1): the recorded one (text from the transcript, status and accounting
 * from the record; a live ticket is drained) or the live one. The engine
 * then hands its "llm" record to runlog_put. Release with llm_ans_release.
 */
int runlog_answer(struct runlog *rl, uint64_t prompt, long ticket,
                  struct llm_ans *a) KEVO_WUR;
/* While runlog_answer waits for a live answer it asks give_up(ud) every
 * LLM_GIVE_UP_POLL_MS; non-zero ends the wait with KEVO_ESTOPPED (the
 * request is abandoned when the LLM client is freed; see llm_wait_until).
 * A recorded answer never waits for the live one asked again. */
void runlog_set_give_up(struct runlog *rl, int (*give_up)(void *), void *ud);
/* The recorded ok answer with transcript key key (a checkpoint's LLM
 * templates). KEVO_EPARSE if it is not an ok answer. */
int runlog_transcript(const struct runlog *rl, const char *key,
                      struct llm_ans *a) KEVO_WUR;

#endif
