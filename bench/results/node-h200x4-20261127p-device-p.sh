#!/usr/bin/env bash
# Device call P (4 x H200): (1) bench/stage_rate: the caller's pageable array to all 4 GPUs by
# the door's staging (copy into whole pinned tiles, then DMA) against a ring of small pinned
# slots per copier that its GPU reads at once (from the cache). Prediction: stage ~45-60 GB/s
# (the node's memory: 3 passes per byte), ring >= 1.5 x stage at 16+ copiers if the GPUs'
# reads hit the cache, else about the same. (2) 2 ranks x 2 GPUs each its own node at
# n = 32768: sensitivity of the MPI-bound time to the window (lookahead) and chunk depth, the
# 2-rank MPI rate beside it. Prediction: within 5% of each other (the sim: within 0.3%).
set -u
. bundle/env.sh
export STARPU_HOSTNAME=gpu-node NCCL_NVLS_ENABLE=0
bld=bundle/starpu-gemm/build
lscpu | grep -E "Model name|Socket|NUMA|L3|^CPU\(s\)"
nvidia-smi -L | head -4
echo "== stage_rate n=32768 slots 2048 KiB ($SECONDS s)"
timeout 150 $bld/bench/stage_rate -n 32768 --slot-kib 2048 2>&1 | tail -20
echo "== stage_rate n=16384 slots 512 KiB ($SECONDS s)"
timeout 60 $bld/bench/stage_rate -n 16384 --slot-kib 512 2>&1 | grep ring
mpi=(mpirun --allow-run-as-root --bind-to none -x LD_LIBRARY_PATH -x STARPU_HOME -x STARPU_HOSTNAME -x STARPU_SILENT)
echo "== mpi_rate 2 ranks ($SECONDS s)"
timeout 60 "${mpi[@]}" -np 2 $bld/bench/mpi_rate --rounds 5 2>&1 | tail -3
for v in "" "-l 3" "-d 1 -l 4" "-d 4 -l 1" ""; do
  [ $SECONDS -gt 480 ] && { echo "skipped '$v': $SECONDS s"; continue; }
  echo "== 2x2 own node n=32768 [$v] ($SECONDS s)"
  SG_GPUS_PER_NODE=4 SG_GPUS_PER_RANK=2 STARPU_GEMM_SHARE_NODE=0 timeout 90 "${mpi[@]}" \
    -x SG_GPUS_PER_NODE -x SG_GPUS_PER_RANK -x STARPU_GEMM_SHARE_NODE -np 2 \
    bundle/starpu-gemm/scripts/gpu-per-rank.sh $bld/drivers/starpu_gemm --sizes 32768 -P 1 -Q 2 \
    --check --niter 4 --warmup 1 $v 2>&1 | grep -E "^plan: b=|^iteration|timeline|MPI  |rror"
done
echo "done $SECONDS s"
