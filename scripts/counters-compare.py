#!/usr/bin/env python3
"""counters-compare.py - kevo's profiles against Nsight Compute's numbers.

Reads what scripts/counters-bench.sh left in OUT: <case>.kevo.out (the
JSON lines of `kevo eval --profile --json`; the one with "profile") and
<case>.ncu.out (ncu --csv --page raw --print-units base), and prints a
Markdown table per case: every metric kevo reports, ncu's value, and the
relative difference (a percentage metric: the difference in points).

usage: scripts/counters-compare.py OUT [CASE...]
"""
import csv
import io
import json
import sys

# kevo key -> ncu metric (the same names src/gpu/prof.c asks CUPTI for)
METRICS = [
    ("duration_ns", "gpu__time_duration.sum"),
    ("dram_read_bytes", "dram__bytes_read.sum"),
    ("dram_write_bytes", "dram__bytes_write.sum"),
    ("dram_pct", "dram__throughput.avg.pct_of_peak_sustained_elapsed"),
    ("sm_pct", "sm__throughput.avg.pct_of_peak_sustained_elapsed"),
    ("tensor_gmma_pct",
     "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active"),
    ("tensor_hmma_pct",
     "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"),
    ("fma_pct", "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"),
    ("alu_pct", "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active"),
    ("achieved_occupancy_pct",
     "sm__warps_active.avg.pct_of_peak_sustained_active"),
    ("l2_hit_pct", "lts__t_sector_hit_rate.pct"),
    ("shared_bank_conflicts",
     "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"),
    ("issue_busy_pct", "sm__inst_issued.avg.pct_of_peak_sustained_active"),
    ("stall_long_scoreboard", "smsp__warps_issue_stalled_long_scoreboard.sum"),
    ("stall_barrier", "smsp__warps_issue_stalled_barrier.sum"),
    ("stall_wait", "smsp__warps_issue_stalled_wait.sum"),
    ("stall_math_pipe_throttle",
     "smsp__warps_issue_stalled_math_pipe_throttle.sum"),
    ("stall_mio_throttle", "smsp__warps_issue_stalled_mio_throttle.sum"),
]


def kevo_profile(path):
    for line in open(path, errors="replace"):
        line = line.strip()
        if line.startswith("{") and '"profile"' in line:
            return json.loads(line)
    return None


def ncu_rows(path):
    text = open(path, errors="replace").read()
    start = text.find('"ID"')
    if start < 0:
        return []
    rows = list(csv.reader(io.StringIO(text[start:])))
    head, body = rows[0], rows[2:]  # rows[1]: units
    out = []
    for r in body:
        if len(r) != len(head):
            continue
        out.append(dict(zip(head, r)))
    return out


def num(s):
    try:
        return float(s.replace(",", ""))
    except (ValueError, AttributeError):
        return None


def compare(out, case):
    k = kevo_profile(f"{out}/{case}.kevo.out")
    n = ncu_rows(f"{out}/{case}.ncu.out")
    print(f"\n### {case}\n")
    if not k:
        print(f"(no kevo profile: see {case}.kevo.err)")
        return []
    prof = k["profile"]
    print(f"kevo: {k.get('diagnosis', '')}\n")
    if not prof.get("available"):
        return []
    worst = []
    print("| launch | metric | kevo | ncu | difference |")
    print("|---|---|---|---|---|")
    for i, launch in enumerate(prof["launches"]):
        row = n[i] if i < len(n) else {}
        for key, metric in METRICS:
            kv = launch["metrics"].get(key)
            nv = num(row.get(metric))
            if kv is None and nv is None:
                continue
            if kv is None or nv is None:
                d = "n/a"
            elif key.endswith("_pct"):
                d = f"{kv - nv:+.2f} points"
                worst.append((abs(kv - nv), case, key, "points"))
            elif nv == 0 and kv == 0:
                d = "0"
            else:
                rel = (kv - nv) / max(abs(nv), 1e-30) * 100
                d = f"{rel:+.2f} %"
                worst.append((abs(rel), case, key, "%"))
            print(f"| {i + 1} {launch['kernel']} | {key} | "
                  f"{'-' if kv is None else f'{kv:.6g}'} | "
                  f"{'-' if nv is None else f'{nv:.6g}'} | {d} |")
    return worst


def main():
    out = sys.argv[1]
    cases = sys.argv[2:] or ["sgemm", "hgemm_wgmma", "hgemm_mma", "softmax",
                             "layernorm", "splitk"]
    worst = []
    for c in cases:
        worst += compare(out, c)
    worst.sort(reverse=True)
    print("\nLargest differences:")
    for w in worst[:12]:
        print(f"- {w[1]} {w[2]}: {w[0]:.2f} {w[3]}")


if __name__ == "__main__":
    main()
