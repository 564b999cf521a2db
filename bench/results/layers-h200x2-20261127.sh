#!/usr/bin/env bash
# Device call (one node of 2 GPUs, nvidia-h100-x2), 2026-11-27: the layered schedule
# (--layers, compute/layers.h) on GPUs, each rank its own node (STARPU_GEMM_SHARE_NODE=0),
# ranks sharing the node's GPUs (scripts/gpu-per-rank.sh: rank r on GPU r mod 2): its partial
# tiles accumulated on the GPUs that hold C (cuBLAS geam, codelets/add_codelets.c), never run
# on a GPU before this call. Correctness and bytes, not speed (several ranks per GPU, no MPS).
# Prediction: every check PASSED; MPI measured = plan to the byte (as on the CPU, where
# tests/driver_node.sh holds it); host->GPU within 5% of the plan's (C's loads and the partials
# are counted from the mean tile); no error, no hang (each case under 60 s).
# Result (written after the call, layers-h200x2-20261127.log; the call ran on 2 x H200): all 8
# cases passed every check, no error; MPI measured = plan in every case (1.3, 1.3, 0.54,
# 0.94, 0.47, 2.6, 1.3 and, 2D, 1.1 GB); host->GPU equal to the plan's, or 3% under (2 GPUs per
# rank: 3.1 against 3.2 GB); GPU->host equal but in the z case (1.0 against 1.2 GB: 5 C tile
# columns on 2 ranks, the plan counts the busier rank's 3 for both, as in 2D).
set -u
. bundle/env.sh
export STARPU_HOSTNAME=gpu-node
sg=bundle/starpu-gemm
drv=$sg/build/drivers/starpu_gemm
nvidia-smi -L
show() { grep -E "^plan: b=|^plan: [0-9]+ layers|^plan: predicted|^iteration|^  (host -> GPU|GPU -> host|MPI)|rror|FAIL|starpu_gemm:"; }
case_() { # NAME RANKS GPUS_PER_RANK -- ARGS...
  local name=$1 np=$2 g=$3
  shift 4
  echo "== $name ($SECONDS s)"
  timeout -k 5 90 mpirun --allow-run-as-root --bind-to none --oversubscribe -np "$np" \
    -x LD_LIBRARY_PATH -x PATH -x STARPU_HOSTNAME -x STARPU_SILENT=1 \
    -x STARPU_GEMM_SHARE_NODE=0 -x SG_GPUS_PER_RANK="$g" -x STARPU_NCPU=0 \
    $sg/scripts/gpu-per-rank.sh "$drv" "$@" --check --niter 2 --warmup 1 2>&1 | show
  echo "rc=${PIPESTATUS[0]}"
}
case_ "d 2x2 ranks, 2 layers, beta 1" 4 1 -- -M 8192 -N 8192 -K 8192 -t 1024 -P 2 -Q 2 --layers 2
case_ "z 2x2, 2 layers, op(A) conjugated, beta 0" 4 1 -- -M 6144 -N 5120 -K 8192 -t 1024 -P 2 -Q 2 --layers 2 --prec z --transA C --beta 0
case_ "s 2x2, 2 layers, transposed B" 4 1 -- -M 8192 -N 8192 -K 8192 -t 1024 -P 2 -Q 2 --layers 2 --prec s --transB T
case_ "c 4x1, 2 layers, beta (0.5,0.25)" 4 1 -- -M 8192 -N 4096 -K 8192 -t 1024 -P 4 -Q 1 --layers 2 --prec c --beta 0.5,0.25
case_ "b 2x2, 2 layers (float C)" 4 1 -- -M 8192 -N 8192 -K 8192 -t 2048 -P 2 -Q 2 --layers 2 --prec b
case_ "d 2x4 ranks, 4 layers" 8 1 -- -M 8192 -N 8192 -K 8192 -t 1024 -P 2 -Q 4 --layers 4
case_ "d 2x2 ranks of 2 GPUs each, 2 layers (each GPU owns its C tiles)" 4 2 -- -M 8192 -N 8192 -K 8192 -t 1024 -P 2 -Q 2 --layers 2
case_ "d 2x2 ranks, 2D (--layers 1), the same product" 4 1 -- -M 8192 -N 8192 -K 8192 -t 1024 -P 2 -Q 2 --layers 1
echo "done ($SECONDS s)"
