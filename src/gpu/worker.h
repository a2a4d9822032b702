/*
 * worker.h - the GPU worker process, and THE EVALUATOR'S CONTRACT.
 *
 * One worker process per GPU (the timing worker) owns the CUDA context,
 * the CUPTI subscription, the cuBLAS handle, the problem's buffers and
 * baselines; from the first profile on, a second worker on the same GPU
 * runs the range profiler (guarantee 11).
 * The coordinator (worker_client.c) starts it as `kevo __worker <fd>` (fork + exec
 * of /proc/self/exe) and talks to it with framed messages (wmsg.h) over a
 * socket pair. A candidate that faults or hangs kills only the worker; the
 * coordinator records crashed/timeout and starts a fresh one.
 *
 * GUARANTEES (kept true by worker.c, hx.c, tmr.c and worker_client.c; change this
 * text when you change them):
 *
 *  1. Isolation. A fresh CUmodule is loaded from the candidate's cubin for
 *     every evaluation and unloaded after it, so __device__ state cannot
 *     persist between candidates. Within one candidate, module memory is
 *     watched, not refused: every object in the cubin's .nv.global*
 *     sections (jit_cubin_globals: __device__ variables, and the
 *     file-scope const/constexpr data NVRTC puts in .nv.global.init) is
 *     located with cuModuleGetGlobal (or through its section's base),
 *     together with the bytes between them, and hashed on the GPU after
 *     load, after every check launch, the timing loop and confirm's
 *     interleaved pairs; any change is cheat "module global 'X' changed
 *     during check A: state carried across launches; use the workspace"
 *     (in confirm: the confirm error). Constant tables pass; a counter
 *     or cache kept across launches does not (state used inside one
 *     launch and restored before it ends is allowed). Data that cannot be
 *     located is compile_error; so is printf (a vprintf import: "printf is
 *     not allowed in candidates"). Kernel names starting with "kevo_" are
 *     refused (reserved for the harness). Device-side launches are refused
 *     by the compiler (jit.h).
 *  2. ABI. Arguments are the problem's buffers in declared order, each
 *     size as int, then void *ws (plan->workspace_bytes, NULL if 0), then
 *     the template's tensor maps by value (tpl.h "tensormap"), encoded in
 *     the worker for exactly the live buffers the launch passes, then the
 *     template's int args (tpl.h "arg") by value; a map the driver
 *     refuses is compile_error "cannot launch: tensor map ...".
 *     More than 48 KiB of dynamic shared memory is opted in per kernel;
 *     clusters and programmatic dependent launches (tpl.h "pdl") go
 *     through cuLaunchKernelEx. A launch the driver rejects (invalid
 *     value, out of resources, block larger than the kernel allows) is
 *     compile_error "cannot launch: ...", not a crash.
 *  3. Inputs. Every check draws fresh inputs on the GPU from seeds derived
 *     from the harness seed (never in any candidate source) and the job's
 *     sequence number: check A seed s1, check B s2, check C s1 again. GEMM:
 *     uniform [-1, 1); softmax: per-row offsets up to +-80 and per-row
 *     spread, so exp() without max-subtraction overflows.
 *  4. Poison and guards. Before every launch of a check or a timed
 *     repetition every output is filled with the dtype's NaN pattern and
 *     the workspace with a NaN pattern. Every input and output buffer sits
 *     between two 64 KiB guard regions holding a secret pseudo-random
 *     pattern, verified after every check launch: a change is cheat
 *     "out-of-bounds write: N bytes changed after/before buffer C".
 *  5. Reference after the fact. Only after the candidate ran and the
 *     stream synchronized: pristine inputs are regenerated from the same
 *     seed into scratch buffers and compared bitwise with the candidate's
 *     inputs (cheat "input A modified at index i"); check C, on check
 *     A's inputs, instead compares a fingerprint of its inputs (kevo_hash,
 *     taken after the candidate ended) with the one check A took of its
 *     verified inputs, kept on the host (cheat "inputs modified: their
 *     fingerprint ..."; problems with in-place buffers draw again, as
 *     their reference needs the pristine copy); the fp64 reference is
 *     computed from the pristine copies (GEMM: cuBLAS Dgemm on exact fp64
 *     conversions; softmax: an fp64 kernel), every output element is
 *     compared on the GPU: pass iff |out-ref| <= atol + rtol*|ref| +
 *     etol*E (NaN fails; atol and rtol those of the element's output:
 *     problem_out_tolerance), E the problem's per-element error scale written
 *     with the reference (GEMM: ||A[i,:]|| * ||B[:,j]|| >= sum_k |a_ik
 *     b_kj|, the scale of fp32 accumulation error; see fitness/gemm.c);
 *     wrong = "N of M elements wrong; first bad (r, c) of OUT: got x, want y
 *     (tolerance t); max rel err e". Scratch (pristine copies, fp64
 *     copies, reference, error scale) stays allocated from check to check
 *     (allocating and freeing ~640 MB per check cost more than the check
 *     at 4096^3), but every scratch byte used is zero-filled when handed
 *     out and overwritten with a NaN pattern when the check ends, on the
 *     harness stream, so before the next candidate launch: no reference
 *     value is in device memory while a candidate runs, and nothing a
 *     candidate writes there survives into a reference.
 *  6. Order. Check A, check B, timing, check C. C's output must be bitwise
 *     identical to A's (64-bit GPU hash) unless the template says
 *     nondeterministic; if it differs and C also fails the reference it
 *     is wrong "after timing: ...", else cheat "non-deterministic: output
 *     differs between two runs on the same inputs". Every timed
 *     repetition's output is hashed too and must equal check B's (same
 *     inputs): a kernel that skips work when timed is wrong "after
 *     timing: ...".
 *  7. Timing. CUPTI CONCURRENT_KERNEL records (events when CUPTI is not
 *     available, recorded in the result). No warm-up launch of its own:
 *     check B has just run the candidate on the same inputs (module
 *     loaded, clocks up), and every repetition is preceded by poisoning
 *     and an L2 flush (a harness kernel reading 2x L2 bytes in the same
 *     stream); a repetition's time runs from the first candidate kernel's
 *     start to the last one's end (first_rep_ns in the evidence shows a
 *     cold first rep). Repetitions are collected after 1 (when racing),
 *     3, 5 and then every 5; stop after 3 when their (max-min)/median <
 *     0.5 % (quick_stop), else at >= 5 when spread (p90-p10)/median < 2 %,
 *     100 repetitions, 1.5 s of timed GPU time or 30x the first
 *     repetition. Racing (cascade): the coordinator sends a best time
 *     (the engine's best, or the fastest ok, non-cascaded median this
 *     evaluator measured itself, whichever is faster); timing stops when
 *     the first repetition, or the median of 3, is > 1.5x it (cascaded =
 *     1; its fitness is that short measurement), and at 5 repetitions when
 *     even the fastest is > 1.03x it (race_stop; "raced" in the detail:
 *     a 5-rep median, spread unconverged). A kernel can only lose
 *     by this: it is slower than a time already measured, and a kernel
 *     that behaves differently in later repetitions needs state across
 *     launches (guarantee 1). Check C still runs.
 *  8. Fitness = problem->work / median; ratio = fitness / the problem's
 *     first baseline (GEMM: cuBLAS in the dtype, TF32 off for fp32;
 *     softmax: copy bandwidth over the same bytes), baselines measured by
 *     the worker at start. roofline = floor / median, floor =
 *     max(flops/peak_flops, (inputs + max(0, outputs - L2 size))/peak_bw)
 *     (problem_floor: after the read-only flush every input byte comes
 *     from DRAM, while up to L2-size bytes of output may still be dirty in
 *     L2 when the timed window ends), peak_bw = 2 * mem clock * bus width
 *     / 8, peak_flops = the fastest way to results of the dtype's
 *     accuracy (solpeak.h: fp16/bf16 SMs * clock * 4096 FLOP/clk; fp32
 *     the larger of the FMA peak, 256 FLOP/clk, and 3xTF32 on tensor
 *     cores, 4096 / 6 FLOP/clk, named in a cheat's detail); the pieces
 *     are in the evidence (floor_in_bytes,
 *     floor_out_bytes, l2_bytes, dram_all_bytes_ns), and an ok detail says
 *     when a kernel beat moving all its bytes through DRAM (outputs left
 *     in L2: where a ratio above the copy baseline comes from).
 *     roofline > 1 is re-checked with new inputs and re-timed; if it
 *     still is, cheat "faster than the speed-of-light floor".
 *  9. Watchdog. The worker announces each phase (progress message); the
 *     coordinator gives each phase a deadline (kernel_timeout_ms; the
 *     timing phase gets the timing cap on top; the first phase counts
 *     from the send, as the coordinator sends the next job before it
 *     files the last answer) and SIGKILLs and reaps a
 *     worker that misses it: timeout "no answer within N ms (phase: check
 *     A)". A sticky CUDA error (700, 702, 714-719, ...) is reported as
 *     crashed with the error name and the phase, and the worker exits; a
 *     worker that dies otherwise is crashed with its signal. The next
 *     request starts a fresh worker with the same init state.
 * 10. Memory. At init, before allocating anything, the worker counts the
 *     bytes it needs (problem_mem_need: inputs, outputs, guards, pristine
 *     copies, fp64 reference and error scale, reference scratch, L2 flush
 *     buffer, harness slack) and refuses a shape that does not fit
 *     cuMemGetInfo's free bytes: "needs N bytes of GPU memory (inputs ...,
 *     reference ...), only F free". Shapes have no other size cap than
 *     int sizes (< 2^31 each) and 2^48 elements per buffer.
 * 11. Profiles in a process of their own. The CUPTI range profiler runs
 *     only in a second worker on the same GPU (init "profiler": true),
 *     which the coordinator starts when the engine says profiles will
 *     come (evaluator profile_soon, at the run's start: its 1-1.5 s start
 *     overlaps generation 0's compiles), else at the first profile, and
 *     keeps for the rest of the evaluator's life, and which answers
 *     WM_PROFILE and
 *     nothing else: no baselines, no CUPTI activity records. The timing
 *     worker refuses WM_PROFILE. Once the profiler had run in a process,
 *     that process's kernel-record collects grew with every later job,
 *     even with the profiler torn down after each profile (softmax fp32
 *     4096^2 on an H200: 0.5 ms a collect before the first profile, 3.2
 *     ms 140 s later, half the run's evaluations lost; none without
 *     profiles; bench/results/2026-11-30-h200x2-s28). The timing worker
 *     waits while the profiler's runs, so the two never share the GPU
 *     (profiles are asked between batches only; gpueval refuses one
 *     inside a batch); a profiler's worker still starting is waited for
 *     before the timing worker's next request, so its start's GPU work
 *     (inputs, references) never overlaps a measurement either. The profiler's worker counts the same memory need
 *     as the timing worker at init (10) though it uses less, which keeps
 *     room for a timing worker's restart. One that cannot start (memory,
 *     an EXCLUSIVE_PROCESS GPU, ...) or that crashed and cannot start
 *     again is not tried again: every later profile is not available,
 *     "the profiler's worker did not start: <why>", and the run goes on
 *     (the engine notes it once and asks no more, as for counters that
 *     cannot be read: prof_unavailable_everywhere).
 * 12. One job queued. The worker reads one request at a time and answers
 *     it before it reads the next, so the coordinator may send the next
 *     job while one runs (worker_client.h wclient_queue): the worker
 *     starts it the moment it has answered, rather than after its answer
 *     has crossed the socket, been read and the next job has been
 *     chosen, written and read back (softmax fp32 4096^2 on an H200:
 *     0.27 ms a job to and from the worker beside its 6.1 ms, and the
 *     coordinator's choice between them, bench/results/2026-11-29-h200-
 *     s20). Each job still gets a fresh module (1) and its own deadlines
 *     (9, counted from the answer before it); a job queued behind one
 *     that crashed or hung the worker never ran and is sent again to the
 *     next worker. A job is queued only when its frame fits in the
 *     socket's free send buffer, so the coordinator never waits on that
 *     write (behind a hung job it would wait for ever, its watchdog
 *     stopped): a large cubin (fp32 GEMM's sgemm_warptile: 0.4-1.5 MB)
 *     waits for the answer as before. One queued before a batch's time
 *     deadline (eval.h set_deadline) runs after it: such a batch ends one
 *     job late.
 */
#ifndef KEVO_WORKER_H
#define KEVO_WORKER_H

/* The message kinds (wmsg.h frame types) and their bodies, WM_INIT ...
 * WM_FATAL, with one codec each: core/wire.h. */
#include "wire.h"

/* Exit status of a worker after WM_FATAL. */
#define WORKER_EXIT_FATAL 3

/*
 * Entry point of the worker process: main.c calls it with its own argv
 * shifted by one when argv[1] is "__worker", so here argv[0] is
 * "__worker", argv[1] the socket fd and argv[2] (optional) the
 * coordinator's pid (the worker refuses to run under another parent, and
 * dies with it). Serves requests until WM_QUIT or
 * end of file; returns the process exit status (0, or WORKER_EXIT_FATAL
 * after a sticky CUDA error or failed start, or 2 on bad arguments).
 */
int worker_main(int argc, char **argv);

#endif
