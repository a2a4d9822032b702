/*
 * cpus.c - CPUs in the affinity mask (see cpus.h).
 */
#include "cpus.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

int cpus_usable(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int n = CPU_COUNT(&set);
        if (n > 0)
            return n;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

void cpus_run(int n, void *(*fn)(void *), void *job, size_t size)
{
    pthread_t th[CPUS_MAX_JOBS];
    int started = 1;
    if (n > CPUS_MAX_JOBS)
        n = CPUS_MAX_JOBS;
    for (; started < n; started++)
        if (pthread_create(&th[started], NULL, fn,
                           (char *)job + (size_t)started * size))
            break;
    if (n > 0)
        fn(job);
    for (int i = 1; i < started; i++)
        pthread_join(th[i], NULL);
    for (int i = started; i < n; i++) /* (their threads did not start) */
        fn((char *)job + (size_t)i * size);
}

int cpus_thread(pthread_t *th, void *(*fn)(void *), void *arg)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(th, NULL, fn, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}
