#!/usr/bin/env python3
"""Time to best and where the GPU time goes, from a run directory's
journal: prints one JSON object. Raw bests: each ok evaluation that beat
every earlier one (t, ratio to the run's own baseline, fitness, hash);
accepted bests: the confirm records that made a challenger the run's best;
evals: results by time; minutes: per minute of the run, the results, the
mean check and timing ms of a timed result, its reps, the timer's ms a
collect, and the share of timed results each stop rule ended (cascade,
quick, race). A compact copy of the journal is written next to the run as
journal.min.jsonl."""
import json, sys
run = sys.argv[1]
raw, acc, evals, t_last = [], [], [], 0.0
best = -1.0
keep = ("type", "gen", "t", "hash", "outcome", "fitness", "ratio", "accept",
        "challenger", "incumbent", "template", "params", "mutator", "gpu",
        "reps", "spread", "cascaded", "median_ns", "min_ns")
mins = {}
with open(run + "/journal.jsonl") as f, open(run + "/journal.min.jsonl", "w") as o:
    for line in f:
        try:
            r = json.loads(line)
        except ValueError:
            continue
        m = {k: r[k] for k in keep if k in r}
        if isinstance(r.get("ms"), dict):
            m["compile_ms"] = r["ms"].get("compile", 0)
            m["check_ms"] = r["ms"].get("check", 0)
            m["time_ms"] = r["ms"].get("time", 0)
        ev = r.get("evidence") if isinstance(r.get("evidence"), dict) else {}
        for k in ("collects", "quick_stop", "race_stop", "first_rep_ns"):
            if k in ev:
                m[k] = ev[k]
        ph = ev.get("phase_ms") if isinstance(ev.get("phase_ms"), dict) else {}
        for k in ("collect", "job", "worker_idle"):
            if k in ph:
                m[k + "_ms"] = ph[k]
        o.write(json.dumps(m) + "\n")
        t = r.get("t")
        if isinstance(t, (int, float)):
            t_last = max(t_last, t)
        if r.get("type") == "eval":
            evals.append(t)
            fit = r.get("fitness") or 0
            if r.get("outcome") == "ok" and fit > best:
                best = fit
                raw.append([t, r.get("ratio"), fit, r.get("hash")])
            if isinstance(t, (int, float)) and m.get("time_ms", 0) > 0:
                b = mins.setdefault(int(t // 60), [0, 0, 0, 0, 0, 0, 0, 0, 0])
                b[0] += 1
                b[1] += m.get("check_ms", 0) + m["time_ms"]
                b[2] += r.get("reps") or 0
                b[3] += ph.get("collect", 0) or 0
                b[4] += ev.get("collects", 0) or 0
                b[5] += 1 if r.get("cascaded") else 0
                b[6] += 1 if ev.get("quick_stop") else 0
                b[7] += 1 if ev.get("race_stop") else 0
                b[8] += m["time_ms"]
        elif r.get("type") == "confirm" and r.get("accept"):
            acc.append([t, r.get("challenger")])
try:
    b = json.load(open(run + "/best.json"))
except Exception:
    b = {}
n_by = {}
for mark in (60, 120, 180, 300, 420, 600):
    n_by[mark] = sum(1 for t in evals if t is not None and t <= mark)
minutes = []
for k in sorted(mins):
    b_ = mins[k]
    n = b_[0]
    minutes.append({"minute": k, "timed": n,
                    "check_time_ms": round(b_[1] / n, 2),
                    "time_ms": round(b_[8] / n, 2),
                    "reps": round(b_[2] / n, 1),
                    "ms_a_collect": round(b_[3] / b_[4], 3) if b_[4] else None,
                    "cascade": round(b_[5] / n, 3), "quick": round(b_[6] / n, 3),
                    "race": round(b_[7] / n, 3)})
print(json.dumps({"run": run, "evals": len(evals), "evals_by_s": n_by,
                  "t_last": t_last, "best": {k: b.get(k) for k in
                  ("hash", "template", "params", "fitness", "ratio",
                   "generation")},
                  "raw_bests": raw, "accepted": acc, "minutes": minutes}))
