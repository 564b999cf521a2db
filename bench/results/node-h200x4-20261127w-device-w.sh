#!/usr/bin/env bash
# Device call W (4 x H200 or H100), code at b5008e6:
# 1. the driver's 1 x 4, n = 32768 (the ScaLAPACK target's reference);
# 2. the ScaLAPACK drop-in, 4 ranks x 1 GPU, 2 x 2, n = 32768, NB = 4096 and 256, the moves
#    beside the product (new default) against before and after (STARPU_GEMM_SCALAPACK_OVERLAP=0),
#    alternated. Prediction (bench/notes-arrays.md): 0.50-0.58 s against 0.71-0.74 s,
#    0.65-0.75 x the driver; the walk's wait for tiles < 0.05 s;
# 3. issue 29's arrays kit, n = 49152, all GPUs (slices and streaming copies, unmeasured on 4
#    GPUs). Prediction: 0.74-0.78 x the driver, up to ~0.88 if streaming lifts the copy rate;
# 4. the GPU tests, as time allows.
set -u
. bundle/env.sh
export STARPU_HOSTNAME=gpu-node NCCL_NVLS_ENABLE=0
bld=bundle/starpu-gemm/build
drv=$bld/drivers/starpu_gemm
lib=bundle/starpu-gemm/lib
mpi=(mpirun --allow-run-as-root --bind-to none -x LD_LIBRARY_PATH -x STARPU_HOME -x STARPU_HOSTNAME -x STARPU_SILENT)
nvidia-smi -L
echo "== driver 1x4 n=32768 ($SECONDS s)"
STARPU_NCUDA=4 timeout 90 "${mpi[@]}" -x STARPU_NCUDA -np 1 $drv --sizes 32768 --check --niter 3 --warmup 1 2>&1 |
  grep -E "^plan: b=|^iteration|error" | sed 's/ (.* per GPU)//; s/, check: PASSED.*/, PASSED/'
for nb in 4096 256; do
  for ov in 1 0; do
    [ $SECONDS -gt 330 ] && { echo "skipped scalapack nb=$nb overlap=$ov: $SECONDS s"; continue; }
    echo "== scalapack drop-in 4 ranks x 1 GPU, 2x2, n=32768 nb=$nb STARPU_GEMM_SCALAPACK_OVERLAP=$ov ($SECONDS s)"
    STARPU_GEMM_SCALAPACK_OVERLAP=$ov timeout 75 "${mpi[@]}" -x STARPU_GEMM_SCALAPACK_OVERLAP -x LD_PRELOAD=$lib/libstarpu_gemm_scalapack.so -x STARPU_GEMM_VERBOSE=1 -np 4 \
      bundle/starpu-gemm/scripts/gpu-per-rank.sh $bld/bench/scalapack_pdgemm -n 32768 -P 2 -Q 2 --nb $nb --niter 3 --warmup 1 2>&1 |
      grep -E "^scalapack,|redistribution in|beside it|rror" | sed 's/starpu_gemm_scalapack: pdgemm_ M=32768 N=32768 K=32768 op=NN grid=2x2 tile=4096 copy_threads=16: //; s/ (the node.s shared memory, no MPI)//'
  done
done
echo "== the drop-in checked on 4 ranks x 1 GPU, moves beside the product ($SECONDS s)"
for case in "4096 4096 4096 N N 256 2 2 2" "3000 2900 2700 T N 100 2 2 1" "2500 3100 4000 N T 4096 2 2 1"; do
  STARPU_GEMM_SCALAPACK_OVERLAP=1 timeout 60 "${mpi[@]}" -x STARPU_GEMM_SCALAPACK_OVERLAP -x LD_PRELOAD=$lib/libstarpu_gemm_scalapack.so \
    -x STARPU_GEMM_VERBOSE=1 -x STARPU_GEMM_SCALAPACK_THRESHOLD=0 -np 4 bundle/starpu-gemm/scripts/gpu-per-rank.sh \
    $bld/tests/test_scalapack_app $case 2>&1 | grep -E "residual|beside it|rror" | sed 's/.*tile=/tile=/' | cut -c1-160
done
if [ $SECONDS -lt 360 ]; then
  echo "== arrays kit, all GPUs, n=49152 ($SECONDS s)"
  BUNDLE=bundle OUT=$OUT/arrays STARPU_GEMM_VERBOSE=1 TAIL_LINES=16 N_LIST=49152 PRELOAD_N=49152 \
    CASES="driver gemm-pageable preload" ARRAYS_GPUS=all timeout 150 scripts/device-session.sh arrays 2>&1 | tail -16
fi
left=$((585 - SECONDS))
if [ $left -gt 200 ]; then
  echo "== GPU tests ($SECONDS s, $left s left)"
  ( top_srcdir=bundle/starpu-gemm top_builddir=bundle/starpu-gemm/build timeout $left bundle/starpu-gemm/tests/gpu.sh ) > "$OUT/gpu-tests.log" 2>&1
  echo "gpu tests rc=$? at $SECONDS s: $(tail -1 "$OUT/gpu-tests.log")"
else
  echo "skipped GPU tests: $SECONDS s"
fi
echo "done $SECONDS s"
