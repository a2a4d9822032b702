/*
 * hgemm_packed.cu - fp16/bf16 GEMM (C = A*B, row-major, fp32 accumulation)
 * for Hopper (sm_90a) that runs on wgmma for ANY M, N, K, including rows
 * that are not 16-byte aligned (odd N or K), where TMA tensor maps cannot
 * address the operands.
 *
 * Launch 1 (hgemm_pack) copies A and B into the workspace, zero-padded to
 * whole tiles and already in the exact shared-memory image the main loop
 * wants: A as [M tile][k tile] blocks of BM rows x 64 k (128 B a row, the
 * 16-byte chunks of row r XOR-swizzled by r % 8, i.e. TMA's 128-byte
 * swizzle), B as [N tile][k tile] blocks of BN/64 boxes of 64 k-rows x 64
 * columns (same swizzle) or, with BT=1 (default), K-major: BN rows (one a
 * column of B) of 64 k, swizzled like A's, transposed through shared
 * memory (pack_btile). It reads each 16-byte chunk of a row with two
 * aligned 16-byte loads and a funnel shift (rows are 2-byte aligned only),
 * scalar loads at row ends. Its time counts in the measurement.
 *
 * Launch 2 (hgemm_packed) is persistent and warp-specialized: warpgroup 0
 * is the producer, one thread of it issues 1-D bulk copies
 * (cp.async.bulk, mbarrier complete_tx) of a whole packed A and B slice a
 * stage, STAGES stages deep; warpgroups 1..CONSUMERS each own BM /
 * CONSUMERS rows of the BM x BN tile as MI = BM / (64 * CONSUMERS)
 * m64nBNk16 accumulators (wgmma.mma_async, B K-major with BT, else
 * N-major). Tiles are visited GROUP_M (pair) rows at a time for L2 reuse.
 * With two consumer warpgroups setmaxnreg moves registers from the
 * producer to them. SK=1 (stream-K) deals all but the last one-to-two
 * waves of tiles whole and shares the rest as equal k-slice ranges (see
 * "Work schedule" below). CLUSTER=2 pairs two CTAs on adjacent M tiles of
 * the same N tile: each copies its own A slice and half of the shared B
 * slice, multicast to both (cp.async.bulk .multicast::cluster), and
 * consumers release a stage in both CTAs; with CLN=1 (default) the pair
 * lies along N instead (adjacent N tiles of one M tile, A shared and
 * multicast, each CTA its own B slice). Epilogue: EPI=1 (default) stages
 * the tile in shared memory and bulk-copies each C row's 16-byte-aligned
 * middle (see epi_store); EPI=0 stores from the accumulators directly,
 * 4-byte pairs where the address is 4-byte aligned (row-dependent when N
 * is odd), single elements elsewhere. Launch 2 is a programmatic
 * dependent launch (pdl): it may start while the pack drains and waits
 * (griddepcontrol.wait) before it reads the workspace.
 *
 * FUSE=1 (fused pack, see "Fused pack" below): launch 1 packs only the
 * first PRE % of the pack items in the order the GEMM needs them; warps
 * 1-3 of the producer warpgroup pack the rest during the GEMM and publish
 * each item with a flag the producer polls before its copies.
 *
 * Measured on the H100 (bench/results/2026-11-24-h100-s5-packed, call c4,
 * template of commit af9ddd3; ratios to cuBLAS in the same worker):
 * default point (128x192, CLUSTER=2, 5 stages, GROUP_M=1, SK=0, FUSE=0;
 * the bench search's best of 2026-11-24): bf16 4099x4097x4095 463 / 467
 * TFLOP/s = 3.38x / 3.36x (two evals), fp16 460 = 3.31x, bf16 8191x8193x
 * 8191 621 = 4.01x; the old default (256x128, 4 stages, GROUP_M=8, SK=1)
 * 428 / 431, fp16 426, 8191 537; interleaved A/B 1.101 for the new one.
 * Neighbours at bf16 4099 (same worker, one eval each): GROUP_M=4 470,
 * GROUP_M=8 467, STAGES=4 466 (within the evals' spread of the default).
 * Where the 297 us go (c4/ncu-def.txt, clocks not fixed): pack 46.2 us
 * for 67 MB read + 70 MB written = ~2.98 TB/s, the card's measured copy
 * rate (ncu: DRAM 77.5 % of peak; some writes still sit in L2 at its
 * end): no gain left in the pack kernel itself; GEMM 256.5 us at 1.70 GHz with
 * the tensor pipe active 63.7 % (L2 51 %, DRAM 33 % of peak): 164 us of
 * MMA for the 150.6 GFLOP it executes (9 % of it padding: 34 x 128 rows,
 * 22 x 192 columns), 374 pair tiles = 5.67 waves of 66 clusters, and
 * ~68 % tensor activity while a wave runs (hgemm_wgmma: 89 % at 4096^3).
 * 550 TFLOP/s (250 us) needs the GEMM at <= ~200 us or the pack hidden.
 *
 * FUSE did not pay (c1-c4): with the packers loading through registers
 * (one chunk in flight a lane: the shift code between loads serializes
 * them) PRE=0/20/30 gave 288/313/334 TFLOP/s against 464 (c1); staged
 * through shared memory with cp.async (this code) 374-424 for PRE 0-50
 * (c2-c4), rising with PRE; polling 8 flags a round trip instead of one
 * acquire load a stage moved PRE=20 from 393 to 406. ncu (c4/ncu-f30.txt,
 * PRE=30): pack 19.6 us, but the GEMM takes 312.5 us with the tensor pipe
 * active 50.7 % and DRAM 33 % / L2 48 % of peak, i.e. it waits for items
 * the 3 packer warps an SM (one 8 KB batch in flight each) have not
 * packed yet; the first wave alone needs ~44 % of all items (GROUP_M=8).
 * PRE=100 (all packed by launch 1 one block an item, nothing left to the
 * GEMM) 450 against 463: that launch 1 is slower than the chunk-parallel
 * pack. Kept for the search (correct at every shape tried: 64x65x63,
 * 1000x999x777, 300x4097x130, 4099x4097x4095, 4096^3, 8191x8193x8191).
 * Earlier (bench/results/2026-11-23-h100-hgemm-run2.log): stream-K
 * changed nothing at 128x256 (416 vs 416); 256x128 went 422 -> 439.
 *
 * EPI=1, SKIP, SK with clusters, SK=2 and pdl, measured on the H100
 * (bench/results/2026-11-24-h100-s5-packed2, calls c1-c3, helper hp2;
 * ratios to cuBLAS in the same worker). New default (128x192, CLUSTER=2,
 * STAGES=4, GROUP_M=8, EPI=1, SKIP=1, SK=0, pdl on launch 2), c3: bf16
 * 4099x4097x4095 526.5 / 528.3 / 525.7 TFLOP/s = 3.83x / 3.80x / 3.78x,
 * fp16 516.3 = 3.75x, bf16 8191x8193x8191 677.9 = 4.40x, fp16 8191 650 =
 * 4.02x, bf16 4096^3 551.4 (0.69x); the previous default (EPI=0, 5
 * stages, GROUP_M=1) 465-467 / fp16 458 / 8191 607; interleaved A/B 1.129
 * for the new one. 550 TFLOP/s at 4099 is NOT reached.
 * - EPI=1 (the tile through shared memory, BM x (2 BN + 16) bytes, 50 KB
 *   at 128x192, so STAGES <= 4; one thread a C row stores its unaligned
 *   head and tail, a bulk copy the 16-byte-aligned middle under the next
 *   tile) is the gain: c1 526 vs 467 (STAGES=3: 463). ncu (c1/c3
 *   ncu-*.txt, seed 3): GEMM 256.5 -> 219.6-220.2 us, tensor pipe active
 *   63.7 -> 74-77.5 %, barrier stalls 6.1 -> 4.8-5.1 a issued
 *   instruction; the pack stays 46.4-46.8 us at 77 % of DRAM peak.
 * - pdl: +0.5 % (c1 469 vs 467; c2 e4p 525.9 vs e4 523.3).
 * - GROUP_M=8: even at 4099 (526.5 vs 528.2 for 1), 678 vs 644 at 8191.
 * - SKIP=1 (a warpgroup whose rows all lie past M issues no wgmma; A
 *   rows past M not copied): A/B vs SKIP=0 1.0007, noise (c3). A first
 *   version that predicated each wgmma per m64 block made ptxas serialize
 *   the wgmmas (C7520 without the __shfl_sync broadcast) and cost 2-7 %.
 * - SK=1 with clusters (split tiles meet through a counter: the second
 *   to finish adds the first's partial sums, so no residency is assumed):
 *   correct, slower: 449 vs 467 (c1), tensor active 56.5 % under ncu.
 * - SK=2 (tail split: the last partial wave's tiles one a cluster, the
 *   non-sliver ones cut into two k halves): correct; at 4099 the 44 tail
 *   tiles are 22 full + 22 slivers (3 rows) = 66 pieces, yet 513-521 vs
 *   526-528 (A/B 0.985, reject; ncu GEMM 223.4 vs 220.3 us), i.e. a
 *   sliver tile on one warpgroup does not run in half a tile's time; at
 *   4096^3 (22 tail tiles, 44 halves) 558-566 vs 549-551: it pays there.
 * - CLUSTER=1 with EPI=1: 481-484; BM=256 BN=128 EPI=1 SK=2: 431.
 * What limits it now: the GEMM at ~74-77 % tensor-active for 220 us +
 * the pack's 46.5 us at the copy rate. 550 needs the GEMM at <= ~203 us.
 * Left: 6 waves for 5.33 waves of full tiles (352 full pair tiles + 22
 * slivers on 66 clusters; SK=2 did not recover it), the epilogue's
 * shared-memory writes and head/tail stores still stall both consumer
 * warpgroups (no ping-pong), a narrower wgmma for the last column tile,
 * a pack that runs under the GEMM (FUSE did not pay).
 *
 * EPO and PDLT, measured on the H100 (bench/results/2026-11-24-h100-s5-
 * packed3, calls c1-c3, helper hp3; ratios to cuBLAS in the same worker):
 * neither pays, both default 0. Default point (as above) bf16 4099x4097x
 * 4095 529.2-534.1 TFLOP/s = 3.85-3.89x (c1-c3), fp16 519.0-524.0 = 3.79-
 * 3.81x, bf16 8191x8193x8191 683.6-693.6 = 4.41-4.51x.
 * - EPO=1 (the tile's C packed to 16-bit pairs in registers, staged and
 *   copied one piece per k slice of the next tile; deferred only when that
 *   tile has >= EPO_STEPS slices and rows for the warpgroup, else stored at
 *   once; head and tail on two threads a row): correct everywhere tried,
 *   519.7-525.1 vs 529.2-534.1 (A/B 1.0185 for EPO=0, accept), fp16 514.1
 *   vs 519.0, 8191 679.3 (with PDLT=1) vs 693.6. ncu (c2 ncu-full-e1):
 *   GEMM 222.4 vs 218.9 us, 44.7M vs 39.1M instructions; the barrier
 *   stalls fall (3.6 vs 5.0 cycles an instruction) but the tensor pipe is
 *   not busier: the epilogue was not what idles it.
 * - PDLT=1 (launch_dependents at the start of every pack block): 528.1-
 *   531.2 vs 529.2-534.1, within noise or slightly slower.
 * What limits it (c2 ncu-full, c3 ncu-sm-*): the SMs are active 90.3 % of
 *   the GEMM's 365k cycles on average (min 292k, max 356k: 6 pair tiles on
 *   44 clusters, 5 on 22, one of the 6 a 3-row sliver on 22); the tensor
 *   pipe counts 196,608 cycles a tile per SM (983k for 5 tiles, 1,180k for
 *   6), i.e. an SM with 6 tiles spends ~59k active cycles a tile for 49k of
 *   MMA: ~20 % in-tile loss that the deferred epilogue did not recover, so
 *   it lies in the k loop (full-barrier waits: L2 at 65 % of peak, 7.1 TB/s
 *   of L2 sectors; CLUSTER=1, +43 % L2 bytes, lost 8 %; STAGES=3 lost 12 %).
 *   SK=2 evens the tensor work (max 5.5 tiles an SM, active min 337k max
 *   367k) but raises the average active cycles 331k -> 352k: its tail
 *   pieces run slower than whole tiles; 517.4 vs 532.6 (c3).
 *   Left: fewer L2 bytes a FLOP (A multicast too, 2x2 clusters), a cheaper
 *   tail than SK=2's split, a dynamic tile scheduler.
 *
 * SK=3 and FOLD, measured on the H100 (bench/results/2026-11-24-h100-s5-
 * packed4, calls c1-c2, helper hp4): neither pays at 4099, both default 0.
 * - SK=3 (the 44 tail tiles, slivers too, cut into k thirds, 2 pieces a
 *   cluster, each piece its own fp32 slot, the last to count adds them in
 *   piece order: bitwise reproducible; c1's chain reduction was not, kevo
 *   refused it): bf16 4099 509.4 / 510.2 vs 532.4 / 532.9 (c2), A/B with
 *   FOLD=1 0.9515 (reject); 4096^3 572.9 vs 558.2 (+2.6 %, 22 tail tiles
 *   as 66 thirds), 8191x8193x8191 unchanged (no split: 56 tail tiles).
 *   ncu (c2 ncu-sm-sk3): the tensor work is even (983k-1,180k -> 1,048k-
 *   1,084k cycles an SM) but active cycles avg 360k vs 333k, min 345k vs
 *   294k: the two tail pieces (1/3 tile + 1/3 sliver) take ~50k cycles
 *   an SM, about a whole tile's 59k; GEMM 230.0 vs 219.0 us. So a piece
 *   of a tile costs far more than its share of k (as SK=2's halves did);
 *   not resolved why (pipeline refill, 96 KB of partials a CTA written
 *   and read, the sliver thirds reading B from DRAM at 96 KB in flight a
 *   cluster - an inference, not measured separately).
 * - FOLD=1 (the sliver pair row joins the last GROUP_M group, so the 22
 *   sliver tiles run beside the full tiles that read the same B slices):
 *   536.0 / 536.9 vs 532.4 / 532.9 (c2, two evals, not A/B-confirmed,
 *   checked correct at 4099 only); ncu GEMM 216.7 vs 219.0 us, DRAM read
 *   190 vs 222 MB, active max 357k (unchanged: 6 full tiles on some
 *   SMs). Worth an A/B; it cannot reach 550 alone.
 * What limits it is unchanged: 6 full pair tiles on the busiest clusters
 * (FOLD leaves 39 full tiles in the last round) and ~20 % in-tile loss.
 *
 * CLN, BT, BN=208, GROUP_M=32, measured on the H100 (bench/results/2026-
 * 11-24-h100-s6-packed, calls c1-c4, helper hp5; ratios to cuBLAS in the
 * same worker). New default CLN=1 BT=1 BN=208 GROUP_M=32 (pair tile 128 x
 * 416 along N, A multicast, B K-major): bf16 4099x4097x4095 569.7 / 571.6
 * TFLOP/s = 4.15x / 4.11x (c3 / c4), fp16 561.3 / 562.8 = 4.08x / 4.09x;
 * interleaved A/B against the old default (CLN=0 BT=0 BN=192 GROUP_M=8,
 * 533.3 / 523.7 in the same runs) 1.0689 bf16, 1.0726 fp16 (c4). bf16
 * 4096^3 601.3 (0.739x), fp16 589.2 vs 546.9. But 8191x8193x8191 loses:
 * bf16 662.0 vs 691.2, fp16 640.8 vs 664.7 (c3, same worker). Correct at
 * bf16 and fp16 64x65x63, 1000x999x777, 300x4097x130, 4099x4097x4095,
 * 4096^3, 8191x8193x8191 (c3, c4).
 * - Why: 4099 in 128 x 416 pair tiles is 33 x 10 = 330 = exactly 5 rounds
 *   of 66 clusters (the 33rd row a 3-row sliver), against 17 x 22 = 374 =
 *   6 rounds (5.67 of work) in 256 x 192 pairs: the busiest CTA runs 5
 *   tiles of 128 x 208 instead of 6 of 128 x 192 (0.90 of the MMA). ncu (c2, GROUP_M=16): GEMM 205.9 vs
 *   217.0 us, tensor active 77.5 vs 73.8 %; per SM (ncu-sm-n16) tensor
 *   cycles 958k-1,065k (5 tiles of 212,992: m64n208 costs 208/192 of
 *   n192, no penalty for N not a multiple of 64), active 318k-334k (old
 *   default 294k-360k, hp4): about 80 % of a tile's active time is MMA
 *   (83 % before): by the tile geometry a pair tile along N reads 68 KB
 *   from L2 a 64-k step for 53k outputs, 1.28 B an output against 1.14
 *   along M (measured: L2 sectors 57.7 vs 53.3 % of peak). That is also why 8191 (no rounding
 *   gain) is slower with CLN.
 * - GROUP_M matters more along N: (c1, old pack) GROUP_M 4 / 8 / 16 =
 *   434.7 / 427.2 / 451.0; (c2-c3, new pack) 8 / 16 / 32 = 530.9 / 565.9 /
 *   569.7 (A/B 32 vs 16: 1.0114 bf16; fp16 one eval each 561.3 vs 563.1).
 *   A round of 66 pair tiles then spans 32 M tiles x ~2 pair columns
 *   instead of 8 x ~8 (an inference about L2 reuse, not profiled).
 * - The transposing pack: one thread a packed B row (64 scalar 2-byte
 *   loads, c1) took 109.7 us (DRAM 45 % of peak, lg_throttle stalls);
 *   through shared memory (pack_btile: 16-byte row loads, chunk positions
 *   XOR k / 8 so the column reads hit 32 banks, 4 whole 128-byte rows a
 *   warp store) 45.6 us at 75.5 % of DRAM peak vs 46.2 us for the N-major
 *   pack (c2 ncu). BT=1 with the old cluster direction (CLN=0 BN=192):
 *   533.1 vs 534.1 (c2): K-major B alone changes nothing.
 * Left: the 8191 loss (the search may pick CLN=0 there), ~20 % in-tile
 * loss (L2 feed), a 2x2 cluster (both operands multicast) to cut the L2
 * bytes an output.
 *
 * Session 7 (bench/results/2026-11-24-h100-s7): the stream-K flags of BT=1
 * were cleared at the wrong offset (fixed, see the constraints); SK=3 and
 * stream-K with FOLD are left out. `kevo bench`, 40 s a case, at 766bda0:
 * bf16 / fp16 4099x4097x4095 577 / 565 TFLOP/s = 4.21x / 4.14x cuBLAS
 * (the default point won both), no timeout among 752 / 716 evaluations
 * (session 6: 3 timeouts, 218 / 321 evaluations).
 */
// kevo: problem gemm
// kevo: dtypes fp16 bf16
// kevo: param BM 64 128 256 default=128
// kevo: param BN 64 128 192 208 256 default=208
// kevo: param CONSUMERS 1 2 default=2
// kevo: param STAGES 2 3 4 5 6 7 default=4
// kevo: param GROUP_M 1 4 8 16 32 default=32
// kevo: param CLUSTER 1 2 default=2
// CLN=1: the CLUSTER=2 pair lies along N (one BM x 2 BN pair tile, both
// CTAs on the same M tile): each copies half of the shared A slice,
// multicast to both, and its own B slice.
// kevo: param CLN 0 1 default=1
// kevo: constraint !CLN || (CLUSTER == 2 && !SK && !FUSE && !EPO)
// BT=1: B is packed K-major (the image of B^T: BN rows of 64 k, 128 B
// each, swizzled like A's rows) and read by wgmma untransposed; any BN
// that is a multiple of 8 fits, so BN=208 (4 boxes N-major) needs it.
// kevo: param BT 0 1 default=1
// kevo: constraint (BT || BN % 64 == 0) && (!BT || !FUSE)
// CLN was measured only around the default point (two consumer
// warpgroups of a 128-row tile, 2-CTA clusters, EPI=1, no split, no
// deferred epilogue, no fold, no early trigger: bench/results/2026-11-24-
// h100-s6-packed) and stays there:
// kevo: constraint !CLN || (CLUSTER == 2 && CONSUMERS == 2 && BM == 128 && EPI == 1 && SK == 0 && !FUSE && !EPO && !FOLD && !PDLT)
// BT=1 with stream-K hung (bench/results/2026-11-24-h100-s6-lead: 9 of 10
// first-generation points with SK 1-2): the pack kernel cleared the
// stream-K flags at an offset that left out packed B, so the GEMM read
// the harness's workspace pattern as counts. Fixed; after the fix all 31
// BT=1 points of a stream-K sweep (SK 1-3, clusters of 1 and 2, 1 or 2
// consumers, BM 64-256, BN 64-256, EPI, EPO, FOLD, PDLT) were correct at
// bf16 4099x4097x4095 (bench/results/2026-11-24-h100-s7/c1/sweep.log).
// SK=3 hangs now and then: 3 of 18 points with CLUSTER=1 timed out in
// that sweep (in the timing phase, after a correct check), none of 12
// with CLUSTER=2, and 5 earlier bench timeouts (BN=256, clusters of 1
// and 2) passed there. The cause is not found; SK=3 paid only at
// 4096^3 (+2.6 %, see above), where hgemm_wgmma is faster still, so it
// stays out:
// kevo: constraint SK != 3
// Stream-K with FOLD: 2 timeouts in the session-6 bench (SK=1, BM=256,
// CLUSTER=1); both passed alone in the sweep, as did 7 other SK=1 FOLD=1
// points. Not understood, never faster: left out.
// kevo: constraint !(SK && FOLD)
// SK=2 (tail split): the tiles of the last, partial wave are dealt one a
// cluster, those that are not slivers (see geom) cut into two k halves,
// when that fits the clusters. SK=3 (tail thirds): every tile of the last,
// partial wave (slivers too) is cut into S equal k ranges (S = 2..4, the
// one that leaves the least tail work a cluster, e.g. 3 at 44 tail tiles
// on 66 clusters: 2 pieces a cluster) dealt round-robin in tile order, so
// a round of pieces works on neighbouring tiles' same k range (shared A
// or B slices in L2); the S pieces of a tile reduce through a counter and
// a chain of partial sums (see consume).
// SK=4 (split-K for fewer tiles than clusters: long K with small M and N,
// hgemm_wgmma's SK=3): every pair tile is cut into S = min(clusters /
// tiles, k tiles, 32, pair units) equal k ranges run side by side on the
// whole grid, and the S ranges share the tile's reduction (see
// sk4_reduce). Measured on the H100 (bench/results/2026-11-25-h100-s12/
// c10, c11; "pairs" launch by launch against cuBLAS, bf16): 512x512x32767
// 1.48x at BM=128 BN=208 and 1.59x at BN=128 (without SK the default
// 0.46x, the best point a 30 s run found 0.97x); 1000x1000x16383 2.70x
// (1.64x); 777x1001x20001 2.51x (1.46x); 256x256x65535 0.95x at BN=128
// (0.32x at best). A 30 s run at 512x512x32767: 209 TFLOP/s = 1.66x. 51
// of 51 checks ok (9 bf16 shapes from 1x1x9 to 4099x4097x4095 at 5
// points, fp16 at 3).
// kevo: param SK 0 1 2 3 4 default=0
// kevo: constraint SK != 4 || (!FUSE && CONSUMERS * SMS <= 512)
// FOLD=1: the pair rows past the last whole GROUP_M group join that group
// instead of forming a small group of their own, so the 3-row sliver row
// of M = 4099 runs beside the full rows that read the same B slices (in
// L2) rather than last, streaming all of B from DRAM on its own.
// kevo: param FOLD 0 1 default=0
// kevo: constraint !FOLD || !FUSE
// FUSE=1: launch 1 packs only the first PRE % of the pack items (in the
// order the GEMM needs them) and the GEMM's idle producer warps pack the
// rest while the consumers run, staged through 8 KB of shared memory a
// warp (see "Fused pack" below).
// kevo: param FUSE 0 1 default=0
// kevo: param PRE 0 5 10 20 30 50 100 default=20
// EPI=1: the epilogue goes through shared memory (BM rows of 2 * BN + 16
// bytes) and stores the 16-byte-aligned middle of each C row with a bulk
// copy that runs under the next tile (see epi_store).
// kevo: param EPI 0 1 default=1
// SKIP=1: a consumer warpgroup whose rows all lie past M issues no wgmma
// (it only waits for and releases the stages) and A rows past M (whole
// m64 blocks) are not copied (the last row tile of M = 4099 holds 3 rows).
// kevo: param SKIP 0 1 default=1
// EPO=1 (with EPI=1): a tile's C leaves the accumulators as packed 16-bit
// pairs at once and goes through the staging rows one piece per k slice of
// the block's next tile, after that slice's wgmmas are issued (see
// epo_step); the head/tail stores spread over all 128 threads.
// kevo: param EPO 0 1 default=0
// kevo: constraint !EPO || (EPI && !FUSE && BM / (64 * CONSUMERS) * BN <= 192)
// PDLT=1: every pack block executes griddepcontrol.launch_dependents at its
// start, so the GEMM's blocks launch (and set up) while the pack's last
// blocks run; the GEMM still waits (griddepcontrol.wait) for all of it.
// kevo: param PDLT 0 1 default=0
// kevo: constraint FUSE || PRE == 20
// KREV = 1: a block's odd waves run their k tiles backwards (2: and odd
// GROUP_M groups sweep N backwards), as hgemm_wgmma's; not with FUSE
// (its producers wait for the k tiles in order):
// kevo: param KREV 0 1 2 default=2
// kevo: constraint !KREV || !FUSE
//
// Each consumer warpgroup owns 1 or 2 m64 row blocks, at most 128 fp32
// accumulators a thread:
// kevo: constraint BM % (64 * CONSUMERS) == 0 && BM / (64 * CONSUMERS) <= 2
// kevo: constraint BM / (64 * CONSUMERS) * BN <= 256
// kevo: constraint 1024 + STAGES * (BM + BN) * 128 + 512 + FUSE * 3 * 8192 + EPI * BM * (2 * BN + 16) <= SMEM_OPTIN
// Stream-K: the two blocks that share a tile meet through a counter (the
// second to arrive waits only for the first, which is running), so no
// residency is assumed and clusters are allowed; counters and flags take
// 1024 words each.
// kevo: constraint !SK || CONSUMERS * SMS <= 1024
// Workspace: A padded to whole (cluster-rounded) M tiles, B to whole N
// tiles, both to whole 64-deep k tiles, 2 bytes an element.
// Then, with SK, the stream-K flags and one fp32 tile of partial sums a
// block.
// With FUSE, first the pack counters (256 bytes) and one flag an item.
// With CLN the M tiles are not paired and the N tiles are.
// kevo: workspace (cdiv(M, BM * (CLUSTER - CLN)) * BM * (CLUSTER - CLN) + cdiv(N, BN * (1 + CLN)) * BN * (1 + CLN)) * cdiv(K, 64) * 128 + FUSE * (256 + 4 * (cdiv(M, BM * CLUSTER) * CLUSTER + cdiv(N, BN)) * cdiv(K, 64)) + min(SK, 1) * 8192 + (SK == 4) * 57344 + (min(SK, 1) + 3 * (SK == 3)) * SMS * BM * BN * 4
// The pack kernel indexes 16-byte chunks of the image in 32 bits:
// kevo: requires (cdiv(M, BM * (CLUSTER - CLN)) * BM * (CLUSTER - CLN) + cdiv(N, BN * (1 + CLN)) * BN * (1 + CLN)) * cdiv(K, 64) * 8 < 2147483648
// With FUSE launch 1 is one block an item of the first PRE %, and one
// more that clears the counters; its dynamic shared memory size passes
// the GEMM's number of clusters (16 bytes each; it uses none of it).
// With BT the A chunks come first, then one block a k tile of 128
// columns of B (pack_btile).
// kevo: launch hgemm_pack
// kevo: grid FUSE ? cdiv((cdiv(M, BM * CLUSTER) * CLUSTER + cdiv(N, BN)) * cdiv(K, 64) * PRE, 100) + 1 : BT ? cdiv(cdiv(M, BM * (CLUSTER - CLN)) * BM * (CLUSTER - CLN) * cdiv(K, 64) * 8, 256) + cdiv(cdiv(N, BN * (1 + CLN)) * BN * (1 + CLN), 128) * cdiv(K, 64) : cdiv((cdiv(M, BM * (CLUSTER - CLN)) * BM * (CLUSTER - CLN) + cdiv(N, BN * (1 + CLN)) * BN * (1 + CLN)) * cdiv(K, 64) * 8, 256)
// kevo: block 256
// kevo: smem FUSE * 16 * min(SMS / CLUSTER, cdiv(cdiv(M, BM), CLUSTER) * cdiv(N, BN))
// kevo: launch hgemm_packed
// kevo: pdl
// kevo: grid CLUSTER * (SK == 4 ? SMS / CLUSTER : min(SMS / CLUSTER, cdiv(cdiv(M, BM), CLUSTER - CLN) * cdiv(N, BN * (1 + CLN))))
// kevo: block 128 * (CONSUMERS + 1)
// kevo: smem 1024 + STAGES * (BM + BN) * 128 + 512 + FUSE * 3 * 8192 + EPI * BM * (2 * BN + 16)
// kevo: cluster CLUSTER, 1, 1

enum {
    BK = 64,                          /* one 128-byte swizzle row */
    MI = BM / (64 * CONSUMERS),       /* m64 blocks per consumer */
    THREADS = 128 * (CONSUMERS + 1),
    A_BYTES = BM * BK * 2,            /* A slice: BM rows of 128 B */
    B_BYTES = BN * BK * 2,            /* B slice: BN/64 boxes of BK rows */
    B_BOX_BYTES = 64 * BK * 2,
    STAGE_BYTES = A_BYTES + B_BYTES,  /* a multiple of 1024 */
    CM = CLN ? 1 : CLUSTER,           /* M tiles a pair tile */
    CN = CLN ? CLUSTER : 1,           /* N tiles a pair tile */
    B_PART = B_BYTES / CLUSTER,       /* B bytes each CTA of a pair copies */
    A_PART = A_BYTES / CLUSTER,       /* the same for A (CLN) */
    TNB = BT ? 0 : 1,                 /* wgmma imm-trans-b */
    COPY_MAX = 16384,                 /* bytes per bulk copy instruction */
    SK_FLAG_BYTES = SK == 4 ? 65536 : 8192, /* stream-K flags, after
                                         packed B */
    SK4_Q = MI * BN / 4 < 32 ? MI * BN / 4 : 32, /* SK=4: max S */
    PACKW = 1                         /* chunks a pack thread (1, 2 and 4
                                         measured alike on the H100) */
};

typedef unsigned long long u64;

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

/* ---- launch 1: pack A and B into swizzled, zero-padded tiles ---- */

/* Elements row[c .. c+8) as 16 bytes, zeros at and past len. row is only
 * 2-byte aligned: a whole chunk comes from the two aligned 16-byte words
 * that cover it (both hold bytes of the chunk, so both lie inside the
 * buffer), shifted by the misalignment. */
/* The 16 bytes at byte sh (even) of the 32 bytes w0, w1. */
__device__ __forceinline__ uint4 shift16(uint4 w0, uint4 w1, unsigned sh)
{
    const unsigned u[8] = {w0.x, w0.y, w0.z, w0.w, w1.x, w1.y, w1.z, w1.w};
    const unsigned ws = sh >> 2, half = sh & 2;
    unsigned v[5];
#pragma unroll
    for (int i = 0; i < 5; ++i)
        v[i] = ws == 0 ? u[i] : ws == 1 ? u[i + 1]
             : ws == 2 ? u[i + 2] : u[i + 3];
    unsigned r[4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
        r[i] = half ? __funnelshift_r(v[i], v[i + 1], 16) : v[i];
    return make_uint4(r[0], r[1], r[2], r[3]);
}

__device__ __forceinline__ uint4 load8(const elem_t *row, int len, int c)
{
    uint4 o;
    if (c + 8 <= len) {
        const size_t p = (size_t)(row + c);
        const uint4 *lo = (const uint4 *)(p & ~(size_t)15);
        const unsigned sh = (unsigned)(p & 15); /* even */
        const uint4 w0 = __ldg(lo);
        if (sh == 0)
            return w0;
        return shift16(w0, __ldg(lo + 1), sh);
    }
    const unsigned short *s = (const unsigned short *)row;
    unsigned h[8];
#pragma unroll
    for (int e = 0; e < 8; ++e)
        h[e] = c + e < len ? s[c + e] : 0u;
    o.x = h[0] | h[1] << 16;
    o.y = h[2] | h[3] << 16;
    o.z = h[4] | h[5] << 16;
    o.w = h[6] | h[7] << 16;
    return o;
}

/* Chunk q of the packed image: first the A tiles ([tm][kt], BM rows x 8
 * chunks each), then the B tiles ([tn][kt], BN/64 boxes of 64 k-rows x 8
 * chunks; BT=1: see pack_btile). Physical chunk p of row r holds logical
 * chunk p ^ (r % 8).
 * 32-bit indices: gemm's check_shape keeps the image far below 2^31
 * chunks, and 64-bit divisions would cost as much as the memory traffic. */
__device__ __forceinline__ uint4 pack_chunk(const elem_t *__restrict__ A,
                                            const elem_t *__restrict__ B,
                                            int M, int N, int K, int ktiles,
                                            unsigned chunks_a, unsigned q)
{
    if (q < chunks_a) {
        const unsigned tile = q / (BM * 8), w = q % (BM * 8);
        const int tm = (int)(tile / ktiles), kt = (int)(tile % ktiles);
        const int r = (int)(w / 8), j = (int)(w % 8) ^ (r % 8);
        const int m = tm * BM + r;
        if (m < M)
            return load8(A + (size_t)m * K, K, kt * BK + j * 8);
        return make_uint4(0, 0, 0, 0);
    }
    const unsigned qb = q - chunks_a;
    const unsigned tile = qb / (BN * 8), w = qb % (BN * 8);
    const int tn = (int)(tile / ktiles), kt = (int)(tile % ktiles);
    const int box = (int)(w / 512), kr = (int)(w % 512) / 8;
    const int j = (int)(w % 8) ^ (kr % 8);
    const int k = kt * BK + kr;
    if (k < K)
        return load8(B + (size_t)k * N, N, tn * BN + box * 64 + j * 8);
    return make_uint4(0, 0, 0, 0);
}

/* BT=1: block blk packs k tile kt = blk / nb of columns [n0, n0 + PB_N),
 * n0 = (blk % nb) * PB_N, nb = cdiv(np, PB_N), np the padded N: each
 * column n becomes one 128-byte row (64 k, zeros past K or N) of the
 * K-major B slice of N tile n / BN (row n % BN), swizzled like A's rows.
 * The 64 x PB_N piece of B goes through shared memory: read as 16-byte
 * chunks along its rows (load8, coalesced), stored at chunk position c ^
 * (k / 8 % 8) of row k (so the column reads below hit 32 banks), read back
 * 8 k a column; lane l writes chunk l % 8 of column n0 + .. + l / 8, i.e.
 * a warp writes 4 whole 128-byte rows. */
enum { PB_N = 128 };

__device__ __forceinline__ void pack_btile(const elem_t *__restrict__ B,
                                           int N, int K, int np,
                                           unsigned blk, uint4 *img,
                                           uint4 *tile)
{
    const int ktiles = (K + BK - 1) / BK;
    const int nb = (np + PB_N - 1) / PB_N;
    const int kt = (int)(blk / (unsigned)nb);
    const int n0 = (int)(blk % (unsigned)nb) * PB_N;
    const int t = threadIdx.x;
    if (kt >= ktiles)
        return;
#pragma unroll
    for (int i = 0; i < PB_N * BK / 8 / 256; ++i) {
        const int x = t + 256 * i, k = x / (PB_N / 8), c = x % (PB_N / 8);
        const int kg = kt * BK + k;
        tile[k * (PB_N / 8) + (c ^ (k / 8 % 8))] =
            kg < K ? load8(B + (size_t)kg * N, N, n0 + 8 * c)
                   : make_uint4(0, 0, 0, 0);
    }
    __syncthreads();
    const unsigned short *h = (const unsigned short *)tile;
#pragma unroll
    for (int i = 0; i < PB_N * 8 / 256; ++i) {
        const int x = t + 256 * i, j = x % 8, n = n0 + x / 8;
        if (n >= np)
            continue;
        unsigned v[4];
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            const int k0 = 8 * j + 2 * e, cp = (n - n0) / 8 ^ j;
            v[e] = (unsigned)h[(k0 * (PB_N / 8) + cp) * 8 + n % 8] |
                   (unsigned)h[((k0 + 1) * (PB_N / 8) + cp) * 8 + n % 8]
                       << 16;
        }
        const int r = n % BN;
        img[((size_t)(n / BN) * ktiles + kt) * (BN * 8) + (size_t)r * 8 +
            (j ^ (r % 8))] = make_uint4(v[0], v[1], v[2], v[3]);
    }
}

/*
 * Fused pack (FUSE=1). The pack is cut into items: one k tile of one A row
 * tile (BM x 64) or of one B column tile (64 x BN), exactly what the
 * producer copies into a stage. Items are ranked in the order the GEMM
 * needs them: a row or column tile is first used by the first tile (in
 * the schedule's order, GROUP_M pairs of rows sweeping the columns) that
 * lies on it, i.e. in wave w = that tile / the number of clusters; items
 * go wave by wave, inside a wave k tile by k tile (the tiles of a wave all
 * advance through k together), inside a k tile A row tiles then B column
 * tiles. Launch 1 packs ranks [0, P), P = PRE % of all (rounded up); the
 * GEMM's packer warps (warps 1-3 of the producer warpgroup) take the
 * rest one at a time from a counter, pack it and raise its flag (release);
 * the producer waits for both flags of a stage (acquire) before its bulk
 * copies, then fences the async proxy (the data was written through the
 * generic one). A packer never waits, so every taken item completes and
 * every wait ends, whichever blocks are resident.
 */
struct porder {
    int tiles_mp, tiles_n, ktiles, pairs_m, ncl, g0, items, P;
    unsigned chunks_a;
};

__device__ __forceinline__ void porder_init(porder &o, int M, int N, int K,
                                            int ncl)
{
    o.ktiles = (K + BK - 1) / BK;
    o.pairs_m = (M + BM * CLUSTER - 1) / (BM * CLUSTER);
    o.tiles_mp = o.pairs_m * CLUSTER;
    o.tiles_n = (N + BN - 1) / BN;
    o.ncl = ncl;
    o.g0 = min(GROUP_M, o.pairs_m);
    o.items = (o.tiles_mp + o.tiles_n) * o.ktiles;
    o.P = (int)(((long long)o.items * PRE + 99) / 100);
    o.chunks_a = (unsigned)o.tiles_mp * o.ktiles * (BM * 8);
}

/* A row tiles (B column tiles) first used by a pair tile before x. */
__device__ __forceinline__ int a_before(const porder &o, long long x)
{
    const long long per = (long long)GROUP_M * o.tiles_n;
    const long long g = x / per;
    if (g * GROUP_M >= o.pairs_m)
        return o.tiles_mp;
    const int gs = min(GROUP_M, o.pairs_m - (int)g * GROUP_M);
    return ((int)g * GROUP_M + (int)min(x % per, (long long)gs)) * CLUSTER;
}

__device__ __forceinline__ int b_before(const porder &o, long long x)
{
    return (int)min((long long)o.tiles_n, (x + o.g0 - 1) / o.g0);
}

/* Row/column tiles first used in waves before w. */
__device__ __forceinline__ int blocks_before(const porder &o, int w)
{
    const long long x = (long long)w * o.ncl;
    return a_before(o, x) + b_before(o, x);
}

/* Rank of k tile kt of an A row tile (b_tile < 0) or B column tile: the
 * caller keeps base and nb per tile and adds kt * nb. */
struct prank {
    int base, nb;
};
__device__ __forceinline__ prank rank_of(const porder &o, int a_tile,
                                         int b_tile)
{
    long long first;
    if (b_tile < 0) {
        const int p = a_tile / CLUSTER;
        first = (long long)(p / GROUP_M) * GROUP_M * o.tiles_n +
                p % GROUP_M;
    } else {
        first = (long long)b_tile * o.g0;
    }
    const int w = (int)(first / o.ncl);
    const long long x0 = (long long)w * o.ncl, x1 = x0 + o.ncl;
    const int a0 = a_before(o, x0), a1 = a_before(o, x1);
    const int b0 = b_before(o, x0), b1 = b_before(o, x1);
    prank r;
    r.nb = a1 - a0 + b1 - b0;
    r.base = (a0 + b0) * o.ktiles +
             (b_tile < 0 ? a_tile - a0 : a1 - a0 + b_tile - b0);
    return r;
}

/* The item of rank r: an A row tile (*is_a) or B column tile *blk, k tile
 * *kt. */
__device__ __forceinline__ void item_of(const porder &o, int r, bool *is_a,
                                        int *blk, int *kt)
{
    const int waves = (o.pairs_m * o.tiles_n + o.ncl - 1) / o.ncl;
    int lo = 0, hi = waves - 1; /* largest w with base(w) <= r */
    while (lo < hi) {
        const int mid = (lo + hi + 1) / 2;
        if (blocks_before(o, mid) * o.ktiles <= r)
            lo = mid;
        else
            hi = mid - 1;
    }
    const long long x0 = (long long)lo * o.ncl, x1 = x0 + o.ncl;
    const int a0 = a_before(o, x0), a1 = a_before(o, x1);
    const int b0 = b_before(o, x0), b1 = b_before(o, x1);
    const int nb = a1 - a0 + b1 - b0;
    const int off = r - (a0 + b0) * o.ktiles;
    const int j = off % nb;
    *kt = off / nb;
    *is_a = j < a1 - a0;
    *blk = *is_a ? a0 + j : b0 + j - (a1 - a0);
}

/* First chunk of the item in the packed image; *nq its chunks. */
__device__ __forceinline__ unsigned item_chunks(const porder &o, bool is_a,
                                                int blk, int kt,
                                                unsigned *nq)
{
    if (is_a) {
        *nq = BM * 8;
        return (unsigned)(blk * o.ktiles + kt) * (BM * 8);
    }
    *nq = BN * 8;
    return o.chunks_a + (unsigned)(blk * o.ktiles + kt) * (BN * 8);
}

/* Packs nq chunks from q0, the calling threads (nt of them, index i)
 * together. */
__device__ __forceinline__ void pack_range(const elem_t *__restrict__ A,
                                           const elem_t *__restrict__ B,
                                           int M, int N, int K,
                                           const porder &o, unsigned q0,
                                           unsigned nq, unsigned i,
                                           unsigned nt, uint4 *img)
{
    for (unsigned q = i; q < nq; q += nt)
        img[q0 + q] = pack_chunk(A, B, M, N, K, o.ktiles, o.chunks_a,
                                 q0 + q);
}

/* Pack counters (FUSE): the next rank to take, items done; then a flag a
 * rank. */
enum { PCTR_NEXT = 0, PCTR_DONE = 32, PCTR_WORDS = 64 };

/* PACKW chunks a thread, 256 apart (coalesced), all loads before the
 * stores. Block 0 also clears the stream-K flags. With FUSE, block b < P
 * packs the item of rank b and the last block clears the pack counters
 * and the flags of the ranks the GEMM packs. */
extern "C" __global__ void __launch_bounds__(256)
hgemm_pack(const elem_t *__restrict__ A, const elem_t *__restrict__ B,
           elem_t *__restrict__ C, int M, int N, int K, void *ws)
{
    if (PDLT)
        asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
    const int ktiles = (K + BK - 1) / BK;
    const int tiles_mp = (M + BM * CM - 1) / (BM * CM) * CM;
    const int tiles_n = (N + BN * CN - 1) / (BN * CN) * CN;
    const unsigned chunks_a = (unsigned)tiles_mp * ktiles * (BM * 8);
    /* BT: the chunk-parallel part packs A only */
    const unsigned chunks =
        chunks_a + (BT ? 0u : (unsigned)tiles_n * ktiles * (BN * 8));
    const int items = (tiles_mp + tiles_n) * ktiles;
    if (SK && blockIdx.x == 0) {
        /* after the whole packed image, B included also when pack_btile
         * writes it (BT): where the GEMM's g.flags points */
        const size_t image = (size_t)chunks_a * 16 +
                             (size_t)tiles_n * ktiles * (BN * 8) * 16;
        unsigned *flags = (unsigned *)((char *)ws + image +
                                       FUSE * (256 + 4 * (size_t)items));
        for (int i = threadIdx.x; i < SK_FLAG_BYTES / 4; i += 256)
            flags[i] = 0;
    }
    if (FUSE) {
        unsigned ncl_bytes;
        asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(ncl_bytes));
        porder o;
        porder_init(o, M, N, K, (int)(ncl_bytes / 16));
        unsigned *sync = (unsigned *)((char *)ws + (size_t)chunks * 16);
        if (blockIdx.x == gridDim.x - 1) {
            for (int i = threadIdx.x; i < PCTR_WORDS; i += 256)
                sync[i] = 0;
            for (int i = o.P + threadIdx.x; i < items; i += 256)
                sync[PCTR_WORDS + i] = 0;
            return;
        }
        bool is_a;
        int blk, kt;
        unsigned nq;
        item_of(o, (int)blockIdx.x, &is_a, &blk, &kt);
        const unsigned q0 = item_chunks(o, is_a, blk, kt, &nq);
        pack_range(A, B, M, N, K, o, q0, nq, threadIdx.x, 256,
                   reinterpret_cast<uint4 *>(ws));
        return;
    }
    if (BT) {
        const unsigned blocks_a = (chunks_a + 255) / 256;
        if (blockIdx.x >= blocks_a) {
            __shared__ uint4 tile[BT ? PB_N * BK / 8 : 1];
            pack_btile(B, N, K, tiles_n * BN, blockIdx.x - blocks_a,
                       reinterpret_cast<uint4 *>(ws) + chunks_a, tile);
            return;
        }
    }
    const unsigned q0 = blockIdx.x * (256u * PACKW) + threadIdx.x;
    uint4 v[PACKW];
#pragma unroll
    for (int c = 0; c < PACKW; ++c)
        if (q0 + 256u * c < chunks)
            v[c] = pack_chunk(A, B, M, N, K, ktiles, chunks_a,
                              q0 + 256u * c);
#pragma unroll
    for (int c = 0; c < PACKW; ++c)
        if (q0 + 256u * c < chunks)
            reinterpret_cast<uint4 *>(ws)[q0 + 256u * c] = v[c];
}

/* ---- shared memory, mbarriers, bulk copies ---- */

__device__ __forceinline__ unsigned smem_u32(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
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

__device__ __forceinline__ void mbar_init(unsigned bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar),
                 "r"(count));
}

/* Arrives (count 1) and expects bytes more of transactions. */
__device__ __forceinline__ void mbar_expect_tx(unsigned bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n"
                 ::"r"(bar), "r"(bytes) : "memory");
}

/* Arrives on the barrier at the same offset in CTA cta of the cluster
 * (this CTA's own when CLUSTER == 1). */
__device__ __forceinline__ void mbar_arrive_cta(unsigned bar, unsigned cta)
{
    if (CLUSTER == 1) {
        asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar)
                     : "memory");
    } else {
        unsigned rb;
        asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n"
                     : "=r"(rb) : "r"(bar), "r"(cta));
        /* a plain remote arrive: .release.cluster compiles to
         * MEMBAR.ALL.GPU before every arrive (hgemm_wgmma.cu's header) */
        asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];\n"
                     ::"r"(rb) : "memory");
    }
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

/* bytes (a multiple of 16) from global src to shared dst; completes on
 * bar. */
__device__ __forceinline__ void bulk_load(unsigned dst, const char *src,
                                          unsigned bytes, unsigned bar)
{
    for (unsigned o = 0; o < bytes; o += COPY_MAX) {
        const unsigned n = bytes - o < COPY_MAX ? bytes - o : COPY_MAX;
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::"
                     "complete_tx::bytes [%0], [%1], %2, [%3];\n"
                     ::"r"(dst + o), "l"(src + o), "r"(n), "r"(bar)
                     : "memory");
    }
}

/* Same, landing at the same offset in every CTA of the cluster and
 * completing on the barrier at bar's offset in each. */
__device__ __forceinline__ void bulk_load_mc(unsigned dst, const char *src,
                                             unsigned bytes, unsigned bar)
{
    const unsigned short mask = (unsigned short)((1u << CLUSTER) - 1);
    for (unsigned o = 0; o < bytes; o += COPY_MAX) {
        const unsigned n = bytes - o < COPY_MAX ? bytes - o : COPY_MAX;
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::"
                     "complete_tx::bytes.multicast::cluster [%0], [%1], %2,"
                     " [%3], %4;\n"
                     ::"r"(dst + o), "l"(src + o), "r"(n), "r"(bar),
                       "h"(mask)
                     : "memory");
    }
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
                                         unsigned sbo)
{
    return desc_enc(addr) | desc_enc(lbo) << 16 | desc_enc(sbo) << 32 |
           1ull << 62;
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

template <int N>
__device__ __forceinline__ void wgmma_bn(float (&d)[N / 2], u64 da, u64 db,
                                         int scale_d);

/* D(64x64, f32) (+)= A(64x16, K-major) * B(16x64, N-major). */
template <> __device__ __forceinline__ void
wgmma_bn<64>(float (&d)[32], u64 da, u64 db, int scale_d)
{
    if (AB_BF16)
        asm volatile(
            "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
            "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {"
            "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
            "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
            "%24, %25, %26, %27, %28, %29, %30, %31}, "
            "%32, %33, p, 1, 1, 0, %35;\n}\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]),
              "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]),
              "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]),
              "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
              "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
              "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
              "+f"(d[30]), "+f"(d[31])
            : "l"(da), "l"(db), "r"(scale_d), "n"((int)TNB));
    else
        asm volatile(
            "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
            "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {"
            "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
            "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
            "%24, %25, %26, %27, %28, %29, %30, %31}, "
            "%32, %33, p, 1, 1, 0, %35;\n}\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]),
              "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]),
              "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]),
              "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
              "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
              "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
              "+f"(d[30]), "+f"(d[31])
            : "l"(da), "l"(db), "r"(scale_d), "n"((int)TNB));
}

/* D(64x128, f32) (+)= A(64x16, K-major) * B(16x128, N-major). */
template <> __device__ __forceinline__ void
wgmma_bn<128>(float (&d)[64], u64 da, u64 db, int scale_d)
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
            "%64, %65, p, 1, 1, 0, %67;\n}\n"
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
            : "l"(da), "l"(db), "r"(scale_d), "n"((int)TNB));
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
            "%64, %65, p, 1, 1, 0, %67;\n}\n"
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
            : "l"(da), "l"(db), "r"(scale_d), "n"((int)TNB));
}

/* D(64x192, f32) (+)= A(64x16, K-major) * B(16x192, N-major). */
template <> __device__ __forceinline__ void
wgmma_bn<192>(float (&d)[96], u64 da, u64 db, int scale_d)
{
    if (AB_BF16)
        asm volatile(
            "{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n"
            "wgmma.mma_async.sync.aligned.m64n192k16.f32.bf16.bf16 {"
            "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
            "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
            "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
            "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
            "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
            "%60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, "
            "%72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, "
            "%84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95}, "
            "%96, %97, p, 1, 1, 0, %99;\n}\n"
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
              "+f"(d[95])
            : "l"(da), "l"(db), "r"(scale_d), "n"((int)TNB));
    else
        asm volatile(
            "{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n"
            "wgmma.mma_async.sync.aligned.m64n192k16.f32.f16.f16 {"
            "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
            "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
            "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
            "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
            "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "
            "%60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, "
            "%72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, "
            "%84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95}, "
            "%96, %97, p, 1, 1, 0, %99;\n}\n"
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
              "+f"(d[95])
            : "l"(da), "l"(db), "r"(scale_d), "n"((int)TNB));
}

/* D(64x208, f32) (+)= A(64x16, K-major) * B(16x208, K-major: BT only,
 * as B_BYTES of N-major boxes would need 4 boxes). TY: the element type. */
#define WGMMA_N208(TY)                                                       \
    asm volatile(                                                            \
        "{\n.reg .pred p;\nsetp.ne.b32 p, %106, 0;\n"                        \
        "wgmma.mma_async.sync.aligned.m64n208k16.f32." TY "." TY " {"       \
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "                \
        "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "      \
        "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "      \
        "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "      \
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, "      \
        "%60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, "      \
        "%72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, "      \
        "%84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "      \
        "%96, %97, %98, %99, %100, %101, %102, %103}, "                     \
        "%104, %105, p, 1, 1, 0, %107;\n}\n"                                \
        :                                                                   \
        "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),                     \
        "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),                     \
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),                   \
        "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),                 \
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),                 \
        "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),                 \
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),                 \
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),                 \
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),                 \
        "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),                 \
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),                 \
        "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),                 \
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]),                 \
        "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),                 \
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),                 \
        "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),                 \
        "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]),                 \
        "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),                 \
        "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]),                 \
        "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),                 \
        "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),                 \
        "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),                 \
        "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]),                 \
        "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),                 \
        "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]),                 \
        "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103])              \
        : "l"(da), "l"(db), "r"(scale_d), "n"((int)TNB))
template <> __device__ __forceinline__ void
wgmma_bn<208>(float (&d)[104], u64 da, u64 db, int scale_d)
{
    if (AB_BF16)
        WGMMA_N208("bf16");
    else
        WGMMA_N208("f16");
}
#undef WGMMA_N208

/* D(64x256, f32) (+)= A(64x16, K-major) * B(16x256, N-major). */
template <> __device__ __forceinline__ void
wgmma_bn<256>(float (&d)[128], u64 da, u64 db, int scale_d)
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
            "%128, %129, p, 1, 1, 0, %131;\n}\n"
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
            : "l"(da), "l"(db), "r"(scale_d), "n"((int)TNB));
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
            "%128, %129, p, 1, 1, 0, %131;\n}\n"
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
            : "l"(da), "l"(db), "r"(scale_d), "n"((int)TNB));
}

/* ---- launch 2: the GEMM over the packed tiles ---- */

/* Pair-tile t (CLUSTER M tiles x one N tile; CLN: one M tile x CLUSTER N
 * tiles): GROUP_M pair rows sweep the pair columns. */
__device__ __forceinline__ void tile_origin(int t, int pairs_m, int tiles_n,
                                            int &pm, int &tn)
{
    const int per_group = GROUP_M * tiles_n;
    if (FOLD) {
        /* the pair rows past the last whole group join it */
        const int ng = max(1, pairs_m / GROUP_M);
        const int gi = min(t / per_group, ng - 1);
        const int first_m = gi * GROUP_M;
        const int gsize = gi == ng - 1 ? pairs_m - first_m : GROUP_M;
        const int tt = t - gi * per_group;
        pm = first_m + tt % gsize;
        tn = tt / gsize;
        return;
    }
    const int first_m = (t / per_group) * GROUP_M;
    const int gsize = min(pairs_m - first_m, GROUP_M);
    pm = first_m + (t % per_group) % gsize;
    tn = (t % per_group) / gsize;
    if (KREV == 2 && (t / per_group) % 2) /* odd groups sweep N backwards */
        tn = tiles_n - 1 - tn;
}

/* This CTA's M and N tile in pair tile t. */
__device__ __forceinline__ void cta_tile(int t, int pairs_m, int pairs_n,
                                         int rank, int &tm, int &tn)
{
    int pm, pn;
    tile_origin(t, pairs_m, pairs_n, pm, pn);
    tm = pm * CM + (CLN ? 0 : rank);
    tn = pn * CN + (CLN ? rank : 0);
}

/* Stage s: A slice at a(s), B slice at a(s) + A_BYTES; full(s) completes
 * when its bytes land, empty(s) when every consumer of every CTA of the
 * cluster is done with it. it counts slices over all work of the block:
 * stage it % STAGES, phase parity (it / STAGES) & 1. */
struct smem_map {
    unsigned base, bars;
    __device__ unsigned a(int s) const { return base + s * STAGE_BYTES; }
    __device__ unsigned b(int s) const { return a(s) + A_BYTES; }
    __device__ unsigned full(int s) const { return bars + 8 * s; }
    __device__ unsigned empty(int s) const { return bars + 8 * (STAGES + s); }
};

/*
 * Work schedule, the same for the producer and the consumers of a block.
 * Without stream-K every (pair) tile is one item over all k tiles, dealt
 * round-robin to the G = gridDim / CLUSTER clusters. With SK=1,
 * when the tiles do not fill whole waves, all but the last one-to-two
 * waves stay data-parallel (dp tiles); the rest, sk_tiles in [G, 2G), are
 * cut into sk_tiles * ktiles k-slices that the G blocks share evenly as
 * contiguous ranges of at least ktiles slices. So a tile is split between
 * at most two blocks: block c ends in it (k slices [0, b), ROLE_OWNER)
 * and block c + 1 starts in it ([b, ktiles), ROLE_WRITER). Whichever of
 * the two finishes its piece first (a counter says) leaves its fp32 sums
 * in the split's workspace slot and raises a flag; the second waits for
 * that flag, adds them and stores C. It waits only for a block that has
 * already arrived, so no residency is assumed (clusters allowed). SK=2
 * deals the last partial wave's tiles one piece a cluster instead, each
 * non-sliver tile cut into two k halves that meet the same way. SK=4
 * (fewer tiles than clusters) cuts every tile into S k ranges, cluster u
 * < S tiles running range u / tiles of tile u % tiles once; the ranges
 * reduce together (sk4_reduce).
 * KREV (session 13, bench/results/2026-11-25-h100-s13/c9): odd waves of
 * a block run their k tiles backwards (KREV=2, the default: and odd
 * GROUP_M groups sweep N backwards), so a wave starts on the packed A and
 * B tiles the previous wave read last. bf16 4099x4097x4095 under ncu
 * (base clocks): DRAM reads 185.6 MB against 244.2 (KREV=1 185.3; with
 * GROUP_M=8 161.8, but 4.7 % slower); interleaved A/Bs (KREV=2's time
 * over KREV=0's) 0.9919 and 1.0106 the other way round (noise 0.0021-
 * 0.0033), KREV=1 0.9936, fp16 0.9931, bf16 6001x5999x6007 0.9917,
 * 8191x8193x8195 0.9980.
 * The flags and counters publish with the warpgroup's named barrier and
 * one thread's release (st.release.gpu or atom.acq_rel.gpu) and take with
 * one thread's acquire and the barrier, without __threadfence (session
 * 13, bench/results/2026-11-25-h100-s13/c2: interleaved A/Bs at bf16
 * 4099x4097x4095 and 2000x2000x8191, time without over time with the
 * fences: SK=2 0.9968, 0.9953; SK=1 0.9960, 0.9946; noise 0.0012-0.0027).
 */
struct geom {
    int pairs_m, tiles_n, ktiles, rank, cid, nclusters;
    int dp_tiles;   /* tiles dealt whole; the rest are stream-K */
    int su, se;     /* this block's stream-K slice range [su, se);
                       SK=3: se = the tail's pieces */
    int split;      /* SK=3: pieces a tail tile */
    int M, N;
    elem_t *C;
    float *parts;    /* stream-K partial sums */
    unsigned *flags; /* stream-K flags */
    porder po;       /* FUSE: the pack items' order */
    unsigned *psync; /* FUSE: pack counters, then a flag a rank */
};
/* The consumers keep only their accumulators and loop state in registers
 * (168 a thread with 384 threads): the geometry lives in shared memory,
 * after the mbarriers, and is read where it is used. */
enum { GEOM_OFFSET = 128 }; /* bytes after the barriers (<= 2 * 7 * 8) */
enum { SK_WORD = 496 }; /* bytes after the barriers: a word a consumer */
static_assert(2 * STAGES * 8 <= GEOM_OFFSET &&
              GEOM_OFFSET + sizeof(geom) <= SK_WORD, "smem layout");

enum { ROLE_FULL, ROLE_WRITER, ROLE_OWNER };

/* SK=2: pieces of tail tile t: 1 for a sliver (its pair row holds at most
 * MI * 64 rows below M, i.e. only consumer 0 of its first CTA has work
 * under SKIP: about half a tile), 2 (k halves) otherwise. */
__device__ __forceinline__ int tail_pieces(const geom &g, int t)
{
    int pm, tn;
    tile_origin(t, g.pairs_m, g.tiles_n, pm, tn);
    const bool sliver = SKIP && CONSUMERS == 2 && pm == g.pairs_m - 1 &&
                        g.M - pm * CLUSTER * BM <= MI * 64;
    return sliver ? 1 : 2;
}

/* The i-th item of the block: tile t, k slices [kb, ke), role; 0 when
 * there is none. */
struct item_iter {
    int t, kb, ke, role;
    int xslot; /* split tiles: the slot the pieces meet in */
    int np;    /* split tiles: how many pieces meet there */
    int q;     /* SK=3: which piece (k range) of the tile */
    int next_dp, next_u;
    __device__ void start(const geom &g)
    {
        next_dp = g.cid;
        next_u = g.su;
    }
    __device__ bool next(const geom &g)
    {
        if (next_dp < g.dp_tiles) {
            t = next_dp;
            kb = 0;
            ke = g.ktiles;
            role = ROLE_FULL;
            next_dp += g.nclusters;
            return true;
        }
        if (SK == 4) {
            /* split-K: range cid / tiles of tile cid % tiles, once */
            if (next_u != 0 || !g.se)
                return false;
            next_u = 1;
            const int tiles = g.pairs_m * g.tiles_n;
            t = g.cid % tiles;
            q = g.cid / tiles;
            kb = g.ktiles * q / g.split;
            ke = g.ktiles * (q + 1) / g.split;
            role = ROLE_WRITER;
            xslot = t;
            np = g.split;
            return true;
        }
        if (SK == 3) {
            /* tail thirds: pieces cid, cid + G, ... of the tail, piece p
             * = k range p % split of tail tile p / split */
            const int p = g.cid + next_u * g.nclusters;
            if (p >= g.se)
                return false;
            ++next_u;
            const int j = p / g.split, q = p % g.split;
            t = g.dp_tiles + j;
            kb = g.ktiles * q / g.split;
            ke = g.ktiles * (q + 1) / g.split;
            role = q == 0 ? ROLE_OWNER : ROLE_WRITER;
            xslot = j;
            np = g.split;
            this->q = q;
            return true;
        }
        if (SK == 2) {
            /* tail split: piece cid of the tail, once */
            if (next_u != 0 || g.cid >= g.se)
                return false;
            next_u = 1;
            int p = g.cid, j = 0;
            for (;; ++j) {
                const int n = tail_pieces(g, g.dp_tiles + j);
                if (p < n)
                    break;
                p -= n;
            }
            t = g.dp_tiles + j;
            const int n = tail_pieces(g, t), h = g.ktiles / 2;
            kb = n == 1 || p == 0 ? 0 : h;
            ke = n == 1 || p == 1 ? g.ktiles : h;
            role = n == 1 ? ROLE_FULL : p == 0 ? ROLE_OWNER : ROLE_WRITER;
            xslot = j;
            np = 2;
            return true;
        }
        if (!SK || next_u >= g.se)
            return false;
        t = g.dp_tiles + next_u / g.ktiles;
        kb = next_u % g.ktiles;
        ke = min(g.ktiles, kb + (g.se - next_u));
        role = kb > 0 ? ROLE_WRITER
             : ke < g.ktiles ? ROLE_OWNER : ROLE_FULL;
        next_u += ke - kb;
        /* split tiles meet in the slot of the boundary b: cluster b ends
         * in the tile, b + 1 starts in it */
        xslot = role == ROLE_OWNER ? g.cid : g.cid - 1;
        np = 2;
        return true;
    }
};

/* FUSE: waits until k tile kt of a row/column tile (ranks base + kt * nb)
 * is packed and returns how many k tiles from kt on (up to 8, below ke)
 * are: one round trip reads 8 flags (relaxed), then one fence makes the
 * packers' writes visible (acquire pattern) to the async proxy too. */
__device__ __forceinline__ int ready_from(const geom &g, prank rk, int kt,
                                          int ke)
{
    for (;;) {
        unsigned v[8];
#pragma unroll
        for (int i = 0; i < 8; ++i) {
            const int r = rk.base + (kt + i) * rk.nb;
            v[i] = kt + i >= ke ? 0u : 1u;
            if (kt + i < ke && r >= g.po.P)
                asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];\n"
                             : "=r"(v[i])
                             : "l"(g.psync + PCTR_WORDS + r)
                             : "memory");
        }
        int n = 0;
#pragma unroll
        for (int i = 0; i < 8; ++i)
            if (n == i && v[i])
                n = i + 1;
        if (n > 0) {
            asm volatile("fence.acq_rel.gpu;\n"
                         "fence.proxy.async.global;\n" ::: "memory");
            return kt + n;
        }
        __nanosleep(64);
    }
}

__device__ __forceinline__ void produce(const smem_map &sm, const char *pa,
                                        const char *pb, const geom &g)
{
    int it = 0;
    item_iter w;
    w.start(g);
    /* FUSE: every item packed (then no more flags are read) */
    bool all_packed = !FUSE || g.po.P >= g.po.items;
    while (w.next(g)) {
        int tm, tn;
        cta_tile(w.t, g.pairs_m, g.tiles_n, g.rank, tm, tn);
        const char *sa = pa + (size_t)tm * g.ktiles * A_BYTES;
        const char *sb = pb + (size_t)tn * g.ktiles * B_BYTES +
                         (CLN ? 0 : g.rank * B_PART);
        /* SKIP: only the m64 blocks that hold rows below M */
        const unsigned a_bytes =
            SKIP ? (unsigned)min(BM, max(0, (g.M - tm * BM + 63) / 64 * 64)) *
                       128u
                 : (unsigned)A_BYTES;
        prank ra, rb;
        if (!all_packed) {
            unsigned done;
            asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n"
                         : "=r"(done) : "l"(g.psync + PCTR_DONE)
                         : "memory");
            all_packed = (int)done >= g.po.items - g.po.P;
            ra = rank_of(g.po, tm, -1);
            rb = rank_of(g.po, 0, tn);
        }
        int a_ok = w.kb, b_ok = w.kb; /* k tiles [kb, x_ok) known packed */
        /* KREV: odd waves from the last k tile down, starting on what the
         * previous wave read last (still in L2) */
        const bool rev = KREV && ((w.t / g.nclusters) & 1);
        for (int k = w.kb; k < w.ke; ++k, ++it) {
            const int kt = rev ? w.kb + w.ke - 1 - k : k;
            const int s = it % STAGES;
            if (!all_packed) {
                if (kt >= a_ok)
                    a_ok = ready_from(g, ra, kt, w.ke);
                if (kt >= b_ok)
                    b_ok = ready_from(g, rb, kt, w.ke);
            }
            mbar_wait(sm.empty(s), ((it / STAGES) & 1) ^ 1);
            mbar_expect_tx(sm.full(s), a_bytes + B_BYTES);
            if (CLN) {
                /* this CTA's part of the A rows, to both */
                const unsigned o = g.rank * A_PART;
                if (a_bytes > o)
                    bulk_load_mc(sm.a(s) + o, sa + (size_t)kt * A_BYTES + o,
                                 min(a_bytes - o, (unsigned)A_PART),
                                 sm.full(s));
            } else {
                bulk_load(sm.a(s), sa + (size_t)kt * A_BYTES, a_bytes,
                          sm.full(s));
            }
            if (CLUSTER == 1 || CLN)
                bulk_load(sm.b(s), sb + (size_t)kt * B_BYTES, B_BYTES,
                          sm.full(s));
            else
                bulk_load_mc(sm.b(s) + g.rank * B_PART,
                             sb + (size_t)kt * B_BYTES, B_PART, sm.full(s));
        }
    }
}

/* FUSE: a packer warp takes ranks from the counter until none is left.
 * An item is BM segments of 64 k (A rows) or 64 segments of BN columns
 * (B rows), each only 2-byte aligned. A batch of segments goes into the
 * warp's 8 KB of shared memory as the aligned 16-byte words that cover
 * them (cp.async, nothing held in registers, so many bytes are in
 * flight; the word that ends the matrix is read only up to its end), then
 * every output chunk j of a segment is words j and j + 1 shifted by the
 * segment's misalignment, zero past its length, stored swizzled. The item
 * is published once every lane's stores are done (each lane fences its
 * own, the warp meets, lane 0 releases). */
enum { SCRATCH = 8192, PACKERS = 3 };

__device__ __forceinline__ void pack_items(const elem_t *__restrict__ A,
                                           const elem_t *__restrict__ B,
                                           int M, int N, int K,
                                           const geom &g, uint4 *img,
                                           unsigned scratch, int lane)
{
    unsigned *sync = g.psync;
    for (;;) {
        int r = 0;
        if (lane == 0)
            r = g.po.P + (int)atomicAdd(sync + PCTR_NEXT, 1u);
        r = __shfl_sync(0xffffffffu, r, 0);
        if (r >= g.po.items)
            return;
        bool is_a;
        int blk, kt;
        unsigned nq;
        item_of(g.po, r, &is_a, &blk, &kt);
        uint4 *dst = img + item_chunks(g.po, is_a, blk, kt, &nq);
        /* segment sg starts at seg0 + sg * stride bytes; len elements;
         * segments at and past nin lie outside the matrix (zeros) */
        size_t seg0, end;
        unsigned stride;
        int len, nin;
        if (is_a) {
            seg0 = (size_t)(A + (size_t)blk * BM * K + kt * BK);
            end = (size_t)(A + (size_t)M * K);
            stride = 2u * (unsigned)K;
            len = min(BK, K - kt * BK);
            nin = min(BM, M - blk * BM);
        } else {
            seg0 = (size_t)(B + (size_t)kt * BK * N + blk * BN);
            end = (size_t)(B + (size_t)K * N);
            stride = 2u * (unsigned)N;
            len = min(BN, N - blk * BN);
            nin = min(BK, K - kt * BK);
        }
        const int nseg = is_a ? BM : BK;
        const int ch = is_a ? BK / 8 : BN / 8;  /* chunks a segment */
        const int ws = ch + 1;                   /* words a segment */
        const int per = SCRATCH / 16 / ws;       /* segments a batch */
        for (int s0 = 0; s0 < nseg; s0 += per) {
            const int ns = min(per, nseg - s0);
            /* 1: the covering words */
            for (int x = lane; x < ns * ws; x += 32) {
                const int sg = s0 + x / ws, w = x % ws;
                const size_t src = seg0 + (size_t)sg * stride;
                const size_t wa = (src & ~(size_t)15) + 16 * (size_t)w;
                if (sg >= nin || wa >= src + 2 * (size_t)len)
                    continue;
                const unsigned n = end - wa < 16 ? (unsigned)(end - wa) : 16u;
                asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
                             ::"r"(scratch + (unsigned)x * 16), "l"(wa),
                               "r"(n) : "memory");
            }
            asm volatile("cp.async.commit_group;\n"
                         "cp.async.wait_group 0;\n" ::: "memory");
            __syncwarp();
            /* 2: shift, mask, store */
            for (int x = lane; x < ns * ch; x += 32) {
                const int sl = x / ch, j = x % ch, sg = s0 + sl;
                uint4 v = make_uint4(0, 0, 0, 0);
                if (sg < nin && 8 * j < len) {
                    const unsigned sh =
                        (unsigned)(seg0 + (size_t)sg * stride) & 15u;
                    const unsigned a = scratch + (unsigned)(sl * ws + j) * 16;
                    uint4 w0, w1;
                    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];\n"
                                 : "=r"(w0.x), "=r"(w0.y), "=r"(w0.z),
                                   "=r"(w0.w) : "r"(a));
                    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];\n"
                                 : "=r"(w1.x), "=r"(w1.y), "=r"(w1.z),
                                   "=r"(w1.w) : "r"(a + 16));
                    v = shift16(w0, w1, sh);
                    const int keep = len - 8 * j; /* elements kept */
                    if (keep < 8) {
                        v.x = keep <= 0 ? 0u : keep == 1 ? v.x & 0xffffu : v.x;
                        v.y = keep <= 2 ? 0u : keep == 3 ? v.y & 0xffffu : v.y;
                        v.z = keep <= 4 ? 0u : keep == 5 ? v.z & 0xffffu : v.z;
                        v.w = keep <= 6 ? 0u : keep == 7 ? v.w & 0xffffu : v.w;
                    }
                }
                /* swizzled place: A row sg; B box j / 8, k row sg */
                const int cq = is_a ? sg * 8 + (j ^ (sg % 8))
                                    : (j / 8) * 512 + sg * 8 +
                                      ((j % 8) ^ (sg % 8));
                dst[cq] = v;
            }
            __syncwarp();
        }
        __threadfence();
        asm volatile("fence.proxy.async.global;\n" ::: "memory");
        __syncwarp();
        if (lane == 0) {
            asm volatile("st.release.gpu.global.u32 [%0], %1;\n"
                         ::"l"(sync + PCTR_WORDS + r), "r"(1u) : "memory");
            asm volatile("red.release.gpu.global.add.u32 [%0], %1;\n"
                         ::"l"(sync + PCTR_DONE), "r"(1u) : "memory");
        }
    }
}

/* C[r][c], C[r][c + 1] (c even) from two fp32 values: one 4-byte store
 * where the address is 4-byte aligned (always for even N; every other row
 * for odd N) and both lie below N, else element by element; nothing past
 * M or N. */
__device__ __forceinline__ void store_pair(elem_t *C, int M, int N, int r,
                                           int c, float fx, float fy)
{
    if (r >= M)
        return;
    elem_t *crow = C + (size_t)r * N;
    const elem_t x = FROM_F32(fx), y = FROM_F32(fy);
    if ((((size_t)r * N) & 1) == 0 && c + 1 < N) {
        elem2 v;
        v.x = x;
        v.y = y;
        *reinterpret_cast<elem2 *>(crow + c) = v;
    } else {
        if (c < N)
            crow[c] = x;
        if (c + 1 < N)
            crow[c + 1] = y;
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

/* Releases stage s in every CTA of the cluster. */
__device__ __forceinline__ void release(const smem_map &sm, int s)
{
#pragma unroll
    for (int c = 0; c < CLUSTER; ++c)
        mbar_arrive_cta(sm.empty(s), c);
}

/* Synchronizes the 128 threads of consumer warpgroup cw. */
__device__ __forceinline__ void wg_bar(int cw)
{
    asm volatile("bar.sync %0, 128;\n" ::"r"(1 + cw) : "memory");
}

/*
 * EPI=1: the consumer warpgroup's MI * 64 rows of the tile go through its
 * own staging rows in shared memory (EPI_PITCH bytes each), each placed at
 * the offset that gives it the alignment (mod 16) of its row in C; then
 * one thread a row stores the row's elements up to the first 16-byte
 * boundary of C and after the last one directly, and the 16-byte-aligned
 * middle with one bulk copy (cp.async.bulk shared -> global), which runs
 * on while the warpgroup goes on to its next tile. Before the staging
 * rows are written again, their previous copies must have read them.
 */
enum { EPI_PITCH = 2 * BN + 16 };

/* x, y as 16-bit elements, x in the low half. */
__device__ __forceinline__ unsigned pack_pair(float x, float y)
{
    const elem_t a = FROM_F32(x), b = FROM_F32(y);
    return (unsigned)*(const unsigned short *)&a |
           (unsigned)*(const unsigned short *)&b << 16;
}

__device__ __forceinline__ void epi_store(const geom &g, unsigned stage,
                                          int cw, int tid, int r0, int n0,
                                          const float (&d)[MI][BN / 2])
{
    const unsigned st = stage + (unsigned)(cw * MI * 64 * EPI_PITCH);
    const int M = g.M, N = g.N;
    elem_t *C = g.C;
    asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
    wg_bar(cw);
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int rr = mi * 64 + 16 * (tid / 32) + (tid % 32) / 4 + 8 * h;
            const unsigned a =
                (unsigned)((size_t)(C + (size_t)(r0 + rr) * N + n0) & 15u);
            const unsigned row = st + (unsigned)rr * EPI_PITCH + a +
                                 4u * (tid % 4);
#pragma unroll
            for (int i = 0; i < BN / 8; ++i) {
                const elem_t x = FROM_F32(d[mi][4 * i + 2 * h]);
                const elem_t y = FROM_F32(d[mi][4 * i + 2 * h + 1]);
                const unsigned short xs = *(const unsigned short *)&x;
                const unsigned short ys = *(const unsigned short *)&y;
                if ((a & 3u) == 0)
                    asm volatile("st.shared.b32 [%0], %1;\n"
                                 ::"r"(row + 16u * i),
                                   "r"((unsigned)xs | (unsigned)ys << 16)
                                 : "memory");
                else
                    asm volatile("st.shared.b16 [%0], %1;\n"
                                 "st.shared.b16 [%2], %3;\n"
                                 ::"r"(row + 16u * i), "h"(xs),
                                   "r"(row + 16u * i + 2), "h"(ys)
                                 : "memory");
            }
        }
    }
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    wg_bar(cw);
    if (tid < MI * 64 && r0 + tid < M) {
        const int m = r0 + tid;
        const int len = min(BN, N - n0);
        elem_t *crow = C + (size_t)m * N + n0;
        const unsigned a = (unsigned)((size_t)crow & 15u);
        const unsigned row = st + (unsigned)tid * EPI_PITCH + a;
        const int head = min(len, a ? (int)(16u - a) / 2 : 0);
        const int mid = (len - head) / 8; /* 16-byte chunks */
        const int tail0 = head + 8 * mid;
        /* elements [0, head) and [tail0, len) one at a time */
        for (int e = 0; e < len; ++e) {
            if (e == head)
                e = tail0;
            if (e >= len)
                break;
            unsigned short v;
            asm volatile("ld.shared.u16 %0, [%1];\n"
                         : "=h"(v) : "r"(row + 2u * e) : "memory");
            *(unsigned short *)(crow + e) = v;
        }
        if (mid > 0) {
            asm volatile("cp.async.bulk.global.shared::cta.bulk_group"
                         " [%0], [%1], %2;\n"
                         ::"l"(crow + head), "r"(row + 2u * head),
                           "r"(16u * mid) : "memory");
            asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
        }
    }
}

/*
 * EPO=1: the previous tile's C as packed pairs pk[mi][2 * i + h] (columns
 * 8 * i + 2 * (tid % 4) (+ 1) of fragment half h, row r0 + the fragment
 * row), stored in EPO_STEPS steps of epi_store's work, one per k slice of
 * the block's next tile: step 0 first waits until the staging rows' last
 * bulk copies have read them; steps 0 .. EPO_WP - 1 each write EPO_UNITS
 * fragment columns (mi, i); the last makes the rows visible to the async
 * proxy, then with MI = 1 thread (part, row) stores the row's head and
 * issues the bulk copy of its middle (part 0) or stores its tail (part 1);
 * with MI = 2 one thread a row does both. step is warpgroup-uniform.
 */
enum {
    EPO_UNITS = 8,
    EPO_WP = (MI * BN / 8 + EPO_UNITS - 1) / EPO_UNITS,
    EPO_STEPS = EPO_WP + 1
};

/* n <= 7 elements from shared src to dst, all loads before the stores. */
__device__ __forceinline__ void copy_few(elem_t *dst, unsigned src, int n)
{
    unsigned short v[7];
#pragma unroll
    for (int e = 0; e < 7; ++e)
        if (e < n)
            asm volatile("ld.shared.u16 %0, [%1];\n"
                         : "=h"(v[e]) : "r"(src + 2u * e));
#pragma unroll
    for (int e = 0; e < 7; ++e)
        if (e < n)
            ((unsigned short *)dst)[e] = v[e];
}

__device__ __forceinline__ void epo_step(const geom &g, unsigned stage,
                                         int cw, int tid, int r0, int n0,
                                         const unsigned (&pk)[MI][BN / 4],
                                         int step)
{
    const unsigned st = stage + (unsigned)(cw * MI * 64 * EPI_PITCH);
    const int N = g.N;
    elem_t *C = g.C;
    if (step == 0) {
        asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
        wg_bar(cw);
    }
    if (step < EPO_WP) {
#pragma unroll
        for (int u = 0; u < MI * BN / 8; ++u) {
            if (u / EPO_UNITS != step)
                continue;
            const int mi = u / (BN / 8), i = u % (BN / 8);
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int rr =
                    mi * 64 + 16 * (tid / 32) + (tid % 32) / 4 + 8 * h;
                const unsigned a = (unsigned)(
                    (size_t)(C + (size_t)(r0 + rr) * N + n0) & 15u);
                const unsigned at = st + (unsigned)rr * EPI_PITCH + a +
                                    4u * (tid % 4) + 16u * i;
                const unsigned v = pk[mi][2 * i + h];
                if ((a & 3u) == 0)
                    asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(at),
                                 "r"(v) : "memory");
                else
                    asm volatile("st.shared.b16 [%0], %1;\n"
                                 "st.shared.b16 [%2], %3;\n"
                                 ::"r"(at), "h"((unsigned short)v),
                                   "r"(at + 2),
                                   "h"((unsigned short)(v >> 16))
                                 : "memory");
            }
        }
        return;
    }
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    wg_bar(cw);
    const int rows = MI * 64, part = tid / rows, rw = tid % rows;
    const int m = r0 + rw;
    if (m >= g.M)
        return;
    const int len = min(BN, N - n0);
    elem_t *crow = C + (size_t)m * N + n0;
    const unsigned a = (unsigned)((size_t)crow & 15u);
    const unsigned row = st + (unsigned)rw * EPI_PITCH + a;
    const int head = min(len, a ? (int)(16u - a) / 2 : 0);
    const int mid = (len - head) / 8; /* 16-byte chunks */
    const int tail0 = head + 8 * mid;
    if (rows == 128 || part == 0) {
        copy_few(crow, row, head);
        if (mid > 0) {
            asm volatile("cp.async.bulk.global.shared::cta.bulk_group"
                         " [%0], [%1], %2;\n"
                         ::"l"(crow + head), "r"(row + 2u * head),
                           "r"(16u * mid) : "memory");
            asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
        }
    }
    if (rows == 128 || part == 1)
        copy_few(crow + tail0, row + 2u * tail0, len - tail0);
}

/* Stream-K partials: slot c holds one tile's fp32 sums, per consumer
 * warpgroup and m64 block in fragment order (register i of thread tid at
 * i * 128 + tid: coalesced); flag (c, cw) says slot c's part of warpgroup
 * cw is complete. The pack kernel clears the flags before every GEMM. */
__device__ __forceinline__ float *sk_part(float *parts, int c, int cw,
                                          int mi)
{
    return parts + (((size_t)c * CONSUMERS + cw) * MI + mi) * (64 * BN);
}

/*
 * SK=4: the S ranges of a pair tile share its reduction. A thread's
 * accumulators are SK4 units of two registers (m64 block mi, registers
 * 2 j and 2 j + 1: unit u = mi * BN / 4 + j, at u * 256 + tid and + 128
 * of its consumer's slot, sk_part's layout); range r owns units
 * [U r / S, U (r + 1) / S) of U = MI * BN / 4. Each range writes all its
 * registers to its block's slot, raises the flag of each other range at
 * once (one thread a flag; the pack launch cleared them all), waits for
 * the other ranges' flags the same way, then adds up its units of all S
 * slots in range order (the same bits at every launch), four units at a
 * time with eight slots' loads in flight, and stores them. Publishing is
 * the warpgroup's named barrier, then st.release.gpu by one thread;
 * taking, ld.acquire.gpu, then the barrier. Every range waits for all
 * others, so the S x tiles clusters must be resident together: the grid
 * is one block a multiprocessor.
 */
__device__ __forceinline__ unsigned *sk4_flag(const geom &g, int x, int cw,
                                              int r)
{
    return g.flags + (x * CONSUMERS + cw) * 32 + r;
}

__device__ __forceinline__ void sk4_reduce(const geom &g, int t,
                                           const float (&acc)[MI][BN / 2],
                                           int cw, int tid, int r0, int n0)
{
    const int S = g.split, tiles = g.pairs_m * g.tiles_n;
    const int r = g.cid / tiles;
    const int U = MI * BN / 4, u0 = U * r / S, u1 = U * (r + 1) / S;
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) {
        float *p = sk_part(g.parts, blockIdx.x, cw, mi);
#pragma unroll
        for (int i = 0; i < BN / 2; ++i)
            __stcg(p + i * 128 + tid, acc[mi][i]);
    }
    wg_bar(cw);
    if (tid < S && tid != r) {
        asm volatile("st.release.gpu.global.u32 [%0], %1;\n"
                     ::"l"(sk4_flag(g, blockIdx.x, cw, tid)), "r"(1u)
                     : "memory");
        const unsigned *f =
            sk4_flag(g, (tid * tiles + t) * CLUSTER + g.rank, cw, r);
        unsigned v;
        do {
            asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n"
                         : "=r"(v) : "l"(f) : "memory");
        } while (v != 1u);
    }
    wg_bar(cw);
    const int lane = tid % 32;
    const int row = r0 + 16 * (tid / 32) + lane / 4;
    for (int ub = u0; ub < u1; ub += 4) {
        float sx[4], sy[4];
#pragma unroll
        for (int j = 0; j < 4; ++j)
            sx[j] = sy[j] = 0.f;
#pragma unroll 8
        for (int r2 = 0; r2 < S; ++r2) {
            const float *p =
                sk_part(g.parts, (r2 * tiles + t) * CLUSTER + g.rank, cw, 0) +
                tid;
#pragma unroll
            for (int j = 0; j < 4; ++j)
                if (ub + j < u1) {
                    sx[j] += __ldcg(p + (ub + j) * 256);
                    sy[j] += __ldcg(p + (ub + j) * 256 + 128);
                }
        }
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const int u = ub + j, mi = u / (BN / 4), jj = u % (BN / 4);
            /* registers 2 jj, 2 jj + 1 = 4 i + 2 h, + 1: row + 8 h,
             * columns n0 + 8 i + 2 (lane % 4), + 1 */
            const int i = jj / 2, h = jj % 2;
            if (u < u1)
                store_pair(g.C, g.M, g.N, row + mi * 64 + 8 * h,
                           n0 + 8 * i + 2 * (lane % 4), sx[j], sy[j]);
        }
    }
}

__device__ __forceinline__ void consume(const smem_map &sm, const geom &g,
                                        int cw, int tid)
{
    float acc[MI][BN / 2];
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int i = 0; i < BN / 2; ++i)
            acc[mi][i] = 0.f;
    int it = 0;
    /* EPO: the previous tile's C, packed, still to store (rows from pr0,
     * columns from pn0) */
    unsigned pk[MI][BN / 4];
    int pend = 0, pr0 = 0, pn0 = 0;
    const unsigned epi_st = sm.bars + 512 + FUSE * PACKERS * SCRATCH;
    item_iter w;
    w.start(g);
    while (w.next(g)) {
        int tm, tn;
        cta_tile(w.t, g.pairs_m, g.tiles_n, g.rank, tm, tn);
        const int m0 = tm * BM, n0 = tn * BN;
        /* SKIP: a warpgroup without rows below M only keeps the stages
         * going (the branch is warpgroup-uniform; the broadcast tells
         * ptxas so) */
        const bool dead = SKIP && __shfl_sync(0xffffffffu,
                                              m0 + cw * MI * 64 >= g.M, 0);
        if (dead) {
            for (int kt = w.kb; kt < w.ke; ++kt, ++it) {
                const int s = it % STAGES;
                mbar_wait(sm.full(s), (it / STAGES) & 1);
                if (kt > w.kb && tid == 0)
                    release(sm, (it - 1) % STAGES);
            }
        } else
        for (int kt = w.kb; kt < w.ke; ++kt, ++it) {
            const int s = it % STAGES;
            mbar_wait(sm.full(s), (it / STAGES) & 1);
#pragma unroll
            for (int mi = 0; mi < MI; ++mi)
                reg_fence(acc[mi]);
            wg_fence();
#pragma unroll
            for (int kk = 0; kk < BK / 16; ++kk) {
                /* B N-major: 16 k-rows down; K-major (BT): 32 bytes on */
                const u64 db =
                    BT ? make_desc(sm.b(s) + kk * 32, 16, 1024)
                       : make_desc(sm.b(s) + kk * 16 * 128, BK * 128, 1024);
#pragma unroll
                for (int mi = 0; mi < MI; ++mi) {
                    const u64 da = make_desc(
                        sm.a(s) + (cw * MI + mi) * 64 * 128 + kk * 32, 16,
                        1024);
                    /* the item's first slice overwrites the accumulators */
                    wgmma_bn<BN>(acc[mi], da, db, kt > w.kb || kk > 0);
                }
            }
            wg_commit();
#pragma unroll
            for (int mi = 0; mi < MI; ++mi)
                reg_fence(acc[mi]);
            /* keep this slice's wgmma in flight; the previous one is done,
             * so its stage goes back to the producer(s) */
            wg_wait<1>();
            if (kt > w.kb && tid == 0)
                release(sm, (it - 1) % STAGES);
            /* EPO: a piece of the previous tile's epilogue under this
             * slice's wgmmas */
            if (EPO && pend && kt - w.kb < EPO_STEPS)
                epo_step(g, epi_st, cw, tid, pr0, pn0, pk, kt - w.kb);
        }
        wg_wait<0>();
#pragma unroll
        for (int mi = 0; mi < MI; ++mi)
            reg_fence(acc[mi]);
        if (tid == 0)
            release(sm, (it - 1) % STAGES);
        pend = 0;
        if (SK == 4 && g.split >= 2) {
            /* a cluster's one item; a warpgroup without rows below M has
             * none in any range of the tile */
            if (m0 + cw * MI * 64 < g.M)
                sk4_reduce(g, w.t, acc, cw, tid, m0 + cw * MI * 64, n0);
            break;
        }
        /* A tile split between np clusters (np = 2 but for SK=3): the
         * block of each CTA rank that finishes its piece first (a counter
         * says) leaves its fp32 sums in the slot of the split and sets the
         * flag to 1; the i-th to arrive waits for flag == i, adds the slot
         * and, unless it is the last, leaves the sum there and sets the
         * flag to i + 1; the last stores C. Each waits only for blocks that
         * have already arrived. A warpgroup without rows below M takes no
         * part. */
        if (SK == 3 && w.role != ROLE_FULL && m0 + cw * MI * 64 < g.M) {
            /* SK=3: every piece leaves its sums in its own slot, then
             * counts itself in; the last to count adds all np pieces in
             * piece order (bitwise the same whichever arrives last) and
             * stores C. Nobody waits. */
            const int slot = w.xslot * CLUSTER + g.rank;
            const int pbase = w.xslot * g.split * CLUSTER + g.rank;
            unsigned *ctr = g.flags + slot * CONSUMERS + cw;
            const unsigned word = sm.bars + SK_WORD + 4u * (unsigned)cw;
#pragma unroll
            for (int mi = 0; mi < MI; ++mi) {
                float *p = sk_part(g.parts, pbase + w.q * CLUSTER, cw, mi);
#pragma unroll
                for (int i = 0; i < BN / 2; ++i)
                    __stcg(p + i * 128 + tid, acc[mi][i]);
            }
            wg_bar(cw);
            if (tid == 0) {
                unsigned old;
                asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;\n"
                             : "=r"(old) : "l"(ctr) : "memory");
                asm volatile("st.shared.u32 [%0], %1;\n" ::"r"(word),
                             "r"(old) : "memory");
            }
            wg_bar(cw);
            unsigned order;
            asm volatile("ld.shared.u32 %0, [%1];\n" : "=r"(order)
                         : "r"(word) : "memory");
            if ((int)order < w.np - 1)
                continue;
            /* its own piece too, from the slot it wrote */
            for (int q = 0; q < w.np; ++q) {
#pragma unroll
                for (int mi = 0; mi < MI; ++mi) {
                    const float *p = sk_part(g.parts, pbase + q * CLUSTER,
                                             cw, mi);
#pragma unroll
                    for (int i = 0; i < BN / 2; ++i) {
                        const float v = __ldcg(p + i * 128 + tid);
                        acc[mi][i] = q == 0 ? v : acc[mi][i] + v;
                    }
                }
            }
        } else if (SK && w.role != ROLE_FULL && m0 + cw * MI * 64 < g.M) {
            const int slot = w.xslot * CLUSTER + g.rank;
            unsigned *ctr = g.flags + slot * CONSUMERS + cw;
            unsigned *flag = ctr + SK_FLAG_BYTES / 8;
            const unsigned word = sm.bars + SK_WORD + 4u * (unsigned)cw;
            if (tid == 0) {
                unsigned old;
                asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;\n"
                             : "=r"(old) : "l"(ctr) : "memory");
                asm volatile("st.shared.u32 [%0], %1;\n" ::"r"(word),
                             "r"(old) : "memory");
            }
            wg_bar(cw);
            unsigned order;
            asm volatile("ld.shared.u32 %0, [%1];\n" : "=r"(order)
                         : "r"(word) : "memory");
            if (order > 0) {
                if (tid == 0) {
                    unsigned v;
                    do {
                        asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n"
                                     : "=r"(v) : "l"(flag) : "memory");
                    } while (v < order);
                }
                wg_bar(cw);
#pragma unroll
                for (int mi = 0; mi < MI; ++mi) {
                    const float *p = sk_part(g.parts, slot, cw, mi);
#pragma unroll
                    for (int i = 0; i < BN / 2; ++i)
                        acc[mi][i] += __ldcg(p + i * 128 + tid);
                }
            }
            if ((int)order < w.np - 1) {
#pragma unroll
                for (int mi = 0; mi < MI; ++mi) {
                    float *p = sk_part(g.parts, slot, cw, mi);
#pragma unroll
                    for (int i = 0; i < BN / 2; ++i)
                        __stcg(p + i * 128 + tid, acc[mi][i]);
                }
                wg_bar(cw);
                if (tid == 0) {
                    asm volatile("st.release.gpu.global.u32 [%0], %1;\n"
                                 ::"l"(flag), "r"(order + 1) : "memory");
                }
                continue;
            }
        }
        /* EPO: deferred when the block's next item has a k slice for
         * every step and this warpgroup has rows in it, else (the last
         * tile, small K, SKIP's dead warpgroup) stored at once */
        item_iter peek = w;
        bool defer = EPO && peek.next(g) && peek.ke - peek.kb >= EPO_STEPS;
        if (SKIP && defer) {
            int tm1, tn1;
            cta_tile(peek.t, g.pairs_m, g.tiles_n, g.rank, tm1, tn1);
            defer = tm1 * BM + cw * MI * 64 < g.M;
        }
        if (defer) {
            if (m0 + cw * MI * 64 < g.M) {
#pragma unroll
                for (int mi = 0; mi < MI; ++mi)
#pragma unroll
                    for (int i = 0; i < BN / 8; ++i)
#pragma unroll
                        for (int h = 0; h < 2; ++h)
                            pk[mi][2 * i + h] =
                                pack_pair(acc[mi][4 * i + 2 * h],
                                          acc[mi][4 * i + 2 * h + 1]);
                pend = 1;
                pr0 = m0 + cw * MI * 64;
                pn0 = n0;
            }
        } else if (EPI) {
            if (m0 + cw * MI * 64 < g.M && n0 < g.N)
                epi_store(g, epi_st, cw, tid, m0 + cw * MI * 64, n0, acc);
        } else if (m0 < g.M) {
#pragma unroll
            for (int mi = 0; mi < MI; ++mi)
                store_tile(g.C, g.M, g.N, m0 + (cw * MI + mi) * 64, n0,
                           acc[mi], tid);
        }
    }
    if (EPI) /* the last tile's row copies are done before the exit */
        asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory");
}

extern "C" __global__ void __launch_bounds__(THREADS, 1)
hgemm_packed(const elem_t *__restrict__ A, const elem_t *__restrict__ B,
             elem_t *__restrict__ C, int M, int N, int K, void *ws)
{
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    smem_map sm;
    sm.base = (smem_u32(smem_raw) + 1023u) & ~1023u; /* swizzle atoms */
    sm.bars = sm.base + STAGES * STAGE_BYTES;
    const int wg = threadIdx.x / 128, tid = threadIdx.x % 128;
    geom &g = *reinterpret_cast<geom *>(smem_raw + (sm.bars -
                                                   smem_u32(smem_raw)) +
                                        GEOM_OFFSET);
    if (threadIdx.x == 0) {
        g.ktiles = (K + BK - 1) / BK;
        g.pairs_m = (M + BM * CM - 1) / (BM * CM);
        g.tiles_n = (N + BN * CN - 1) / (BN * CN); /* pair columns */
        g.rank = CLUSTER == 1 ? 0 : (int)cluster_rank();
        g.cid = blockIdx.x / CLUSTER;
        g.nclusters = gridDim.x / CLUSTER;
        const int tiles = g.pairs_m * g.tiles_n;
        g.dp_tiles = tiles;
        g.su = g.se = 0;
        g.split = 1;
        g.M = M;
        if (SK == 2 && g.ktiles >= 2) {
            /* se: the tail's pieces, one a cluster (cid < se), if they fit */
            g.dp_tiles = tiles / g.nclusters * g.nclusters;
            int pieces = 0;
            for (int t = g.dp_tiles; t < tiles; ++t)
                pieces += tail_pieces(g, t);
            if (pieces <= g.nclusters && g.dp_tiles < tiles)
                g.se = pieces;
            else
                g.dp_tiles = tiles;
        } else if (SK == 3 && tiles > g.nclusters &&
                   tiles % g.nclusters != 0) {
            /* split: the S in 2..4 (at most ktiles) with the least tail
             * work a cluster, ceil(W * S / G) / S tiles (ties: the
             * smaller S); none when no S beats whole tiles (W <= G) */
            const int W = tiles % g.nclusters;
            int best = 1, bw = 1, bs = 1; /* work bw / bs tiles */
            for (int sp = 2; sp <= 4 && sp <= g.ktiles; ++sp) {
                const int w = (W * sp + g.nclusters - 1) / g.nclusters;
                if (w * bs < bw * sp) {
                    best = sp;
                    bw = w;
                    bs = sp;
                }
            }
            if (best > 1) {
                g.dp_tiles = tiles - W;
                g.split = best;
                g.se = W * best;
            }
        } else if (SK == 4) {
            /* split: S ranges a tile (se = 1: this cluster has one) */
            const int S = min(min(g.nclusters / tiles, g.ktiles), (int)SK4_Q);
            if (S >= 2) {
                g.dp_tiles = 0;
                g.split = S;
                g.se = g.cid < S * tiles;
            }
        } else if (SK == 1 && tiles > g.nclusters &&
                   tiles % g.nclusters != 0) {
            g.dp_tiles = (tiles / g.nclusters - 1) * g.nclusters;
            const long long sl = (long long)(tiles - g.dp_tiles) * g.ktiles;
            g.su = (int)(sl * g.cid / g.nclusters);
            g.se = (int)(sl * (g.cid + 1) / g.nclusters);
        }
        g.N = N;
        g.C = C;
        const size_t a_bytes = (size_t)g.pairs_m * CM * g.ktiles *
                               A_BYTES;
        const size_t b_bytes = (size_t)g.tiles_n * CN * g.ktiles * B_BYTES;
        porder_init(g.po, M, N, K, g.nclusters);
        g.psync = (unsigned *)((char *)ws + a_bytes + b_bytes);
        g.flags = (unsigned *)((char *)ws + a_bytes + b_bytes +
                               FUSE * (256 + 4 * (size_t)g.po.items));
        g.parts = (float *)((char *)g.flags + SK_FLAG_BYTES);
    }
    const char *pa = (const char *)ws;

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(sm.full(s), 1);
            mbar_init(sm.empty(s), CONSUMERS * CLUSTER);
        }
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    /* every barrier of the cluster exists before any copy or remote
     * arrive can reach it */
    if (CLUSTER > 1)
        cluster_sync();
    else
        __syncthreads();
    /* with '// kevo: pdl' on this launch it may start before the pack has
     * finished: nothing above reads the workspace (a no-op otherwise) */
    asm volatile("griddepcontrol.wait;\n" ::: "memory");

    if (wg == 0) {
        if (CONSUMERS == 2 && FUSE)
            asm volatile("setmaxnreg.dec.sync.aligned.u32 64;\n");
        else if (CONSUMERS == 2)
            asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
        if (tid == 0)
            produce(sm, pa, pa + (size_t)g.pairs_m * CM * g.ktiles *
                                     A_BYTES, g);
        else if (FUSE && tid >= 32)
            pack_items(A, B, M, N, K, g, (uint4 *)ws,
                       sm.bars + 512 + (tid / 32 - 1) * SCRATCH, tid % 32);
    } else {
        if (CONSUMERS == 2 && FUSE)
            asm volatile("setmaxnreg.inc.sync.aligned.u32 216;\n");
        else if (CONSUMERS == 2)
            asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
        consume(sm, g, wg - 1, tid);
    }
    /* the peer may still multicast into this CTA or arrive on its
     * barriers until it is done too */
    if (CLUSTER > 1)
        cluster_sync();
}
