#!/usr/bin/env python3
"""Per-phase breakdown of a kevo run journal (journal.jsonl or .gz): mean
ms per candidate of check, timing and, where the journal has them
(evidence.phase_ms, since 259b1f4), load, checks A/B/C, reference, timing
collects and the time the GPU worker waited for the coordinator; reps and
stop reasons; the gaps between generations (batch starts).
usage: 2026-11-23-h100-throughput-phases.py JOURNAL..."""
import gzip, json, statistics as st, sys


def load(path):
    op = gzip.open if path.endswith('.gz') else open
    with op(path, 'rt') as f:
        return [json.loads(l) for l in f if l.startswith('{"type":"eval"')]


def mean(v):
    v = list(v)
    return st.mean(v) if v else 0.0


for path in sys.argv[1:]:
    recs = load(path)
    ok = [r for r in recs if r['outcome'] == 'ok']
    t = [r['t'] for r in recs]
    span = t[-1] - t[0] if len(t) > 1 else 0
    print(f'== {path}: {len(recs)} evaluations ({len(ok)} ok) in {span:.1f} s'
          f' = {len(recs) / span * 60 if span else 0:.0f}/min between first and last')
    print(f'   mean ms: compile {mean(r["ms"]["compile"] for r in recs):.1f}, '
          f'check {mean(r["ms"]["check"] for r in recs):.2f}, '
          f'timing {mean(r["ms"]["time"] for r in recs):.2f}; '
          f'kernel (median_ns) {mean(r["median_ns"] for r in ok) / 1e6:.3f}')
    ph = [r['evidence'].get('phase_ms') for r in recs if r.get('evidence')]
    ph = [p for p in ph if p]
    if ph:
        keys = ['load', 'check_a', 'check_b', 'check_c', 'reference',
                'collect', 'worker_idle']
        print('   phase_ms means: ' + ', '.join(
            f'{k} {mean(p.get(k, 0) for p in ph):.2f}' for k in keys))
        idle = [p.get('worker_idle', 0) for p in ph]
        big = [i for i in idle if i > 100]
        print(f'   worker idle: {sum(idle) / 1000:.1f} s in all, median '
              f'{st.median(idle):.2f} ms; {len(big)} waits > 100 ms '
              f'({sum(big) / 1000:.1f} s)')
    reps = [r['reps'] for r in ok]
    print('   reps: ' + ' '.join(f'{k}:{reps.count(k)}' for k in sorted(set(reps)))
          + f'; cascaded {mean(bool(r["cascaded"]) for r in ok):.2f}, quick stop '
          f'{mean(bool(r["evidence"].get("quick_stop")) for r in ok):.2f}')
    gens = {}
    for r in recs:
        gens.setdefault(r['gen'], []).append(r['t'])
    g = sorted(gens)
    gaps = [min(gens[g[i + 1]]) - max(gens[g[i]]) for i in range(len(g) - 1)]
    if gaps:
        print(f'   {len(g)} generations; gaps between them {mean(gaps):.3f} s '
              f'each, {sum(gaps):.1f} s in all')
