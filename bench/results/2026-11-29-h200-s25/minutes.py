#!/usr/bin/env python3
"""Per minute of each time-to-best run (journal.min.jsonl, written by
ttb.py on the device): results, results that needed a compile, results of
the fill (mutator "launch"); and per two minutes the template mix.
usage: minutes.py RUNDIR..."""
import collections, json, sys
for run in sys.argv[1:]:
    ev = [r for r in (json.loads(l) for l in open(run + "/journal.min.jsonl"))
          if r.get("type") == "eval"]
    m = collections.defaultdict(lambda: [0, 0, 0])
    mix = collections.defaultdict(collections.Counter)
    for r in ev:
        k = int(r["t"] // 60)
        m[k][0] += 1
        m[k][1] += r.get("compile_ms", 0) > 0
        m[k][2] += r.get("mutator") == "launch"
        mix[int(r["t"] // 120)][r.get("template")] += 1
    print(run)
    print("  minute results compiled fill")
    for k in sorted(m):
        if k < 10:
            print("  %6d %7d %8d %4d" % (k, *m[k]))
    for k in sorted(mix):
        if k < 5:
            print("  min %d-%d:" % (2 * k, 2 * k + 2),
                  ", ".join("%s %d" % x for x in mix[k].most_common(4)))
