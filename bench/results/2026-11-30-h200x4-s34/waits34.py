#!/usr/bin/env python3
"""Each GPU's recorded waits for a job (evidence phase_ms.worker_idle) in
generations 1 and later, by length (ms bins: count and sum), and which
mutators the jobs after a 0.5-2 ms wait carried (session 34).
usage: waits34.py JOURNAL.gz ..."""
import sys,json,collections,gzip
ph=lambda r,k:(r.get('evidence',{}).get('phase_ms') or {}).get(k) or 0
for fn in sys.argv[1:]:
    w=collections.defaultdict(list)
    for l in gzip.open(fn,'rt'):
        r=json.loads(l)
        if r['type']!='eval' or r['gen']==0: continue
        w[r.get('gpu',0)].append((ph(r,'worker_idle'), r.get('mutator'), r['ms'].get('compile') or 0, r['idx']))
    print('==',fn)
    for g,v in sorted(w.items()):
        bins=[(0,0.05),(0.05,0.5),(0.5,2),(2,10),(10,50),(50,1e9)]
        print(' gpu',g,'n',len(v),'sum %.2f s'%(sum(x[0] for x in v)/1e3), ' '.join('[%g,%g): %d %.2fs'%(a,b,sum(1 for x in v if a<=x[0]<b),sum(x[0] for x in v if a<=x[0]<b)/1e3) for a,b in bins))
        sm=[x for x in v if 0.5<=x[0]<2]
        c=collections.Counter(x[1] for x in sm); call=collections.Counter(x[1] for x in v)
        print('   small waits by mutator', dict(c), 'of', dict(call))
