#!/usr/bin/env bash
# Device calls X3 and X4 (the 4 x H200 node of X2, still warm), main at cf9e380 (the copiers
# off the cores StarPU's threads hold): issue 29's doors as kit runs, 3 timed calls a case,
# each after one untimed. No prediction of their own was written: X2, minutes before, was the
# expectation (the one call 0.91 x the driver, the drop-in with MB = NB = 4096 0.91 x).
# X3, every GPU: `-x3.{csv,log}`, `-x3-table.txt`, `-x3-call.log`:
#   driver 203.3 TFLOP/s; the one call 0.923 x, the preload 0.910 x, the drop-in on 4 ranks x
#   1 GPU MB = NB = 4096 0.922 x, 256 0.887 x: every line of issue 29 on four GPUs met.
# X4, one GPU (GPUS=1): `-x4-1gpu.{csv,log}`, `-x4-1gpu-table.txt`: driver 51.2 TFLOP/s, the
#   one call 0.993 x, the preload 0.991 x.
set -u
# X3
NITER=3 BUNDLE=bundle OUT=$OUT/arrays N_LIST=49152 PRELOAD_N=49152 STARPU_GEMM_VERBOSE=1 \
  CASES="driver gemm-pageable preload scalapack-ranks-4096 scalapack-ranks-256" ARRAYS_GPUS=all \
  timeout 580 scripts/device-session.sh arrays
# X4
NITER=3 BUNDLE=bundle OUT=$OUT/arrays1 N_LIST=49152 PRELOAD_N=49152 STARPU_GEMM_VERBOSE=1 \
  CASES="driver gemm-pageable preload" ARRAYS_GPUS=1 timeout 400 scripts/device-session.sh arrays
