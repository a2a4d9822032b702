/*
 * mpx.h - kevo's thin layer over MPI (Open MPI, or any MPI-3): whether
 * this process was started by an MPI launcher, the job's ranks, and text
 * messages between ranks. Built only with `make MPI=1` (KEVO_MPI).
 *
 * Every call is non-blocking underneath and polled with short sleeps,
 * under one mutex: a rank waiting for results does not spin a core that
 * its compile pool needs, and the proxies of several ranks may run in
 * several threads (MPI_THREAD_SERIALIZED is enough). Errors return (the
 * communicator has MPI_ERRORS_RETURN) as KEVO_EIO with a reason; whether
 * a dead rank is reported or the launcher ends the whole job is the MPI
 * library's choice (Open MPI 4 ends it; see README "Several hosts").
 * Messages between two ranks arrive in the order they were sent.
 */
#ifndef KEVO_MPX_H
#define KEVO_MPX_H

#include <stddef.h>

#include "status.h"

/* Message kinds (MPI tags). */
enum mpx_tag {
    MPX_HELLO = 1, /* 0 -> r: the run's spec; r makes its evaluator */
    MPX_READY,     /* r -> 0: {rc, err, host, env} */
    MPX_BATCH,     /* 0 -> r: candidates to evaluate */
    MPX_RESULT,    /* r -> 0: one result, in index order */
    MPX_END,       /* r -> 0: the batch is over: {rc, err, n} */
    MPX_CANCEL,    /* 0 -> r: stop the current batch */
    MPX_QUIT       /* 0 -> r: release the evaluator and leave */
};

/* 1 if an MPI launcher (mpirun, mpiexec, srun with PMI/PMIx) started this
 * process as one of several; reads the environment only, so a plain
 * `kevo run` never initialises MPI. */
int mpx_launched(void);
/* Tasks Slurm started in this step when no MPI process manager came
 * with them (srun without --mpi=pmix or pmi2: each task would be a run of
 * its own); 0 otherwise. */
long mpx_unmanaged_tasks(void);
/* Initialises MPI once (thread level SERIALIZED or better) and duplicates
 * the world communicator with MPI_ERRORS_RETURN. Refuses a job the MPI
 * library sees as one process while Slurm started several tasks (srun
 * without its MPI plugin would make N independent runs). */
int mpx_init(char *err, size_t errcap) KEVO_WUR;
/* This process's rank, the job's size, and the ranks on this host
 * (valid after mpx_init; 0, 1, 1 before). */
int mpx_rank(void);
int mpx_size(void);
int mpx_local_size(void);
int mpx_local_rank(void);
/* Host name of this rank (MPI_Get_processor_name). */
const char *mpx_host(void);
/* Compile processes for this rank: given if > 0, else the host's CPUs
 * shared among the ranks on the host (at least 1). */
int mpx_compilers(int given);
/* One GPU per rank: when several ranks share a host, sets
 * CUDA_VISIBLE_DEVICES to this rank's entry (its local index modulo the
 * count) of the list the launcher gave every rank, or, without one, of
 * the host's NVIDIA GPUs (/proc/driver/nvidia/gpus); a single device the
 * launcher chose (srun --gpus-per-task=1) stays. Call it before any CUDA
 * call and before the GPU workers start (they inherit it). Returns the
 * index chosen, or -1 if it left the environment alone. */
int mpx_pick_gpu(void);
/* Ends MPI (idempotent; nothing after it). */
void mpx_finalize(void);

/* Sends len bytes of text to rank dest under tag; returns once the
 * buffer may be reused. KEVO_EIO with err filled if MPI fails. */
int mpx_send(int dest, int tag, const char *text, size_t len, char *err,
             size_t errcap) KEVO_WUR;
/* Receives the next message from rank src (any tag): *tag, and *text a
 * new NUL-terminated string (caller frees). Waits up to timeout_ms
 * (< 0: for ever); KEVO_ETIMEOUT if nothing came. */
int mpx_recv(int src, int *tag, char **text, size_t *len, long timeout_ms,
             char *err, size_t errcap) KEVO_WUR;
/* 1 if a message from src waits (its tag in *tag), 0 if none, < 0 on an
 * MPI error. */
int mpx_pending(int src, int *tag);

#endif
