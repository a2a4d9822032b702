#!/usr/bin/env python3
"""Per run, from the compact journals (RUN.min.jsonl, written by ttb.py):
generation 0 (results, fill, deferred or dropped, when it ended, the
worker's idle seconds) and the whole run (compiled candidates, fill a
compile, worker idle seconds, generations). usage: gen0.py FILE.min.jsonl..."""
import json, sys
for f in sys.argv[1:]:
    rs = [json.loads(l) for l in open(f)]
    ev = [r for r in rs if r.get("type") == "eval"]
    g0 = [r for r in ev if r["gen"] == 0]
    dr = sum(1 for r in rs if r.get("type") == "defer" and r["gen"] == 0)
    end = [r["t"] for r in rs if r.get("type") == "gen" and r["gen"] == 0]
    idle = lambda v: sum((r.get("worker_idle_ms") or 0) for r in v) / 1e3
    comp = sum(1 for r in ev if (r.get("compile_ms") or 0) > 0)
    fill = sum(1 for r in ev if r.get("mutator") == "launch")
    gens = sum(1 for r in rs if r.get("type") == "gen")
    print("%s: %d evaluations; generation 0: %d results, %d fill, %d "
          "deferred or dropped, ended at %.1f s, worker idle %.2f s; run: "
          "%d compiled, %.1f fill a compile, worker idle %.1f s, %d "
          "generations" % (f, len(ev), len(g0),
                           sum(r.get("mutator") == "launch" for r in g0), dr,
                           end[0] if end else -1, idle(g0), comp,
                           fill / max(comp, 1), idle(ev), gens))
