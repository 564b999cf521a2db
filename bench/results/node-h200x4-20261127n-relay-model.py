# 1 rank x 4 GPUs (2x2), GPU of C(i,j) = (i%2, j%2); optional relays: A(i,k) loaded by the GPU
# of row i%2 in column k%2, B(k,j) by the GPU of column j%2 in row k%2; the other copies it
# over NVLink (nv ms). Each link serves its requests in the walk's global order (priorities).
import sys
src=open("node-h200x4-20261127l-chunk-model.py").read().split("nt=int(sys.argv")[0]
ns={}; exec(src, ns)
def run(nt, d, TILE, TASK, CW, relays, nv=1.0, c_late=False):
    tasks=ns['walk'](nt,d,'shell')
    gpu=lambda i,j:(i%2)*2+j%2
    reqs={g:[] for g in range(4)}   # per link: (tile) in order of first request
    seen=set()
    def loader(x,g):
        if not relays or x[0]=='C': return g
        if x[0]=='A': return (g//2)*2 + x[2]%2
        return (x[1]%2)*2 + g%2
    for (i,j,k) in tasks:
        g=gpu(i,j)
        need=[('A',i,k),('B',k,j)] + ([('C',i,j)] if k==0 and not c_late else [])
        for x in need:
            l=loader(x,g)
            if (x,l) not in seen: seen.add((x,l)); reqs[l].append(x)
    done={}
    for l in range(4):
        t=0.0
        for x in reqs[l]:
            t+=TILE*(CW if x[0]=='C' else 1); done[(x,l)]=t
    worst=0
    for g in range(4):
        t=0.0; last=[]
        for (i,j,k) in tasks:
            if gpu(i,j)!=g: continue
            need=[('A',i,k),('B',k,j)] + ([('C',i,j)] if k==0 and not c_late else [])
            ready=0
            for x in need:
                l=loader(x,g); r=done[(x,l)] + (nv if l!=g else 0); ready=max(ready,r)
            t=max(t,ready)+TASK
            if k==nt-1: last.append(t)
        down=0
        for te in sorted(last): down=max(down,te)+TILE*CW
        worst=max(worst,down)
    return worst
if __name__=="__main__":
    for t,nt,TILE,TASK in [(8192,8,2.9,1.575),(4096,16,0.725,0.197)]:
        for relays in [0,1]:
            for d in sorted(set([nt, nt//2, nt//4, 2])):
                print(f"bf16 t={t} relays={relays} d={d}: {run(nt,d,TILE,TASK,2,relays):.1f} ms (compute {nt**3*TASK/4:.1f})")
    for d in [8,4,2]:
        print(f"dgemm t=4096 relays=1 d={d}: {run(8,d,2.9,2.66,1,1):.1f} ms; relays=0: {run(8,d,2.9,2.66,1,0):.1f}")
