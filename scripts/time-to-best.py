#!/usr/bin/env python3
"""time-to-best.py - when did each run reach its best, and the best of a
group (issue 32: "time to the best point in a 10-minute run no worse").

usage: time-to-best.py JOURNAL[.gz] ... [--within PCT]

Reads each run's journal (eval records: outcome, fitness, t = run time in
s when the result was taken) and prints, per journal: its final best
fitness, the time (s) and evaluations it took to get within PCT % (default
1) of its own best, and within PCT % of the group's best (the best over
all journals given: compare runs of one case). Best = the highest fitness
of an ok result; the engine's confirmation step may keep a slightly
different incumbent, which this ignores."""
import gzip, json, sys

def load(path):
    op = gzip.open if path.endswith(".gz") else open
    out = []
    with op(path, "rt") as f:
        for line in f:
            r = json.loads(line)
            if r.get("type") == "eval":
                ok = r.get("outcome") == "ok"
                out.append((r.get("t", 0.0), r.get("fitness", 0.0) if ok else 0.0))
    return out

def reach(ev, target):
    for i, (t, f) in enumerate(ev):
        if f >= target:
            return t, i + 1
    return None, None

args, pct = [], 1.0
it = iter(sys.argv[1:])
for a in it:
    if a == "--within":
        pct = float(next(it))
    else:
        args.append(a)
runs = {a: load(a) for a in args}
group = max((max((f for _, f in ev), default=0) for ev in runs.values()), default=0)
k = 1 - pct / 100
print("| journal | evaluations | run s | best | s to %g %% of own best | evals | s to %g %% of group best | evals |" % (pct, pct))
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for a, ev in runs.items():
    best = max((f for _, f in ev), default=0)
    t1, n1 = reach(ev, best * k)
    t2, n2 = reach(ev, group * k)
    fmt = lambda x: "-" if x is None else ("%.1f" % x if isinstance(x, float) else str(x))
    print("| %s | %d | %.0f | %.4g | %s | %s | %s | %s |" % (
        "/".join(a.split("/")[-2:]), len(ev), ev[-1][0] if ev else 0, best,
        fmt(t1), fmt(n1), fmt(t2), fmt(n2)))
