/*
 * fingerprint.h - the environment a measurement was taken in, so that a
 * number can be traced to its GPU and software: GPU (name, UUID, SMs,
 * memory), software stack (driver, CUDA driver API and toolkit, NVRTC,
 * CUPTI, cuBLAS), clocks, power limit and temperature (NVML, optional;
 * loaded with dlopen, never linked), kevo's version, commit and the NVRTC
 * options candidates are compiled with.
 *
 * The fingerprint is built from the GPU evaluator's `environment` object
 * (eval.h) plus what the coordinator process reads itself; it lives in
 * manifest.json as "fingerprint". Its "hash" covers only the parts that
 * must match for two measurements to be comparable (GPU, software, kevo);
 * clocks and temperature are samples, outside the hash. Each scored result
 * carries the hash and a small NVML sample in its evidence (gpueval.c).
 */
#ifndef KEVO_FINGERPRINT_H
#define KEVO_FINGERPRINT_H

#include <cJSON.h>
#include <stddef.h>

/*
 * Returns a new fingerprint object for env, an evaluator environment
 * object (may be NULL, or lack "device" as the test evaluator's does:
 * the GPU part is then null with "gpu_reason"). sample = 1 also reads
 * NVML now: driver version text, application and current clocks, power
 * limit, temperature ("temp_c_start"); without NVML those are null and
 * "nvml" says why. Missing facts never fail. Caller deletes; NULL only
 * when out of memory.
 */
cJSON *fingerprint_new(const cJSON *env, int sample);

/* The "hash" member of fp (16 hex digits), or "" when fp has none. */
const char *fingerprint_hash(const cJSON *fp);

/*
 * A compact NVML sample of the device with this UUID, for one result:
 * {"temp_c":41,"sm_mhz":1980,"mem_mhz":2619,"power_w":312.5}; members
 * NVML cannot give are left out. NULL when NVML or the device is not
 * there (or uuid is NULL/empty). Caller deletes.
 */
cJSON *fingerprint_sample(const char *uuid);

/*
 * Compares the GPU and software parts of two fingerprints (a = recorded,
 * b = now). *same_gpu: GPU names and UUIDs equal. *same_software: driver,
 * CUDA, NVRTC, CUPTI and cuBLAS versions equal where both are known (the
 * driver text needs NVML on both sides). diff[cap] gets one line naming
 * each difference ("GPU 'A' (GPU-1..) vs 'B' (GPU-2..); NVRTC 13.0 vs
 * 13.1"), or "" when there is none.
 */
void fingerprint_compare(const cJSON *a, const cJSON *b, int *same_gpu,
                         int *same_software, char *diff, size_t cap);

#endif
