#!/usr/bin/env bash
# Device call K: after the review mends (sends checked against StarPU-MPI's send cache, the
# cache flushed at the end of each walk, no fetch of received tiles without the cache):
# checked runs across ranks on the node's GPUs, n = 16384, two products per run.
set -u
. bundle/env.sh
export STARPU_HOSTNAME=gpu-node NCCL_NVLS_ENABLE=0
drv=bundle/starpu-gemm/build/drivers/starpu_gemm
mpi=(mpirun --allow-run-as-root --bind-to none -x LD_LIBRARY_PATH -x STARPU_HOME -x STARPU_HOSTNAME -x STARPU_SILENT)
for cache in 1 0; do
  echo "== 2 ranks x 2 GPUs, each its own node, STARPU_MPI_CACHE=$cache"
  STARPU_MPI_CACHE=$cache STARPU_GEMM_SHARE_NODE=0 SG_GPUS_PER_RANK=2 timeout 100 "${mpi[@]}" -x STARPU_MPI_CACHE -x STARPU_GEMM_SHARE_NODE -x SG_GPUS_PER_RANK -np 2 \
    bundle/starpu-gemm/scripts/gpu-per-rank.sh "$drv" --check --sizes 16384 -P 2 -Q 1 --niter 2 --warmup 1 2>&1 |
    grep -E "^iteration|  MPI  |host -> GPU|error|ssert"
done
echo "== 4 ranks x 1 GPU, each its own node"
STARPU_GEMM_SHARE_NODE=0 timeout 100 "${mpi[@]}" -x STARPU_GEMM_SHARE_NODE -np 4 bundle/starpu-gemm/scripts/gpu-per-rank.sh "$drv" --check --sizes 16384 -P 2 -Q 2 --niter 2 --warmup 1 2>&1 |
  grep -E "^iteration|  MPI  |host -> GPU|error|ssert"
echo "done $SECONDS s"
