#!/usr/bin/env bash
# Device call (4 x H200), 2026-11-27 late evening: the one call on pageable arrays (driver
# --layout lapack, n = 49152, every GPU) from the session's start (5d507c4, bundle-old) and
# from now (bundle), alternated on the same node: the previous call measured 0.782 x the
# driver where call Z1 (another node, 5d507c4) had 0.863. Prediction: the door's code path is
# unchanged (a refactor of which operands are staged), so old and new within 3% of each other.
# Result (arrays-ab-h200x4-20261127.log): now 1.318 / 1.357 / 1.325 and 1.339 / 1.321 / 1.343 s,
# 5d507c4 1.321 / 1.352 / 1.329 and 1.310 / 1.274 / 1.359 s: the same, as predicted. Both
# 0.87-0.89 x the driver's 1.17 s of the call before (202 TFLOP/s): that call's 0.782 (1.50 s)
# was its own (another node, bench/arrays.sh's two runs), not the code's.
set -u
for round in 1 2; do
  for b in bundle bundle-old; do
    (
      . $b/env.sh
      export STARPU_HOSTNAME=gpu-node STARPU_GEMM_VERBOSE=1
      drv=$b/starpu-gemm/build/drivers/starpu_gemm
      echo "== $b, round $round ($SECONDS s)"
      timeout 120 mpirun --allow-run-as-root --bind-to none -np 1 -x LD_LIBRARY_PATH -x STARPU_HOSTNAME \
        -x STARPU_GEMM_VERBOSE -x STARPU_SILENT=1 $drv --sizes 49152 --layout lapack --niter 3 --warmup 1 2>&1 |
        grep -E "^iteration|^starpu_gemm: dgemm" | sed 's/ (.* per GPU)//' | cut -c1-260
    )
  done
done
echo "done ($SECONDS s)"
