#!/bin/bash
# session 12 H100 call 4: where SK=3's shared reduction spends its time at
# bf16 512x512x32768: ncu source-level stall sampling of n3, and timing-only
# variants (bk: backoff in the flag poll; nw: no flag wait; nl: no loads of
# the others' sums; ns: no partial stores - the last three give wrong results).
set -u
BD=$PWD/build/lead-bundle; K=$BD/kevo; V=$PWD/build/c4v
export KEVO_CACHE_DIR=/tmp/kc
L=$OUT/c4; mkdir -p $L; S=$L/summary.txt
echo "commit $(cat $BD/COMMIT)+sk3_reduce $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -1)" > $S
snap() { tar czf $OUT/c4.tgz -C $OUT c4 2>/dev/null; }
P=512x512x32768
MG=gpu__time_duration.sum,sm__cycles_elapsed.max,sm__cycles_active.max,sm__cycles_active.avg,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_read.sum
for n in n3 bk nw nl ns; do
  echo "### ncu $n $P ($SECONDS s)" >> $L/ncu.log
  timeout 60 ncu --clock-control base --target-processes all --kernel-name regex:hgemm --launch-count 1 --metrics $MG \
    $K eval $V/$n.cu --problem gemm --dtype bf16 --shape $P --seed 3 >> $L/ncu.log 2>&1; echo "rc $?" >> $L/ncu.log; done
awk '/^### ncu/{t=$3" "$4} /gpu__time|cycles_|dram__|lts__/{print t, $1, $NF}' $L/ncu.log > $L/ncu-short.txt
snap
timeout 120 ncu --clock-control base --target-processes all --kernel-name regex:hgemm --launch-count 1 --import-source yes \
  --section WarpStateStats --section SourceCounters --section SpeedOfLight -o $L/src-n3 -f \
  $K eval $V/n3.cu --problem gemm --dtype bf16 --shape $P --seed 3 > $L/ncu-src.log 2>&1
ncu -i $L/src-n3.ncu-rep --page source --csv --print-source sass > $L/src-n3-sass.csv 2>> $L/ncu-src.log
gzip -f $L/src-n3-sass.csv; rm -f $L/*.ncu-rep
echo "### eval bk ($SECONDS s)" >> $L/ev.log
timeout 60 $K eval $V/n3.cu $V/bk.cu --ab --pairs 10 --problem gemm --dtype bf16 --shape $P --timeout-ms 8000 >> $L/ev.log 2>&1
timeout 60 $K eval $V/n3.cu $V/bk.cu --ab --pairs 10 --problem gemm --dtype bf16 --shape 1024x1024x16384 --timeout-ms 8000 >> $L/ev.log 2>&1
cat $L/ncu-short.txt >> $S; grep -E "confirm|pairs:|: ok|: [a-z]+ " $L/ev.log | cut -c1-200 >> $S
snap; cat $S
