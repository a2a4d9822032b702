#!/bin/bash
# session 10 H100 call 6: the int arg through the exported launchers at run
# time. (1) the C launcher (kevo export --format c) of hgemm_wgmma's default
# point (tensor maps + arg group_m) in scripts/gemm-sustain.c against
# cuBLAS, short phases: outputs compared; (2) tests/gpu/export_torch.sh:
# torch extensions of gemm fp32 (sgemm_* winners: arg group_m), softmax
# fp16, gemm bf16 hgemm_wgmma (maps + arg) and two LLM-born templates,
# checked against torch.
set -u
BD=$PWD/build/lead-bundle; K=$BD/kevo
L=$OUT/c6; mkdir -p $L; S=$L/summary.txt
echo "commit $(cat $BD/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | head -1)" > $S
snap() { tar czf $OUT/c6.tgz -C $OUT c6 2>/dev/null; }
[ -n "${SKIP_SUSTAIN:-}" ] || timeout 60 build/sus/gemm-sustain build/sus/exp/kevo_gemm.cubin 4096 4096 4096 0.3 > $L/sustain.log 2>&1
echo "gemm-sustain rc=$? ($SECONDS s)" >> $S; grep -iE "max|err|equal|differ" $L/sustain.log | head -5 >> $S; snap
ET=$(mktemp -d /tmp/et.XXXXXX); OUT=$ET KEVO=$K timeout 480 tests/gpu/export_torch.sh > $L/export-torch.log 2>&1
echo "export_torch rc=$? ($SECONDS s)" >> $S
grep -E "PASS|FAIL|skip|template" $L/export-torch.log | cut -c1-220 >> $S
snap; cat $S
