# Issue 28: is there a communication-avoiding assignment of a 4 x 4 node grid's work that moves
# fewer bytes per node than the 2D one? Cells (i mod M, j mod M, k mod M) of the product are dealt
# to 16 nodes (owners of A, B, C: 2D block-cyclic on 4 x 4, as the inputs arrive), 4 cells
# each for M = 4; a node receives the A and B classes it needs but does not own, and the
# partial C classes of the C it owns computed elsewhere. Simulated annealing from the 2D
# assignment and random ones; prints the most any node sends or receives, in units of n^2/M^2.
#   python3 bench/results/sim-ca-search-20261127.py M TRIALS [ITERATIONS]
import random, itertools, sys
M=int(sys.argv[1]) if len(sys.argv)>1 else 4   # classes per dim (multiple of 4)
P=4; NN=16
cells=[(i,j,k) for i in range(M) for j in range(M) for k in range(M)]
per=len(cells)//NN
def ownerA(i,k): return (i%P)*P+(k%P)
def ownerB(k,j): return (k%P)*P+(j%P)
def ownerC(i,j): return (i%P)*P+(j%P)
def cost(assign):
    recv=[0]*NN; sent=[0]*NN
    needA={}; needB={}; holdC={}
    for c,n in assign.items():
        i,j,k=c
        needA.setdefault((i,k),set()).add(n)
        needB.setdefault((k,j),set()).add(n)
        holdC.setdefault((i,j),set()).add(n)
    for (i,k),s in needA.items():
        o=ownerA(i,k)
        for n in s:
            if n!=o: recv[n]+=1; sent[o]+=1
    for (k,j),s in needB.items():
        o=ownerB(k,j)
        for n in s:
            if n!=o: recv[n]+=1; sent[o]+=1
    for (i,j),s in holdC.items():
        o=ownerC(i,j)
        for n in s:
            if n!=o: recv[o]+=1; sent[n]+=1
    m=max(max(recv),max(sent))
    return m, sum(recv)
# 2D start
a2={c:ownerC(c[0],c[1]) for c in cells}
print("2D", cost(a2), "per node units of n^2:", cost(a2)[0]/M/M)
best=None
for trial in range(int(sys.argv[2]) if len(sys.argv)>2 else 20):
    assign=dict(a2) if trial==0 else None
    if assign is None:
        nodes=[n for n in range(NN) for _ in range(per)]; random.shuffle(nodes)
        assign={c:nodes[x] for x,c in enumerate(cells)}
    cur=cost(assign); T=2.0
    for it in range(int(sys.argv[3]) if len(sys.argv)>3 else 40000):
        c1,c2=random.sample(cells,2)
        if assign[c1]==assign[c2]: continue
        assign[c1],assign[c2]=assign[c2],assign[c1]
        new=cost(assign)
        if new<=cur or random.random()<pow(2.718,-( (new[0]-cur[0])*10+(new[1]-cur[1])*0.1)/T):
            cur=new
        else:
            assign[c1],assign[c2]=assign[c2],assign[c1]
        T*=0.9998
    if best is None or cur<best[0]: best=(cur,dict(assign))
    print(trial,cur,cur[0]/M/M)
print("best",best[0],best[0][0]/M/M)
