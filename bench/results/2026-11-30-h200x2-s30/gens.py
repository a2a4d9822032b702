#!/usr/bin/env python3
"""Per-generation account of a run's GPU worker (session 30): from the
compact journal (session 26's ttb.py writes NAME.min.jsonl) and the gen
records (s30.sh writes NAME.gens.jsonl), one line a generation: its
length, check + timing, the worker's recorded waits (all, the first job's
-- the gap between generations -- and those of 20 ms or less), how many
jobs found the worker waiting for none (queued behind the one before,
worker.h 12), its fill (launch-only neighbours) and bred children,
compiles, and where the engine's own time went (gen record engine_ms).
usage: gens.py NAME.min.jsonl [NAME.gens.jsonl]"""
import json, sys

rs = [json.loads(l) for l in open(sys.argv[1])]
gens = {}
if len(sys.argv) > 2:
    for l in open(sys.argv[2]):
        g = json.loads(l)
        gens[g["gen"]] = g
ev = [r for r in rs if r["type"] == "eval"]
ends = {r["gen"]: r["t"] for r in rs if r["type"] == "gen"}
prev = 0.0
tot = {"ct": 0.0, "wait": 0.0}
for g in sorted({r["gen"] for r in ev}):
    e = [r for r in ev if r["gen"] == g]
    end = ends.get(g, max(r["t"] for r in e))
    ct = sum((r.get("check_ms") or 0) + (r.get("time_ms") or 0) for r in e) / 1e3
    wait = sum(r.get("worker_idle_ms") or 0 for r in e) / 1e3
    small = sum(r["worker_idle_ms"] for r in e if r.get("worker_idle_ms", 0) <= 20) / 1e3
    zero = sum(1 for r in e if r.get("worker_idle_ms") == 0)
    fill = sum(r["mutator"] == "launch" for r in e)
    comp = sum((r.get("compile_ms") or 0) > 0 for r in e)
    em = gens.get(g, {}).get("engine_ms")
    tot["ct"] += ct
    tot["wait"] += wait
    print("gen %2d  %5.2f s  check+timing %5.2f s  waited %4.2f s (first job %4.0f ms, "
          "<=20 ms %4.2f s)  no wait %4d of %4d  fill %4d bred %3d  compiled %3d  engine_ms %s"
          % (g, end - prev, ct, wait, e[0].get("worker_idle_ms", 0), small, zero,
             len(e), fill, len(e) - fill, comp, json.dumps(em) if em else "-"))
    prev = end
print("run %.2f s: check+timing %.2f s (%.0f %%), waited %.2f s (%.0f %%), first result %.2f s"
      % (prev, tot["ct"], 100 * tot["ct"] / prev, tot["wait"], 100 * tot["wait"] / prev, ev[0]["t"]))
