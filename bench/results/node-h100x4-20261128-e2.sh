#!/usr/bin/env bash
# Device call E2 (4 x H100, nvidia-h100-x4), the same code as E1 (whose drop-in cases found no
# bench/scalapack_pdgemm in the bundle: BUNDLE_SCALAPACK=1 was not set). 1. the driver 1 x 4 and the ScaLAPACK drop-in, 4 ranks x 1 GPU (2 x 2), at
#    n = 49152, MB = NB = 4096 and 256: issue 29's last line, never measured at this size.
#    Prediction: driver ~1.20 s (198 TFLOP/s, call D7); drop-in NB = 4096 1.35-1.50 s
#    (0.80-0.89 x), NB = 256 1.40-1.55 s (0.77-0.86 x): the copies (A and B in, 38.6 GB; C
#    out as tile + beta C) fit under the 1.2 s of GEMMs at this size, where at n = 32768
#    (0.3 s of copies beside 0.36 s of GEMMs) the drop-in reached 0.64-0.67 x (call Y, H200).
# 2. DGEMM 1 x 4, n = 32768, --c-spread off / on once more. E1 gave on 0.3397-0.3752 s
#    (medians 0.3481, 0.3452) against off 0.3680-0.3768 (0.3717, 0.3733): prediction now,
#    on 5-8% faster than off.
set -u
. bundle/env.sh
export STARPU_HOSTNAME=gpu-node NCCL_NVLS_ENABLE=0
bld=bundle/starpu-gemm/build
drv=$bld/drivers/starpu_gemm
lib=bundle/starpu-gemm/lib
mpi=(mpirun --allow-run-as-root --bind-to none -x LD_LIBRARY_PATH -x STARPU_HOME -x STARPU_HOSTNAME -x STARPU_SILENT)
clean() { sed 's/ (.* per GPU)//; s/, check: PASSED.*/, PASSED/; s/ (the node.s shared memory, no MPI)//'; }
nvidia-smi -L; nproc; free -g | head -2; df -h /dev/shm | tail -1
echo "== driver 1x4 n=49152 ($SECONDS s)"
STARPU_NCUDA=4 timeout 100 "${mpi[@]}" -x STARPU_NCUDA -np 1 $drv --sizes 49152 --check --niter 3 --warmup 1 2>&1 | grep -E "^plan: b=|^iteration|rror" | clean
for nb in 4096 256; do
  echo "== scalapack drop-in 4 ranks x 1 GPU, 2x2, n=49152 nb=$nb ($SECONDS s)"
  timeout 200 "${mpi[@]}" -x LD_PRELOAD=$lib/libstarpu_gemm_scalapack.so -x STARPU_GEMM_VERBOSE=1 -np 4 \
    bundle/starpu-gemm/scripts/gpu-per-rank.sh $bld/bench/scalapack_pdgemm -n 49152 -P 2 -Q 2 --nb $nb --niter 3 --warmup 1 2>&1 |
    grep -E "^scalapack,|beside it|redistribution in|rror|Killed|memory" | clean
done
for round in 1; do
  for sp in off on; do
    [ $SECONDS -gt 500 ] && { echo "skipped spread $sp: $SECONDS s"; continue; }
    echo "== dgemm 1x4 n=32768 --c-spread $sp ($SECONDS s)"
    STARPU_NCUDA=4 timeout 60 "${mpi[@]}" -x STARPU_NCUDA -np 1 $drv --sizes 32768 --c-spread $sp --check --niter 3 --warmup 1 2>&1 | grep -E "^plan: C.s loads|^iteration|rror" | clean
  done
done
echo "done $SECONDS s"
