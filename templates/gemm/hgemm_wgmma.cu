/*
 * hgemm_wgmma.cu - fp16/bf16 GEMM (C = A*B, row-major, fp32 accumulation)
 * for Hopper (sm_90a): TMA loads tiles into shared memory with the 128-byte
 * swizzle, wgmma.mma_async multiplies them from there, mbarriers pipeline
 * STAGES slices of BK = 64. Warp-specialized: warpgroup 0 is the producer
 * (one thread issues the TMA copies), warpgroups 1..CONSUMERS each own
 * BM / CONSUMERS rows of the BM x BN block tile as MI = BM / (64 *
 * CONSUMERS) m64nBNk16 accumulators in registers. A is K-major (its rows);
 * B is read N-major (transposed operand, imm-trans-b = 1, allowed for
 * 16-bit types) straight from its row-major layout, in 64-column boxes.
 * Out-of-bounds TMA boxes read zeros (any M; K and N edges), stores to C
 * are predicated. PERSIST=1 runs min(SMS, tiles) blocks over all tiles,
 * GROUP_M block rows at a time (L2 reuse); SETREG=1 moves registers from
 * the producer to the consumers (setmaxnreg). CLUSTER=2 pairs two blocks
 * on adjacent M tiles of one N tile (CLN=0: each loads its A slice and
 * half of the B boxes, multicast to both with TMA .multicast::cluster) or
 * on adjacent N tiles of one M tile (CLN=1: each loads half of the A rows,
 * multicast, and its own B slice); a stage is free once the consumers of
 * both blocks released it. CLUSTER=4 is a 2 x 2 square of block tiles
 * (rank = rn * 2 + rm): each block loads half of its A rows, multicast
 * to the block on the same M tile, and half of its B boxes, multicast to
 * the block on the same N tile (24 KB of L2 reads a block and slice
 * instead of 32 KB); its stages are released by itself and those two
 * (not the diagonal one). Not every 4-cluster fits the GPCs at once: the
 * persistent grid has SMS / 4 - CL4_SPARE clusters. EPI=1 stores C
 * through shared memory and TMA stores (store_tile_tma) instead of
 * 4-byte stores from registers.
 * Measured on the H100 at 857df76 (bench/results/2026-11-23-h100-hgemm-
 * run2.log): CLUSTER=2 correct but 1.6-1.8x SLOWER than CLUSTER=1,
 * persistent or not (hgemm_packed's pair, the same protocol, was 1.45x
 * slower at 1000x999x777 where all 16 pairs are resident: run1.log), so a
 * per-k-slice cost rather than too few co-resident clusters. Its
 * stage release used mbarrier.arrive.release.cluster, which ptxas turns
 * into MEMBAR.ALL.GPU + ERRBAR before each arrive (cuobjdump -sass); the
 * release is now a plain remote arrive, without the fence (CUTLASS's
 * ClusterBarrier::arrive does the same). Measured at 0330614 with the fix
 * (bench/results/2026-11-23-h100-hgemm2-call1-evals.log, cuBLAS in the
 * same worker): CONSUMERS=2 BN=256 PERSIST=1 SETREG=1 STAGES=4 went from
 * 0.778x (bf16 4096^3) / 0.815x (8192^3) to 0.891x / 0.965x with CLUSTER=2
 * and 0.985x / 1.012x (790 / 811 TFLOP/s) with CLUSTER=2 EPI=1, now the
 * default; fp16 0.986x / 1.003x. Tensor pipes 94% busy under ncu at
 * 8192^3 (...-hgemm2-call1-ncu-c2e1.log).
 * PP=1 (ping-pong, persistent, two consumers): each consumer owns whole
 * BM x BN tiles (MI = BM / 64), the two take the block's tiles in turns,
 * and a consumer starts a tile's wgmmas only once the other has issued
 * the previous tile's (named barriers 3 and 4), so one's epilogue runs
 * under the other's MMAs; a stage is released by one consumer per block.
 * Measured on the H100 (bench/results/2026-11-24-h100-perf-s4b/d1/, same
 * worker as cuBLAS), bf16 4096^3: 0.73-0.86x against 0.978x for the
 * cooperative default - its 64x256 / 128x128 tiles per consumer move
 * 1.33-1.67x the bytes per FLOP into shared memory; at 2048^3 0.76-0.77x
 * against 0.943x, at 1000^3 0.78-0.80x against 0.585x (d2/bf16-small.log).
 * At 4096^3 the default point's gap to cuBLAS (nvjet 256x128, 2-CTA
 * clusters, cooperative, also 132 CTAs) is tensor-pipe idle time: under
 * ncu 183.4 us at 88.9 % tensor active vs 179.9 us at 90.1 %, the same
 * active time (d2/ncu-bf16-4096.log).
 * EPO=1 (default) defers a tile's epilogue: the accumulators leave as packed
 * pairs (64 more registers, within setmaxnreg's 232) and the boxes are
 * stored one per k slice of the block's next item, after its wgmmas are
 * issued. SK=1 runs the last one-to-two waves as stream-K (see the schedule
 * below; no clear launch: flags are raised to a magic value and reset by
 * their one reader). BK=32 (64-byte swizzle for A) allows STAGES up to 8.
 * Measured on the H100 against cuBLAS in the same worker
 * (bench/results/2026-11-24-h100-s5-wgmma/, four calls; noise about 0.5 %),
 * bf16 4096^3: EPO=1 0.978-0.986x vs EPO=0 0.977-0.989x, fp16 0.978-0.984x
 * vs 0.974-0.984x, 8192^3 (both) 1.009-1.012x vs 1.006-1.012x; it pays where
 * tiles have fewer k slices: 2048x6144x1024 0.986x vs 0.967x, 4096x4096x2048
 * 0.987x vs 0.972x, and loses at K = 64 (0.859x vs 0.898x). ncu source-level
 * sampling (call2/src-d0-sass.csv.gz) puts under 2 % of the consumer warps'
 * samples in the epilogue (STS, named barriers, TMA stores), so it was not
 * what idles the tensor pipe. SK=1: 0.923-0.926x vs 0.978-0.986x at bf16
 * 4096^3, 0.739x vs 0.979x (EPO=1 alone) at 2048x6144x1024, 1.011-1.014x vs
 * 1.008-1.012x at 8192^3; under ncu at 4096^3 DRAM reads 214 vs 149 MB, L2
 * hit 72 vs 77 %, tensor active 83.8 vs 89.0 % (call2/ncu-sk.log): the
 * stream-K ranges start at different k and lose the lockstep L2 reuse of a
 * data-parallel wave, and each block writes and reads 128 KB of fp32
 * partials. BK=32 STAGES=8 (six half slices in flight instead of two
 * slices): 0.976-0.982x vs 0.986-0.989x, 8192^3 0.999x vs 1.008x (call3),
 * and the full-barrier wait holds 5.6 % of all samples vs 4.0 %: not a
 * pipeline-depth limit. Descriptors built once (stage 0 plus offsets on the
 * low word): half the instructions between a slice's full-barrier wait and
 * its first wgmma (SASS), same speed (call4). What idles the tensor pipe at
 * 4096^3 now: 3.88 waves of tiles (cuBLAS's 256x128 has the same), the cold
 * start, and the consumers' waits for a stage's TMA bytes (call2: the
 * full-barrier branch holds 4 % of all samples, about 6 % of the consumers';
 * the wgmma wait_group 1, the tensor pipe busy, 23 %).
 * Measured on the H100 (bench/results/2026-11-24-h100-s5-wgmma2/, three
 * calls, cuBLAS in the same worker), the default at bf16 4096^3 0.984-
 * 0.989x (12 runs), fp16 0.976-0.984x (8), bf16 8192^3 1.012-1.017x,
 * fp16 1.005-1.014x. Where the gap is: under ncu (call2, call3 ncu-*.log,
 * ours and cuBLAS's nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA - the same
 * 128 x 256 tile in our orientation, 2-CTA cluster sharing B, 4 stages)
 * the two take the same cycles (285.1-285.8 k vs 283.9-285.4 k
 * sm__cycles_elapsed.max) but ours runs at a lower SM clock (1.56-1.59
 * vs 1.58-1.60 GHz, same session), i.e. the power limit: the 700 W cap
 * pulls both to ~1.6 GHz within the kernel while nvidia-smi's 50 ms
 * samples show 1980 MHz between evals. Ours makes ~20 % more L2 requests
 * from the SMs (lts__t_sectors_srcunit_tex 32.9-33.9 M vs 27.9-28.3 M
 * sectors: our count is what 64 KB a pair and k slice predicts, cuBLAS's
 * is about 15 % below that, mechanism unknown), 50 % more L2 fabric traffic
 * (ltcfabric 7.1-7.3 M vs 4.8 M sectors) and 40 % more instructions
 * (23-24 M vs 16.9 M); DRAM reads are equal (148.6 vs 150.6 MB).
 * CLUSTER=4 cuts the L2 requests by a quarter, but only 30 4-clusters
 * (120 SMs) fit this H100's GPCs at one block per SM
 * (cuOccupancyMaxActiveClusters, clprobe.c; 66 pairs): with 32 or 33 the
 * last ones run after the rest (0.54x, 0.61x at bf16 4096^3); with 30
 * (CL4_SPARE=3) 0.827-0.831x at 4096^3 (128 cluster tiles: 5 rounds for
 * 4), 0.944x at 8192^3 (18 rounds for 16: a round 4-5 % faster than the
 * pairs'), and it wins where the cluster tiles fill the 30 clusters:
 * 3000x5000x4000 0.966x vs 0.939x (120 cluster tiles, 4 rounds each).
 * Tried in calls 1-2 and removed, no gain beyond the noise: odd GROUP_M
 * groups sweeping the columns backwards (bf16 0.987-0.990x, fp16 0.975-
 * 0.988x) and try_wait with CUTLASS's suspend-time hint (0.984-0.992x,
 * fp16 0.977-0.982x).
 * LEAN=1 keeps the slice counter unsigned and takes the consumer's
 * warpgroup index from a lane-0 shuffle, so ptxas keeps the wgmma
 * descriptors in uniform registers. MCK=1 splits B's multicast boxes of a
 * pair by k rows (each block loads half the rows of every box) and issues
 * them before A, as cuBLAS's nvjet kernel does. EPW=1 lets each warp store
 * its 16 rows of an EPI box itself (stmatrix, a 64 x 16 TMA store, no
 * named barrier), also as nvjet does.
 * Measured on the H100 (bench/results/2026-11-24-h100-s6-wgmma/call1, ncu
 * in the same session; summary.md compares nvjet's SASS, taken with ncu's
 * source page, with ours). nvjet issues the same TMA bytes as we do
 * (expect_tx 48 KB a stage; 16 KB own + 16 KB multicast a block and
 * slice), yet the L2 counts 7.0-7.2 M requests from the SMs against our
 * 8.3-8.4 M. LEAN=1: instructions 23.15 M -> 19.51 M (nvjet 16.87 M),
 * cycles 288.4-289.1 k (nvjet 288.9-289.1 k), SM clock still 1.58 GHz
 * (nvjet 1.59-1.60), L2 unchanged. Interleaved A/B, bf16 4096^3: time
 * ratio 1.0019 (noise 0.0013) and 0.9982 the other way round, fp16 1.0030
 * (noise 0.0024), all within the noise verdict. So it stays off; the
 * instruction count is not what holds the clock down. It is correct at
 * 4096^3, 8192^3 and 2048x6144x1024 (bf16 and fp16).
 * MCK=1 and EPW=1, measured in call 2 (same folder, call2/; the lead ran
 * hw3's script): correct alone and combined at bf16/fp16 8192^3 and
 * 2048x6144x1024, and (bf16) 1000^3, 64^3, 1000x776x328, 3000x5000x4000,
 * 4096x4096x64, 8^3 (edges.log: 48 ok, the rest 'unsupported' by TMA's
 * row rule). MCK cuts the L2 sectors from the SMs from 32.9-33.7 M to
 * 31.7-32.1 M (nvjet 28.0-28.8 M) at an unchanged 1.58-1.59 GHz; 14
 * interleaved A/Bs at bf16/fp16 4096^3 (LEAN+MCK+EPW, LEAN+MCK and
 * LEAN+EPW against LEAN, LEAN against the default) gave time ratios of
 * 0.9975-1.0023, all within the noise verdict. So all three stay off,
 * and the last 1 % to cuBLAS at 4096^3 is not explained.
 * L2P sets the L2 promotion of the load tensor maps (what an L2 miss of a
 * TMA request fetches: 256, 128, 64 bytes or none). Measured on the H100
 * (bench/results/2026-11-24-h100-s8/c1/, ncu, bf16 4096^3): L2P=128 and 0
 * cut the L2 fabric traffic from 7.10 M to 4.99 / 5.09 M sectors, nvjet's
 * level (4.91 M), and the SM requests from 8.35 M to 7.92 / 7.93 M (nvjet
 * 6.95 M), at the same DRAM reads (148.6 MB) and clock (1.61 GHz); time
 * 175.2 / 175.8 us vs 175.9 us (nvjet 175.1). Interleaved A/Bs against
 * L2P=256, bf16 and fp16 4096^3: ratios 0.9976-1.0005, all within the
 * noise. So the fabric traffic is not what the last 1 % to cuBLAS is;
 * L2P stays a tunable with the former 256 as default (launch-only: the
 * points share one compile). Also tried there (c4/) and removed: the
 * tensor maps prefetched at the kernel's start, before the barrier init
 * and cluster sync, instead of by the producer after them: A/B 0.9999 /
 * 1.0000 (bf16), 1.0004 (fp16), ncu cycles 288.3-288.8 k vs 288.2-288.9 k.
 * In that call (another H100) ncu put ours level with nvjet in cycles
 * (288.2-288.9 k vs 287.9-291.5 k, 1.60-1.61 GHz both), while the same
 * call's kevo timings gave 0.982-0.994x cuBLAS: the gap shows under
 * sustained back-to-back timing, not in a single profiled launch.
 * Also tried (s12 c1, code c1/hgemm_wgmma-l2hints.patch) and removed: L2
 * eviction priorities on the TMA loads and C stores (createpolicy cache
 * hints). At bf16 4096^3 evict_last barely moves the DRAM reads
 * (147.5-148.7 MB against 148.6 MB, and no persistence across kevo's read
 * flush: ncu --cache-control none), evict_first on A alone or B alone
 * raises them to 165 / 159 MB, B evict_first with C's stores evict_first
 * lowers them to 144-145 MB; 16 interleaved A/Bs at bf16/fp16 4096^3 and
 * 8192^3 gave 1.0000-1.0079 (hinted time over the default's): none faster.
 * SK=2 (stream-K over the last partial wave only, or over all tiles
 * when there are fewer tiles than clusters; see the schedule below),
 * measured on the H100 (bench/results/2026-11-24-h100-s11/c1, against
 * the default SK=0; "pairs" launch by launch against cuBLAS, A/B
 * SK=2's time over SK=0's, interleaved): correct at 30 of 30 points (bf16 and
 * fp16, 14 shapes from 64^3 and 777x1000x8 to 8192^3, and 8 other
 * points at two shapes). It wins where the tiles leave many clusters
 * idle: bf16 1024x1024x16384 (16 pair tiles for 66 pairs) 0.650x
 * against 0.322x (A/B 0.49), 8192^3 1.049x against 1.031x (A/B 0.990),
 * 3000x5000x4000 0.947x against 0.935x (A/B 0.994). It loses at 4096^3:
 * bf16 0.956-0.958x against 0.992-0.993x (A/B 1.035-1.038), fp16 0.957x
 * against 0.992x, and at 2048x2048x8192 (64 tiles) 0.884x against
 * 0.968x: a cluster's 56-57 tail slices (not 64) did not pay for the
 * partials written and read and the tail pieces' slower k slices (as
 * with hgemm_packed's tail splits; not profiled). So SK stays 0 by
 * default and the search picks SK=2 where it pays.
 * Session 12 (c7, c8; bench/results/2026-11-25-h100-s12/): with the
 * flag protocol's fences gone, SK=2 at bf16 8192^3 1.049x against
 * 1.029x for SK=0 launch by launch (A/B 0.9885), at 4096^3 still 0.959x
 * against 0.994x; its partial sums cost 4.4 % there under ncu (213 us
 * against 204 us for the same schedule without them, SK=0 208 us), and
 * no single part of them (stores, loads, flag wait) more than 1 %.
 * Why SK=2 loses at 4096^3 (s11 c2, c3: ncu, base clocks): SM active cycles
 * max 290-291 k against 276-277 k for SK=0, with the tensor work evened
 * out (1.016-1.020 M tensor cycles an SM against 0.786-1.049 M); the
 * same schedule with the partial sums left out (wrong results, timing
 * only) runs at max 269-270 k, 203.3-206.0 us against 207.6-208.1 us:
 * the balance pays 2.4 %, the fp32 partials (17 MB written and read by
 * all SMs at once at the end, DRAM reads 156 vs 149 MB) cost 5-6 %.
 * SK=3 (split-K for fewer tiles than clusters: S equal k ranges a tile,
 * the tiles of a range side by side; see the schedule below), measured
 * on the H100 (s11 c8; "pairs" launch by launch against cuBLAS): 20 of
 * 20 checks ok (10 bf16 shapes, fp16, 7 other points, 2 small-tile
 * points). bf16 768x1024x16384 1.184x (SK=0: 0.377x), 1024x1024x16384
 * 0.858x (SK=2 0.637x; the small-tile SK=0 point a 40 s run found in
 * c7: 0.811x), 512x512x32768 0.495x (SK=0 0.103x); fp16 1024x1024x16384
 * 0.866x; that small-tile point with SK=3 at 512x1024x16384 0.943x
 * against 0.625x; 1000x776x8192 with BN=128 1.19x (the eval's ratio).
 * Tried and taken back in session 11: the owner copying each writer's
 * slot into the stages with one bulk copy (c9, code
 * c9/hgemm_wgmma-redsmem.patch: 1.7-7.8 % slower) and the reduction
 * shared over the S ranges (c10, c14: slower, 62-63 us at 512x512x32768
 * either way, so it looked as if the partial sums were not the cost).
 * Session 12 (bench/results/2026-11-25-h100-s12/, README there) showed
 * they are: the same SK=3 schedule with the partial sums left out (wrong
 * results, timing only; c2, ncu, base clocks) takes 34.6 us at
 * 512x512x32768 against 69.6 us with them (cuBLAS's kernel 33.3 us), and
 * the ranges' mainloops are even (SM active max 44.9 k cycles, average
 * 40.7 k). The owner's 15 serial slots cost the rest; c10/c14's shared
 * versions paid the same in serial flag polls (one thread polled all S
 * flags) and, as source-level sampling of a first shared version showed
 * (c4: loads of the others' sums 16 us of 60, flag waits and stores
 * nothing), in adds predicated over all 32 register groups of every slot.
 * Now (sk3_reduce): each range writes its whole tile, raises and polls
 * one flag per range in parallel threads, and adds up only its own
 * 1/S of the groups, four at a time with eight slots' loads in flight.
 * Interleaved A/B against the session-start SK=3 (kevo eval --ab, 10
 * pairs; c6, on an H200: the H100 was not lent for that call), the new
 * one's time over the old one's: 512x512x32768 0.605, 1024x1024x16384
 * 0.949, 768x1024x16384 0.921, 256x256x131072 0.343; 83 of 83 checks ok
 * there (13 bf16 shapes from 64^3 to 256x256x131072 at 5 points, fp16 at
 * 6 points). The same A/B on the H100 (c7): 0.618, 0.968, 0.938, 0.360
 * (fp16 512x512x32768 0.619, 1024x1024x16384 0.967); launch by launch
 * against cuBLAS bf16 512x512x32768 0.791x (old 0.488x), 1024x1024x16384
 * 0.895x (0.864x), 768x1024x16384 1.230x (1.148x), 256x256x131072 0.865x
 * (0.309x). Without the __threadfence calls of the flag protocol (c8,
 * see below) another 2.0-2.4 % at the first three: A/B 0.976, 0.977, 0.980.
 * Also tried and removed (c4-c6; the code is c4/hgemm_wgmma-tw.patch): TW,
 * the last wave's tiles re-cut into pieces BN - TW columns wide, one a
 * cluster, no partial sums (wgmma m64n232 etc. are exact: 35 of 35
 * checks ok, tensor cycles an SM even at 1.024 M). It lost everywhere
 * but 8192^3 (+0.7 %): bf16 4096^3 TW=24 0.931x against 0.992x
 * launch by launch, TW=16 0.927x, 3000x5000x4000 TW=64 -1.7 %. ncu:
 * the pieces' B boxes start off the 128-byte lines (L2 sectors +13 %,
 * the tail waits on its loads: active max 279 k without the pieces'
 * stores) and their register-store epilogue costs another 9 k cycles.
 * KREV=1 (session 13): a persistent block's odd waves (its odd items)
 * run their k slices from the last down, so each wave starts on the
 * slices the previous wave read last, while they are still in L2. Under
 * ncu at bf16 4096^3 (bench/results/2026-11-25-h100-s13/c2, base clocks)
 * DRAM reads 130.8 MB against 148.6 MB (GROUP_M=16: 133.9; GROUP_M=4:
 * 144.0). On by default since session 13, with LEAN=1, MCK=1, EPW=1
 * and L2P=128: each of those alone was within the noise (above), but the
 * four together were faster than the former default in 3 of 3
 * interleaved A/Bs at bf16 4096^3 (c1: time ratios 0.9968, 1.0036 the
 * other way round, LEAN+L2P alone 0.9971; noise 0.0010-0.0018), and with
 * KREV (c2) 0.9937 and 1.0053 the other way round (noise 0.0012-0.0021),
 * 0.9969 against the four without KREV, fp16 0.9921, bf16 8192^3 0.9951.
 * Launch by launch against cuBLAS (c2, 30 pairs): bf16 4096^3 1.0021x,
 * 1.0015x, 1.0003x (the former default 0.9951-0.9954x in the same call),
 * fp16 1.0025x (0.9955x), bf16 8192^3 1.0344x (1.0301x). All of this
 * fits the power-cap picture: the kernel's energy (DRAM reads,
 * instructions, L2 traffic) sets its clock; cycles were already equal.
 * With SK=2 at 8192^3, KREV was 0.16 % slower (A/B 1.0016, noise 0.0004).
 * KREV=2 (default since c4) also sweeps the N tiles of odd GROUP_M groups
 * backwards, so each wave shares A rows or B columns with the one before
 * it (with GROUP_M=8 at 4096^3 two waves a group: the second shares A,
 * the next group's first now shares B): DRAM reads 123.5 MB against
 * 130.5 (KREV=1), 1.09 GB against 1.13 at 8192^3; interleaved A/Bs (time
 * of KREV=2 over KREV=1) bf16 4096^3 0.9984 and 0.9979 (the other way
 * round 1.0021), fp16 0.9993, bf16 8192^3 0.9975, 3000x5000x4000 0.9980:
 * each within about one noise (0.0013-0.0029), all five the same way.
 * GROUP_M=4 or 16 with it: 143.4 / 133.7 MB, A/B 1.0005 / 1.0012.
 * TMA needs 16-byte row strides: K and N % 8 == 0.
 */
// kevo: problem gemm
// kevo: dtypes fp16 bf16
// kevo: param BM 64 128 256 default=128
// kevo: param BN 64 128 256 default=256
// kevo: param CONSUMERS 1 2 default=2
// kevo: param STAGES 2 3 4 5 6 7 8 9 default=4
// kevo: param GROUP_M 1 4 8 16 default=8
// kevo: param PERSIST 0 1 default=1
// kevo: param SETREG 0 1 default=1
// kevo: param CLUSTER 1 2 4 default=2
// kevo: param CLN 0 1 default=0
// kevo: param CL4_SPARE 0 1 2 3 default=3
// kevo: param EPI 0 1 default=1
// kevo: param PP 0 1 default=0
// kevo: param EPO 0 1 default=1
// kevo: param SK 0 1 2 3 default=0
// kevo: param BK 32 64 default=64
// kevo: param LEAN 0 1 default=1
// kevo: param MCK 0 1 default=1
// kevo: param EPW 0 1 default=1
// kevo: param L2P 0 64 128 256 default=128
// kevo: param KREV 0 1 2 default=2
//
// Each consumer warpgroup owns 1 or 2 m64 row blocks (PP = 1: of the
// whole block tile), at most 128 fp32 accumulators per thread:
// kevo: constraint BM % (64 * (PP ? 1 : CONSUMERS)) == 0 && BM / (64 * (PP ? 1 : CONSUMERS)) <= 2
// kevo: constraint BM / (64 * (PP ? 1 : CONSUMERS)) * BN <= 256
// Ping-pong: two consumers take turns over the tiles of a persistent block:
// kevo: constraint !PP || (CONSUMERS == 2 && PERSIST == 1)
// The deferred epilogue stores through the EPI = 1 boxes:
// kevo: constraint !EPO || (EPI == 1 && !PP && (SETREG || CONSUMERS == 1))
// Stream-K over a persistent grid; its flags (one a consumer of a block):
// kevo: constraint !SK || (PERSIST == 1 && !PP && CONSUMERS * SMS <= 2048)
// setmaxnreg only pays when 384 threads share the register file:
// kevo: constraint !SETREG || CONSUMERS == 2
// kevo: constraint 1024 + STAGES * (BM + BN) * BK * 2 + EPI * CONSUMERS * 16384 + 256 <= SMEM_OPTIN
// A pair on adjacent M tiles (CLN = 0) splits the B boxes of a stage in
// halves; a pair on adjacent N tiles (CLN = 1) the A rows:
// kevo: constraint CLUSTER == 1 || CLN == 1 || BN >= 128
// kevo: constraint CLUSTER == 2 || CLN == 0
// CLUSTER = 4: a 2 x 2 square of block tiles (both operands multicast);
// CL4_SPARE clusters fewer than SMS / 4 in a persistent grid (not all
// 4-clusters fit the GPCs at once; only meaningful with CLUSTER = 4):
// kevo: constraint CLUSTER == 4 || CL4_SPARE == 3
// kevo: constraint CLUSTER < 4 || !SK
// MCK = 1: a pair on adjacent M tiles splits B's boxes by k rows instead:
// kevo: constraint !MCK || (CLUSTER == 2 && CLN == 0)
// EPW = 1: each warp stores its 16 rows of an EPI = 1 box itself:
// kevo: constraint !EPW || EPI == 1
// KREV = 1: a persistent block's odd waves run their k slices backwards
// (2: and odd GROUP_M groups sweep the N tiles backwards):
// kevo: constraint !KREV || PERSIST == 1
// TMA: 16-byte global row strides (checked for the tensor maps as well):
// kevo: requires K % 8 == 0 && N % 8 == 0
// L2P: the loads' L2 promotion (bytes a miss fetches; 0 = none).
// A's k slices: BK = 64 rows of 128 bytes, BK = 32 rows of 64 bytes:
// kevo: tensormap tmA A 64, BM / (1 + CLN + (CLUSTER == 4)) swizzle=128 l2=L2P
// kevo: tensormap tmA32 A 32, BM / (1 + CLN + (CLUSTER == 4)) swizzle=64 l2=L2P
// kevo: tensormap tmB B 64, BK / (1 + MCK) swizzle=128 l2=L2P
// kevo: tensormap tmC C 64, 64 / (1 + 3 * EPW) swizzle=128
// kevo: arg group_m GROUP_M
// Stream-K: the flags, then one fp32 BM x BN tile of partials a block:
// kevo: workspace min(SK, 1) * (262144 + SMS * BM * BN * 4)
// kevo: launch hgemm_wgmma
// SK = 2 and 3 share the tiles among all SMS / CLUSTER clusters, so their
// grid is whole even with fewer tiles than clusters:
// kevo: grid CLUSTER * (PERSIST ? SK >= 2 ? SMS / CLUSTER : min(SMS / CLUSTER - (CLUSTER == 4 ? CL4_SPARE : 0), cdiv(cdiv(M, BM), CLUSTER == 4 ? 2 : CLN ? 1 : CLUSTER) * cdiv(cdiv(N, BN), CLUSTER == 4 ? 2 : CLN ? CLUSTER : 1)) : cdiv(cdiv(M, BM), CLUSTER == 4 ? 2 : CLN ? 1 : CLUSTER) * cdiv(cdiv(N, BN), CLUSTER == 4 ? 2 : CLN ? CLUSTER : 1))
// kevo: block 128 * (CONSUMERS + 1)
// kevo: smem 1024 + STAGES * (BM + BN) * BK * 2 + EPI * CONSUMERS * 16384 + 256
// kevo: cluster CLUSTER, 1, 1

#define A_ROW (BK * 2)                 /* bytes of an A row of a slice */
#define A_SWZ (BK == 64 ? 1 : 2)       /* its swizzle: 128 or 64 bytes */
#define MI (BM / (64 * (PP ? 1 : CONSUMERS))) /* m64 blocks a consumer */
#define SK3_Q (MI * BN / 8) /* SK = 3: float4 groups a thread holds (<= 32) */
#define THREADS (128 * (CONSUMERS + 1))
#define A_BYTES (BM * BK * 2)          /* A slice: BM rows of 128 B */
#define B_BYTES (BN * BK * 2)          /* B slice: BN/64 boxes of BK rows */
#define B_BOX_BYTES (64 * BK * 2)
#define STAGE_BYTES (A_BYTES + B_BYTES) /* a multiple of 1024 */
/* blocks of a cluster along M and along N; rank = rn * CL_M + rm */
#define CL_M (CLUSTER == 4 ? 2 : CLN ? 1 : CLUSTER)
#define CL_N (CLUSTER == 4 ? 2 : CLN ? CLUSTER : 1)
/* blocks a block's stage takes TMA bytes from (itself included) */
#define CL_PEERS (CL_M + CL_N - 1)
#define B_BOXES_OWN (BN / 64 / CL_M)   /* B boxes a block loads */
#define A_ROWS_OWN (BM / CL_N)         /* A rows a block loads */
#define EPI_BOX_BYTES (64 * 64 * 2)    /* EPI = 1: a 64 x 64 box of C */

/* LEAN = 1: the slice counter is unsigned (stage and parity are a mask and
 * a shift, not signed division), and a consumer's warpgroup index comes
 * from a lane-0 shuffle, so ptxas knows it is warp-uniform and keeps the
 * wgmma descriptors in uniform registers (no R2UR / moves a wgmma). */
#if LEAN
typedef unsigned ctr_t;
#else
typedef int ctr_t;
#endif

typedef unsigned long long u64;

/* CUtensorMap's layout (cuda.h is not available under NVRTC). */
struct alignas(64) tmap_t {
    unsigned long long opaque[16];
};

/* elem_t is __half or __nv_bfloat16 (cuda_bf16.h includes cuda_fp16.h, so
 * __half always exists). */
template <typename T> __device__ constexpr bool is_bf16(const T *)
{
    return true;
}
__device__ constexpr bool is_bf16(const __half *) { return false; }
#define AB_BF16 is_bf16((const elem_t *)0)

struct alignas(4) elem2 {
    elem_t x, y;
};

/* ---- shared memory, mbarriers, TMA ---- */

__device__ __forceinline__ unsigned smem_u32(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void mbar_init(unsigned bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar),
                 "r"(count));
}

/* Arrives (count 1) and expects bytes more of transactions (the TMA). */
__device__ __forceinline__ void mbar_expect_tx(unsigned bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n"
                 ::"r"(bar), "r"(bytes) : "memory");
}

__device__ __forceinline__ void mbar_arrive(unsigned bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar)
                 : "memory");
}

/* Arrives on the barrier at bar's offset in block cta of the cluster.
 * Default (.release.cta) semantics, as CUTLASS's ClusterBarrier::arrive:
 * ".release.cluster" compiles to MEMBAR.ALL.GPU (waits for every global
 * store of the thread in flight) before the arrive, and doing that once a
 * k-slice made CLUSTER = 2 1.6-1.8x slower than CLUSTER = 1 (SASS of
 * 872f900). The stage's readers are wgmma, complete at wgmma.wait_group. */
__device__ __forceinline__ void mbar_arrive_remote(unsigned bar, unsigned cta)
{
    unsigned rb;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n"
                 : "=r"(rb) : "r"(bar), "r"(cta));
    asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];\n" ::"r"(rb)
                 : "memory");
}

__device__ __forceinline__ unsigned cluster_rank(void)
{
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
    return r;
}

__device__ __forceinline__ void cluster_sync(void)
{
    asm volatile("barrier.cluster.arrive.release;\n"
                 "barrier.cluster.wait.acquire;\n" ::: "memory");
}

/* Waits until the phase of the given parity has completed. A fresh
 * barrier is in phase 0, so waiting on parity 1 returns at once. */
__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity)
{
    unsigned done;
    do {
        asm volatile("{\n.reg .pred p;\n"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     "selp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
    } while (!done);
}

/* 2-D box at (c0 along the contiguous dim, c1 along rows) -> dst; its
 * bytes complete on bar. */
__device__ __forceinline__ void tma_load(unsigned dst, const tmap_t *map,
                                         unsigned bar, int c0, int c1)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
                 "complete_tx::bytes [%0], [%1, {%3, %4}], [%2];\n"
                 ::"r"(dst), "l"(map), "r"(bar), "r"(c0), "r"(c1)
                 : "memory");
}

/* Same, landing at the same offset in the blocks of mask (cluster ranks)
 * and completing on the barrier at bar's offset in each. */
__device__ __forceinline__ void tma_load_mc(unsigned dst, const tmap_t *map,
                                            unsigned bar, int c0, int c1,
                                            unsigned mask)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
                 "complete_tx::bytes.multicast::cluster [%0], [%1, {%3, %4}],"
                 " [%2], %5;\n"
                 ::"r"(dst), "l"(map), "r"(bar), "r"(c0), "r"(c1),
                   "h"((unsigned short)mask)
                 : "memory");
}

/* ---- wgmma ---- */

/*
 * Shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format"):
 * start address, leading and stride byte offsets (all >> 4), 128-byte
 * swizzle (mode 1, bits 62-63); base offset 0 as every operand start sits
 * at a 1024-byte swizzle atom or a 32-byte step inside its rows.
 *   A, K-major: rows of 128 B; SBO = 1024 (next 8 rows), LBO unused (1).
 *   B, N-major: 64-column boxes of BK rows of 128 B; LBO = BK * 128 (next
 *   64 columns), SBO = 1024 (next 8 k-rows).
 */
__device__ __forceinline__ u64 desc_enc(unsigned x)
{
    return (u64)((x & 0x3FFFF) >> 4);
}

__device__ __forceinline__ u64 make_desc(unsigned addr, unsigned lbo,
                                              unsigned sbo, u64 mode = 1)
{
    return desc_enc(addr) | desc_enc(lbo) << 16 | desc_enc(sbo) << 32 |
           mode << 62;
}

__device__ __forceinline__ void wg_fence(void)
{
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}

__device__ __forceinline__ void wg_commit(void)
{
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

template <int N> __device__ __forceinline__ void wg_wait(void)
{
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

/* Keeps the compiler from moving accumulator reads across a wait. */
template <int R> __device__ __forceinline__ void reg_fence(float (&d)[R])
{
#pragma unroll
    for (int i = 0; i < R; ++i)
        asm volatile("" : "+f"(d[i])::"memory");
}

/* D(64x64, f32) (+)= A(64x16, K-major) * B(16x64, N-major). */
__device__ __forceinline__ void wgmma_n64(float (&d)[32], u64 da,
                                          u64 db, int scale_d)
{
    if (AB_BF16)
        asm volatile(
            "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
            "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {"
            "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
            "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
            "%24, %25, %26, %27, %28, %29, %30, %31}, "
            "%32, %33, p, 1, 1, 0, 1;\n}\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]),
              "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]),
              "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]),
              "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
              "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
              "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
              "+f"(d[30]), "+f"(d[31])
            : "l"(da), "l"(db), "r"(scale_d));
    else
        asm volatile(
            "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
            "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {"
            "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
            "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
            "%24, %25, %26, %27, %28, %29, %30, %31}, "
            "%32, %33, p, 1, 1, 0, 1;\n}\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]),
              "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]),
              "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]),
              "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
              "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
              "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
              "+f"(d[30]), "+f"(d[31])
            : "l"(da), "l"(db), "r"(scale_d));
}

/* D(64x128, f32) (+)= A(64x16, K-major) * B(16x128, N-major). */
__device__ __forceinline__ void wgmma_n128(float (&d)[64], u64 da,
                                          u64 db, int scale_d)
{
    if (AB_BF16)
        asm volatile(
            "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
            "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
            "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
            "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
            "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
            "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
            "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
            "%60, %61, %62, %63}, "
            "%64, %65, p, 1, 1, 0, 1;\n}\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]),
              "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]),
              "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]),
              "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
              "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
              "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
              "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
              "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
              "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]),
              "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]),
              "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]),
              "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
              "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
            : "l"(da), "l"(db), "r"(scale_d));
    else
        asm volatile(
            "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
            "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {"
            "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
            "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
            "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
            "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
            "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
            "%60, %61, %62, %63}, "
            "%64, %65, p, 1, 1, 0, 1;\n}\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]),
              "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]),
              "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]),
              "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
              "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
              "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
              "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
              "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
              "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]),
              "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]),
              "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]),
              "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
              "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
            : "l"(da), "l"(db), "r"(scale_d));
}

/* D(64x256, f32) (+)= A(64x16, K-major) * B(16x256, N-major). */
__device__ __forceinline__ void wgmma_n256(float (&d)[128], u64 da,
                                          u64 db, int scale_d)
{
    if (AB_BF16)
        asm volatile(
            "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
            "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {"
            "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
            "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
            "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
            "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
            "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
            "%60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, "
            "%72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, "
            "%84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
            "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, "
            "%108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, "
            "%120, %121, %122, %123, %124, %125, %126, %127}, "
            "%128, %129, p, 1, 1, 0, 1;\n}\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]),
              "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]),
              "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]),
              "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
              "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
              "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
              "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
              "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
              "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]),
              "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]),
              "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]),
              "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
              "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]),
              "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]),
              "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]),
              "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
              "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]),
              "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]),
              "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]),
              "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]),
              "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]),
              "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),
              "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]),
              "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
              "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]),
              "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
            : "l"(da), "l"(db), "r"(scale_d));
    else
        asm volatile(
            "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
            "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {"
            "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
            "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
            "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
            "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
            "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
            "%60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, "
            "%72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, "
            "%84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
            "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, "
            "%108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, "
            "%120, %121, %122, %123, %124, %125, %126, %127}, "
            "%128, %129, p, 1, 1, 0, 1;\n}\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]),
              "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]),
              "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]),
              "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
              "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
              "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
              "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
              "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
              "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]),
              "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]),
              "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]),
              "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
              "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]),
              "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]),
              "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]),
              "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
              "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]),
              "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]),
              "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]),
              "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]),
              "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]),
              "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),
              "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]),
              "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
              "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]),
              "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
            : "l"(da), "l"(db), "r"(scale_d));
}

template <int N>
__device__ __forceinline__ void wgmma_bn(float (&d)[N / 2], u64 da, u64 db,
                                         int scale_d);
template <>
__device__ __forceinline__ void wgmma_bn<64>(float (&d)[32], u64 da, u64 db,
                                             int scale_d)
{
    wgmma_n64(d, da, db, scale_d);
}
template <>
__device__ __forceinline__ void wgmma_bn<128>(float (&d)[64], u64 da, u64 db,
                                              int scale_d)
{
    wgmma_n128(d, da, db, scale_d);
}
template <>
__device__ __forceinline__ void wgmma_bn<256>(float (&d)[128], u64 da,
                                              u64 db, int scale_d)
{
    wgmma_n256(d, da, db, scale_d);
}

/* ---- the kernel ---- */

/* Block tile of the t-th (cluster) tile: group_m (cluster) rows sweep
 * the columns (GROUP_M, an int argument: its values share one compile);
 * tiles_m and tiles_n count cluster tiles (CL_M x CL_N block tiles), and
 * block rank of the cluster takes M tile rank % CL_M and N tile rank /
 * CL_M of it. */
__device__ __forceinline__ void tile_origin(int t, int tiles_m, int tiles_n,
                                            int group_m, int &m0, int &n0)
{
    const int per_group = group_m * tiles_n;
    const int first_m = (t / per_group) * group_m;
    const int gsize = min(tiles_m - first_m, group_m);
    const int rank = CLUSTER == 1 ? 0 : (int)cluster_rank();
    int col = (t % per_group) / gsize;
    if (KREV == 2 && (t / per_group) % 2) /* odd groups sweep N backwards */
        col = tiles_n - 1 - col;
    m0 = ((first_m + (t % per_group) % gsize) * CL_M + rank % CL_M) * BM;
    n0 = (col * CL_N + rank / CL_M) * BN;
}

/* Stage s: A slice at a(s), B slice at a(s) + A_BYTES; full(s) completes
 * when its TMA bytes land, empty(s) when every consumer is done with it.
 * it counts slices over all tiles of the block: stage it % STAGES, phase
 * parity (it / STAGES) & 1. */
struct smem_map {
    unsigned base, epi, bars;
    __device__ unsigned a(int s) const { return base + s * STAGE_BYTES; }
    __device__ unsigned b(int s) const { return a(s) + A_BYTES; }
    __device__ unsigned full(int s) const { return bars + 8 * s; }
    __device__ unsigned empty(int s) const { return bars + 8 * (STAGES + s); }
};

/*
 * Work schedule, the same for the producer and the consumers of a block
 * (hgemm_packed's SK, for clusters and with the roles turned around).
 * Without stream-K every (cluster) tile is one item over all k slices,
 * dealt round-robin to the ncl = gridDim / CLUSTER clusters. With SK = 1,
 * when the tiles do not fill whole waves, all but the last one-to-two
 * waves stay data-parallel (dp tiles); the rest, in [ncl, 2 ncl) tiles,
 * are cut into k slices that the clusters share evenly as contiguous
 * ranges [su, se) of at least ktiles slices, so a tile is split between
 * at most two clusters: cluster c - 1 ends in it (k slices [0, b): the
 * writer, it writes fp32 partial sums to its blocks' workspace slots and
 * raises their flags) and cluster c starts in it (slices [b, ktiles): the
 * owner, it adds the partials and stores C). A cluster takes its range's
 * pieces from the last to the first, so its writer piece comes first and
 * its owner piece last; an owner waits only on a lower cluster, which
 * needs all clusters resident (persistent grid of SMS blocks, one a
 * multiprocessor: 66 pairs on the H100) or at least launched in order.
 * SK = 2 keeps every whole wave data-parallel and cuts only the last,
 * partial one (or, with fewer tiles than clusters, all of them) into
 * ranges over all ncl clusters; a range may then be shorter than a tile,
 * so a tile can have several writers (cluster c - 1, c - 2, ... down to
 * the one whose range holds its first slice; a writer whose range lies
 * inside the tile writes a middle piece) and the owner is the cluster
 * holding its last slice. A cluster has at most one writer piece (the
 * one at its range's end), so one slot a block still holds them all, and
 * the owner adds its writers' partials nearest first: a fixed order, so
 * the sums are the same bits at every launch. At bf16 4096^3 (256 pair
 * tiles on 66 pairs: 3 whole waves and 58 tail tiles) a cluster runs 3
 * tiles and 56-57 k slices instead of 4 tiles.
 * SK = 3 is split-K for fewer tiles than clusters (long K): every tile is
 * cut into S = min(ncl / tiles, ktiles, SK3_Q) equal k ranges (none when
 * S < 2),
 * and cluster u < S tiles runs range u / tiles of tile u % tiles, once.
 * The tiles of a range run side by side over the same k slices (as a
 * data-parallel wave does), so the A and B slices they share are read
 * from L2 together; stream-K's staggered ranges read them at different
 * times, and with operands beyond the L2 (1024 x 1024 x 16384: 64 MB) from
 * DRAM again. The S ranges then share the tile's reduction, each adding
 * up 1 / S of it (sk3_reduce).
 */
struct sched {
    int tiles_m, tiles_n, ktiles, ncl, cid, group_m;
    int dp_tiles; /* tiles dealt whole; the rest are stream-K */
    int su, se;   /* this cluster's stream-K slice range */
    int sl;       /* stream-K slices in all (cluster c: [c sl / ncl,
                     (c + 1) sl / ncl)) */
};

__device__ __forceinline__ sched make_sched(int M, int N, int K,
                                            int group_m)
{
    sched g;
    g.group_m = group_m;
    /* with CLUSTER = 2, pairs of M (or N) tiles (the second may lie past
     * M (N): its boxes read zeros and its stores are masked) */
    g.tiles_m = (M + BM * CL_M - 1) / (BM * CL_M);
    g.tiles_n = (N + BN * CL_N - 1) / (BN * CL_N);
    g.ktiles = (K + BK - 1) / BK;
    g.ncl = gridDim.x / CLUSTER;
    g.cid = blockIdx.x / CLUSTER;
    const int tiles = g.tiles_m * g.tiles_n;
    g.dp_tiles = tiles;
    g.su = g.se = 0;
    g.sl = 0;
    if (SK == 1 && tiles > g.ncl && tiles % g.ncl != 0)
        g.dp_tiles = (tiles / g.ncl - 1) * g.ncl;
    else if (SK == 2 && tiles % g.ncl != 0)
        g.dp_tiles = tiles / g.ncl * g.ncl;
    if (SK == 3) {
        /* sl = S, the ranges a tile; se = 1: the cluster has a range.
         * S <= SK3_Q: each range reduces at least one float4 group */
        const int S = min(min(g.ncl / tiles, g.ktiles), SK3_Q);
        if (S >= 2) {
            g.dp_tiles = 0;
            g.sl = S;
            g.se = g.cid < S * tiles;
        }
        return g;
    }
    if (g.dp_tiles < tiles) {
        g.sl = (tiles - g.dp_tiles) * g.ktiles;
        g.su = (int)((long long)g.sl * g.cid / g.ncl);
        g.se = (int)((long long)g.sl * (g.cid + 1) / g.ncl);
    }
    return g;
}

/* The block's items in turn: tile t, k slices [kb, ke). With SK, ke <
 * ktiles makes it a writer piece, else kb > 0 an owner piece (SK = 1:
 * never both, a range holds at least ktiles slices; SK = 2: both is a
 * middle piece, a writer). */
struct item_iter {
    int t, kb, ke;
    int next_dp, ue; /* next dp tile; end of the stream-K slices left */
    __device__ void start(const sched &g)
    {
        next_dp = g.cid;
        ue = g.se;
    }
    __device__ bool more(const sched &g) const
    {
        return next_dp < g.dp_tiles || (SK && ue > g.su);
    }
    __device__ bool next(const sched &g)
    {
        if (next_dp < g.dp_tiles) {
            t = next_dp;
            kb = 0;
            ke = g.ktiles;
            next_dp += g.ncl;
            return true;
        }
        if (!SK || ue <= g.su)
            return false;
        if (SK == 3) { /* range cid / tiles of tile cid % tiles */
            const int tiles = g.tiles_m * g.tiles_n, r = g.cid / tiles;
            ue = 0;
            t = g.cid % tiles;
            kb = g.ktiles * r / g.sl;
            ke = g.ktiles * (r + 1) / g.sl;
            return true;
        }
        const int tl = (ue - 1) / g.ktiles;
        t = g.dp_tiles + tl;
        kb = max(g.su - tl * g.ktiles, 0);
        ke = ue - tl * g.ktiles;
        ue = tl * g.ktiles + kb;
        return true;
    }
};

__device__ __forceinline__ void produce(const smem_map &sm, const tmap_t *ta,
                                        const tmap_t *tb, const sched &g)
{
    asm volatile("prefetch.tensormap [%0];\n" ::"l"(ta) : "memory");
    asm volatile("prefetch.tensormap [%0];\n" ::"l"(tb) : "memory");
    ctr_t it = 0;
    const int rank = CLUSTER == 1 ? 0 : (int)cluster_rank();
    const int rm = rank % CL_M, rn = rank / CL_M;
    /* ranks of the blocks on the same M tile (sharing A) and on the same
     * N tile (sharing B) */
    unsigned mask_a = 0, mask_b = ((1u << CL_M) - 1) << (rn * CL_M);
#pragma unroll
    for (int j = 0; j < CL_N; ++j)
        mask_a |= 1u << (rm + CL_M * j);
    item_iter w;
    w.start(g);
    while (w.next(g)) {
        int m0, n0;
        tile_origin(w.t, g.tiles_m, g.tiles_n, g.group_m, m0, n0);
        /* KREV: in odd waves (t / ncl: a block's n-th item), k from the
         * last slice down, so a wave starts on the slices the previous
         * one read last, while they are still in L2 */
        const bool rev = KREV && ((w.t / g.ncl) & 1);
        for (int k = w.kb; k < w.ke; ++k, ++it) {
            const int kt = rev ? w.kb + w.ke - 1 - k : k;
            const int s = (int)(it % STAGES);
            mbar_wait(sm.empty(s), (unsigned)((it / STAGES) & 1) ^ 1);
            mbar_expect_tx(sm.full(s), STAGE_BYTES);
            if (MCK) {
                /* B first: k rows [rm * BK / 2, (rm + 1) * BK / 2) of
                 * every box of the slice, to both blocks (tmB's box is
                 * BK / 2 rows; the lower half lands at the box's start,
                 * the upper 1024-byte aligned after it, so the 128-byte
                 * swizzle matches a whole box); then this block's A */
#pragma unroll
                for (int j = 0; j < BN / 64; ++j)
                    tma_load_mc(sm.b(s) + j * B_BOX_BYTES +
                                    rm * (BK / 2) * 128,
                                tb, sm.full(s), n0 + 64 * j,
                                kt * BK + rm * (BK / 2), mask_b);
                tma_load(sm.a(s), ta, sm.full(s), kt * BK, m0);
                continue;
            }
            if (CL_N == 1)
                tma_load(sm.a(s), ta, sm.full(s), kt * BK, m0);
            else /* this block's part of the A rows, to the blocks of
                  * its M tile */
                tma_load_mc(sm.a(s) + rn * A_ROWS_OWN * A_ROW, ta,
                            sm.full(s), kt * BK, m0 + rn * A_ROWS_OWN,
                            mask_a);
#pragma unroll
            for (int jj = 0; jj < B_BOXES_OWN; ++jj) {
                const int j = rm * B_BOXES_OWN + jj;
                if (CL_M == 1)
                    tma_load(sm.b(s) + j * B_BOX_BYTES, tb, sm.full(s),
                             n0 + 64 * j, kt * BK);
                else /* to the blocks of its N tile */
                    tma_load_mc(sm.b(s) + j * B_BOX_BYTES, tb, sm.full(s),
                                n0 + 64 * j, kt * BK, mask_b);
            }
        }
    }
}

/* C[r][c], C[r][c + 1] from two fp32 values as one 4-byte store (N % 8
 * == 0 keeps a pair at c < N in bounds and aligned); nothing past M or N. */
__device__ __forceinline__ void store_pair(elem_t *C, int M, int N, int r,
                                           int c, float x, float y)
{
    if (r < M && c < N) {
        elem2 v;
        v.x = FROM_F32(x);
        v.y = FROM_F32(y);
        *reinterpret_cast<elem2 *>(C + (size_t)r * N + c) = v;
    }
}

/* Row r0 + 16 * warp + lane / 4 (+ 8) and column 8 * i + 2 * (lane % 4)
 * (+ 1) of an m64nBN accumulator (PTX ISA, wgmma .m64nNk16 D fragment). */
__device__ __forceinline__ void store_tile(elem_t *C, int M, int N, int r0,
                                           int n0, const float (&d)[BN / 2],
                                           int tid)
{
    const int row = r0 + 16 * (tid / 32) + (tid % 32) / 4;
    const int col = n0 + 2 * (tid % 4);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        if (row + 8 * h >= M)
            continue;
#pragma unroll
        for (int i = 0; i < BN / 8; ++i)
            store_pair(C, M, N, row + 8 * h, col + 8 * i, d[4 * i + 2 * h],
                       d[4 * i + 2 * h + 1]);
    }
}

/*
 * EPI = 1: the m64 x BN accumulator goes out in 64 x 64 boxes through two
 * 8 KB shared buffers per consumer (128-byte swizzle: 16-byte chunk c of
 * row r at chunk c ^ (r % 8), the layout of tensor map tmC, and free of
 * bank conflicts for the fragment's 8 rows x 4 threads) and TMA stores
 * (clipped at the M and N edges). Thread 0 of the warpgroup issues the
 * store of a box and, before a buffer is rewritten, waits until the store
 * that last read it has (cp.async.bulk.wait_group.read 1: all but the
 * newest group, which used the other buffer). The stores run on while the
 * consumer goes on to the next tile.
 */
__device__ __forceinline__ void bar_named(int id, int n)
{
    asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(n) : "memory");
}

/* Two fp32 values as one 4-byte pair of elem_t. */
__device__ __forceinline__ unsigned pack2(float a, float b)
{
    elem2 v;
    v.x = FROM_F32(a);
    v.y = FROM_F32(b);
    return *reinterpret_cast<unsigned *>(&v);
}

/* One 64 x 64 box of C at (r0, c0) from the fragment's pairs: v[2 * c +
 * h] is row 16 * warp + lane / 4 + 8 * h, 16-byte chunk c, bytes 4 *
 * (lane % 4) of it. Buffer nbox & 1 of the consumer; nbox counts on. */
__device__ __forceinline__ void store_box(const smem_map &sm,
                                          const tmap_t *tc, int r0, int c0,
                                          const unsigned (&v)[16], int cw,
                                          int tid, int &nbox)
{
    const int lane = tid % 32;
    const unsigned buf = sm.epi + (cw * 2 + (nbox & 1)) * EPI_BOX_BYTES;
    ++nbox;
    if (EPW) {
        /* EPW = 1: the warp's rows 16 * warp .. + 15 of the box (2 KB at
         * buf + 2048 * warp, 1024-aligned, so the swizzle is the box's),
         * written with stmatrix (x4: the 8 x 8 blocks of chunks c, c + 1,
         * halves 0 and 1 - lanes 8 i .. 8 i + 7 address block i's rows)
         * and stored by the warp's lane 0 as one 64 x 16 box (tmC's box
         * is 16 rows): no named barrier, bulk groups per warp. */
        const int w = tid / 32, rr = lane % 8, jb = lane / 8;
        const unsigned rowa = buf + (16 * w + rr + 8 * (jb & 1)) * 128;
        if (lane == 0)
            asm volatile("cp.async.bulk.wait_group.read 1;\n" ::: "memory");
        __syncwarp();
#pragma unroll
        for (int q = 0; q < 4; ++q) {
            const unsigned addr = rowa + (((2 * q + (jb >> 1)) ^ rr) << 4);
            asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], "
                         "{%1, %2, %3, %4};\n"
                         ::"r"(addr), "r"(v[4 * q]), "r"(v[4 * q + 1]),
                           "r"(v[4 * q + 2]), "r"(v[4 * q + 3])
                         : "memory");
        }
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
        __syncwarp();
        if (lane == 0) {
            asm volatile("cp.async.bulk.tensor.2d.global.shared::cta."
                         "bulk_group [%0, {%1, %2}], [%3];\n"
                         ::"l"(tc), "r"(c0), "r"(r0 + 16 * w),
                           "r"(buf + 2048 * w)
                         : "memory");
            asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
        }
        return;
    }
    if (tid == 0)
        asm volatile("cp.async.bulk.wait_group.read 1;\n" ::: "memory");
    bar_named(1 + cw, 128);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        const int row = 16 * (tid / 32) + lane / 4 + 8 * h;
#pragma unroll
        for (int c = 0; c < 8; ++c) {
            const unsigned addr = buf + row * 128 + ((c ^ (row & 7)) << 4) +
                                  4 * (lane % 4);
            asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(addr),
                         "r"(v[2 * c + h])
                         : "memory");
        }
    }
    /* generic-proxy writes, then the async proxy (TMA) reads them */
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    bar_named(1 + cw, 128);
    if (tid == 0) {
        asm volatile("cp.async.bulk.tensor.2d.global.shared::cta."
                     "bulk_group [%0, {%1, %2}], [%3];\n"
                     ::"l"(tc), "r"(c0), "r"(r0), "r"(buf)
                     : "memory");
        asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
    }
}

__device__ __forceinline__ void store_tile_tma(const smem_map &sm,
                                               const tmap_t *tc, int r0,
                                               int n0,
                                               const float (&d)[BN / 2],
                                               int cw, int tid, int &nbox)
{
#pragma unroll
    for (int j = 0; j < BN / 64; ++j) {
        unsigned v[16];
#pragma unroll
        for (int c = 0; c < 8; ++c)
#pragma unroll
            for (int h = 0; h < 2; ++h)
                v[2 * c + h] = pack2(d[4 * (8 * j + c) + 2 * h],
                                     d[4 * (8 * j + c) + 2 * h + 1]);
        store_box(sm, tc, r0, n0 + 64 * j, v, cw, tid, nbox);
    }
}

/*
 * EPO = 1: a tile's C leaves the accumulators as packed pairs (pk[mi][2 *
 * i + h] = columns 8 * i + 2 * (lane % 4) (+ 1), half h of the fragment)
 * at once, and its boxes go out one per k-slice of the block's next tile,
 * after that slice's wgmmas are issued, so the tensor pipe idles only for
 * the drain and the packing between tiles. Box b = mi * (BN / 64) + j.
 */
#define EPO_BOXES (MI * BN / 64)

__device__ __forceinline__ void store_pending(const smem_map &sm,
                                              const tmap_t *tc, int b,
                                              int r0, int n0,
                                              const unsigned (&pk)[MI][BN / 4],
                                              int cw, int tid, int &nbox)
{
#pragma unroll
    for (int bb = 0; bb < EPO_BOXES; ++bb) {
        if (bb != b)
            continue;
        const int mi = bb / (BN / 64), j = bb % (BN / 64);
        unsigned v[16];
#pragma unroll
        for (int k = 0; k < 16; ++k)
            v[k] = pk[mi][16 * j + k];
        store_box(sm, tc, r0 + mi * 64, n0 + 64 * j, v, cw, tid, nbox);
    }
}

/* Gives stage s back to the producer of every block that writes into it
 * (CL_PEERS: itself and those on its M or N tile): thread c < CLUSTER of
 * the warpgroup arrives on block c's barrier; with CLUSTER = 4 the
 * diagonal block (rank ^ 3) shares no operand and is skipped. */
__device__ __forceinline__ void release(const smem_map &sm, int s, int tid)
{
    if (CLUSTER == 1) {
        if (tid == 0)
            mbar_arrive(sm.empty(s));
    } else if (tid < CLUSTER &&
               (CLUSTER < 4 || tid != (int)(cluster_rank() ^ 3))) {
        mbar_arrive_remote(sm.empty(s), tid);
    }
}

/* Stream-K partials: workspace slot of block x holds its fp32 sums, per
 * consumer warpgroup and m64 block in fragment order, four registers i..
 * i + 3 of thread tid as one float4 at (i / 4) * 128 + tid (coalesced);
 * flag (x, cw) = SK_DONE says that part of slot x is complete. The flags
 * live in the workspace, which holds anything at the first launch (the
 * harness poisons it with 0x7fc0dead): only the writer sets SK_DONE and
 * the owner that takes it sets the flag back to 0, so no launch leaves
 * one behind and each is read by exactly one owner. Publishing is a named
 * barrier of the consumer's 128 threads, then st.release.gpu of the flag
 * by one thread; taking, ld.acquire.gpu by one thread (SK = 3: one a
 * flag), then the barrier (causality runs through bar.sync at CTA scope
 * and release/acquire at GPU scope, as in CUTLASS's generic barrier). A
 * __threadfence on either side cost 1-2 % (s12 c8). */
#define SK_FLAG_BYTES 262144 /* SK = 3: 32 flags a (block, consumer) */
#define SK_DONE 0x5c0ffee5u

/* SK = 3 (see the schedule): flag (x, cw, r) = SK_DONE says that slot x
 * holds the sums range r reduces; reader r sets it back to 0. */
__device__ __forceinline__ unsigned *sk3_flag(void *ws, int x, int cw, int r)
{
    return reinterpret_cast<unsigned *>(ws) + (x * CONSUMERS + cw) * 32 + r;
}

__device__ __forceinline__ float4 *sk_part(void *ws, int x, int cw, int mi)
{
    return reinterpret_cast<float4 *>((char *)ws + SK_FLAG_BYTES) +
           (((size_t)x * CONSUMERS + cw) * MI + mi) * (64 * BN / 4);
}

__device__ __forceinline__ unsigned *sk_flag(void *ws, int x, int cw)
{
    return reinterpret_cast<unsigned *>(ws) + x * CONSUMERS + cw;
}

/*
 * SK = 3: the S ranges of a tile share its reduction. A thread's
 * accumulators are SK3_Q float4 groups (m64 block mi, 8 columns i: q =
 * mi * BN / 8 + i), at q * 128 + tid of its consumer's slot. Each range
 * writes all its groups to its block's slot, raises the flag of each
 * other range at once (one thread a flag), waits for the other ranges'
 * flags the same way (one thread a range, each setting its flag back to
 * 0), then adds up groups [Q r / S, Q (r + 1) / S) of all S slots in range
 * order (the same bits at every launch) and stores them from registers.
 * A thread reads only the words it wrote itself in every slot, so the
 * loop is over its few groups (four at a time) and the S slots, not over
 * all its registers.
 * Every range waits for all others, so the S x tiles clusters must be
 * resident together: the persistent grid (one block a multiprocessor) is.
 */
__device__ __forceinline__ void sk3_reduce(elem_t *C, void *ws, int M, int N,
                                           const sched &g, int t, int row0,
                                           int n0, const float (&acc)[MI][BN / 2],
                                           int cw, int tid)
{
    const int S = g.sl, tiles = g.tiles_m * g.tiles_n;
    const int r = g.cid / tiles, rank = (int)(blockIdx.x % CLUSTER);
    const int q0 = SK3_Q * r / S, q1 = SK3_Q * (r + 1) / S;
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) {
        float4 *p = sk_part(ws, blockIdx.x, cw, mi);
#pragma unroll
        for (int i = 0; i < BN / 8; ++i)
            __stcg(p + i * 128 + tid,
                   make_float4(acc[mi][4 * i], acc[mi][4 * i + 1],
                               acc[mi][4 * i + 2], acc[mi][4 * i + 3]));
    }
    bar_named(1 + cw, 128);
    if (tid < S && tid != r) {
        asm volatile("st.release.gpu.global.u32 [%0], %1;\n"
                     ::"l"(sk3_flag(ws, blockIdx.x, cw, tid)), "r"(SK_DONE)
                     : "memory");
        unsigned *f = sk3_flag(ws, (tid * tiles + t) * CLUSTER + rank, cw, r);
        unsigned v;
        do {
            asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n"
                         : "=r"(v) : "l"(f) : "memory");
        } while (v != SK_DONE);
        *(volatile unsigned *)f = 0u;
    }
    bar_named(1 + cw, 128);
    const int lane = tid % 32;
    const int row = row0 + 16 * (tid / 32) + lane / 4;
    /* four groups at a time, eight slots' loads in flight each */
    for (int qb = q0; qb < q1; qb += 4) {
        float4 sum[4];
#pragma unroll
        for (int j = 0; j < 4; ++j)
            sum[j] = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll 8
        for (int r2 = 0; r2 < S; ++r2) {
            const float4 *p =
                sk_part(ws, (r2 * tiles + t) * CLUSTER + rank, cw, 0) + tid;
#pragma unroll
            for (int j = 0; j < 4; ++j)
                if (qb + j < q1) {
                    const float4 v = __ldcg(p + (qb + j) * 128);
                    sum[j].x += v.x;
                    sum[j].y += v.y;
                    sum[j].z += v.z;
                    sum[j].w += v.w;
                }
        }
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const int q = qb + j, mi = q / (BN / 8), i = q % (BN / 8);
            /* fragment: (x, y) at row, columns c, c + 1; (z, w) 8 rows
             * down */
            const int rr = row + mi * 64, c = n0 + 8 * i + 2 * (lane % 4);
            if (q < q1) {
                store_pair(C, M, N, rr, c, sum[j].x, sum[j].y);
                store_pair(C, M, N, rr + 8, c, sum[j].z, sum[j].w);
            }
        }
    }
}

__device__ __forceinline__ void consume(const smem_map &sm, elem_t *C,
                                        const tmap_t *tc, void *ws, int M,
                                        int N, const sched &g, int cw,
                                        int tid)
{
    int nbox = 0; /* EPI = 1: boxes stored so far (buffer nbox & 1) */
    float acc[MI][BN / 2];
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int i = 0; i < BN / 2; ++i)
            acc[mi][i] = 0.f;
    unsigned pk[MI][BN / 4]; /* EPO = 1: the previous tile's C, packed */
    int pend = 0, pm0 = 0, pn0 = 0; /* its origin (this consumer's rows) */
    ctr_t it = 0;
    int j = 0; /* j: the block's items so far */
    const int cwu = LEAN ? __shfl_sync(0xffffffffu, cw, 0) : cw;
    /* descriptors of stage 0; a stage, an m64 block and a k16 step only
     * add to the start address field in the low word (smem offsets <
     * 2^18: no carry out of it) */
    const u64 da0 = make_desc(sm.a(0) + (PP ? 0 : cwu * MI) * 64 * A_ROW, 16,
                              8 * A_ROW, A_SWZ);
    const u64 db0 = make_desc(sm.b(0), BK * 128, 1024);
    const unsigned da_lo = (unsigned)da0, db_lo = (unsigned)db0;
    const u64 da_hi = da0 & ~0xFFFFFFFFull, db_hi = db0 & ~0xFFFFFFFFull;
    item_iter w;
    w.start(g);
    while (w.next(g)) {
        const int jj = j++;
        if (PP && (jj & 1) != cw) { /* the other consumer's tile */
            it += w.ke - w.kb;
            continue;
        }
        int m0, n0;
        tile_origin(w.t, g.tiles_m, g.tiles_n, g.group_m, m0, n0);
        /* PP = 1: the other consumer has issued the previous tile's
         * wgmmas (so every slice before this tile's has landed and the
         * full barriers' parities cannot alias) */
        if (PP && jj > 0)
            bar_named(3 + cw, 256);
        for (int kt = w.kb; kt < w.ke; ++kt, ++it) {
            const int s = (int)(it % STAGES);
            mbar_wait(sm.full(s), (unsigned)(it / STAGES) & 1);
#pragma unroll
            for (int mi = 0; mi < MI; ++mi)
                reg_fence(acc[mi]);
            wg_fence();
            const unsigned so = s * (STAGE_BYTES >> 4);
#pragma unroll
            for (int kk = 0; kk < BK / 16; ++kk) {
                const u64 db = db_hi | (db_lo + so + kk * (16 * 128 >> 4));
#pragma unroll
                for (int mi = 0; mi < MI; ++mi) {
                    const u64 da = da_hi | (da_lo + so +
                                            mi * (64 * A_ROW >> 4) +
                                            kk * (32 >> 4));
                    /* the item's first slice overwrites the accumulators */
                    wgmma_bn<BN>(acc[mi], da, db, kt > w.kb || kk > 0);
                }
            }
            wg_commit();
#pragma unroll
            for (int mi = 0; mi < MI; ++mi)
                reg_fence(acc[mi]);
            /* keep this slice's wgmma in flight; the previous one is done,
             * so its stage goes back to the producer */
            wg_wait<1>();
            if (kt > w.kb)
                release(sm, (int)((it - 1) % STAGES), tid);
            if (EPO && pend && kt - w.kb < EPO_BOXES)
                store_pending(sm, tc, kt - w.kb, pm0, pn0, pk, cw, tid,
                              nbox);
        }
        /* PP = 1: the other consumer's turn (if it has a next tile) while
         * this one drains and stores */
        if (PP && w.more(g))
            asm volatile("bar.arrive %0, 256;\n" ::"r"(4 - cw) : "memory");
        wg_wait<0>();
#pragma unroll
        for (int mi = 0; mi < MI; ++mi)
            reg_fence(acc[mi]);
        release(sm, (int)((it - 1) % STAGES), tid);
        if (EPO && pend) {
            /* boxes of the previous tile that had no k slice (K < 256) */
#pragma unroll
            for (int b = 0; b < EPO_BOXES; ++b)
                if (b >= w.ke - w.kb)
                    store_pending(sm, tc, b, pm0, pn0, pk, cw, tid, nbox);
            pend = 0;
        }
        const int row0 = m0 + (PP ? 0 : cw * MI) * 64;
        if (SK == 3 && g.sl >= 2) {
            /* a cluster's one item (so no tile is pending: the deferred
             * stores' registers are free here) */
            sk3_reduce(C, ws, M, N, g, w.t, row0, n0, acc, cw, tid);
            break;
        }
        if (SK && w.ke < g.ktiles) { /* writer piece: partials, flag */
#pragma unroll
            for (int mi = 0; mi < MI; ++mi) {
                float4 *p = sk_part(ws, blockIdx.x, cw, mi);
#pragma unroll
                for (int i = 0; i < BN / 8; ++i)
                    __stcg(p + i * 128 + tid,
                           make_float4(acc[mi][4 * i], acc[mi][4 * i + 1],
                                       acc[mi][4 * i + 2],
                                       acc[mi][4 * i + 3]));
            }
            bar_named(1 + cw, 128);
            if (tid == 0)
                asm volatile("st.release.gpu.global.u32 [%0], %1;\n"
                             ::"l"(sk_flag(ws, blockIdx.x, cw)),
                               "r"(SK_DONE)
                             : "memory");
            continue;
        }
        if (SK && w.kb > 0) {
            /* owner piece: add the writers' partials, the lower clusters
             * whose ranges reach into the tile (slices from t0 on), the
             * nearest first (SK = 1: cluster c - 1 alone) */
            const int t0 = (w.t - g.dp_tiles) * g.ktiles;
            for (int c = g.cid - 1;; --c) {
                const int su = (int)((long long)g.sl * c / g.ncl);
                if (su < (int)((long long)g.sl * (c + 1) / g.ncl)) {
                    /* a non-empty range: a writer */
                    const int x = c * CLUSTER + (int)(blockIdx.x % CLUSTER);
                    if (tid == 0) {
                        unsigned *f = sk_flag(ws, x, cw);
                        unsigned v;
                        do {
                            asm volatile(
                                "ld.acquire.gpu.global.u32 %0, [%1];\n"
                                : "=r"(v) : "l"(f) : "memory");
                        } while (v != SK_DONE);
                        *(volatile unsigned *)f = 0u;
                    }
                    bar_named(1 + cw, 128);
#pragma unroll
                    for (int mi = 0; mi < MI; ++mi) {
                        const float4 *p = sk_part(ws, x, cw, mi);
#pragma unroll
                        for (int i = 0; i < BN / 8; ++i) {
                            const float4 v = __ldcg(p + i * 128 + tid);
                            acc[mi][4 * i] += v.x;
                            acc[mi][4 * i + 1] += v.y;
                            acc[mi][4 * i + 2] += v.z;
                            acc[mi][4 * i + 3] += v.w;
                        }
                    }
                }
                if (su <= t0)
                    break;
            }
        }
        if (EPO) {
#pragma unroll
            for (int mi = 0; mi < MI; ++mi)
#pragma unroll
                for (int i = 0; i < BN / 8; ++i)
#pragma unroll
                    for (int h = 0; h < 2; ++h)
                        pk[mi][2 * i + h] = pack2(acc[mi][4 * i + 2 * h],
                                                  acc[mi][4 * i + 2 * h + 1]);
            pend = 1;
            pm0 = row0;
            pn0 = n0;
            continue;
        }
#pragma unroll
        for (int mi = 0; mi < MI; ++mi) {
            if (EPI)
                store_tile_tma(sm, tc, row0 + mi * 64, n0, acc[mi], cw, tid,
                               nbox);
            else
                store_tile(C, M, N, row0 + mi * 64, n0, acc[mi], tid);
        }
    }
    if (EPO && pend)
#pragma unroll
        for (int b = 0; b < EPO_BOXES; ++b)
            store_pending(sm, tc, b, pm0, pn0, pk, cw, tid, nbox);
    /* the smem of the last boxes is read before the block exits */
    if (EPI && (EPW ? tid % 32 : tid) == 0)
        asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory");
}

extern "C" __global__ void __launch_bounds__(THREADS, 1)
hgemm_wgmma(const elem_t *__restrict__ A, const elem_t *__restrict__ B,
            elem_t *__restrict__ C, int M, int N, int K, void *ws,
            const __grid_constant__ tmap_t tmA,
            const __grid_constant__ tmap_t tmA32,
            const __grid_constant__ tmap_t tmB,
            const __grid_constant__ tmap_t tmC, int group_m)
{
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    smem_map sm;
    sm.base = (smem_u32(smem_raw) + 1023u) & ~1023u; /* swizzle atoms */
    sm.epi = sm.base + STAGES * STAGE_BYTES; /* EPI = 1 boxes, 1024-aligned */
    sm.bars = sm.epi + EPI * CONSUMERS * 2 * EPI_BOX_BYTES;
    const int wg = threadIdx.x / 128, tid = threadIdx.x % 128;
    const sched g = make_sched(M, N, K, group_m);

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(sm.full(s), 1);
            mbar_init(sm.empty(s), (PP ? 1 : CONSUMERS) * CL_PEERS);
        }
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    /* with a pair, the peer's barriers exist before any multicast or
     * remote arrive reaches them */
    if (CLUSTER > 1)
        cluster_sync();
    else
        __syncthreads();

    if (wg == 0) {
        if (SETREG)
            asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
        if (tid == 0)
            produce(sm, BK == 64 ? &tmA : &tmA32, &tmB, g);
    } else {
        if (SETREG)
            asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
        consume(sm, C, &tmC, ws, M, N, g, wg - 1, tid);
    }
    /* the peer may multicast into this block or arrive on its barriers
     * until it is done too */
    if (CLUSTER > 1)
        cluster_sync();
}
