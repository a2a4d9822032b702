#!/usr/bin/env python3
"""phases.py - where one GPU's time went, per evaluation, from a journal.

usage: phases.py JOURNAL[.gz] [RUN_SECONDS]

Sums the evidence phase_ms of every GPU result (those with a worker
round trip recorded) and prints the mean per evaluation and the share of
the run: the coordinator's wait before sending (worker_idle), the round
trip (job sent to answer read), and inside it the worker's job (message
read to answer built) split into load, checks A/B/C, timing, post
(resources, unload) and the rest; round trip minus job is transport and
the coordinator's late read."""
import gzip, json, sys

def main():
    path = sys.argv[1]
    op = gzip.open if path.endswith(".gz") else open
    keys = ["worker_idle", "round_trip", "to_worker", "job", "from_worker",
            "pool_in_wait", "load", "check_a", "check_b",
            "check_c", "timing", "post", "collect"]
    tot = dict.fromkeys(keys, 0.0)
    n = 0
    last_t = 0.0
    by = {}  # fill ("launch": no compile) or bred: [n, to, from, job]
    with op(path, "rt") as f:
        for line in f:
            r = json.loads(line)
            if r.get("type") != "eval":
                continue
            last_t = max(last_t, r.get("t", 0.0))
            ph = (r.get("evidence") or {}).get("phase_ms") or {}
            if "round_trip" not in ph:
                continue
            n += 1
            b = by.setdefault("fill" if r.get("mutator") == "launch"
                              else "compiled", [0, 0.0, 0.0, 0.0])
            b[0] += 1
            b[1] += ph.get("to_worker", 0.0)
            b[2] += ph.get("from_worker", 0.0)
            b[3] += ph.get("job", 0.0)
            for k in keys:
                if k == "timing":
                    tot[k] += (r.get("ms") or {}).get("time", 0.0) or 0.0
                else:
                    tot[k] += ph.get(k, 0.0) or 0.0
    run_s = float(sys.argv[2]) if len(sys.argv) > 2 else last_t
    if not n:
        print("no results with a round trip"); return
    inside = sum(tot[k] for k in ["load", "check_a", "check_b", "check_c",
                                  "timing", "post"])
    rows = [(k, tot[k]) for k in keys] + [
        ("job - phases", tot["job"] - inside),
        ("round_trip - job", tot["round_trip"] - tot["job"]),
        ("run - idle - round_trip", run_s * 1e3 - tot["worker_idle"] - tot["round_trip"])]
    print(f"{n} GPU results over {run_s:.1f} s ({n / run_s * 60:.0f} a minute)")
    print(f"{'phase':26s} {'ms/eval':>8s} {'% of run':>8s}")
    for k, v in rows:
        print(f"{k:26s} {v / n:8.3f} {100 * v / (run_s * 1e3):8.1f}")
    for k, (m, a, b, c) in sorted(by.items()):
        print(f"{k}: {m} results, ms each: to_worker {a / m:.3f}, job "
              f"{c / m:.3f}, from_worker {b / m:.3f}")

main()
