#!/usr/bin/env bash
# Device call X5 (the same 4 x H200 node, last), main at cf9e380: issue 27's DGEMM lines at
# n = 65536 on today's code (C's loads spread), which call E4 did not run. Predicted from the
# earlier kit (z2: 0.98 both) 0.95-1.00. Result (`-x5.csv`, `-x5-table.txt`, `-x5-call.log`):
# cuBLAS peak 51.28 TFLOP/s (n = 32768); 1 x 4 202.1 TFLOP/s, **0.995** x 4 x peak (target
# 0.95, met); 4 x 1 206.1, **1.015** (0.90, met). 2 x 2 did not run: the kit's budget (380 s)
# ended it.
set -u
NODE_BUDGET_S=380 BUNDLE=bundle OUT=$OUT/node N_LIST=65536 N_BIG=65536 CASES="cublas-peak 1x4 4x1 2x2" \
  timeout 440 scripts/device-session.sh node
