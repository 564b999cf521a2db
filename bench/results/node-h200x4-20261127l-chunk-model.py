# Per-GPU pipeline model of 1 rank x 4 GPUs (2x2 GPU grid, GPU of C(i,j) = (i%2, j%2)), n = 32768,
# t = 4096: each GPU's link loads tiles in its tasks' order (44 GB/s with four loading: 2.9 ms
# a tile), the GPU runs its tasks in order (2.66 ms each), C tiles go down after their last task.
import sys
TILE, TASK = 2.9, 2.66
def shells(rows, cols):
    out=[(0,0)]; di=dj=0
    for s in range(1, max(rows,cols)):
        if s < cols: out += [(i, s) for i in range(min(s, rows))]
        if s < rows: out += [(s, j) for j in range(min(s+1, cols))]
    return out
def walk(nt, d, order='shell'):
    tasks=[]
    for k0 in range(0, nt, d):
        tiles = shells(nt, nt) if order=='shell' else [(i,j) for i in range(nt) for j in range(nt)]
        if order=='kouter':
            tasks += [(i,j,k) for k in range(k0,k0+d) for (i,j) in tiles]
        else:
            tasks += [(i,j,k) for (i,j) in tiles for k in range(k0,min(nt,k0+d))]
    return tasks
def gpu_run(tasks, nt, c_late=False):
    link=0.0; ready={}; t=0.0; last={}
    for (i,j,k) in tasks:
        need=[('A',i,k),('B',k,j)]
        if k==0 and not c_late: need.insert(0,('C',i,j))
        for x in need:
            if x not in ready: link+=TILE; ready[x]=link
        t=max(t,max(ready[x] for x in need))+TASK
        if k==nt-1: last[(i,j)]=t
    down=0.0
    for ij,te in sorted(last.items(), key=lambda x:x[1]):
        if c_late: link+=TILE; te=max(te,link)+0.2
        down=max(down,te)+TILE
    return down
def node(nt, d, order='shell', c_late=False, G=(2,2)):
    tasks=walk(nt,d,order); worst=0
    for g in range(G[0]*G[1]):
        mine=[x for x in tasks if (x[0]%G[0])*G[1]+x[1]%G[1]==g]
        worst=max(worst,gpu_run(mine,nt,c_late))
    ideal=nt**3*TASK/(G[0]*G[1])
    return worst, ideal/worst
nt=int(sys.argv[1]) if len(sys.argv)>1 else 8
for d in [nt, 4, 2, 1]:
    for order in ['shell','kouter']:
        for cl in [False, True]:
            w,r=node(nt,d,order,cl); print(f"nt={nt} d={d} {order:6s} C late={cl!s:5s}: {w:7.1f} ms, {r:.3f}")
