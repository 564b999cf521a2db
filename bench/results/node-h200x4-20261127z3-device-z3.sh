#!/usr/bin/env bash
# Device call Z3 (4 x H200), 2026-11-27 evening: the planner's new chunk depth across nodes,
# lcm(P, Q) k steps a chunk (compute/plan.c, net_chunk_depth), on one node with each rank its
# own node (STARPU_GEMM_SHARE_NODE=0, tiles through MPI at ~3 GB/s per rank), n = 32768
# (Kt = 8: the old rule took d = 1, the new d = 2), alternated with -d 1, 3 checked runs each:
#   4 ranks x 1 GPU, grid 2 x 2: with d = 1 half of the chunks bring a rank no A (or no B)
#   tile and the others one panel from each peer; with d = 2 every chunk one of each.
#   Prediction (simulated 4 nodes x 4 GPUs at 200 Gb/s: 184 -> 328 TFLOP/s): d = 2 10-40%
#   faster; each run near its network term (printed: STARPU_GEMM_MPI_GBPS from bench/mpi_rate
#   in the same call);
#   2 ranks x 2 GPUs, grid 1 x 2: prediction: within 5% either way (call P: d = 1 and d = 4 alike);
# then the GPU tests on the final code.
set -u
. bundle/env.sh
export STARPU_HOSTNAME=gpu-node NCCL_NVLS_ENABLE=0
bld=bundle/starpu-gemm/build
drv=$bld/drivers/starpu_gemm
mpi=(mpirun --allow-run-as-root --bind-to none -x LD_LIBRARY_PATH -x STARPU_HOME -x STARPU_HOSTNAME -x STARPU_SILENT)
clean() { sed 's/ (.* per GPU)//; s/, check: PASSED.*/, PASSED/'; }
nvidia-smi -L | head -1
for np in 4 2; do
  rate=$(timeout 40 "${mpi[@]}" -np $np $bld/bench/mpi_rate --rounds 5 2>&1 | grep median | awk -F, '{print $(NF-3)}')
  echo "== MPI rate among $np ranks: $rate GB/s per rank ($SECONDS s)"
  if [ $np = 4 ]; then grid=(-P 2 -Q 2); per=1; else grid=(-P 1 -Q 2); per=2; fi
  for round in 1 2; do
    for d in auto 1; do
      opt=(); [ $d != auto ] && opt=(-d $d)
      echo "== $np ranks x $per GPU(s), each its own node, n=32768, d=$d, round $round ($SECONDS s)"
      STARPU_GEMM_MPI_GBPS=$rate SG_GPUS_PER_NODE=4 SG_GPUS_PER_RANK=$per STARPU_GEMM_SHARE_NODE=0 timeout 100 "${mpi[@]}" \
        -x STARPU_GEMM_MPI_GBPS -x SG_GPUS_PER_NODE -x SG_GPUS_PER_RANK -x STARPU_GEMM_SHARE_NODE -np $np \
        bundle/starpu-gemm/scripts/gpu-per-rank.sh $drv --sizes 32768 "${grid[@]}" "${opt[@]}" --check --niter 3 --warmup 1 2>&1 |
        grep -E "^plan: b=|^iteration|network term [0-9.]* s per run|rror" | clean
    done
  done
done
left=$((590 - SECONDS))
echo "== GPU tests ($SECONDS s, $left s left)"
( top_srcdir=bundle/starpu-gemm top_builddir=bundle/starpu-gemm/build timeout $left bundle/starpu-gemm/tests/gpu.sh ) > "$OUT/gpu-tests.log" 2>&1
echo "gpu tests rc=$? at $SECONDS s: $(tail -1 "$OUT/gpu-tests.log")"
echo "done $SECONDS s"
