#!/usr/bin/env bash
# Device call (2 GPUs), 2026-11-27 night, after call D5: the one call's own plan now takes the
# GPU chunk rule as the driver's plan does (compute/plan.c: d = max(ceil(Kt/4), 2) where
# several GPUs share the product, staged arrays no longer excepted). n = 49152, 2 GPUs: the
# preloaded dgemm_ and the one call under the driver, verbose; then the one call's GPU tests.
# Prediction (before the call): the preload 2.34-2.45 s a call (was 2.69-2.83), within 3% of the
# one call under the driver (2.34-2.41), about 0.95 x the driver's 103.5 TFLOP/s.
# Result (log -d6.log): as predicted: the preload 2.354 / 2.363 / 2.351 s a call (100.9 / 100.5
# / 101.0 TFLOP/s), 0.25-0.30 s waiting for staged tiles, 142 C tiles back during the product;
# the one call under the driver 2.352 / 2.352 / 2.370 s. The driver's 103.5 TFLOP/s came from
# call D2 (another node of the same kind): about 0.975 x. The one call's GPU tests: 0 failures
# (-d6-doors.log).
set -u
. bundle/env.sh
export STARPU_HOSTNAME=gpu-node NCCL_NVLS_ENABLE=0
sg=bundle/starpu-gemm
drv=$sg/build/drivers/starpu_gemm
show() { grep -E "^dgemm_app,|^iteration|^starpu_gemm: dgemm" | sed -E 's/ \(setup/\n    (setup/' | cut -c1-300; }
echo "== preload ($SECONDS s)"
STARPU_GEMM_VERBOSE=1 STARPU_SILENT=1 LD_PRELOAD=$sg/lib/libstarpu_gemm_blas.so STARPU_GEMM_BLAS_THRESHOLD=1 \
  timeout 150 $sg/build/bench/dgemm_app -n 49152 --niter 3 --warmup 1 2>&1 | show
echo "== one call under the driver ($SECONDS s)"
timeout 150 mpirun --allow-run-as-root --bind-to none -np 1 -x LD_LIBRARY_PATH -x STARPU_HOSTNAME \
  -x STARPU_GEMM_VERBOSE=1 -x STARPU_SILENT=1 $drv --sizes 49152 --layout lapack --niter 3 --warmup 1 2>&1 | show
left=$((380 - SECONDS))
echo "== the one call's GPU tests ($SECONDS s, $left s left)"
BUNDLE=bundle OUT=$OUT/doors timeout $left scripts/device-session.sh doors 2>&1 | tail -5
echo "done $SECONDS s"
