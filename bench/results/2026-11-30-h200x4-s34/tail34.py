import gzip,json,sys
from collections import defaultdict
ph=lambda r,k:(r.get("evidence",{}).get("phase_ms") or {}).get(k) or 0
for fn in sys.argv[1:]:
    rs=[json.loads(l) for l in gzip.open(fn,'rt')]
    gens={r['gen']:r['t'] for r in rs if r['type']=='gen'}
    ev=[r for r in rs if r['type']=='eval']
    last=defaultdict(float); idle=defaultdict(float); n=defaultdict(int); first=defaultdict(lambda:1e9)
    for r in ev:
        k=(r['gen'],r.get('gpu',0)); last[k]=max(last[k],r['t']); idle[k]+=ph(r,'worker_idle')/1e3; n[k]+=1
        first[k]=min(first[k],r['t']-ph(r,'job')/1e3)
    gpus=sorted({r.get('gpu',0) for r in ev})
    tot_tail=defaultdict(float); tot_idle=defaultdict(float)
    print('==',fn)
    for g in sorted(gens):
        if g==0: continue
        s=[]
        for u in gpus:
            k=(g,u)
            tail=gens[g]-last[k] if n[k] else 0
            tot_tail[u]+=tail; tot_idle[u]+=idle[k]
            s.append('gpu%d n %4d idle %.2f tail %.3f'%(u,n[k],idle[k],tail))
        if g<6: print('gen',g,'len %.2f'%(gens[g]-gens[g-1]),' | '.join(s))
    for u in gpus: print('gpu',u,'gens>=1: recorded waits %.2f s, tail (last result -> gen record) %.2f s'%(tot_idle[u],tot_tail[u]))
