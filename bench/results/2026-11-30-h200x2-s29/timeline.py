#!/usr/bin/env python3
"""Per run, from a compact journal (RUN.min.jsonl, session 26's ttb.py):
when the first result came, when generation 0 ended, the results, the
GPU's check + timing seconds, the seconds the worker waited for a job, and
for each profile the time from its record to its generation's end (the
first profile's includes the wait for the profiler's worker).
usage: timeline.py RUN.min.jsonl..."""
import json, sys
for f in sys.argv[1:]:
    rs = [json.loads(l) for l in open(f)]
    ev = [r for r in rs if r.get("type") == "eval"]
    gen_end = {r["gen"]: r["t"] for r in rs if r.get("type") == "gen"}
    busy = sum((r.get("check_ms") or 0) + (r.get("time_ms") or 0) for r in ev) / 1e3
    wait = sum(r.get("worker_idle_ms") or 0 for r in ev) / 1e3
    gaps = ["%.2f" % (gen_end[p["gen"]] - p["t"]) for p in rs
            if p.get("type") == "profile" and p["gen"] in gen_end]
    print("%s: first result %.2f s, generation 0 ended %.2f s, %d results, "
          "check + timing %.1f s, worker waited %.1f s, profile -> its "
          "generation's end %s s" % (f.split("/")[-1], ev[0]["t"],
          gen_end.get(0, -1), len(ev), busy, wait, ", ".join(gaps) or "-"))
