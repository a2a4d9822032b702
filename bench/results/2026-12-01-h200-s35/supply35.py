# Session 35: for each generation of a journal (gzipped) whose worker
# waited more than 1 s, the fill it measured (all it was offered: none was
# dropped in these) against an estimate of the fill's supply when it was
# bred: the unmeasured launch-only points of the binaries measured before
# it. The estimate takes a binary's whole valid grid to be the most
# points measured for any binary of its template and THREADS (the
# constraints OCC x THREADS < 2048 and the like depend on THREADS), so it
# is an estimate, not the engine's own count.
import gzip, json, sys, collections
ph = lambda r, k: (r.get("evidence", {}).get("phase_ms") or {}).get(k) or 0
for fn in sys.argv[1:]:
    rs = [json.loads(l) for l in gzip.open(fn, 'rt')]
    ev = collections.defaultdict(list)
    for r in rs:
        if r['type'] == 'eval':
            ev[r['gen']].append(r)
    print('==', fn.split('/')[-1])
    pts = collections.defaultdict(set); key = {}
    for g in sorted(ev):
        e = ev[g]
        full = collections.defaultdict(int)
        for s, v in pts.items():
            full[key[s]] = max(full[key[s]], len(v))
        supply = sum(full[key[s]] - len(v) for s, v in pts.items())
        wait = sum(ph(r, 'worker_idle') for r in e) / 1e3
        fill = sum(1 for r in e if r['mutator'] == 'launch')
        if g > 0 and wait > 1.0:
            print('gen %2d  waits %.2f s  fill %4d  estimated supply %4d  (%3.0f %%)'
                  % (g, wait, fill, supply, 100.0 * fill / supply if supply else 0))
        for r in e:
            if r['outcome'] != 'ok':
                continue
            p = r['params']
            pts[r['source']].add(tuple(sorted((k, v) for k, v in p.items()
                                  if k in ('OCC', 'GRID', 'BPS', 'DROP'))))
            key[r['source']] = (r['template'], p.get('THREADS'))
