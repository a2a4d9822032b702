#!/bin/bash
# call 1, call 2 (NAME=call2: the same with the templates of d3fbe86) and
# call 3 (NAME=call3 SKIPAB=1: B only, at 7e7c0f1... see README)
# (session 18, nvidia-h200-x2: 2 GPUs):
#  A. softmax_cluster and softmax_unit with CL read from the cluster's
#     special registers (launch-only: one compile for every CL) against the
#     same templates before (f2936ce, .dev-s18/old/), point by point:
#     `kevo eval NEW OLD --ab` (correctness of both, then the noise-aware
#     interleaved A/B; ratio = old's time over new's), cluster points on
#     GPU 0 and unit points on GPU 1 at once, each pair on one GPU;
#  B. 1281cf3 ("base", its bundle and templates, --compilers PER: it would
#     count the host's CPUs) against this commit ("head") on softmax fp32
#     4096^2, each with a GPU and half the CPUs, at once, TTB s (270).
# Seed 11 and a fresh compile cache per run; replay of each.
set -u
R=$PWD; W=/tmp/w1; D=/tmp/d1; rm -rf $W $D; mkdir -p $W $D
export LD_LIBRARY_PATH=$R/build/bundle
( sleep ${GUARD:-540}; tar czf $OUT/partial.tgz -C $W . ) & guard=$!
mkdir -p /tmp/base && tar xJf $R/.dev-s17/base-bundle.tar.xz -C /tmp/base
H=$R/build/bundle; B=/tmp/base/bundle; NEW=$H/templates/softmax; OLD=$R/.dev-s18/old
{ date -u; nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv; nproc; lscpu | grep -E 'Model name|Thread|Socket'; $H/kevo --version; $B/kevo --version; } > $W/env.txt 2>&1
. $R/bench/results/2026-11-28-h200-s18/lib.sh
ab() { # gpu tag file dtype shape params...
  local g=$1 tag=$2 f=$3 dt=$4 sh=$5; shift 5
  local ps=; for kv in "$@"; do ps="$ps --param $kv"; done
  { echo "## $tag $f $dt $sh $*"
    CUDA_VISIBLE_DEVICES=$g timeout 120 $H/kevo eval $NEW/$f.cu $OLD/$f.cu --ab --dtype $dt --shape $sh --seed 5 $ps 2>&1
    echo "exit $?"; } > $W/ab-$tag.log
}
[ -n "${SKIPAB:-}" ] || {
( ab 0 c1 softmax_cluster fp32 4096x4096 CL=1 THREADS=128 VEC=4 REG=8 UNROLL=4 LDH=0 STH=0 MINB=4
  ab 0 c2 softmax_cluster fp32 4096x4096
  ab 0 c3 softmax_cluster fp32 4096x4096 CL=2 THREADS=256 VEC=4 REG=4 UNROLL=2 LDH=0 STH=0 MINB=4
  ab 0 c4 softmax_cluster bf16 8192x8192 CL=1 THREADS=256 VEC=8 REG=4 UNROLL=2 LDH=0 STH=0 MINB=2
  ab 0 c5 softmax_cluster fp32 256x400000 CL=16 THREADS=512 REG=8 VEC=4 UNROLL=2 MINB=2 LDH=1 STH=2
  ab 0 c6 softmax_cluster fp32 4096x65536 CL=4 THREADS=512 VEC=4 REG=8 UNROLL=2 MINB=1 LDH=3 STH=1
  ab 0 c7 softmax_cluster fp32 1000x1003 CL=8
  ab 0 c8 softmax_cluster fp32 999x5 CL=2
  ab 0 c9 softmax_cluster fp16 7x100003 CL=16 THREADS=256 ) & p0=$!
( ab 1 u1 softmax_unit fp32 4096x4096
  ab 1 u2 softmax_unit fp32 8192x4097
  ab 1 u3 softmax_unit fp32 4096x65536 CL=4 THREADS=512 REG=8 SMK=32 UNROLL=2 MINB=1
  ab 1 u4 softmax_unit bf16 8192x8192 CL=2
  ab 1 u5 softmax_unit fp32 1000x1003 CL=8
  ab 1 u6 softmax_unit bf16 7x100003 CL=16 THREADS=256
  ab 1 u7 softmax_unit fp32 999x5 CL=4
  ab 1 u8 softmax_unit fp32 4096x4096 CL=1 THREADS=128 REG=8 SMK=0 UNROLL=2 MINB=4 ) & p1=$!
wait $p0 $p1
grep -h "^## \|^confirm\|verdict\|^exit" $W/ab-*.log > $W/ab-summary.txt; }
date -u >> $W/env.txt
# B
T=${TTB:-270}s; S="softmax fp32 4096x4096"
one 0 base $B $S $T --compilers $PER; one 1 head $H $S $T; waitruns
summary
kill $guard 2>/dev/null; tar czf $OUT/${NAME:-call1}.tgz -C $W . ; ls -la $OUT
