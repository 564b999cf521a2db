#!/usr/bin/env bash
# Device call U (2-GPU node; 4-GPU kinds were not lent): the one call's staging with each tile
# cut in column slices that several copiers take at once (tiles ready one after another in the
# walk's order) against whole tiles, one copier each (SG_STAGE_SLICES=1, a temporary switch),
# alternated; DGEMM n = 32768 on both GPUs, driver --layout lapack, checked; the driver on its
# own pinned tiles beside. Prediction: the wait for staged tiles drops by 0.1-0.15 s (the first
# batch of whole tiles, 32 copiers x 128 MiB, completes together after ~0.1 s).
set -u
. bundle/env.sh
export STARPU_HOSTNAME=gpu-node STARPU_GEMM_VERBOSE=1 STARPU_NCUDA=2
bld=bundle/starpu-gemm/build
mpi=(mpirun --allow-run-as-root --bind-to none -x LD_LIBRARY_PATH -x STARPU_HOME -x STARPU_HOSTNAME -x STARPU_SILENT -x STARPU_NCUDA -x STARPU_GEMM_VERBOSE -x SG_STAGE_SLICES)
echo "== driver ($SECONDS s)"
timeout 60 "${mpi[@]}" -np 1 $bld/drivers/starpu_gemm --sizes 32768 --niter 3 --warmup 1 2>&1 | grep -E "^iteration" | sed 's/ (.* per GPU)//'
for v in 1 0 1 0; do
  [ $SECONDS -gt 150 ] && { echo "skipped slices=$v: $SECONDS s"; continue; }
  echo "== lapack SG_STAGE_SLICES=$v (0: default) ($SECONDS s)"
  if [ $v = 0 ]; then unset SG_STAGE_SLICES; else export SG_STAGE_SLICES=$v; fi
  timeout 60 "${mpi[@]}" -np 1 $bld/drivers/starpu_gemm --layout lapack --sizes 32768 --check --niter 3 --warmup 1 2>&1 |
    grep -E "^iteration|starpu_gemm: dgemm|rror" | sed 's/ (.* per GPU)//; s/, check: PASSED.*//; s/.*copier threads)//; s/ of it pinning 0.000;//'
done
echo "done $SECONDS s"
