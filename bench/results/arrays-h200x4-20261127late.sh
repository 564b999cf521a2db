#!/usr/bin/env bash
# Device call (4 x H200, nvidia-h200-x4), 2026-11-27 late evening: issue 29's doors after the
# session's changes to the one call (doors/gemm.c: which operands are staged now comes from one
# helper shared with starpu_gemm_gemm_staged_bytes; the layers, which the doors never take).
# bench/arrays.sh, n = 49152, every GPU: the driver, starpu_gemm_gemm on malloc'ed arrays, the
# preloaded dgemm_. Prediction: as call Z1 (0.863 and 0.804 x the driver), within +-3%: no
# change meant to move them.
# Result: driver 202.1 TFLOP/s, starpu_gemm_gemm 157.9 (0.782), preload 157.9 (0.782): below Z1's
# 0.863 and 0.804. The next call (arrays-ab-h200x4-20261127.*) ran the session's start and end
# side by side on one node: equal, 1.27-1.36 s, so not a change of the code.
set -u
. bundle/env.sh
export STARPU_HOSTNAME=gpu-node NCCL_NVLS_ENABLE=0
N_LIST=49152 PRELOAD_N=49152 CASES="driver gemm-pageable preload" ARRAYS_GPUS="all" \
  BUNDLE=bundle OUT=$OUT/arrays scripts/device-session.sh arrays 2>&1 | tail -40
ls -R $OUT/arrays | head -20
