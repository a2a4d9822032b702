/*
 * cmd_gpu.h - the GPU commands: `kevo eval` (compile, check and time
 * template files at one point each, through the same evaluator as `kevo
 * run`) and `kevo doctor` (what works on this machine: driver, context,
 * NVRTC, module load and launch, CUPTI timing, cuBLAS, the worker).
 */
#ifndef KEVO_CMD_GPU_H
#define KEVO_CMD_GPU_H

/* Both take argv with argv[0] = the command name and return the exit
 * code: 0 ok (all verdicts ok / all checks pass), 1 a bad verdict or a
 * failed check, 2 usage, 3 needs a GPU. */
int cmd_eval_main(int argc, char **argv);
int cmd_doctor_main(int argc, char **argv);

#endif
