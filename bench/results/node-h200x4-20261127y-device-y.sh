#!/usr/bin/env bash
# Device call Y (4 x H200), the session's final code:
# 1. the driver's 1 x 4, n = 32768, and the ScaLAPACK drop-in, 4 ranks x 1 GPU, 2 x 2,
#    n = 32768, NB = 4096 and 256, the moves beside the product now in the walk's order
#    (call W, k step by k step: 0.597-0.619 s, the walk waited 0.23-0.31 s). Prediction: the
#    walk waits < 0.1 s, 0.45-0.52 s a call, 0.70-0.80 x the driver;
# 2. the GPU tests;
# 3. issue 27's 2 ranks x 2 GPUs, each rank its own node, n = 65536, with the library's
#    choice of sends in flight (2) and StarPU's 10, the MPI rate beside. Prediction: 0.85-0.90
#    of the roofline with 2 (call X at n = 32768: 0.85 against 0.80).
set -u
. bundle/env.sh
export STARPU_HOSTNAME=gpu-node NCCL_NVLS_ENABLE=0
bld=bundle/starpu-gemm/build
drv=$bld/drivers/starpu_gemm
lib=bundle/starpu-gemm/lib
mpi=(mpirun --allow-run-as-root --bind-to none -x LD_LIBRARY_PATH -x STARPU_HOME -x STARPU_HOSTNAME -x STARPU_SILENT)
clean() { sed 's/ (.* per GPU)//; s/, check: PASSED.*/, PASSED/; s/starpu_gemm_scalapack: pdgemm_ M=32768 N=32768 K=32768 op=NN grid=2x2 tile=4096 copy_threads=16: //; s/ (the node.s shared memory, no MPI)//'; }
nvidia-smi -L | head -1
echo "== driver 1x4 n=32768 ($SECONDS s)"
STARPU_NCUDA=4 timeout 90 "${mpi[@]}" -x STARPU_NCUDA -np 1 $drv --sizes 32768 --check --niter 3 --warmup 1 2>&1 | grep -E "^iteration|rror" | clean
for nb in 4096 256; do
  echo "== scalapack drop-in 4 ranks x 1 GPU, 2x2, n=32768 nb=$nb ($SECONDS s)"
  timeout 75 "${mpi[@]}" -x LD_PRELOAD=$lib/libstarpu_gemm_scalapack.so -x STARPU_GEMM_VERBOSE=1 -np 4 \
    bundle/starpu-gemm/scripts/gpu-per-rank.sh $bld/bench/scalapack_pdgemm -n 32768 -P 2 -Q 2 --nb $nb --niter 3 --warmup 1 2>&1 |
    grep -E "^scalapack,|beside it|redistribution in|rror" | clean
done
echo "== the drop-in checked ($SECONDS s)"
for case in "4096 4096 4096 N N 256 2 2 2" "3000 2900 2700 T N 100 2 2 1"; do
  timeout 60 "${mpi[@]}" -x LD_PRELOAD=$lib/libstarpu_gemm_scalapack.so -x STARPU_GEMM_SCALAPACK_THRESHOLD=0 -np 4 \
    bundle/starpu-gemm/scripts/gpu-per-rank.sh $bld/tests/test_scalapack_app $case 2>&1 | grep -E "residual|rror"
done
echo "== GPU tests ($SECONDS s)"
( top_srcdir=bundle/starpu-gemm top_builddir=bundle/starpu-gemm/build timeout 260 bundle/starpu-gemm/tests/gpu.sh ) > "$OUT/gpu-tests.log" 2>&1
echo "gpu tests rc=$? at $SECONDS s: $(tail -1 "$OUT/gpu-tests.log")"
echo "== mpi_rate 2 ranks ($SECONDS s)"
timeout 40 "${mpi[@]}" -np 2 $bld/bench/mpi_rate --rounds 5 2>&1 | grep median
for nd in auto 10; do
  [ $SECONDS -gt 470 ] && { echo "skipped own node nd=$nd: $SECONDS s"; continue; }
  echo "== 2x2 own node n=65536 sends in flight $nd ($SECONDS s)"
  env=(SG_GPUS_PER_NODE=4) pass=(); [ $nd != auto ] && env+=(STARPU_MPI_NDETACHED_SEND=$nd) pass=(-x STARPU_MPI_NDETACHED_SEND)
  env "${env[@]}" SG_GPUS_PER_RANK=2 STARPU_GEMM_SHARE_NODE=0 timeout $((575 - SECONDS)) "${mpi[@]}" \
    "${pass[@]}" -x SG_GPUS_PER_NODE -x SG_GPUS_PER_RANK -x STARPU_GEMM_SHARE_NODE -np 2 \
    bundle/starpu-gemm/scripts/gpu-per-rank.sh $drv --sizes 65536 -P 1 -Q 2 --check --niter 3 --warmup 1 2>&1 | grep -E "^MPI:|^iteration|rror" | clean
done
echo "done $SECONDS s"
