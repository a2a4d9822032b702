/*
 * cmd_repro.h - the commands that check runs after the fact:
 *   kevo replay  re-runs the engine on a run's recorded results only and
 *                proves its decisions are the recorded ones (no GPU)
 *   kevo verify  re-measures a run's best kernels in a fresh GPU worker,
 *                with fresh inputs, and reports drift against the record
 *   kevo bench   the fixed, seeded benchmark suite (bench/suite.json): one
 *                run per case, then one table of best kernel vs baseline
 */
#ifndef KEVO_CMD_REPRO_H
#define KEVO_CMD_REPRO_H

/* Each takes argv with argv[0] = the command name and returns the exit
 * code: 0 done (identical / verified within noise / suite done), 1 a
 * divergence, drift or error, 2 usage, 3 needs a GPU, 130 stopped. */
int cmd_replay_main(int argc, char **argv);
int cmd_verify_main(int argc, char **argv);
int cmd_bench_main(int argc, char **argv);
/* kevo bench with a problem and no candidate (cmd_bench_problem.c): the
 * checks before candidates and every baseline, printed. */
int cmd_bench_wants_problem(int argc, char **argv);
int cmd_bench_problem_main(int argc, char **argv);

#endif
