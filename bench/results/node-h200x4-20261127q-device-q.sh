#!/usr/bin/env bash
# Device call Q (4 x H200): issue 29's one call and preload on 4 GPUs, n = 49152, with C left in
# the caller's array and added to at home (the new default: A and B staged, 38.7 GB copied in
# instead of 58, no C up or down the links as staged copies) against C staged as before
# (STARPU_GEMM_STAGE_C=1), the driver in each kit. Prediction (bench/notes-arrays.md): the
# walk's wait for staged tiles drops from ~0.8 s to ~0.3 s; door and preload 0.85-0.90 x the
# driver (0.755 / 0.749 with C staged, call of 2026-11-27).
set -u
echo "== C in place ($SECONDS s)"
BUNDLE=bundle OUT=$OUT/c-home STARPU_GEMM_VERBOSE=1 TAIL_LINES=40 N_LIST=49152 PRELOAD_N=49152 \
  CASES="driver gemm-pageable preload" ARRAYS_GPUS=all scripts/device-session.sh arrays 2>&1 | tail -45
echo "== C staged ($SECONDS s)"
[ $SECONDS -lt 400 ] && BUNDLE=bundle OUT=$OUT/c-staged STARPU_GEMM_STAGE_C=1 STARPU_GEMM_VERBOSE=1 TAIL_LINES=30 N_LIST=49152 \
  CASES="driver gemm-pageable" ARRAYS_GPUS=all scripts/device-session.sh arrays 2>&1 | tail -30
echo "done $SECONDS s"
