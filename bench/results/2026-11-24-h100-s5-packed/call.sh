#!/bin/bash
# hp device call: hgemm_packed FUSE (fused pack) correctness + timing.
# Run as CALLN=cN bash build/hp/dev/call.sh with build/hp-bundle carried
# (scripts/bundle.sh of build/hp/kevo, built from the working tree of the
# day: c1 "85a275dd4e71-dirty", c2-c4 "b6ec25caf5fb-dirty",
# relinked before c2). The c1-c3 logs are whole folders; c4 came back as
# one tar (ncu-*.txt are ncu --log-file outputs).
set -u
BD=$PWD/build/hp-bundle; K=$BD/kevo
export KEVO_CACHE_DIR=/tmp/kc
N=${CALLN:-c1}
L=$OUT/$N; mkdir -p $L /tmp/v
echo "$(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,clocks.sm --format=csv,noheader)" > $L/summary.txt
md5sum templates/gemm/hgemm_packed.cu >> $L/summary.txt
T=templates/gemm/hgemm_packed.cu
var() { local name=$1; shift; local f=/tmp/v/$name.cu; cp $T $f
  for p in "$@"; do k=${p%%=*}; v=${p#*=}
    grep -q "^// kevo: param $k " $f || echo "NO PARAM $k in $name" >> $L/summary.txt
    sed -i -E "s/^(\/\/ kevo: param $k .*default=)[0-9]+/\1$v/" $f; done; echo $f; }
snap() { tar czf $OUT/$N.tgz -C $OUT $N 2>/dev/null; }
ev() { local log=$1 to=$2; shift 2; echo "### $* ($SECONDS s)" >> $L/$log; timeout $to $K eval "$@" --timeout-ms 8000 >> $L/$log 2>&1; echo "rc $? ($SECONDS s)" >> $L/$log; snap; }
source build/hp/dev/points.sh  # the CALLN-points.sh file of this folder
snap
grep -h "^###\|confirm\|interleav\|verdict\|: ok\|: [a-z_]* \|wrong\|error\|fail\|baseline\|rc " $L/*.log | cut -c1-220 >> $L/summary.txt
for f in $L/ncu-*.txt; do [ -f $f ] && { echo "=== $f" >> $L/summary.txt; grep -v "^==PROF==\|^==WARNING==" $f >> $L/summary.txt; }; done
snap
cp $L/summary.txt $OUT/$N-summary.txt; rm -rf $L
cat $OUT/$N-summary.txt
