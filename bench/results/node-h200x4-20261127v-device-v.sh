#!/usr/bin/env bash
# Device call V (4 x H200 or H100), first of the session, code at b85aa3a (measures last
# session's unmeasured changes):
# 1. issue 29's arrays kit, n = 49152, all GPUs: driver, one call on malloc'ed arrays, preload.
#    Prediction (stage-model-20261127b.py): slices 0.74-0.78 x the driver; up to ~0.88 if the
#    streaming column copies lift the copy rate 1.3 x (call R: 0.707 / 0.732).
# 2. BF16 1 x 4, n = 65536: default against --c-home (C's loads are most of the simulated
#    gap: beta = 0 simulated 0.280 s against 0.394). Prediction: --c-home 0.30-0.32 s against
#    0.35-0.36 s, unless the one CPU worker's adds (4 GB float C) trail.
# 3. ScaLAPACK drop-in, 4 ranks x 1 GPU, 2 x 2, n = 32768, NB = 4096 and 256, C added on the
#    way back (default) against C redistributed in (STARPU_GEMM_STAGE_C=1). Prediction: total
#    0.80-0.88 s -> 0.70-0.75 s (redistribution in 0.32-0.38 s -> ~0.22-0.25 s).
set -u
. bundle/env.sh
export STARPU_HOSTNAME=gpu-node NCCL_NVLS_ENABLE=0
bld=bundle/starpu-gemm/build
drv=$bld/drivers/starpu_gemm
lib=bundle/starpu-gemm/lib
mpi=(mpirun --allow-run-as-root --bind-to none -x LD_LIBRARY_PATH -x STARPU_HOME -x STARPU_HOSTNAME -x STARPU_SILENT)
sel="^plan: b=|^iteration|timeline|host -> GPU|GPU <-> GPU|error|median|c_home|C at home"
nvidia-smi -L
echo "== arrays kit, all GPUs, n=49152 ($SECONDS s)"
BUNDLE=bundle OUT=$OUT/arrays STARPU_GEMM_VERBOSE=1 TAIL_LINES=22 N_LIST=49152 PRELOAD_N=49152 \
  CASES="driver gemm-pageable preload" ARRAYS_GPUS=all bundle/starpu-gemm/scripts/device-session.sh arrays 2>&1 | tail -22
ng=$(nvidia-smi -L | wc -l)
for ch in default c-home; do
  [ $SECONDS -gt 330 ] && { echo "skipped bf16 $ch: $SECONDS s"; continue; }
  opt=(); [ $ch = c-home ] && opt=(--c-home)
  echo "== bf16 1x$ng n=65536 $ch ($SECONDS s)"
  STARPU_NCUDA=$ng timeout 110 "${mpi[@]}" -x STARPU_NCUDA -np 1 $drv --sizes 65536 --prec b --niter 3 --warmup 1 "${opt[@]}" 2>&1 | grep -E "$sel"
done
for nb in 4096 256; do
  for sc in 0 1; do
    [ $SECONDS -gt 520 ] && { echo "skipped scalapack nb=$nb stage_c=$sc: $SECONDS s"; continue; }
    echo "== scalapack drop-in 4 ranks x 1 GPU, 2x2, n=32768 nb=$nb STARPU_GEMM_STAGE_C=$sc ($SECONDS s)"
    STARPU_GEMM_STAGE_C=$sc timeout 70 "${mpi[@]}" -x STARPU_GEMM_STAGE_C -x LD_PRELOAD=$lib/libstarpu_gemm_scalapack.so -x STARPU_GEMM_VERBOSE=1 -np 4 \
      bundle/starpu-gemm/scripts/gpu-per-rank.sh $bld/bench/scalapack_pdgemm -n 32768 -P 2 -Q 2 --nb $nb --niter 2 --warmup 1 2>&1 |
      grep -E "^scalapack,|redistribution in|rror" | sed 's/starpu_gemm_scalapack: pdgemm_ M=32768 N=32768 K=32768 op=NN grid=2x2 //'
  done
done
echo "done $SECONDS s"
