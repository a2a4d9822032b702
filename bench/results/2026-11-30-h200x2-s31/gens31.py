#!/usr/bin/env python3
"""Per-generation account of a one-GPU run's worker (session 31), from its
journal (plain or .gz): each generation's length, check + timing, the
worker's recorded waits (all; the first jobs', i.e. the gap between
generations; the largest), fill and compiles, the engine's own time (gen
record engine_ms); the generation's last run of results (results the
coordinator handed on back to back, < 0.5 ms apart: those held behind a
slow compile) and the time from the gen record to the start of the next
generation's first result handed on (its candidate 0: the first job
only when that one was ready first; seconds later when it waited for its
compile). Then the run: check + timing, waits, the worker's other time
in its jobs (load, post), the generation gaps and the first result.
usage: gens31.py JOURNAL[.gz] ..."""
import gzip, json, sys

ph = lambda r, k: (r.get("evidence", {}).get("phase_ms") or {}).get(k) or 0
for fn in sys.argv[1:]:
    op = gzip.open if fn.endswith(".gz") else open
    rs = [json.loads(l) for l in op(fn, "rt")]
    ev = [r for r in rs if r["type"] == "eval"]
    gens = {r["gen"]: r for r in rs if r["type"] == "gen"}
    print("==", fn)
    prev, tot = 0.0, dict(ct=0.0, wait=0.0, other=0.0, gap=0.0)
    firsts = {}
    for i, r in enumerate(rs):
        if r["type"] == "gen":
            k = i + 1
            while k < len(rs) and rs[k]["type"] != "eval":
                k += 1
            if k < len(rs):
                firsts[r["gen"]] = rs[k]["t"] - ph(rs[k], "job") / 1e3 - r["t"]
    for g in sorted({r["gen"] for r in ev}):
        e = [r for r in ev if r["gen"] == g]
        end = gens[g]["t"] if g in gens else max(r["t"] for r in e)
        ct = sum((r["ms"].get("check") or 0) + (r["ms"].get("time") or 0) for r in e) / 1e3
        wait = sum(ph(r, "worker_idle") for r in e) / 1e3
        job = sum(ph(r, "job") for r in e) / 1e3
        fw = max(ph(r, "worker_idle") for r in e[:5])
        top = sorted((ph(r, "worker_idle") for r in e), reverse=True)[:4]
        ts = [r["t"] for r in e]
        m = len(ts) - 1
        while m > 0 and ts[m] - ts[m - 1] < 0.0005:
            m -= 1
        print("gen %d %5.2f s  check+timing %5.2f  waited %4.2f (first jobs %3.0f ms; largest %s)  "
              "fill %4d compiled %3d  last run %4d results in %3.0f ms  gen rec -> next job %s  engine_ms %s"
              % (g, end - prev, ct, wait, fw, [round(x) for x in top],
                 sum(r["mutator"] == "launch" for r in e),
                 sum((r["ms"].get("compile") or 0) > 0 for r in e),
                 len(ts) - m, 1e3 * (ts[-1] - ts[m]),
                 ("%3.0f ms" % (1e3 * firsts[g])) if g in firsts else "-",
                 json.dumps(gens.get(g, {}).get("engine_ms"))))
        tot["ct"] += ct
        tot["wait"] += wait
        tot["other"] += job - ct
        tot["gap"] += fw / 1e3 if g > 0 else 0
        prev = end
    print("run %.2f s: check+timing %.2f s (%.1f %%: idle %.1f %%), waited %.2f s, in jobs outside "
          "check+timing %.2f s, waits at generation starts %.2f s, first result at %.2f s"
          % (prev, tot["ct"], 100 * tot["ct"] / prev, 100 - 100 * tot["ct"] / prev,
             tot["wait"], tot["other"], tot["gap"], ev[0]["t"]))
