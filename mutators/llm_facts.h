/*
 * llm_facts.h - the facts the LLM mutators put into their prompts, as
 * named values for the prompt files (prompt.h), and the one recipe that
 * renders system.txt and a mutator's user prompt. Shared by llm_propose.c,
 * llm_rewrite.c, llm_crossover.c and llm_repair.c; nothing else uses it.
 *
 * Values set for every prompt (llm_prompts_build):
 *   PROBLEM SUMMARY ABI WORK_UNIT DTYPE SHAPE SIZE_NAMES BUFFERS
 *   BUFFER_NAMES WORK TOLERANCE PRELUDE GPU_FACTS BEST BASELINE FORMAT
 * and per parent, with a prefix P ("PARENT", "A", "B"):
 *   P_NAME P_TEXT P_HEADERS P_POINT P_RESULT P_OUTCOME P_MEANING
 *   P_DETAIL P_EVIDENCE P_PROFILE (the diagnosis and raw counters per
 *   launch, "not available: ..." or "(not profiled)")
 * format.txt is filled first (with everything but FORMAT) and becomes
 * FORMAT. The text is a pure function of the inputs: LLM transcripts are
 * keyed by it, so identical requests are never paid for twice.
 */
#ifndef KEVO_LLM_FACTS_H
#define KEVO_LLM_FACTS_H

#include <stddef.h>

#include "llm_mutator.h"
#include "prompt.h"

#define LLM_PROMPTS_DIR "mutators/prompts" /* when ctx->prompts_dir is NULL */

/* Sets the P_* values of one parent (see top). par->r may be NULL. */
void llm_facts_parent(struct prompt_vars *pv, const char *prefix,
                      const struct llm_prompt_ctx *ctx,
                      const struct llm_parent *par);

/*
 * Adds the common values to pv (which holds the mutator's own), then
 * renders format.txt, system.txt and user_file from the prompts directory
 * into *system and *user (new strings; caller frees both). On error both
 * are NULL and err names the file (and line) at fault.
 */
int llm_prompts_build(const struct llm_prompt_ctx *ctx, struct prompt_vars *pv,
                      const char *user_file, char **system, char **user,
                      char *err, size_t errcap) KEVO_WUR;

/* Checks that a mutator got the parents it needs; KEVO_EINVAL with
 * "<name> needs N parent(s)" otherwise. */
int llm_facts_check_parents(const char *name, int n,
                            const struct llm_parent *par, char *err,
                            size_t errcap) KEVO_WUR;

#endif
