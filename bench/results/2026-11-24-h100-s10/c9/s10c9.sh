#!/bin/bash
# session 10 H100 call 9: the point that timed out in call 8 (hgemm_packed
# SK=2 FUSE=1 PDLT=1 BM=256 GROUP_M=4, bf16 4099x4097x4095), as 5042871's
# template (old_t) and this commit's (new_t), each evaluated 3 times in
# fresh workers, alternating.
set -u
NB=$PWD/build/lead-bundle
L=$OUT/c9; mkdir -p $L; S=$L/summary.txt
echo "new $(cat $NB/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | head -1)" > $S
snap() { tar czf $OUT/c9.tgz -C $OUT c9 2>/dev/null; }
for i in 1 2 3; do for v in old_t new_t; do
  timeout 60 $NB/kevo eval build/v8/$v.cu --problem gemm --dtype bf16 --shape 4099x4097x4095 --seed $((5+i)) --timeout-ms 10000 >> $L/evals.log 2>&1
  echo "eval $v $i rc=$? ($SECONDS s)" >> $L/evals.log; snap
done; done
grep -vE "^#|^  " $L/evals.log | sed 's|/work/main/build/v8/||' | cut -c1-240 >> $S
snap; cat $S
