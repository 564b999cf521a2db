#!/usr/bin/env bash
# Device call X (4 x H200), code at the session's head:
# 1. issue 29's one call on all 4 GPUs, n = 49152, with the GPUs relaying A and B tiles over
#    NVLink (--gpu-peers on) against the default (off for DGEMM), alternated, the driver beside.
#    The staged door is bound by the node's memory (call W: 1.39-1.43 s a call, 0.82-0.84 x);
#    relays take the second read of each A and B tile off host memory (38.7 of ~231 GB a call).
#    Prediction: 1.20-1.30 s, 0.85-0.93 x the driver.
# 2. issue 27's 2 ranks x 2 GPUs, each rank its own node, n = 32768: StarPU-MPI's concurrent
#    detached sends (STARPU_MPI_NDETACHED_SEND, default 10) against 2 and 1, so that a tile
#    arrives whole before the next instead of all of a chunk's together. Simulation (2 nodes,
#    3.33 GB/s): 5.92 -> 5.80 s. Prediction: 0-3% faster (call P: 1.44-1.69 s).
set -u
. bundle/env.sh
export STARPU_HOSTNAME=gpu-node NCCL_NVLS_ENABLE=0
bld=bundle/starpu-gemm/build
drv=$bld/drivers/starpu_gemm
mpi=(mpirun --allow-run-as-root --bind-to none -x LD_LIBRARY_PATH -x STARPU_HOME -x STARPU_HOSTNAME -x STARPU_SILENT)
sel='^iteration|starpu_gemm: dgemm|rror'
clean() { sed 's/ (.* per GPU)//; s/, check: PASSED.*/, PASSED/; s/.*copier threads), beta\*C added on the way back: //; s/ of it pinning 0.000;//'; }
nvidia-smi -L | head -1
echo "== driver 1x4 n=49152 ($SECONDS s)"
STARPU_NCUDA=4 timeout 80 "${mpi[@]}" -x STARPU_NCUDA -np 1 $drv --sizes 49152 --niter 3 --warmup 1 2>&1 | grep -E "$sel" | clean
for peers in on auto on auto; do
  [ $SECONDS -gt 300 ] && { echo "skipped lapack gpu-peers=$peers: $SECONDS s"; continue; }
  echo "== lapack n=49152 --gpu-peers $peers ($SECONDS s)"
  STARPU_NCUDA=4 STARPU_GEMM_VERBOSE=1 timeout 80 "${mpi[@]}" -x STARPU_NCUDA -x STARPU_GEMM_VERBOSE -np 1 $drv --layout lapack \
    --sizes 49152 --niter 3 --warmup 1 --gpu-peers $peers --check 2>&1 | grep -E "$sel|GPU <-> GPU|host -> GPU" | clean
done
echo "== mpi_rate 2 ranks ($SECONDS s)"
timeout 60 "${mpi[@]}" -np 2 $bld/bench/mpi_rate --rounds 5 2>&1 | grep median
for nd in 10 2 1 10 2 1; do
  [ $SECONDS -gt 540 ] && { echo "skipped nd=$nd: $SECONDS s"; continue; }
  echo "== 2x2 own node n=32768 STARPU_MPI_NDETACHED_SEND=$nd ($SECONDS s)"
  STARPU_MPI_NDETACHED_SEND=$nd SG_GPUS_PER_NODE=4 SG_GPUS_PER_RANK=2 STARPU_GEMM_SHARE_NODE=0 timeout 70 "${mpi[@]}" \
    -x STARPU_MPI_NDETACHED_SEND -x SG_GPUS_PER_NODE -x SG_GPUS_PER_RANK -x STARPU_GEMM_SHARE_NODE -np 2 \
    bundle/starpu-gemm/scripts/gpu-per-rank.sh $drv --sizes 32768 -P 1 -Q 2 --check --niter 3 --warmup 1 2>&1 | grep -E "^iteration|rror" | clean
done
echo "done $SECONDS s"
