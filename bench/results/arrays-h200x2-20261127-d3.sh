#!/usr/bin/env bash
# Device call (2 GPUs), 2026-11-27 night: why the preloaded dgemm_ (0.866 x the driver on 2 x
# H200 in the call before, bench/results/arrays-h200x2-20261127n.*) is slower than the one call
# on the same malloc'ed arrays (0.968 x) where both run starpu_gemm_gemm. Each verbose, n =
# 49152, 2 GPUs, alternated twice: bench/dgemm_app under LD_PRELOAD, then the driver's
# --layout lapack; the verbose line now says whether the GPUs relay A and B. Then the GPU tests.
# Prediction (before the call): the preload's calls split as the one call's except for a
# longer wait for staged tiles (its process differs: no mpirun, StarPU started inside dgemm_),
# 0.2-0.3 s more in "waiting for staged tiles"; both say "relayed".
# Result (log -d3.log, GPU tests -d3-gpu-tests.log: 0 failures): the preload did relay (its one
# call plans for itself) and took 2.69-2.73 s a call, the one call under the driver (no relays)
# 2.34-2.41 s. The preload's split: 0.60-0.71 s waiting for staged tiles (one call 0.33-0.47),
# 74-82 C tiles back during the product (143), 0.20-0.23 s after it (0.02). Call D4 separates
# the relays from the rest.
set -u
. bundle/env.sh
export STARPU_HOSTNAME=gpu-node NCCL_NVLS_ENABLE=0
sg=bundle/starpu-gemm
drv=$sg/build/drivers/starpu_gemm
for round in 1 2; do
  echo "== preload, round $round ($SECONDS s)"
  STARPU_GEMM_VERBOSE=1 STARPU_SILENT=1 LD_PRELOAD=$sg/lib/libstarpu_gemm_blas.so STARPU_GEMM_BLAS_THRESHOLD=1 \
    timeout 150 $sg/build/bench/dgemm_app -n 49152 --niter 2 --warmup 1 2>&1 | grep -E "^dgemm_app,|^starpu_gemm" | cut -c1-420
  echo "== one call, round $round ($SECONDS s)"
  timeout 150 mpirun --allow-run-as-root --bind-to none -np 1 -x LD_LIBRARY_PATH -x STARPU_HOSTNAME \
    -x STARPU_GEMM_VERBOSE=1 -x STARPU_SILENT=1 $drv --sizes 49152 --layout lapack \
    --niter 2 --warmup 1 2>&1 | grep -E "^iteration|^starpu_gemm: dgemm" | cut -c1-420
done
left=$((585 - SECONDS))
echo "== GPU tests ($SECONDS s, $left s left)"
( top_srcdir=$sg top_builddir=$sg/build timeout $left $sg/tests/gpu.sh ) > "$OUT/gpu-tests.log" 2>&1
echo "gpu tests rc=$? at $SECONDS s: $(tail -1 "$OUT/gpu-tests.log")"
echo "done $SECONDS s"
