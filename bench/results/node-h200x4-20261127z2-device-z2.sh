#!/usr/bin/env bash
# Device call Z2 (4 x H200), 2026-11-27 evening: issue 27's node kit on the session's final
# code (bench/node.sh: cuBLAS peak, links, MPI rate, DGEMM 1x4 and 4x1 at 32768 and 65536,
# 2x2 and 2x2 each rank its own node at 65536, BF16 1x4), 3 checked runs a case (NITER_BIG=3).
# Prediction, from calls M, G, H, Y and Z1: 1x4 n=32768 0.85-0.94 x 4 x peak (target 0.90),
# n=65536 0.95-1.00 (0.95); 4x1 n=32768 0.85-0.96 (0.85), n=65536 0.93-1.00 (0.90); 2x2
# 0.94-1.00 (0.92); 2x2 own node 0.85-1.00 x its roofline with the MPI term (0.90); BF16
# 0.55-0.65 x its roofline (0.80: missed).
set -u
. bundle/env.sh
export STARPU_HOSTNAME=gpu-node NCCL_NVLS_ENABLE=0
nvidia-smi -L | head -1
BUNDLE=bundle OUT=$OUT/node NITER_BIG=3 NODE_BUDGET_S=565 TAIL_LINES=40 timeout 590 scripts/device-session.sh node
echo "done $SECONDS s"
