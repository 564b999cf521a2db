#!/usr/bin/env bash
# Device call N: after the GPU chunk rule (d <= max(2, Kt/4) where a GPU's share of C is small,
# not for tensor-core kernels): the driver's 1 rank x 4 GPUs at n = 32768 (the reference), BF16
# 1 x 4 at n = 65536 with the plan's d and with -d 2 (same call), then the ScaLAPACK drop-in on
# 4 ranks x 1 GPU (issue 29: >= 0.80 x the driver's 1 x 4), MB = NB = 256 and 4096.
set -u
. bundle/env.sh
export STARPU_HOSTNAME=gpu-node NCCL_NVLS_ENABLE=0
bld=bundle/starpu-gemm/build
drv=$bld/drivers/starpu_gemm
lib=bundle/starpu-gemm/lib
mpi=(mpirun --allow-run-as-root --bind-to none -x LD_LIBRARY_PATH -x STARPU_HOME -x STARPU_HOSTNAME -x STARPU_SILENT)
sel="^plan: b=|^iteration|timeline|host -> GPU|GPU <-> GPU|error|TFLOP|GFLOP|median"
echo "== driver 1x4 n=32768 ($SECONDS s)"
STARPU_NCUDA=4 timeout 90 "${mpi[@]}" -x STARPU_NCUDA -np 1 $drv --sizes 32768 --check --niter 3 --warmup 1 2>&1 | grep -E "$sel"
for d in auto 2; do
  opt=(); [ $d != auto ] && opt=(-d $d)
  echo "== bf16 1x4 n=65536 d=$d ($SECONDS s)"
  STARPU_NCUDA=4 timeout 120 "${mpi[@]}" -x STARPU_NCUDA -np 1 $drv --sizes 65536 --prec b --niter 3 --warmup 1 "${opt[@]}" 2>&1 | grep -E "$sel"
done
for nb in 4096 256; do
  [ $SECONDS -gt 420 ] && { echo "skipped scalapack nb=$nb: $SECONDS s"; continue; }
  echo "== scalapack drop-in 4 ranks x 1 GPU, 2x2, n=32768 nb=$nb ($SECONDS s)"
  timeout 150 "${mpi[@]}" -x LD_PRELOAD=$lib/libstarpu_gemm_scalapack.so -np 4 bundle/starpu-gemm/scripts/gpu-per-rank.sh \
    $bld/bench/scalapack_pdgemm -n 32768 -P 2 -Q 2 --nb $nb --niter 2 --warmup 1 2>&1 | tail -6
done
echo "done $SECONDS s"
