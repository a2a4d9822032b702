#!/usr/bin/env python3
"""Time to best, from a run directory's journal: prints one JSON object.
Raw bests: each ok evaluation that beat every earlier one (t, ratio to the
run's own baseline, fitness, hash); accepted bests: the confirm records
that made a challenger the run's best; evals: results by time; and a
compact copy of the journal (type, gen, t, hash, outcome, fitness, ratio,
accept; compile, check and timing ms, reps, the timer's collects and their
ms, the job's ms and the worker's wait, the NVML sample; after the calls
of session 25, which kept only the compile ms) written next to the run as
journal.min.jsonl."""
import json, sys
run = sys.argv[1]
raw, acc, evals, t_last = [], [], [], 0.0
best = -1.0
keep = ("type", "gen", "t", "hash", "outcome", "fitness", "ratio", "accept",
        "challenger", "incumbent", "template", "params", "mutator", "gpu")
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
        m["reps"] = r.get("reps")
        ev = r.get("evidence") if isinstance(r.get("evidence"), dict) else {}
        m["collects"] = ev.get("collects")
        ph = ev.get("phase_ms") if isinstance(ev.get("phase_ms"), dict) else {}
        for k in ("collect", "job", "worker_idle"):
            if k in ph:
                m[k + "_ms"] = ph[k]
        if isinstance(ev.get("nvml"), dict):
            m["nvml"] = ev["nvml"]
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
        elif r.get("type") == "confirm" and r.get("accept"):
            acc.append([t, r.get("challenger")])
try:
    b = json.load(open(run + "/best.json"))
except Exception:
    b = {}
n_by = {}
for mark in (60, 120, 180, 300, 420, 600):
    n_by[mark] = sum(1 for t in evals if t is not None and t <= mark)
print(json.dumps({"run": run, "evals": len(evals), "evals_by_s": n_by,
                  "t_last": t_last, "best": {k: b.get(k) for k in
                  ("hash", "template", "params", "fitness", "ratio",
                   "generation")},
                  "raw_bests": raw, "accepted": acc}))
