/*
 * cmd_search.h - the commands of search-strategy work (issue 13), no GPU:
 *   kevo table         a run's measured points as a compact table
 *                      (simtable.h) for kevo run --simulate
 *   kevo bench-search  over seeds, evaluations kevo's default strategy
 *                      and random search need to come within 1 % and 2 %
 *                      of a table's best, on the simulated table
 */
#ifndef KEVO_CMD_SEARCH_H
#define KEVO_CMD_SEARCH_H

/* Each takes argv with argv[0] = the command name and returns the exit
 * code: 0 done, 1 error, 2 usage. */
int cmd_table_main(int argc, char **argv);
int cmd_bench_search_main(int argc, char **argv);

#endif
