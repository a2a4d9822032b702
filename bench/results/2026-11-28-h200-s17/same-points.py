#!/usr/bin/env python3
"""same-points.py - two runs of one case, point by point (session 17): for
every ok point the second journal measured that the first measured too
(params equal, WAVE ignored and only its WAVE = 0 points taken), the
ratio of the second's fitness to the first's, per template: the median
over all such points and over the first's 10 fastest of them; then each
run's best per template, and the second's best per WAVE value.

usage: same-points.py BASE.journal.jsonl.gz HEAD.journal.jsonl.gz"""
import collections, gzip, json, statistics, sys

def load(f):
    op = gzip.open if f.endswith(".gz") else open
    return [json.loads(l) for l in op(f, "rt") if '"type":"eval"' in l]

def key(r):
    p = dict(r["params"]); p.pop("WAVE", None)
    return r["template"], tuple(sorted(p.items()))

b, h = load(sys.argv[1]), load(sys.argv[2])
bm = {key(r): r["fitness"] for r in b if r["outcome"] == "ok"}
by = collections.defaultdict(list)
for r in h:
    if r["outcome"] == "ok" and r["params"].get("WAVE", 0) == 0 and key(r) in bm:
        by[r["template"]].append((r["fitness"] / bm[key(r)], bm[key(r)]))
print("| template | points | median head/base | median over base's 10 fastest |")
print("|---|---:|---:|---:|")
for t in sorted(by):
    v = sorted(by[t], key=lambda z: -z[1])
    print("| %s | %d | %.3f | %.3f |" % (t, len(v), statistics.median(x for x, _ in v),
                                         statistics.median(x for x, _ in v[:10])))
for name, d in (("base", b), ("head", h)):
    bt = collections.defaultdict(float)
    for r in d:
        if r["outcome"] == "ok":
            bt[r["template"]] = max(bt[r["template"]], r["fitness"])
    print(name, "best per template (T/s):", {k: round(v / 1e12, 3) for k, v in sorted(bt.items())})
wb = collections.defaultdict(float)
for r in h:
    if r["outcome"] == "ok" and "WAVE" in r["params"]:
        k = (r["template"], r["params"]["WAVE"])
        wb[k] = max(wb[k], r["fitness"])
if wb:
    print("head best per (template, WAVE):", {"%s/%d" % k: round(v / 1e12, 3) for k, v in sorted(wb.items())})
