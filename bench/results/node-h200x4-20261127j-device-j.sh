#!/usr/bin/env bash
# Device call J: the GPU tests after tiles of other ranks are registered at first use and
# send-only tasks became sends; then checked runs across ranks on the node's GPUs: 2 ranks x
# 2 GPUs each its own node (tiles through MPI) and 4 ranks x 1 GPU sharing tiles, n = 16384.
set -u
. bundle/env.sh
export STARPU_HOSTNAME=gpu-node NCCL_NVLS_ENABLE=0
( top_srcdir=bundle/starpu-gemm top_builddir=bundle/starpu-gemm/build timeout 260 bundle/starpu-gemm/tests/gpu.sh ) > "$OUT/gpu-tests.log" 2>&1
echo "gpu tests rc=$? at $SECONDS s: $(tail -1 "$OUT/gpu-tests.log")"
drv=bundle/starpu-gemm/build/drivers/starpu_gemm
mpi=(mpirun --allow-run-as-root --bind-to none -x LD_LIBRARY_PATH -x STARPU_HOME -x STARPU_HOSTNAME -x STARPU_SILENT)
echo "== 2 ranks x 2 GPUs, each its own node"
STARPU_GEMM_SHARE_NODE=0 SG_GPUS_PER_RANK=2 timeout 120 "${mpi[@]}" -x STARPU_GEMM_SHARE_NODE -x SG_GPUS_PER_RANK -np 2 \
  bundle/starpu-gemm/scripts/gpu-per-rank.sh "$drv" --check --sizes 16384 -P 2 -Q 1 --niter 2 --warmup 1 2>&1 |
  grep -E "^iteration|submission|  MPI  |host -> GPU|error"
echo "== 4 ranks x 1 GPU, sharing tiles"
timeout 120 "${mpi[@]}" -np 4 bundle/starpu-gemm/scripts/gpu-per-rank.sh "$drv" --check --sizes 16384 -P 2 -Q 2 --niter 2 --warmup 1 2>&1 |
  grep -E "^iteration|submission|  MPI  |host -> GPU|error"
echo "done $SECONDS s"
