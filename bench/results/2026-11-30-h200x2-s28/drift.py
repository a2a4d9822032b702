#!/usr/bin/env python3
"""The drift of one run, from its journal: per 15 s of the run, the timed
results, their mean check + timing ms, reps and the timer's ms a collect;
and the times of the run's profile records. Prints one JSON object."""
import json, sys
run = sys.argv[1]
bins, profs = {}, []
with open(run + "/journal.jsonl") as f:
    for line in f:
        try:
            r = json.loads(line)
        except ValueError:
            continue
        t = r.get("t")
        if not isinstance(t, (int, float)):
            continue
        if r.get("type") == "profile":
            profs.append(round(t, 2))
        if r.get("type") != "eval" or not isinstance(r.get("ms"), dict):
            continue
        ms = r["ms"]
        if not ms.get("time"):
            continue
        ev = r.get("evidence") if isinstance(r.get("evidence"), dict) else {}
        ph = ev.get("phase_ms") if isinstance(ev.get("phase_ms"), dict) else {}
        b = bins.setdefault(int(t // 15), [0, 0.0, 0, 0.0, 0])
        b[0] += 1
        b[1] += ms.get("check", 0) + ms["time"]
        b[2] += r.get("reps") or 0
        b[3] += ph.get("collect", 0) or 0
        b[4] += ev.get("collects", 0) or 0
out = []
for k in sorted(bins):
    n, ct, reps, col, cols = bins[k]
    out.append({"t0": 15 * k, "timed": n, "check_time_ms": round(ct / n, 2),
                "reps": round(reps / n, 1),
                "ms_a_collect": round(col / cols, 3) if cols else None})
print(json.dumps({"run": run, "profiles_at_s": profs, "bins": out}))
