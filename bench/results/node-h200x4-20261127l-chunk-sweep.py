# The sweep behind the GPU chunk rule (bench/notes-gpu.md, "Chunks on a whole node"): the
# model of -chunk-model.py over link/GEMM ratios r, Kt and GPU grids; run from bench/results:
#   python3 node-h200x4-20261127l-chunk-sweep.py 1x1,2x2,1x2
import importlib.util, sys
spec=importlib.util.spec_from_file_location("m","node-h200x4-20261127l-chunk-model.py"); 
src=open("node-h200x4-20261127l-chunk-model.py").read().split("nt=int(sys.argv")[0]
ns={}; exec(src, ns)
for G in [tuple(map(int,g.split("x"))) for g in sys.argv[1].split(",")]:
  for r in [0.47, 0.92, 1.5]:
    for nt in [4,8,16,24]:
        ns['TASK']=r*ns['TILE']
        res=[]
        for d in range(1,nt+1):
            w,q=ns['node'](nt,d,'shell',False,G); res.append((w,d,q))
        best=min(res); full=res[-1]
        near=[d for w,d,q in res if w<=best[0]*1.01]
        print(f"G={G} r={r} nt={nt}: best d={best[1]} {best[2]:.3f}, d=Kt {full[2]:.3f}, within 1%: {near}, d=max(2,Kt/4)={max(2,nt//4)}: {res[max(2,nt//4)-1][2]:.3f}")
