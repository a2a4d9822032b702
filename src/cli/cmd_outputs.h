/*
 * cmd_outputs.h - the read-only commands that turn finished (or stopped)
 * run directories into things people use: `kevo report` (Markdown + HTML
 * report with gnuplot SVGs), `kevo leaderboard` (best kernel per run,
 * grouped by problem/dtype/shape/GPU; Markdown, CSV, JSON, T4 results) and
 * `kevo export` (the winner as .cu, C driver-API launcher, PyTorch
 * extension). None needs a GPU; none changes a file the run wrote.
 *
 * They open runs through the one run view (runview.h).
 */
#ifndef KEVO_CMD_OUTPUTS_H
#define KEVO_CMD_OUTPUTS_H

#include <cJSON.h>
#include <stdio.h>

#include "cli.h"
#include "runview.h"
#include "status.h"

/* Each returns the process exit code (cmd_run.h: 0 done, 1 error,
 * 2 usage). */
int cmd_report_main(int argc, char **argv);
int cmd_board_main(int argc, char **argv);
int cmd_export_main(int argc, char **argv);

#endif
