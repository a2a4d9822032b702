#!/usr/bin/env python3
"""Per-GPU account of a several-GPU run (session 32), from its journal
(plain or .gz): each GPU's evaluations, check + timing (and its share of
the run), the worker's recorded waits for a job (evidence
phase_ms.worker_idle) and its time in jobs outside check + timing; then
generation 0's end and its engine_ms.after (the first profile).
usage: gpus32.py JOURNAL[.gz] ..."""
import gzip, json, sys
from collections import defaultdict

ph = lambda r, k: (r.get("evidence", {}).get("phase_ms") or {}).get(k) or 0
for fn in sys.argv[1:]:
    op = gzip.open if fn.endswith(".gz") else open
    rs = [json.loads(l) for l in op(fn, "rt")]
    ev = [r for r in rs if r["type"] == "eval"]
    ct, wait, job, n = (defaultdict(float) for _ in range(4))
    for r in ev:
        g = r.get("gpu", 0)
        ct[g] += ((r["ms"].get("check") or 0) + (r["ms"].get("time") or 0)) / 1e3
        wait[g] += ph(r, "worker_idle") / 1e3
        job[g] += ph(r, "job") / 1e3
        n[g] += 1
    end = max(r["t"] for r in rs if "t" in r)
    print("==", fn)
    for g in sorted(ct):
        print("gpu %d: %d evaluations, check+timing %.2f s (%.1f %% of %.1f s), "
              "waited %.2f s, in jobs outside check+timing %.2f s"
              % (g, n[g], ct[g], 100 * ct[g] / end, end, wait[g], job[g] - ct[g]))
    g0 = next(r for r in rs if r["type"] == "gen")
    print("generation 0 ends at %.2f s; its engine_ms.after %.0f ms"
          % (g0["t"], (g0.get("engine_ms") or {}).get("after", 0)))
