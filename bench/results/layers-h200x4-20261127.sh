#!/usr/bin/env bash
# Device call (4 x H200 node, nvidia-h200-x4), 2026-11-27 evening: the layered schedule
# measured with each rank its own node (issue 28: bytes equal the plan, time against its
# roofline), BF16 1 x 4 with C kept at home (issue 27's missed line), then the GPU tests.
# Predictions (written before the call):
# - MPI rate among 4 ranks: 3.3-3.5 GB/s per rank (calls Z2, Z3).
# - 4 ranks x 1 GPU, 2 x 2, n = 32768: 2D moves 4.29 GB per rank (Z3: 1.47-1.57 s, 1.21-1.25 x
#   its network term); 2 layers (1 x 2 of 2 x 1) move 20% more (5.15 GB, the planner's
#   count: layers cannot cut bytes on 4 ranks, which is why it never picks them there):
#   network term ~1.5 s, runs 1.8-1.9 s (the same 1.2 x); MPI measured = plan to the byte.
# - BF16 1 x 4, n = 65536, beta = 1: default 0.31-0.33 s (Z1: 0.317-0.323); --c-home: C
#   (float, 17.2 GB) not loaded, T written back instead and added on the host by one CPU
#   worker with helpers: 0.27-0.35 s (beta = 0's 0.264 s is the floor).
# Result (written after the call, layers-h200x4-20261127.log): MPI rate 3.563 GB/s per rank.
# - 2 layers: 2.165 / 2.166 / 2.234 s, all checks passed, MPI 21.5 GB = plan 21.5, host->GPU
#   42.6 against 42.9, GPU->host 17.7 against 17.2; 1.45 x its network term (1.507 s): 0.69
#   of its roofline with the MPI term. Predicted 1.8-1.9 s: slower, since the partials (2.15 GB
#   per rank) all complete in the last of 4 chunks and cross MPI at 3.6 GB/s after it.
# - 2D: 1.464 / 1.355 / 1.362 s, 1.16 x its network term (1.205 s): 0.89. As predicted.
# - BF16 default 0.306 / 0.319 / 0.312 s (predicted 0.31-0.33); --c-home 1.42 / 1.13 / 1.08 s
#   (predicted 0.27-0.35: missed; one CPU worker's adds of a float C of 17.2 GB are the
#   bound). Keeping C at home is no way to issue 27's BF16 line.
# - GPU tests: 0 failures (layers-h200x4-20261127-gpu-tests.log).
set -u
. bundle/env.sh
export STARPU_HOSTNAME=gpu-node NCCL_NVLS_ENABLE=0
bld=bundle/starpu-gemm/build
drv=$bld/drivers/starpu_gemm
mpi=(mpirun --allow-run-as-root --bind-to none -x LD_LIBRARY_PATH -x STARPU_HOME -x STARPU_HOSTNAME -x STARPU_SILENT)
clean() { sed 's/ (.* per GPU)//; s/, check: PASSED.*/, PASSED/'; }
nvidia-smi -L | head -1
rate=$(timeout 40 "${mpi[@]}" -np 4 $bld/bench/mpi_rate --rounds 5 2>&1 | grep median | awk -F, '{print $(NF-3)}')
echo "== MPI rate among 4 ranks: $rate GB/s per rank ($SECONDS s)"
for layers in 2 1; do
  echo "== 4 ranks x 1 GPU, each its own node, 2 x 2, n=32768, --layers $layers ($SECONDS s)"
  STARPU_GEMM_MPI_GBPS=$rate SG_GPUS_PER_NODE=4 SG_GPUS_PER_RANK=1 STARPU_GEMM_SHARE_NODE=0 timeout 120 "${mpi[@]}" \
    -x STARPU_GEMM_MPI_GBPS -x SG_GPUS_PER_NODE -x SG_GPUS_PER_RANK -x STARPU_GEMM_SHARE_NODE -np 4 \
    bundle/starpu-gemm/scripts/gpu-per-rank.sh $drv --sizes 32768 -P 2 -Q 2 --layers $layers --check --niter 3 --warmup 1 2>&1 |
    grep -E "^plan: b=|^plan: [0-9]+ layers|^plan: predicted|^iteration|^  (MPI|host -> GPU|GPU -> host) |network term [0-9.]* s per run|rror" | clean
done
for home in "" "--c-home"; do
  echo "== BF16 1 rank x 4 GPUs, n=65536, beta 1 ${home:-(default)} ($SECONDS s)"
  STARPU_NCUDA=4 timeout 150 "${mpi[@]}" -x STARPU_NCUDA -np 1 $drv --sizes 65536 --prec b $home --niter 3 --warmup 1 2>&1 |
    grep -E "^plan: b=|^plan: C stays|^plan: predicted|^iteration|^  (host -> GPU|GPU -> host|GPU <-> GPU) |rror" | clean
done
left=$((585 - SECONDS))
echo "== GPU tests ($SECONDS s, $left s left)"
( top_srcdir=bundle/starpu-gemm top_builddir=bundle/starpu-gemm/build timeout $left bundle/starpu-gemm/tests/gpu.sh ) > "$OUT/gpu-tests.log" 2>&1
echo "gpu tests rc=$? at $SECONDS s: $(tail -1 "$OUT/gpu-tests.log")"
echo "done $SECONDS s"
