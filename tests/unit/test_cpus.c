/*
 * test_cpus.c - cpus_usable counts the CPUs of the affinity mask (taskset,
 * cpusets), not the machine's: the compile pool is sized by it; cpus_run
 * runs each job once, job 0 on the calling thread, the others on threads
 * of their own.
 */
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "cpus.h"
#include "check.h"

static void test_mask(void)
{
    cpu_set_t old, one;
    CHECK(sched_getaffinity(0, sizeof old, &old) == 0);
    int n = CPU_COUNT(&old);
    CHECK(cpus_usable() == n);
    int first = -1;
    for (int i = 0; i < CPU_SETSIZE && first < 0; i++)
        if (CPU_ISSET(i, &old))
            first = i;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    CHECK(sched_setaffinity(0, sizeof one, &one) == 0);
    CHECK(cpus_usable() == 1);
    CHECK(sched_setaffinity(0, sizeof old, &old) == 0);
    CHECK(cpus_usable() == n);
    /* never more than the machine has online */
    CHECK(n <= sysconf(_SC_NPROCESSORS_ONLN));
}

struct job {
    int runs;
    pthread_t by;
    char pad[64]; /* (the next job's counter on another cache line) */
};

static void *count(void *arg)
{
    struct job *j = arg;
    j->runs++;
    j->by = pthread_self();
    return NULL;
}

static void test_run(void)
{
    struct job j[CPUS_MAX_JOBS + 1];
    const int ns[] = {0, 1, 3, CPUS_MAX_JOBS};
    for (size_t k = 0; k < sizeof ns / sizeof *ns; k++) {
        memset(j, 0, sizeof j);
        cpus_run(ns[k], count, j, sizeof *j);
        int once = 1, own = 1;
        for (int i = 0; i <= CPUS_MAX_JOBS; i++)
            once &= j[i].runs == (i < ns[k]);
        for (int i = 1; i < ns[k]; i++)
            own &= !pthread_equal(j[i].by, pthread_self());
        CHECK_MSG(once, "%d jobs: not each run once", ns[k]);
        CHECK_MSG(own, "%d jobs: one ran on the calling thread", ns[k]);
        CHECK(ns[k] == 0 || pthread_equal(j[0].by, pthread_self()));
    }
}

int main(void)
{
    RUN(test_mask, "the CPUs of the affinity mask, 1 under a one-CPU mask");
    RUN(test_run, "cpus_run: each job once, job 0 here, the others on threads of their own");
    TEST_DONE();
}
