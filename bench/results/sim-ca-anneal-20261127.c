/* SA with single-product and fiber moves, load-balance penalty (final states must be balanced).
   Usage: ./sa2 G restarts iters T W L seed   env: SEEDFILE/SEEDG (periodic seed), T0,T1
   Energy = W*sum_n((recv-T)_+ + (sent-T)_+) + sum recv + L*sum_n |load_n - G^3/16| */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <stdint.h>
static uint64_t rs=88172645463325252ULL;
static inline uint64_t xr(void){rs^=rs<<13;rs^=rs>>7;rs^=rs<<17;return rs;}
static inline double ur(void){return (xr()>>11)*(1.0/9007199254740992.0);}
int G,GG,P,PER; int *asg,*cA,*cB,*cC; int recv[16],sent[16],load[16]; long long sumR; int T,W,L;
static inline int own(int x,int y){return (x&3)*4+(y&3);}
static inline void addp(int n,int p,int d){
  int i=p/GG,j=(p/G)%G,k=p%G; int a=i*G+k,b=k*G+j,c=i*G+j; int oa=own(i,k),ob=own(k,j),oc=own(i,j);
  load[n]+=d;
  if(d>0){ if(cA[n*GG+a]++==0&&n!=oa){recv[n]++;sent[oa]++;sumR++;}
           if(cB[n*GG+b]++==0&&n!=ob){recv[n]++;sent[ob]++;sumR++;}
           if(cC[n*GG+c]++==0&&n!=oc){sent[n]++;recv[oc]++;sumR++;} }
  else { if(--cA[n*GG+a]==0&&n!=oa){recv[n]--;sent[oa]--;sumR--;}
         if(--cB[n*GG+b]==0&&n!=ob){recv[n]--;sent[ob]--;sumR--;}
         if(--cC[n*GG+c]==0&&n!=oc){sent[n]--;recv[oc]--;sumR--;} }
}
static inline long long energy(void){long long e=sumR; for(int n=0;n<16;n++){ if(recv[n]>T)e+=(long long)W*(recv[n]-T); if(sent[n]>T)e+=(long long)W*(sent[n]-T); e+=(long long)L*abs(load[n]-PER);} return e;}
static inline int balanced(void){for(int n=0;n<16;n++)if(load[n]!=PER)return 0;return 1;}
static inline int curmax(void){int m=0;for(int n=0;n<16;n++){if(recv[n]>m)m=recv[n];if(sent[n]>m)m=sent[n];}return m;}
static void build(void){ memset(cA,0,sizeof(int)*16*GG);memset(cB,0,sizeof(int)*16*GG);memset(cC,0,sizeof(int)*16*GG);
  memset(recv,0,sizeof recv);memset(sent,0,sizeof sent);memset(load,0,sizeof load);sumR=0; for(int p=0;p<P;p++)addp(asg[p],p,1);}
int mv[64],nmv; int *lst,*slt,cnt[16];
static inline void lrem(int n,int p){int s_=slt[p];int last=lst[n*P+ --cnt[n]];lst[n*P+s_]=last;slt[last]=s_;}
static inline void ladd(int n,int p){slt[p]=cnt[n];lst[n*P+cnt[n]++]=p;}
static void lbuild(void){memset(cnt,0,sizeof cnt);for(int p=0;p<P;p++)ladd(asg[p],p);}
int main(int argc,char**argv){
  G=atoi(argv[1]);int R=atoi(argv[2]);long long IT=atoll(argv[3]);T=atoi(argv[4]);W=atoi(argv[5]);L=atoi(argv[6]); int L0=L; double LR=getenv("LR")?atof(getenv("LR")):10;
  rs^=(uint64_t)atoll(argv[7])*0x9E3779B97F4A7C15ULL; for(int i=0;i<10;i++)xr();
  GG=G*G;P=G*GG;PER=P/16; asg=malloc(sizeof(int)*P);
  cA=malloc(sizeof(int)*16*GG);cB=malloc(sizeof(int)*16*GG);cC=malloc(sizeof(int)*16*GG);
  lst=malloc(sizeof(int)*16*P);slt=malloc(sizeof(int)*P); int *bestAsg=malloc(sizeof(int)*P); int gbM=1<<30; long long gbS=1LL<<60; double unit=(G/4)*(G/4);
  double T0=getenv("T0")?atof(getenv("T0")):2.0, T1=getenv("T1")?atof(getenv("T1")):0.05;
  for(int r=0;r<R;r++){
    const char*kn;
    if(getenv("SEEDFILE")&&!(getenv("MIX")&&(r&1))){ FILE*f=fopen(getenv("SEEDFILE"),"r"); int G0=atoi(getenv("SEEDG")); int *a0=malloc(sizeof(int)*G0*G0*G0); int i,j,k,n;
      while(fscanf(f,"%d %d %d %d",&i,&j,&k,&n)==4) a0[(i*G0+j)*G0+k]=n; fclose(f);
      for(int p=0;p<P;p++){int ii=p/GG,jj=(p/G)%G,kk=p%G; asg[p]=a0[((ii%G0)*G0+(jj%G0))*G0+(kk%G0)];} free(a0); kn="file"; }
    else if(getenv("SEED2D")){ for(int p=0;p<P;p++)asg[p]=own(p/GG,(p/G)%G); kn="2d"; }
    else { int *o=malloc(sizeof(int)*P); for(int t=0;t<P;t++)o[t]=t; for(int t=P-1;t>0;t--){int u=xr()%(t+1);int z=o[t];o[t]=o[u];o[u]=z;} for(int t=0;t<P;t++)asg[o[t]]=t/PER; free(o); kn="rand"; }
    build(); lbuild(); long long E=energy(); int bM=curmax(); long long bS=sumR; int m0=bM; long long s0=sumR;
    if(bM<gbM||(bM==gbM&&bS<gbS)){gbM=bM;gbS=bS;memcpy(bestAsg,asg,sizeof(int)*P);}
    for(long long it=0;it<IT;it++){
      double temp=T0*pow(T1/T0,(double)it/IT); if((it&1023)==0){ L=(int)(L0*(1.0+LR*(double)it/IT)); E=energy(); }
      int p=xr()%P; int x=asg[p]; int i=p/GG,j=(p/G)%G,k=p%G;
      int mt=xr()%6; /* 0: single, 1..3 fiber along i,j,k, 4,5 swap */
      /* target: node of a random neighbour along a random dim, else random */
      int y; { int d=xr()%3; int v=xr()%G; int q= d==0? (v*G+j)*G+k : d==1? (i*G+v)*G+k : (i*G+j)*G+v; y=asg[q]; if(y==x||(xr()&7)==0){ y=xr()%15; if(y>=x)y++; } }
      nmv=0;
      if(mt>=4){ int q=lst[y*P+xr()%cnt[y]]; addp(x,p,-1);addp(y,q,-1);addp(y,p,1);addp(x,q,1); long long E2=energy(); long long dE=E2-E;
        if(dE<=0||ur()<exp(-dE/temp)){ asg[p]=y;asg[q]=x; lrem(x,p);lrem(y,q);ladd(y,p);ladd(x,q); E=E2;
          if(balanced()){int m=curmax(); if(m<bM||(m==bM&&sumR<bS)){bM=m;bS=sumR; if(bM<gbM||(bM==gbM&&bS<gbS)){gbM=bM;gbS=bS;memcpy(bestAsg,asg,sizeof(int)*P);}}}
        } else {addp(x,q,-1);addp(y,p,-1);addp(y,q,1);addp(x,p,1);}
        continue; }
      if(mt==0) mv[nmv++]=p;
      else for(int v=0;v<G;v++){ int q= mt==1? (v*G+j)*G+k : mt==2? (i*G+v)*G+k : (i*G+j)*G+v; if(asg[q]==x) mv[nmv++]=q; }
      for(int t=0;t<nmv;t++){addp(x,mv[t],-1);addp(y,mv[t],1);}
      long long E2=energy(); long long dE=E2-E;
      if(dE<=0||ur()<exp(-dE/temp)){ for(int t=0;t<nmv;t++){asg[mv[t]]=y;lrem(x,mv[t]);ladd(y,mv[t]);} E=E2;
        if(balanced()){int m=curmax(); if(m<bM||(m==bM&&sumR<bS)){bM=m;bS=sumR; if(bM<gbM||(bM==gbM&&bS<gbS)){gbM=bM;gbS=bS;memcpy(bestAsg,asg,sizeof(int)*P);}}}
      } else for(int t=0;t<nmv;t++){addp(y,mv[t],-1);addp(x,mv[t],1);}
    }
    { int guard=0; while(!balanced() && guard++<100000){ long long bestd=1LL<<60; int bp=-1,bx=-1,by=-1;
        for(int x=0;x<16;x++) if(load[x]>PER) for(int y=0;y<16;y++) if(load[y]<PER) for(int t=0;t<cnt[x];t++){int p=lst[x*P+t]; addp(x,p,-1);addp(y,p,1); long long e=energy(); if(e<bestd){bestd=e;bp=p;bx=x;by=y;} addp(y,p,-1);addp(x,p,1);}
        addp(bx,bp,-1);addp(by,bp,1);asg[bp]=by;lrem(bx,bp);ladd(by,bp); }
      int m=curmax(); printf("  final(repaired) max=%d sum=%lld\n",m,sumR); if(m<bM||(m==bM&&sumR<bS)){bM=m;bS=sumR; if(bM<gbM||(bM==gbM&&bS<gbS)){gbM=bM;gbS=bS;memcpy(bestAsg,asg,sizeof(int)*P);}} }
    printf("restart %d seed=%s start max=%d(%.2fu) sum=%lld(%.2fu) -> best balanced max=%d (%.3f u) sum=%lld (%.2f u)\n",r,kn,m0,m0/unit,s0,s0/unit,bM,bM/unit,bS,bS/unit); fflush(stdout);
  }
  printf("GLOBAL G=%d best max=%d blocks = %.3f units, sum recv=%lld blocks = %.2f units\n",G,gbM,gbM/unit,gbS,gbS/unit);
  memcpy(asg,bestAsg,sizeof(int)*P); build(); for(int n=0;n<16;n++)printf(" node(%d,%d) recv=%d sent=%d load=%d\n",n/4,n%4,recv[n],sent[n],load[n]);
  char fn[64];sprintf(fn,"best2_G%d_%s.txt",G,argv[7]);FILE*f=fopen(fn,"w");for(int p=0;p<P;p++)fprintf(f,"%d %d %d %d\n",p/GG,(p/G)%G,p%G,asg[p]);fclose(f);
  return 0;
}
