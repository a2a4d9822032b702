#!/bin/sh
# counters-bench.sh - on a GPU machine: kevo's hardware profile (CUPTI
# range profiler, `kevo eval --profile`) of six kernels of different kinds,
# and Nsight Compute's numbers for the same kernels, metrics, shapes and
# clocks (--clock-control none, like kevo), for scripts/counters-compare.py.
# Every command is written to OUT/commands.txt as it runs.
#
# usage: scripts/counters-bench.sh OUT [CASE...]
#   run from the directory holding bundle/ (make bundle) and
#   bench/results/2026-11-28-h200-counters/llm_splitk.cu; NCU=path to ncu
#   (default: found on PATH or under /usr/local/cuda). CASE: sgemm hgemm_wgmma
#   hgemm_mma softmax layernorm splitk attached llmrun (default all): attached
#   = kevo eval --profile under ncu (another profiler: a note, no profile);
#   llmrun = a short softmax run against the loopback fake LLM
#   (bundle/llm_server, answers/softmax) whose rewrite prompt shows the
#   profile, then kevo status.
set -u
OUT=$1
shift
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
K=./bundle/kevo
R=bench/results/2026-11-28-h200-counters
NCU=${NCU:-$(command -v ncu || ls /usr/local/cuda/bin/ncu \
    /usr/local/cuda/nsight-compute*/ncu /opt/nvidia/nsight-compute/*/ncu \
    2>/dev/null | head -1)}
METRICS=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,\
dram__throughput.avg.pct_of_peak_sustained_elapsed,\
sm__throughput.avg.pct_of_peak_sustained_elapsed,\
sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,\
sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,\
sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,\
sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,\
sm__warps_active.avg.pct_of_peak_sustained_active,\
lts__t_sector_hit_rate.pct,\
l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,\
sm__inst_issued.avg.pct_of_peak_sustained_active,\
smsp__warps_issue_stalled_long_scoreboard.sum,\
smsp__warps_issue_stalled_barrier.sum,\
smsp__warps_issue_stalled_wait.sum,\
smsp__warps_issue_stalled_math_pipe_throttle.sum,\
smsp__warps_issue_stalled_mio_throttle.sum
run() { # name, then the command: logged, bounded, outputs kept
    name=$1
    shift
    echo "$*" >>"$OUT/commands.txt"
    timeout "${TMO:-90}" "$@" >"$OUT/$name.out" 2>"$OUT/$name.err"
    echo "$name: exit $?" >>"$OUT/status.txt"
}
{
    date -u
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw --format=csv
    echo "ncu: $NCU"
    [ -n "$NCU" ] && "$NCU" --version
} >"$OUT/env.txt" 2>&1
cases=${*:-sgemm hgemm_wgmma hgemm_mma softmax layernorm splitk attached llmrun}
for c in $cases; do
    case $c in
    sgemm) set -- templates/gemm/sgemm_tiled.cu --shape 4096x4096x4096 --dtype fp32
        kern='^sgemm_tiled$'; n=1 ;;
    hgemm_wgmma) set -- templates/gemm/hgemm_wgmma.cu --shape 4096x4096x4096 --dtype bf16
        kern='^hgemm_wgmma$'; n=1 ;;
    hgemm_mma) set -- templates/gemm/hgemm_mma.cu --shape 4096x4096x4096 --dtype fp16
        kern='^hgemm_mma$'; n=1 ;;
    softmax) set -- templates/softmax/softmax_block.cu --shape 4096x4096 --dtype fp32
        kern='^softmax_block$'; n=1 ;;
    layernorm) set -- examples/problems/layernorm/layernorm_rows.cu \
        --problem-file examples/problems/layernorm/layernorm.problem \
        --shape 8192x4096 --dtype fp32
        kern='^layernorm_rows$'; n=1 ;;
    splitk) set -- ../$R/llm_splitk.cu --shape 1024x1024x8192 --dtype fp32
        kern='^sgemm_splitk_(part|reduce)$'; n=2 ;;
    attached) # another profiler: kevo's own profile says so and goes on
        [ -n "$NCU" ] &&
            (cd bundle && run attached "$NCU" --clock-control none \
                --target-processes all --kernel-name 'regex:^softmax_block$' \
                --launch-count 1 --metrics gpu__time_duration.sum ./kevo eval \
                templates/softmax/softmax_block.cu --shape 4096x4096 --profile \
                --timeout-ms 60000)
        continue ;;
    llmrun)
        export KEVO_TEST_KEY=sk-kevo-test-counters
        ./bundle/llm_server --port 0 --key-env KEVO_TEST_KEY \
            --answers answers/softmax --log "$OUT/llm_server.log" \
            --lifetime 150 >"$OUT/llm_port" &
        spid=$!
        sleep 1
        port=$(head -1 "$OUT/llm_port")
        (cd bundle && run llmrun ./kevo run --problem softmax --shape 4096x1024 \
            --dtype fp32 --seed 3 --islands 2 --population 6 --offspring 8 \
            --generations 6 --template softmax_block \
            --llm "openai:test-model@http://127.0.0.1:$port/v1" \
            --llm-key-env KEVO_TEST_KEY --runs-dir "$OUT/runs" --name llm)
        (cd bundle && run llmrun.status ./kevo status "$OUT/runs/llm")
        kill $spid 2>/dev/null
        continue ;;
    longrun) # a 70 s run: what profiling costs a run (kevo status)
        export KEVO_TEST_KEY=sk-kevo-test-counters
        ./bundle/llm_server --port 0 --key-env KEVO_TEST_KEY \
            --answers answers/softmax --log "$OUT/llm_server2.log" \
            --lifetime 200 >"$OUT/llm_port2" &
        spid=$!
        sleep 1
        port=$(head -1 "$OUT/llm_port2")
        TMO=100
        (cd bundle && run longrun ./kevo run --problem softmax \
            --shape 8192x8192 --dtype fp32 --seed 5 --time 70s \
            --template softmax_block --template softmax_online \
            --llm "openai:test-model@http://127.0.0.1:$port/v1" \
            --llm-key-env KEVO_TEST_KEY --runs-dir "$OUT/runs" --name long)
        TMO=90
        (cd bundle && run longrun.status ./kevo status "$OUT/runs/long")
        kill $spid 2>/dev/null
        continue ;;
    verify) # kevo verify --profile of the LLM run's best two
        (cd bundle && run verify ./kevo verify "$OUT/runs/llm" --top 2 \
            --reps 2 --profile)
        continue ;;
    gputest) # tests/gpu/profile.sh (make gpu-test)
        mkdir -p "$OUT/gputest"
        (cd bundle && run gputest env KEVO="$PWD/kevo" OUT="$OUT/gputest" \
            NCU="$NCU" sh tests/gpu/profile.sh)
        continue ;;
    *) echo "unknown case $c" >&2; continue ;;
    esac
    (cd bundle && run "$c.kevo" ./kevo eval "$@" --seed 7 --profile --json \
        --timeout-ms 60000)
    [ -n "$NCU" ] &&
        (cd bundle && run "$c.ncu" "$NCU" --clock-control none \
            --target-processes all --kernel-name "regex:$kern" \
            --launch-count $n --metrics "$METRICS" --csv --page raw \
            --print-units base ./kevo eval "$@" --seed 7 --timeout-ms 60000)
done
date -u >>"$OUT/env.txt"
# one file back (the device returns a few files only); no kernel sources
tar -C "$OUT" --exclude='runs/*/sources' -czf /tmp/counters-out.tgz . &&
    mv /tmp/counters-out.tgz "$OUT/" &&
    find "$OUT" -mindepth 1 ! -name counters-out.tgz -delete
