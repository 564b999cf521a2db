#!/usr/bin/env bash
# Device call X1 (a 4-GPU node, after X2 on the same machine), main at cf9e380: the BF16 line
# of issue 27 against what the node's copies carry, on a second 4-GPU machine, and the node's
# host memory rate.
# 1. kit node: cuBLAS peak, links (alone; all four at once each way and both ways), BF16 1x4
#    n = 65536 (3 runs). Prediction (E4, 4 x H100: both-node 19.4 GB/s each way per GPU, BF16
#    0.928 of the node roofline): both-node 17-22 GB/s each way per GPU on H100 (on H200 up to
#    30); BF16 0.85-0.96 of the node roofline (both ways' 51.6 GB at the node's both-ways rate)
#    and under 0.62 of the four-link one.
# 2. bench/pin_rate -n 4096: memcpy 55-70 GB/s at 32-64 threads (4 x H200: 57-67).
# Ran after X2-X4 on the same 4 x H200 node (its bundle also ran tests/gpu.sh GPU_DOORS_ONLY=1
# first: rc 0, 2766 PASS lines, 0 FAIL, node-h200x4-20261128-x1-doors-tests.log).
# Result (node-h200x4-20261128-x1.{log,csv}, -x1-table.txt, pins-h200x4-20261128-x1.csv):
# links alone 55.43 / 55.31 GB/s; all four at once h2d 43.64, d2h 33.81, both ways 23.58 each
# way per GPU (the node carries 189 GB/s both ways); BF16 1x4 n = 65536 0.3116 s median (3
# checked runs), 1805.3 TFLOP/s: 0.641 of the four-link roofline (0.200 s, compute), **0.876**
# of the node roofline (51.6 GB at 189 GB/s, 0.273 s). Predicted 0.85-0.96: held. The issue's
# 0.80 x 0.200 s = 0.250 s is below what the node's copies allow (0.273 s) here too.
# pin_rate memcpy 1 / 2 / 4 / 8 / 16 / 32 / 64 threads: 7.9 / 14.6 / 29.2 / 52.7 / 33.3 / 43.2 /
# 50.0 GB/s (predicted 55-70 at 32-64: lower).
set -u
export NCCL_NVLS_ENABLE=0
NODE_BUDGET_S=230 NITER_BIG=3 BUNDLE=bundle OUT=$OUT/node N_LIST=32768 N_BIG=65536 CASES="cublas-peak link bf16-1x4" scripts/device-session.sh node > "$OUT/node-kit.log" 2>&1
tail -22 "$OUT/node-kit.log"
echo "== pin_rate ($SECONDS s)"
. bundle/env.sh
timeout $((560 - SECONDS)) bundle/starpu-gemm/build/bench/pin_rate -n 4096 > "$OUT/pins.csv" 2>&1
grep -i memcpy "$OUT/pins.csv" | head -12
echo "done $SECONDS s"
