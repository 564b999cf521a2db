#!/usr/bin/env bash
# Device call (2 GPUs, nvidia-h200-x2 or -h100-x2; no 4-GPU node lent tonight), 2026-11-27
# night: issue 29's doors with the one call's staged arrays relayed between the GPUs by default
# (compute/plan.c, gpu_peers_decide: pb->staged). n = 49152, DGEMM, C = A*B + C:
#  1. both GPUs: starpu_gemm_gemm on malloc'ed arrays (driver --layout lapack) with
#     --gpu-peers off (the old default), verbose;
#  2. bench/arrays.sh, CASES="driver gemm-pageable preload", on one GPU and on both
#     (ARRAYS_GPUS="1 all"): the one call and the preload now relay on two GPUs.
# Prediction (written before the call): one GPU (no relays there): one call 0.90-0.93 x the
# driver, preload 0.88-0.92 x (1 x H100 at n = 32768 on 2026-11-24: 0.917, 0.909). Two GPUs (a
# 1 x 2 grid: both read all of A, so A's second read goes between them, 19 GB of ~200 GB
# through host memory a call, which two GPUs' ~2.4 s leave far from the memory's ~170 GB/s):
# relays on and off within 3% of each other, both 0.85-0.92 x the driver. Where the node's
# memory binds (4 GPUs) the relays should gain; this call cannot show it.
# Result (2 x H200, log -d2.log, kit CSVs -d2-1gpu.csv and -d2-2gpu.csv): one GPU: driver 51.8
# TFLOP/s, the one call 51.3 (0.991 x), the preload 49.3 (0.952 x): issue 29's "still >= 0.9 on
# one GPU" holds. Two GPUs: driver 103.5, the one call 100.2 (0.968), the preload 89.7 (0.866).
# The one call with --gpu-peers off 2.340-2.351 s and by default 2.338-2.343: equal, but neither
# relayed: under the driver the one call follows the driver's own plan (opts.plan, made with
# pb->staged = 0), which the rule tried never reached. Call D3 looks at the preload's gap.
set -u
. bundle/env.sh
export STARPU_HOSTNAME=gpu-node NCCL_NVLS_ENABLE=0
drv=bundle/starpu-gemm/build/drivers/starpu_gemm
nvidia-smi -L; nproc; free -g | head -2
echo "== one call, 2 GPUs, --gpu-peers off ($SECONDS s)"
timeout 150 mpirun --allow-run-as-root --bind-to none -np 1 -x LD_LIBRARY_PATH -x STARPU_HOSTNAME \
  -x STARPU_GEMM_VERBOSE=1 -x STARPU_SILENT=1 $drv --sizes 49152 --layout lapack --gpu-peers off \
  --niter 3 --warmup 1 2>&1 | grep -E "^iteration|^plan: tiles|relay|^starpu_gemm: dgemm" | cut -c1-240
echo "== one call, 2 GPUs, default ($SECONDS s)"
timeout 150 mpirun --allow-run-as-root --bind-to none -np 1 -x LD_LIBRARY_PATH -x STARPU_HOSTNAME \
  -x STARPU_GEMM_VERBOSE=1 -x STARPU_SILENT=1 $drv --sizes 49152 --layout lapack \
  --niter 3 --warmup 1 2>&1 | grep -E "^iteration|^plan: tiles|relay|^starpu_gemm: dgemm" | cut -c1-240
echo "== kit ($SECONDS s)"
NITER=2 N_LIST=49152 PRELOAD_N=49152 CASES="driver gemm-pageable preload" ARRAYS_GPUS="1 all" \
  BUNDLE=bundle OUT=$OUT/arrays timeout $((590 - SECONDS)) scripts/device-session.sh arrays 2>&1 | tail -40
echo "done ($SECONDS s)"
