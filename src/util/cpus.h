/*
 * cpus.h - how many CPUs this process may run on: its affinity mask
 * (taskset, cpusets, Slurm and container CPU sets shrink it), not the
 * machine's online count. What sizes kevo's compile pool.
 */
#ifndef KEVO_CPUS_H
#define KEVO_CPUS_H

/* CPUs in this thread's affinity mask; where the mask cannot be read, the
 * online CPUs; at least 1. */
int cpus_usable(void);

#endif
