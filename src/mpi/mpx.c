/*
 * mpx.c - MPI transport (see mpx.h). Owns the duplicated communicator and
 * the one mutex every MPI call runs under. Knows nothing of evaluations:
 * messages are text (JSON, made and read by mpieval.c and mpiserve.c).
 */
#include "mpx.h"

#include <dirent.h>
#include <limits.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cpus.h"
#include "fsutil.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static MPI_Comm comm = MPI_COMM_NULL; /* a duplicate of MPI_COMM_WORLD */
static int my_rank, n_ranks = 1, n_local = 1, local_rank;
static int started, ended;
static char host[MPI_MAX_PROCESSOR_NAME + 1] = "localhost";

static long env_long(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? atol(v) : 0;
}

int mpx_launched(void)
{
    /* Open MPI's mpirun, MPICH/Hydra and Slurm PMI2, PMIx (srun
     * --mpi=pmix, Open MPI 5) */
    return env_long("OMPI_COMM_WORLD_SIZE") > 1 || env_long("PMI_SIZE") > 1 ||
           env_long("PMIX_SIZE") > 1 ||
           (getenv("PMIX_RANK") && env_long("SLURM_NTASKS") > 1);
}

long mpx_unmanaged_tasks(void)
{
    long tasks = env_long("SLURM_STEP_NUM_TASKS");
    return tasks > 1 && !mpx_launched() && !getenv("PMIX_RANK") &&
                   !getenv("PMI_RANK")
               ? tasks
               : 0;
}

static void mpi_reason(int code, const char *what, char *err, size_t errcap)
{
    char s[MPI_MAX_ERROR_STRING];
    int n = 0;
    if (MPI_Error_string(code, s, &n) != MPI_SUCCESS)
        snprintf(s, sizeof s, "MPI error %d", code);
    snprintf(err, errcap, "%s: %s", what, s);
}

int mpx_init(char *err, size_t errcap)
{
    int provided = 0, rc;
    if (started)
        return KEVO_OK;
    rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided);
    if (rc != MPI_SUCCESS) {
        snprintf(err, errcap, "MPI_Init_thread failed (%d)", rc);
        return KEVO_ENODEV;
    }
    started = 1;
    if (provided < MPI_THREAD_SERIALIZED) {
        snprintf(err, errcap, "the MPI library gives thread level %d; kevo "
                 "needs MPI_THREAD_SERIALIZED (%d)", provided,
                 MPI_THREAD_SERIALIZED);
        return KEVO_ENODEV;
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm, &my_rank);
    MPI_Comm_size(comm, &n_ranks);
    MPI_Comm shared;
    if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, my_rank,
                            MPI_INFO_NULL, &shared) == MPI_SUCCESS) {
        MPI_Comm_size(shared, &n_local);
        MPI_Comm_rank(shared, &local_rank);
        MPI_Comm_free(&shared);
    }
    int len = 0;
    if (MPI_Get_processor_name(host, &len) != MPI_SUCCESS)
        snprintf(host, sizeof host, "localhost");
    long tasks = env_long("SLURM_STEP_NUM_TASKS");
    if (n_ranks == 1 && tasks > 1) {
        snprintf(err, errcap, "Slurm started %ld tasks but MPI sees one "
                 "process: each would be a separate run; start kevo with "
                 "'srun --mpi=pmix' (or pmi2) or with mpirun", tasks);
        return KEVO_EINVAL;
    }
    return KEVO_OK;
}

int mpx_rank(void)
{
    return my_rank;
}

int mpx_size(void)
{
    return n_ranks;
}

int mpx_local_size(void)
{
    return n_local;
}

int mpx_local_rank(void)
{
    return local_rank;
}

int mpx_compilers(int given)
{
    long cpus = cpus_usable();
    if (given > 0)
        return given;
    long n = (cpus > 0 ? cpus : 1) / (n_local > 0 ? n_local : 1);
    return n > 0 ? (int)n : 1;
}

static int count_gpus(void)
{
    DIR *d = opendir("/proc/driver/nvidia/gpus");
    struct dirent *e;
    int n = 0;
    if (!d)
        return 0;
    while ((e = readdir(d)))
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* Entry k of a comma-separated list, into out. */
static void list_entry(const char *list, int k, char *out, size_t cap)
{
    const char *p = list;
    while (k-- > 0 && (p = strchr(p, ',')))
        p++;
    size_t n = p ? strcspn(p, ",") : 0;
    snprintf(out, cap, "%.*s", (int)(n < cap ? n : cap - 1), p ? p : "");
}

int mpx_pick_gpu(void)
{
    const char *vis = getenv("CUDA_VISIBLE_DEVICES");
    char v[64];
    if (n_local <= 1)
        return -1;
    if (vis && *vis) { /* a list the launcher gave every rank: share it */
        int n = 1;
        for (const char *p = vis; (p = strchr(p, ',')); p++)
            n++;
        if (n == 1)
            return -1;
        list_entry(vis, local_rank % n, v, sizeof v);
        setenv("CUDA_VISIBLE_DEVICES", v, 1);
        return local_rank % n;
    }
    int n = count_gpus();
    if (n == 0)
        return -1;
    snprintf(v, sizeof v, "%d", local_rank % n);
    setenv("CUDA_VISIBLE_DEVICES", v, 1);
    return local_rank % n;
}

const char *mpx_host(void)
{
    return host;
}

void mpx_finalize(void)
{
    if (!started || ended)
        return;
    ended = 1;
    if (comm != MPI_COMM_NULL)
        MPI_Comm_free(&comm);
    MPI_Finalize();
}

/* Sleeps between polls: 20 us at first, doubling up to 0.5 ms, so that an
 * answer is seen quickly and a long wait costs no CPU. */
static void backoff(long *us)
{
    struct timespec ts = {0, *us * 1000};
    nanosleep(&ts, NULL);
    if (*us < 500)
        *us *= 2;
}

/* Polls req to completion, taking the lock for each test only. */
static int wait_req(MPI_Request *req, MPI_Status *st, const char *what,
                    char *err, size_t errcap)
{
    long us = 20;
    for (;;) {
        int done = 0;
        pthread_mutex_lock(&lock);
        int rc = MPI_Test(req, &done, st);
        pthread_mutex_unlock(&lock);
        if (rc != MPI_SUCCESS) {
            mpi_reason(rc, what, err, errcap);
            return KEVO_EIO;
        }
        if (done)
            return KEVO_OK;
        backoff(&us);
    }
}

int mpx_send(int dest, int tag, const char *text, size_t len, char *err,
             size_t errcap)
{
    MPI_Request req;
    char what[64];
    snprintf(what, sizeof what, "sending to rank %d", dest);
    if (len > INT_MAX) {
        snprintf(err, errcap, "%s: a message of %zu bytes is too large", what,
                 len);
        return KEVO_ETOOBIG;
    }
    pthread_mutex_lock(&lock);
    int rc = MPI_Isend(text, (int)len, MPI_CHAR, dest, tag, comm, &req);
    pthread_mutex_unlock(&lock);
    if (rc != MPI_SUCCESS) {
        mpi_reason(rc, what, err, errcap);
        return KEVO_EIO;
    }
    return wait_req(&req, MPI_STATUS_IGNORE, what, err, errcap);
}

int mpx_pending(int src, int *tag)
{
    int flag = 0;
    MPI_Status st;
    pthread_mutex_lock(&lock);
    int rc = MPI_Iprobe(src, MPI_ANY_TAG, comm, &flag, &st);
    pthread_mutex_unlock(&lock);
    if (rc != MPI_SUCCESS)
        return -1;
    if (flag && tag)
        *tag = st.MPI_TAG;
    return flag;
}

int mpx_recv(int src, int *tag, char **text, size_t *len, long timeout_ms,
             char *err, size_t errcap)
{
    char what[64];
    snprintf(what, sizeof what, "receiving from rank %d", src);
    long long t0 = fs_now_ns();
    long us = 20;
    MPI_Message msg;
    MPI_Status st;
    for (;;) {
        int flag = 0;
        pthread_mutex_lock(&lock);
        int rc = MPI_Improbe(src, MPI_ANY_TAG, comm, &flag, &msg, &st);
        pthread_mutex_unlock(&lock);
        if (rc != MPI_SUCCESS) {
            mpi_reason(rc, what, err, errcap);
            return KEVO_EIO;
        }
        if (flag)
            break;
        if (timeout_ms >= 0 && fs_now_ns() - t0 > timeout_ms * 1000000LL) {
            snprintf(err, errcap, "%s: nothing after %ld ms", what,
                     timeout_ms);
            return KEVO_ETIMEOUT;
        }
        backoff(&us);
    }
    int count = 0;
    MPI_Get_count(&st, MPI_CHAR, &count);
    char *buf = malloc((size_t)count + 1);
    if (!buf)
        return KEVO_ENOMEM; /* the message stays matched: the job is lost */
    MPI_Request req;
    pthread_mutex_lock(&lock);
    int rc = MPI_Imrecv(buf, count, MPI_CHAR, &msg, &req);
    pthread_mutex_unlock(&lock);
    if (rc == MPI_SUCCESS)
        rc = wait_req(&req, &st, what, err, errcap);
    else {
        mpi_reason(rc, what, err, errcap);
        rc = KEVO_EIO;
    }
    if (rc) {
        free(buf);
        return rc;
    }
    buf[count] = '\0';
    *tag = st.MPI_TAG;
    *text = buf;
    if (len)
        *len = (size_t)count;
    return KEVO_OK;
}
