#!/usr/bin/env bash
# Device call C: 1 rank x 4 GPUs, the walk's GPU assignment: dmdas's own (default) against
# --static-gpu (the GPUs as a 2 x 2 grid over C's tiles, each task's tiles prefetched to its
# GPU at submission); DGEMM n = 32768 and BF16 n = 65536, CSV rows with the bytes moved.
set -u
top=$PWD
. bundle/env.sh
export STARPU_HOSTNAME=gpu-node NCCL_NVLS_ENABLE=0
new=$top/bundle/starpu-gemm/build/drivers/starpu_gemm
mpi=(mpirun --allow-run-as-root --bind-to none -x LD_LIBRARY_PATH -x STARPU_HOME -x STARPU_HOSTNAME -x STARPU_SILENT -x STARPU_NCUDA)
export STARPU_NCUDA=4
run() { # label args...
  local label=$1; shift
  echo "== $label"
  timeout 200 "${mpi[@]}" -np 1 $new --csv --check "$@" 2>&1 | sed "s/^/$label,/"
}
{
  run d32768-dmdas --sizes 32768 --niter 3 --warmup 1
  run d32768-static --sizes 32768 --niter 3 --warmup 1 --static-gpu
  run b65536-dmdas --prec b --sizes 65536 --niter 3 --warmup 1
  run b65536-static --prec b --sizes 65536 --niter 3 --warmup 1 --static-gpu
} > $OUT/probe-c.csv 2>&1
grep -E "^[a-z0-9-]+,starpu_gemm" $OUT/probe-c.csv | awk -F, '{print $1, "t="$9, "time="$23, "GF="$24, "res="$25, "h2d="$26, "d2d="$28}'
echo "done $SECONDS s"
