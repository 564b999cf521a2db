#!/usr/bin/env bash
# Device call (2 GPUs), 2026-11-27 night, after call D3 (bench/results/arrays-h200x2-20261127-d3.log):
# there the preload, whose one call plans for itself and so relayed A between the GPUs (the
# rule tried: staged arrays relay), took 2.69-2.73 s a call, and the one call under the driver,
# which follows the driver's plan (no relays), 2.34-2.41 s. The rule is taken back (relays for
# tensor-core kernels only, as before). Now: the preload again (no relays), then the one call
# with --gpu-peers on and off, alternated, n = 49152, 2 GPUs, verbose.
# Prediction (before the call): the preload 2.35-2.45 s a call (as the one call: the relays were
# the difference, not its process); the one call with relays 2.6-2.8 s, without 2.33-2.41.
# Result (log -d4.log): the prediction failed for the preload: without relays still 2.83 / 2.69
# s, so the relays were not its gap. The one call: relays on 2.376 / 2.361 and 2.382 / 2.376 s,
# off 2.374 / 2.397 and 2.379 / 2.378: equal, as predicted. The relays rule for staged arrays
# was not kept.
set -u
. bundle/env.sh
export STARPU_HOSTNAME=gpu-node NCCL_NVLS_ENABLE=0
sg=bundle/starpu-gemm
drv=$sg/build/drivers/starpu_gemm
echo "== preload ($SECONDS s)"
STARPU_GEMM_VERBOSE=1 STARPU_SILENT=1 LD_PRELOAD=$sg/lib/libstarpu_gemm_blas.so STARPU_GEMM_BLAS_THRESHOLD=1 \
  timeout 150 $sg/build/bench/dgemm_app -n 49152 --niter 2 --warmup 1 2>&1 | grep -E "^dgemm_app,|^starpu_gemm" | cut -c1-420
for round in 1 2; do
  for peers in on off; do
    echo "== one call, --gpu-peers $peers, round $round ($SECONDS s)"
    timeout 150 mpirun --allow-run-as-root --bind-to none -np 1 -x LD_LIBRARY_PATH -x STARPU_HOSTNAME \
      -x STARPU_GEMM_VERBOSE=1 -x STARPU_SILENT=1 $drv --sizes 49152 --layout lapack --gpu-peers $peers \
      --niter 2 --warmup 1 2>&1 | grep -E "^iteration|^starpu_gemm: dgemm" | cut -c1-420
  done
done
echo "done $SECONDS s"
