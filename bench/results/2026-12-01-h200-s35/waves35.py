# Session 35: where a one-GPU softmax run's GPU waits, generation by
# generation, from a journal (gzipped). Per generation: its length, the
# results (bred: needed a binary of their own; fill: launch-only
# neighbours), the GPU time they took (check + timing), the worker's
# recorded waits for a job (all, and those over 10 ms), the candidates
# deferred and the optional ones dropped; then the measuring order
# (evidence.seq) as runs of bred (B) and fill (L) results with their
# waits; last, the compile processes' share busy over the run (compile
# ms of the results that compiled, over wall time x compilers).
import gzip, json, sys, collections
ph = lambda r, k: (r.get("evidence", {}).get("phase_ms") or {}).get(k) or 0
for fn in sys.argv[1:]:
    rs = [json.loads(l) for l in gzip.open(fn, 'rt')]
    gens = {r['gen']: r for r in rs if r['type'] == 'gen'}
    ev = collections.defaultdict(list)
    de = collections.Counter(); dr = collections.Counter()
    for r in rs:
        if r['type'] == 'eval': ev[r['gen']].append(r)
        if r['type'] == 'defer': (dr if r.get('dropped') else de)[r['gen']] += 1
    print('==', fn)
    pt = 0; comp = 0.0; procs = 0; tw = 0.0; tbig = 0.0
    for g in sorted(gens):
        e = ev[g]; t = gens[g]['t']; dt = t - pt; pt = t
        fill = sum(1 for r in e if r['mutator'] == 'launch')
        busy = sum(r['ms'].get('check', 0) + r['ms'].get('time', 0) for r in e) / 1e3
        w = sum(ph(r, 'worker_idle') for r in e) / 1e3
        big = [ph(r, 'worker_idle') for r in e if ph(r, 'worker_idle') > 10]
        tw += w; tbig += sum(big) / 1e3
        comp += sum(r['ms'].get('compile', 0) for r in e) / 1e3
        procs = gens[g].get('compilers', procs)
        e.sort(key=lambda r: r['evidence'].get('seq', 0))
        segs = []
        for r in e:
            k = 'L' if r['mutator'] == 'launch' else 'B'
            if segs and segs[-1][0] == k:
                segs[-1][1] += 1; segs[-1][2] += ph(r, 'worker_idle')
            else:
                segs.append([k, 1, ph(r, 'worker_idle')])
        order = ' '.join('%s%d' % (s[0], s[1]) + ('(w%.1fs)' % (s[2] / 1e3) if s[2] > 50 else '')
                         for s in segs[:8]) + (' ...' if len(segs) > 8 else '')
        print('gen %2d %5.2f s  bred %3d fill %4d  gpu %5.2f s  waits %5.2f s (%3d over 10 ms: %5.2f s)  deferred %4d dropped %4d  | %s'
              % (g, dt, len(e) - fill, fill, busy, w, len(big), sum(big) / 1e3, de[g], dr[g], order))
    print('run %.1f s: worker waits %.1f s (%.1f s of them over 10 ms); compile %.0f CPU-s = %.0f %% of %d compile processes'
          % (pt, tw, tbig, comp, 100 * comp / (pt * procs) if procs else 0, procs))
