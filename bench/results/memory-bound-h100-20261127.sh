#!/usr/bin/env bash
# Device call (1 x H100), 2026-11-27: the driver's host memory bound against its peak (VmHWM),
# after the bound counts the one call's staging pool (starpu_gemm_gemm_staged_bytes), the
# driver's own descriptors beside the call's for --layout lapack*, and the host memory CUDA
# loads at the first products (SG_DRIVER_CUDA_KERNELS_HOST_BYTES, 112 MB, provisional).
# Before (4 x H200, bench/results/node-h200x4-20261127z3-gpu-tests.log, 1 CUDA worker):
#   --layout lapack        n=6000 t=1024: peak 2.133 GB, bound 1.186 GB (80% over)
#   --layout lapack-pinned n=6000 t=1024: peak 1.238 GB, bound 1.186 GB (4% over)
#   memory pressure (4 GPUs) d n=8192: peak 2.266 GB, bound 2.210 GB; s +108 MB, z +85 MB
# Prediction (same base as the H200 run; the process's resident memory at the sample may
# differ by some MB on this node):
#   lapack:        bound 1.186 + 0.906 (108 staged tiles of 8 MiB: A, B and C whole)
#                  + 0.002 (108 more handles) + 0.112 = 2.206 GB; peak ~2.13: ~0.97 of it
#   lapack-pinned: bound 1.186 + 0.002 + 0.112 = 1.300 GB; peak ~1.24 (the same ~50 MB over
#                  the old bound as tile: the kernels, not the pinned arrays' bookkeeping)
#   tile:          bound ~1.30 GB, peak ~1.23
#   n=8192, STARPU_LIMIT_CUDA_MEM=512, 1 GPU: bound ~2.32 GB, peak ~2.26
#   the kernels' bytes alone (tile, n=4096, no --check; peak - bound + 112 MB), per
#   precision: d ~54 MB, s ~108, z ~85, b ~50, h ~56, TF32 ~88, c between: all <= 112 MB
#   CUDA_MODULE_LOADING=EAGER (tile d n=6000): the kernels load with the context, before the
#   sample: peak ~0.11 GB under the bound (confirms what the constant counts)
#   --sizes 4096,6000 in one process: the second size's peak ~0.1 GB under its bound (the
#   kernels are resident at its sample: once per process)
# Result (written after the run, bench/results/memory-bound-h100-20261127.log): every peak
# under its bound. lapack 2.153 / 2.215 GB (the old bound's terms alone: 1.195), lapack-pinned
# 1.238 / 1.300 (1.186), tile 1.237 / 1.298, n=8192 1.985 / 2.046. Peak less the bound without
# the 112 MB: 50-51 MB in all four, so lapack-pinned's 4% was this, not the pinned arrays. Not
# the kernels' modules: EAGER put 1.69 GB before the sample and the 51 MB still came (2.928 /
# 2.989); once per process: the second size 1.239 / 1.351 (exactly the bound without it). Per
# precision: s 104, TF32 87, z 80, h 58, d 51, b 50, c 18 MB, all under 112. The constant is
# named SG_DRIVER_CUDA_FIRST_GEMM_HOST_BYTES since (drivers/resources.h), value unchanged.
set -u
. bundle/env.sh
export STARPU_HOSTNAME=gpu-node
sg=bundle/starpu-gemm
drv=$sg/build/drivers/starpu_gemm
run=$sg/tests/mpirun.sh
export top_builddir=$sg/build SG_TEST_TIMEOUT=90
nvidia-smi -L | head -1
nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1
show() { grep -E "^problem:|^plan: host|^starpu_gemm: [a-z]gemm|^iteration|^memory:|rror|FAIL|notice"; }
case_() { # NAME ENV... -- ARGS...
  local name=$1 vars=()
  shift
  while [ "$1" != -- ]; do vars+=("$1"); shift; done
  shift
  echo "== $name ($SECONDS s)"
  env STARPU_NCUDA=1 STARPU_NCPU=0 STARPU_GEMM_VERBOSE=1 "${vars[@]}" \
    "$run" 1 "$drv" "$@" --niter 1 --warmup 0 --quiet 2>&1 | show
}
case_ "lapack d n=6000 t=1024" -- --layout lapack -M 6000 -N 6000 -K 6000 -t 1024 --check
case_ "lapack-pinned d n=6000 t=1024" -- --layout lapack-pinned -M 6000 -N 6000 -K 6000 -t 1024 --check
case_ "tile d n=6000 t=1024" -- --layout tile -M 6000 -N 6000 -K 6000 -t 1024 --check
case_ "memory pressure d n=8192 t=1024, STARPU_LIMIT_CUDA_MEM=512" STARPU_LIMIT_CUDA_MEM=512 -- \
  -M 8192 -N 8192 -K 8192 -t 1024 --check
case_ "tile d n=6000 t=1024, CUDA_MODULE_LOADING=EAGER" CUDA_MODULE_LOADING=EAGER -- \
  --layout tile -M 6000 -N 6000 -K 6000 -t 1024 --check
case_ "tile d --sizes 4096,6000 t=1024 in one process" -- --sizes 4096,6000 -t 1024
for prec in "d" "s" "z" "c" "b" "h" "s --math tf32"; do
  # shellcheck disable=SC2086
  case_ "kernels: tile --prec $prec n=4096 t=1024, no check" -- --prec $prec -M 4096 -N 4096 \
    -K 4096 -t 1024
done
echo "done ($SECONDS s)"
