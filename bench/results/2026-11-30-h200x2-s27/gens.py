#!/usr/bin/env python3
"""Per generation of a run, from the journal.min.jsonl that ttb.py wrote:
the fill (launch-only neighbours, no compile) and bred children measured,
the worker's idle seconds and the GPU's check + timing seconds; and per
run: compiled candidates, fill, generations, compiles a minute and fill
per compile. usage: gens.py RUNDIR..."""
import json, sys
for run in sys.argv[1:]:
    g, comp, fill, tmax = {}, 0, 0, 0.0
    for line in open(run + "/journal.min.jsonl"):
        r = json.loads(line)
        if r.get("type") != "eval":
            continue
        b = g.setdefault(r["gen"], [0, 0, 0.0, 0.0])
        launch = r.get("mutator") == "launch"
        b[0 if launch else 1] += 1
        fill += launch
        comp += (r.get("compile_ms") or 0) > 0
        b[2] += (r.get("worker_idle_ms") or 0) / 1e3
        b[3] += ((r.get("check_ms") or 0) + (r.get("time_ms") or 0)) / 1e3
        tmax = max(tmax, r.get("t") or 0)
    print("%s: %d generations, %d compiled, %d fill (%.1f a compile), "
          "%.0f compiles/min" % (run, len(g), comp, fill,
                                 fill / max(comp, 1), comp / tmax * 60))
    print("   gen  fill  bred  idle_s  gpu_s")
    for k in sorted(g):
        if k % 10 == 0 or k == 1:
            f, b, i, s = g[k]
            print("  %4d  %4d  %4d  %6.2f  %5.2f" % (k, f, b, i, s))
