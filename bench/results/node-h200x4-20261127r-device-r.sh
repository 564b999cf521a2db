#!/usr/bin/env bash
# Device call R (4 x H200): issue 29's one call and preload, n = 49152, with beta*C added by
# the copiers on the way back (new default: C neither copied in nor loaded onto the GPUs)
# against C copied in as before (STARPU_GEMM_STAGE_C=1), the driver in each kit; then one GPU.
# Prediction: waiting for staged tiles 0.8 s -> ~0.35 s (call Q: 0.32-0.40 with C not staged);
# product ~1.3 s; door and preload 0.85-0.90 x the driver on 4 GPUs (0.72-0.76 before); one
# GPU >= 0.9 (unchanged or better).
set -u
echo "== beta*C added on the way back, 4 GPUs ($SECONDS s)"
BUNDLE=bundle OUT=$OUT/back STARPU_GEMM_VERBOSE=1 TAIL_LINES=22 N_LIST=49152 PRELOAD_N=49152 \
  CASES="driver gemm-pageable preload" ARRAYS_GPUS=all scripts/device-session.sh arrays 2>&1 | tail -22
echo "== C copied in, 4 GPUs ($SECONDS s)"
BUNDLE=bundle OUT=$OUT/staged STARPU_GEMM_STAGE_C=1 STARPU_GEMM_VERBOSE=1 TAIL_LINES=20 N_LIST=49152 \
  PRELOAD_N=49152 CASES="gemm-pageable preload" ARRAYS_GPUS=all scripts/device-session.sh arrays 2>&1 | tail -20
echo "== one GPU ($SECONDS s)"
[ $SECONDS -lt 380 ] && BUNDLE=bundle OUT=$OUT/one STARPU_GEMM_VERBOSE=1 TAIL_LINES=20 N_LIST=49152 \
  CASES="driver gemm-pageable" ARRAYS_GPUS=1 scripts/device-session.sh arrays 2>&1 | tail -20
echo "done $SECONDS s"
