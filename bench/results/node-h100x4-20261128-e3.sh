#!/usr/bin/env bash
# Device call E3 (4 x H100), the code of E1/E2: C's loads spread on GPUs (--c-spread).
# 1. the GPU tests (their products take the spread where a block has several chunks);
# 2. DGEMM 1 x 4 n = 65536 and 4 ranks x 1 GPU (2 x 2, node sharing) n = 32768, off / on.
#    Prediction: 1 x 4 n = 65536 within 2% (simulated alike: 2.538 / 2.540 s); 4 x 1 n = 32768
#    on 3-7% faster (each rank's GPU loads its C in its block's first chunk, as 1 x 4's do).
set -u
. bundle/env.sh
export STARPU_HOSTNAME=gpu-node NCCL_NVLS_ENABLE=0
bld=bundle/starpu-gemm/build
drv=$bld/drivers/starpu_gemm
mpi=(mpirun --allow-run-as-root --bind-to none -x LD_LIBRARY_PATH -x STARPU_HOME -x STARPU_HOSTNAME -x STARPU_SILENT)
clean() { sed 's/ (.* per GPU)//; s/, check: PASSED.*/, PASSED/'; }
echo "== GPU tests ($SECONDS s)"
( top_srcdir=bundle/starpu-gemm top_builddir=bundle/starpu-gemm/build timeout 270 bundle/starpu-gemm/tests/gpu.sh ) > "$OUT/gpu-tests.log" 2>&1
echo "gpu tests rc=$? at $SECONDS s: $(grep -c '^PASS' "$OUT/gpu-tests.log") PASS lines, $(grep -c '^FAIL' "$OUT/gpu-tests.log") FAIL lines; $(tail -1 "$OUT/gpu-tests.log")"
for sp in off on; do
  [ $SECONDS -gt 520 ] && { echo "skipped 4x1 $sp: $SECONDS s"; continue; }
  echo "== 4 ranks x 1 GPU 2x2 n=32768 --c-spread $sp ($SECONDS s)"
  SG_GPUS_PER_NODE=4 timeout 70 "${mpi[@]}" -x SG_GPUS_PER_NODE -np 4 bundle/starpu-gemm/scripts/gpu-per-rank.sh $drv --sizes 32768 -P 2 -Q 2 --c-spread $sp --check --niter 3 --warmup 1 2>&1 | grep -E "^iteration|rror" | clean
done
for sp in off on; do
  [ $SECONDS -gt 480 ] && { echo "skipped 1x4 65536 $sp: $SECONDS s"; continue; }
  echo "== 1x4 n=65536 --c-spread $sp ($SECONDS s)"
  STARPU_NCUDA=4 timeout $((590 - SECONDS)) "${mpi[@]}" -x STARPU_NCUDA -np 1 $drv --sizes 65536 --c-spread $sp --check --niter 2 --warmup 1 2>&1 | grep -E "^plan: b=|^iteration|rror" | clean
done
echo "done $SECONDS s"
