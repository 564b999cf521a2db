#!/usr/bin/env bash
# Device call L: the GPU tests after the review mends; then where 1 rank x 4 GPUs at n = 32768
# loses time. Prediction (.scratch/fill_model2.py, a per-GPU pipeline of link and GEMMs in the
# walk's order): d = 8 (the plan's) 384 ms, d = 4 370 ms, d = 2 364 ms (0.887 / 0.922 / 0.935
# of 4 x peak): the first C tile of each GPU needs its whole k panel before the GPU runs steadily.
set -u
. bundle/env.sh
export STARPU_HOSTNAME=gpu-node NCCL_NVLS_ENABLE=0
( top_srcdir=bundle/starpu-gemm top_builddir=bundle/starpu-gemm/build timeout 270 bundle/starpu-gemm/tests/gpu.sh ) > "$OUT/gpu-tests.log" 2>&1
echo "gpu tests rc=$? at $SECONDS s: $(tail -1 "$OUT/gpu-tests.log")"
bld=bundle/starpu-gemm/build
drv=$bld/drivers/starpu_gemm
mpi=(mpirun --allow-run-as-root --bind-to none -x LD_LIBRARY_PATH -x STARPU_HOME -x STARPU_HOSTNAME -x STARPU_SILENT)
echo "== cublas peak"; timeout 60 $bld/bench/cublas_peak -n 32768 --niter 5 --warmup 1 | tail -5
for d in auto 4 2 1; do
  opt=(); [ $d != auto ] && opt=(-d $d)
  echo "== 1x4 n=32768 d=$d ($SECONDS s)"
  STARPU_NCUDA=4 timeout 90 "${mpi[@]}" -x STARPU_NCUDA -np 1 $drv --sizes 32768 --check --niter 3 --warmup 1 "${opt[@]}" 2>&1 |
    grep -E "^plan: b=|^iteration|timeline|host -> GPU|error"
done
for d in auto 2; do
  opt=(); [ $d != auto ] && opt=(-d $d)
  echo "== 4x1 sharing n=32768 d=$d ($SECONDS s)"
  timeout 90 "${mpi[@]}" -np 4 bundle/starpu-gemm/scripts/gpu-per-rank.sh $drv --sizes 32768 -P 2 -Q 2 --check --niter 3 --warmup 1 "${opt[@]}" 2>&1 |
    grep -E "^plan: b=|^iteration|timeline|host -> GPU|error"
done
if [ $SECONDS -lt 430 ]; then
  for d in 4; do
    echo "== 1x4 n=65536 d=$d ($SECONDS s)"
    STARPU_NCUDA=4 timeout 130 "${mpi[@]}" -x STARPU_NCUDA -np 1 $drv --sizes 65536 --niter 3 --warmup 1 -d $d 2>&1 |
      grep -E "^plan: b=|^iteration|timeline|host -> GPU|error"
  done
fi
echo "done $SECONDS s"
