#!/usr/bin/env bash
# Device call G (issue 27): where 1 rank x 4 GPUs loses time, and relayed A/B tiles
# (--gpu-peers on: one host load per tile, the other GPUs copy it over NVLink) against
# every GPU loading its own (off). Text output: plan, timeline, traffic.
set -u
top=$PWD
. bundle/env.sh
export STARPU_HOSTNAME=gpu-node NCCL_NVLS_ENABLE=0
sg=$top/bundle/starpu-gemm/build
drv=$sg/drivers/starpu_gemm
mpi=(mpirun --allow-run-as-root --bind-to none -x LD_LIBRARY_PATH -x STARPU_HOME -x STARPU_HOSTNAME -x STARPU_SILENT -x STARPU_NCUDA)
export STARPU_NCUDA=4
log=$OUT/device-g.log
run() { # label args
  local label=$1; shift
  echo "== $label ($SECONDS s)"
  timeout 240 "${mpi[@]}" -np 1 $drv --check "$@" 2>&1 | grep -vE "^(workers|scheduler|starpu_gemm 0)" 
}
run d32768-off --sizes 32768 --niter 3 --warmup 1 --gpu-peers off
run d32768-on --sizes 32768 --niter 3 --warmup 1 --gpu-peers on
run d32768-off-beta0 --sizes 32768 --niter 3 --warmup 1 --gpu-peers off --beta 0
run b65536-off --prec b --sizes 65536 --niter 2 --warmup 1 --gpu-peers off
run b65536-on --prec b --sizes 65536 --niter 2 --warmup 1 --gpu-peers on
echo "done $SECONDS s"
