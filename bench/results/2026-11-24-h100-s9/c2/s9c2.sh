#!/bin/bash
# session 9 H100 call 2: which structure of sgemm_warptile keeps the old
# default point's speed at aligned shapes. Variants at the default point,
# all in one worker per shape, each timed launch by launch against cuBLAS
# (--pairs 20): a = old (three main loops), b = facts + generic_tile,
# c = facts, misaligned B traps (one loop), d = b plus the checked 16-byte
# loop, e = facts with the scalar-B loop as fallback, f_o1 / f_o2 = b with
# ORDER=1 / 2.
set -u
NB=$PWD/build/lead-bundle; V=$PWD/build/va
L=$OUT/c2; mkdir -p $L; S=$L/summary.txt
echo "new $(cat $NB/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid --format=csv,noheader | head -1)" > $S
snap() { tar czf $OUT/c2.tgz -C $OUT c2 2>/dev/null; }
for sh in 4096x4096x4096 384x384x262144 6144x2048x3072; do
  for rep in 1 2; do
  echo "### $sh rep $rep ($SECONDS s)" >> $L/ab.log
  timeout 150 $NB/kevo eval $V/sw_a_old.cu $V/sw_b_new.cu $V/sw_c_trap.cu $V/sw_d_tt.cu $V/sw_e_ft.cu $V/sw_f_o1.cu $V/sw_f_o2.cu --pairs 20 \
    --problem gemm --dtype fp32 --shape $sh --seed $rep --timeout-ms 8000 >> $L/ab.log 2>&1
  echo "rc $? ($SECONDS s)" >> $L/ab.log; snap
  done
done
grep -E "^###|^pairs|^rc" $L/ab.log | sed 's|/work/main/build/va/||; s|.*build/va/||' | cut -c1-120 >> $S
snap; cat $S
