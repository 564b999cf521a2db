/* Exact check for G=4: max<=5 requires every node f=|A|+|B|+|C|-owned_used = 5
   (since |A|+|B|+|C|>=8 for 4 products by Loomis-Whitney, owned<=3, and sum recv = sum f).
   Enumerate all 4-subsets with f=5 per node, exact-cover the 64 products, check recv=sent=5. */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
typedef unsigned long long u64;
#define P 64
static int pi(int p){return p>>4;} static int pj(int p){return (p>>2)&3;} static int pk(int p){return p&3;}
/* product p = i*16+j*4+k */
typedef struct {u64 m; int node;} Cand;
Cand *byLow[P]; int nLow[P], capLow[P];
long long nsol=0, ngood=0; int chosen[16]; u64 chosenM[16];
int usedNode=0;
static void add(int low,u64 m,int n){ if(nLow[low]==capLow[low]){capLow[low]=capLow[low]?2*capLow[low]:1024; byLow[low]=realloc(byLow[low],capLow[low]*sizeof(Cand));} byLow[low][nLow[low]].m=m; byLow[low][nLow[low]].node=n; nLow[low]++; }
static void evaluate(void){
  /* node n owns A(r,q),B(r,q),C(r,q) with n=r*4+q */
  int useA[16]={0},useB[16]={0},useC[16]={0}; /* bitmask over nodes per block */
  for(int n=0;n<16;n++){u64 m=chosenM[n]; for(int p=0;p<P;p++) if(m>>p&1){ useA[pi(p)*4+pk(p)]|=1<<n; useB[pk(p)*4+pj(p)]|=1<<n; useC[pi(p)*4+pj(p)]|=1<<n; }}
  int recv[16]={0},sent[16]={0};
  for(int b=0;b<16;b++){ int o=b; /* owner index = block index */
    for(int n=0;n<16;n++){ if(n==o) continue;
      if(useA[b]>>n&1){recv[n]++;sent[o]++;}
      if(useB[b]>>n&1){recv[n]++;sent[o]++;}
      if(useC[b]>>n&1){sent[n]++;recv[o]++;} } }
  int mx=0; for(int n=0;n<16;n++){ if(recv[n]>mx)mx=recv[n]; if(sent[n]>mx)mx=sent[n]; }
  nsol++;
  if(mx<=5){ ngood++; if(ngood<=3){ printf("FOUND max=%d\n",mx); for(int n=0;n<16;n++){printf(" node(%d,%d):",n/4,n%4); for(int p=0;p<P;p++) if(chosenM[n]>>p&1) printf(" (%d,%d,%d)",pi(p),pj(p),pk(p)); printf("  recv=%d sent=%d\n",recv[n],sent[n]);} } }
}
static void search(u64 cov){
  if(cov==~0ULL){evaluate();return;}
  int low=__builtin_ctzll(~cov);
  for(int c=0;c<nLow[low];c++){ Cand *x=&byLow[low][c]; if(usedNode>>x->node&1) continue; if(x->m&cov) continue;
    usedNode|=1<<x->node; chosenM[x->node]=x->m; search(cov|x->m); usedNode&=~(1<<x->node); }
}
int main(){
  long long tot=0; int perNode[16]={0};
  for(int n=0;n<16;n++){int r=n/4,q=n%4;
    for(int a=0;a<P;a++)for(int b=a+1;b<P;b++)for(int c=b+1;c<P;c++)for(int d=c+1;d<P;d++){
      int ps[4]={a,b,c,d}; unsigned A=0,B=0,C=0;
      for(int t=0;t<4;t++){int p=ps[t]; A|=1u<<(pi(p)*4+pk(p)); B|=1u<<(pk(p)*4+pj(p)); C|=1u<<(pi(p)*4+pj(p));}
      int own=r*4+q; int ou=(A>>own&1)+(B>>own&1)+(C>>own&1);
      int f=__builtin_popcount(A)+__builtin_popcount(B)+__builtin_popcount(C)-ou;
      if(f<5){printf("f<5?? impossible\n");}
      if(f==5){ u64 m=(1ULL<<a)|(1ULL<<b)|(1ULL<<c)|(1ULL<<d); add(a,m,n); perNode[n]++; tot++; }
    }}
  printf("candidate sets with f=5: total %lld; per node:",tot); for(int n=0;n<16;n++)printf(" %d",perNode[n]); printf("\n");
  search(0);
  printf("exact covers with all f=5: %lld ; of these with max(recv,sent)<=5: %lld\n",nsol,ngood);
  return 0;
}
