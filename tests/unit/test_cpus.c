/*
 * test_cpus.c - cpus_usable counts the CPUs of the affinity mask (taskset,
 * cpusets), not the machine's: the compile pool is sized by it.
 */
#include <sched.h>
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

int main(void)
{
    RUN(test_mask, "the CPUs of the affinity mask, 1 under a one-CPU mask");
    TEST_DONE();
}
