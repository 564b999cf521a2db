#!/usr/bin/env bash
# Device call O: the GPU tests on the session's final GPU code (chunk rule after the review);
# the ScaLAPACK drop-in on 4 ranks x 1 GPU redistributing through the node's shared memory
# (n = 32768, MB = NB = 4096 and 256; call N measured 0.762-0.772 s and 3.54-3.61 s through
# MPI), the driver's 1 rank x 4 GPUs beside it. Prediction: NB = 4096 unchanged (its blocks
# were already local: 0.76-0.77 s), NB = 256 from 3.6 s to about 0.8-0.9 s (the same bytes as
# NB = 4096 copied in memory, in 256-row stretches).
set -u
. bundle/env.sh
export STARPU_HOSTNAME=gpu-node NCCL_NVLS_ENABLE=0
( top_srcdir=bundle/starpu-gemm top_builddir=bundle/starpu-gemm/build timeout 260 bundle/starpu-gemm/tests/gpu.sh ) > "$OUT/gpu-tests.log" 2>&1
echo "gpu tests rc=$? at $SECONDS s: $(tail -1 "$OUT/gpu-tests.log")"
bld=bundle/starpu-gemm/build
lib=bundle/starpu-gemm/lib
mpi=(mpirun --allow-run-as-root --bind-to none -x LD_LIBRARY_PATH -x STARPU_HOME -x STARPU_HOSTNAME -x STARPU_SILENT)
echo "== driver 1x4 n=32768 ($SECONDS s)"
STARPU_NCUDA=4 timeout 90 "${mpi[@]}" -x STARPU_NCUDA -np 1 $bld/drivers/starpu_gemm --sizes 32768 --check --niter 3 --warmup 1 2>&1 |
  grep -E "^plan: b=|^iteration|host -> GPU"
for nb in 256 4096; do
  [ $SECONDS -gt 430 ] && { echo "skipped scalapack nb=$nb: $SECONDS s"; continue; }
  echo "== scalapack drop-in 4 ranks x 1 GPU, 2x2, n=32768 nb=$nb ($SECONDS s)"
  timeout 120 "${mpi[@]}" -x LD_PRELOAD=$lib/libstarpu_gemm_scalapack.so -x STARPU_GEMM_VERBOSE=1 -np 4 \
    bundle/starpu-gemm/scripts/gpu-per-rank.sh $bld/bench/scalapack_pdgemm -n 32768 -P 2 -Q 2 --nb $nb --niter 2 --warmup 1 2>&1 |
    grep -E "^scalapack,|redistribution in|rror"
done
echo "done $SECONDS s"
