#!/usr/bin/env python3
"""collect-growth.py JOURNAL[.gz] [WINDOW] - the GPU worker's CUPTI collect
time per collect (evidence phase_ms.collect / collects) and the timing
phase per evaluation, by job number (evidence seq) in windows of WINDOW
(default 1500) jobs, with the run time of the window's first job and the
profile records' times. Session 19: the collect grew with every job once
the range profiler had been set up (call A), and stays flat with the
profiler torn down after each profile (call C)."""
import gzip, json, sys

path = sys.argv[1]
win = int(sys.argv[2]) if len(sys.argv) > 2 else 1500
op = gzip.open if path.endswith(".gz") else open
rows, prof = [], []
with op(path, "rt") as f:
    for line in f:
        r = json.loads(line)
        if r.get("type") == "profile":
            prof.append(r.get("t", 0))
        if r.get("type") != "eval" or "ms" not in r:
            continue
        ev = r.get("evidence", {})
        ph = ev.get("phase_ms", {})
        rows.append((ev.get("seq", 0), r.get("t", 0),
                     ph.get("collect", 0) / max(1, ev.get("collects", 1)),
                     r["ms"].get("time", 0)))
rows.sort()
print("profiles at run time (s): " + ", ".join("%.1f" % t for t in prof))
print("| jobs from | run time s | ms a collect | timing ms an evaluation |")
print("|---:|---:|---:|---:|")
for i in range(0, len(rows), win):
    v = rows[i:i + win]
    print("| %d | %.1f | %.3f | %.1f |" % (v[0][0], v[0][1],
          sum(x[2] for x in v) / len(v), sum(x[3] for x in v) / len(v)))
