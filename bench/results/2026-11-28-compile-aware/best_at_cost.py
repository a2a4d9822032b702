#!/usr/bin/env python3
# best_at_cost.py - from journals in evaluation order, the best fitness found
# (and evaluations made) before a cost budget is spent, where a point whose
# compile key (template + params but the launch-only ones) is new costs a
# compile (1.8 s, fp32 GEMM's mean on the H200) plus an evaluation (0.04 s)
# and one whose key was seen costs the evaluation only. One row per budget,
# one column per journal. usage: best_at_cost.py JOURNAL...
import json,sys
lo={'sgemm_warptile':{'GROUP_M','RT','SPLITK'}}
def best_at(path,budget,cc=1.8,ce=0.04):
    keys=set();cost=0;best=0;n=0
    for l in open(path):
        r=json.loads(l)
        if r.get('type')!='eval': continue
        p=r['params']; t=r['template']
        k=(t,tuple(sorted((a,v) for a,v in p.items() if a not in lo.get(t,()))))
        c=ce+(cc if k not in keys else 0); keys.add(k)
        if cost+c>budget: break
        cost+=c; n+=1; best=max(best,r.get('fitness',0))
    return best,n
for b in (100,250,500):
    print(b, *["%.4g/%d"%best_at(p,b) for p in sys.argv[1:]])
