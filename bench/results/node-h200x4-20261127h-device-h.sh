#!/usr/bin/env bash
# Device call H (issues 27, 28): the GPU tests on main (relays, remote tiles fetched once
# received), then the node kit's cases that today's code changes or that missed: 1x4 and 4x1
# at n = 32768, 2x2 with each rank its own node at 65536 (tiles from "other nodes" now go to
# their GPU as soon as received), with the cuBLAS peak and the MPI rate in the same call.
set -u
. bundle/env.sh
export STARPU_HOSTNAME=gpu-node NCCL_NVLS_ENABLE=0
echo "start $(date +%T)"
( top_srcdir=bundle/starpu-gemm top_builddir=bundle/starpu-gemm/build timeout 260 bundle/starpu-gemm/tests/gpu.sh ) > "$OUT/gpu-tests.log" 2>&1
echo "gpu tests rc=$? at $SECONDS s: $(tail -1 "$OUT/gpu-tests.log")"
BUNDLE=bundle OUT="$OUT/kit" NITER=3 NITER_BIG=3 NODE_BUDGET_S=300 N_LIST=32768 N_BIG=65536 \
  CASES="cublas-peak mpi-rate 1x4 4x1 2x2-own-node" scripts/device-session.sh node > "$OUT/kit.log" 2>&1
echo "kit rc=$? at $SECONDS s"
tail -25 "$OUT/kit.log"
