#!/bin/bash
# session 34, call 4 (nvidia-h200, one GPU, a fresh machine): the best points
# of the two 10-minute softmax runs (ttb/), each evaluated three times in
# turn on this one GPU with head's kevo eval, 64 launch-by-launch pairs
# against the copy baseline (--pairs 64).
K=.dev-s34/head; export LD_LIBRARY_PATH=$K:.dev-s34/lib; C="--problem softmax --dtype fp32 --shape 4096x4096 --seed 5 --pairs 64 --param THREADS=128 --param VEC=4 --param REG=8 --param CACHE=1 --param MINB=8 --param GRID=0"; nvidia-smi --query-gpu=name,uuid --format=csv,noheader; for r in 1 2 3; do for p in "UNROLL=4 OCC=12" "UNROLL=2 OCC=0"; do set -- $p; echo "== r$r $p"; timeout 25 $K/kevo eval $K/templates/softmax/softmax_block.cu $C --param $1 --param $2 2>&1 | grep -iE "ratio|pairs|verdict|ok|error" | head -4; done; done
