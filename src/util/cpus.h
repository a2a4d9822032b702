/*
 * cpus.h - how many CPUs this process may run on: its affinity mask
 * (taskset, cpusets, Slurm and container CPU sets shrink it), not the
 * machine's online count. What sizes kevo's compile pool. And a short
 * job run on several threads at once (cpus_run), and a thread that
 * leaves signals to the others (cpus_thread).
 */
#ifndef KEVO_CPUS_H
#define KEVO_CPUS_H

#include <pthread.h>
#include <stddef.h>

/* CPUs in this thread's affinity mask; where the mask cannot be read, the
 * online CPUs; at least 1. */
int cpus_usable(void);

#define CPUS_MAX_JOBS 64

/* Calls fn(job + i * size) for i in 0 .. n - 1 (n <= CPUS_MAX_JOBS), each
 * on a thread of its own, job 0 on this one, and returns when all have
 * returned. A job whose thread cannot start runs on this thread after
 * the others. The caller keeps n to what it means to use (cpus_usable). */
void cpus_run(int n, void *(*fn)(void *), void *job, size_t size);

/* pthread_create(th, NULL, fn, arg) with every signal blocked in the new
 * thread, so that Ctrl-C reaches the thread that handles it: 0, or
 * pthread_create's error. */
int cpus_thread(pthread_t *th, void *(*fn)(void *), void *arg);

#endif
