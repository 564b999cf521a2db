#!/usr/bin/env bash
# GPU tests (CUDA workers, cuBLAS). They need a GPU: on a machine without one (CI) this test
# SKIPs and says so. On a GPU node run it from a build tree (make check TESTS=tests/gpu.sh) or
# from the bundle (top_srcdir=B/starpu-gemm top_builddir=B/starpu-gemm/build tests/gpu.sh).
#  1 codelets on cuBLAS: every precision x (transA, transB) x ragged shapes, GPU only
#  2 the same under compute-sanitizer memcheck (when it is installed; GPU_SANITIZER=0 skips)
#  3 distributed GEMM: 1 rank on every GPU, then one rank per GPU (grids 1xG and Gx1); the
#    driver's CSV counts a GPU that several ranks drive once
#  4 GPU memory pressure: STARPU_LIMIT_CUDA_MEM=512 (MiB), tile 1024, several precisions
#  5 the one call on host arrays (starpu_gemm_gemm) on the GPU, with and without pinning the
#    caller's pageable arrays, and the driver's lapack layouts;
#    user-memory descriptors and products submitted back to back on the GPU
#  6 the tensor-core precisions (issue 17): b, h and TF32 codelets on cublasGemmEx, pgemm on
#    1 rank x every GPU and on 2 ranks, the one call on uint16 arrays, the driver under GPU
#    memory pressure; GPU_TENSOR_ONLY=1 runs only these
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
if [ "${gpus:-0}" -eq 0 ]; then
  echo "SKIP GPU tests: no NVIDIA GPU on $(hostname) (nvidia-smi lists none); run them on a GPU node"
  exit 77
fi
export SG_TEST_REQUIRE_GPU=1 SG_TEST_TIMEOUT=${SG_TEST_TIMEOUT:-300}
run="$top_srcdir/tests/mpirun.sh"
per_rank="$top_srcdir/scripts/gpu-per-rank.sh"
bin=$top_builddir/tests
driver=$top_builddir/drivers/starpu_gemm
failures=0
step() {
  local name=$1; shift
  local t0=$SECONDS
  echo "== $name"
  if "$@"; then echo "PASS $name ($((SECONDS - t0)) s)"
  else echo "FAIL $name (exit $?, $((SECONDS - t0)) s)"; failures=$((failures + 1)); fi
}
echo "# $gpus GPU(s): $(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | xargs)"

tensor_steps() {
  STARPU_NCUDA=1 STARPU_NCPU=0 step "tensor codelets b, h, t on cublasGemmEx" \
    "$run" 1 "$bin/test_tensor" codelets
  STARPU_NCUDA=$gpus STARPU_NCPU=0 step "tensor pgemm, 1 rank x $gpus GPU(s)" \
    "$run" 1 "$bin/test_tensor" pgemm 1 1
  STARPU_NCPU=0 step "tensor pgemm, $ranks rank(s) x 1 GPU, grid 1x$ranks" \
    "$run" "$ranks" "$per_rank" "$bin/test_tensor" pgemm 1 "$ranks"
  STARPU_NCUDA=1 STARPU_NCPU=0 STARPU_GEMM_TILE=32 STARPU_SILENT=1 \
    step "tensor starpu_gemm_gemm on uint16 arrays, 32x32 tiles" "$bin/test_tensor" door
  local mode
  for mode in "--prec b" "--prec h" "--prec s --math tf32"; do
    STARPU_NCUDA=$gpus STARPU_NCPU=0 STARPU_LIMIT_CUDA_MEM=512 \
      step "tensor memory pressure: $mode n=8192 t=1024, STARPU_LIMIT_CUDA_MEM=512" \
      "$run" 1 "$driver" $mode -M 8192 -N 8192 -K 8192 -t 1024 --niter 1 --warmup 0 \
      --check --quiet
    STARPU_NCUDA=$gpus STARPU_NCPU=0 step "tensor driver: $mode n=20000 (ragged), sampled check" \
      "$run" 1 "$driver" $mode -M 20000 -N 20000 -K 20000 --transB T --niter 1 --warmup 0 \
      --check --quiet
    STARPU_NCUDA=$gpus STARPU_NCPU=1 step "tensor driver, C at home: $mode n=3000 t=512, full check" \
      "$run" 1 "$driver" $mode -M 3000 -N 2900 -K 2500 -t 512 --beta 0.7 --c-home --niter 2 \
      --warmup 0 --check --quiet
  done
}
ranks=$(( gpus < 2 ? 2 : gpus ))
if [ "${GPU_TENSOR_ONLY:-0}" = 1 ]; then
  tensor_steps
  echo "# GPU tests (tensor only): $failures failure(s)"
  [ "$failures" -eq 0 ]
  exit
fi

if [ "${GPU_DOORS_ONLY:-0}" != 1 ]; then
STARPU_NCUDA=1 STARPU_NCPU=0 step "codelets on cuBLAS" "$run" 1 "$bin/test_codelets" 4
if [ "${GPU_SANITIZER:-1}" = 1 ] && command -v compute-sanitizer > /dev/null; then
  STARPU_NCUDA=1 STARPU_NCPU=0 step "codelets under compute-sanitizer memcheck" \
    "$run" 1 compute-sanitizer --tool memcheck --error-exitcode 3 --print-limit 20 \
    "$bin/test_codelets" 1
else
  echo "SKIP compute-sanitizer: not installed or GPU_SANITIZER=0"
fi
STARPU_NCUDA=$gpus STARPU_NCPU=0 step "pgemm, 1 rank x $gpus GPU(s), forced plans" \
  "$run" 1 "$bin/test_pgemm" 1 1 8 forced
# One rank per GPU, at least 2 ranks so StarPU-MPI moves tiles between GPUs of different
# ranks (on a 1-GPU node both ranks share it).
ranks=$(( gpus < 2 ? 2 : gpus ))
STARPU_NCPU=0 step "pgemm, $ranks rank(s) x 1 GPU, grid 1x$ranks" \
  "$run" "$ranks" "$per_rank" "$bin/test_pgemm" 1 "$ranks" 6
STARPU_NCPU=0 step "pgemm, $ranks rank(s) x 1 GPU, grid ${ranks}x1, forced plans" \
  "$run" "$ranks" "$per_rank" "$bin/test_pgemm" "$ranks" 1 6 forced
# The driver's CSV names how many GPUs the job drives, a GPU that several ranks drive once
# (bench/report.py divides the rooflines by it): csv_counts_gpus WANT [VAR=value...].
csv_counts_gpus() {
  local want=$1 got; shift
  got=$(env "$@" "$run" "$ranks" "$per_rank" "$driver" -M 512 -N 512 -K 512 -t 256 \
        --niter 1 --warmup 0 --csv | awk -F, '/^system,/ { for (i = 1; i <= NF; i++) if ($i == "gpu") c = i; next }
        c && $1 == "starpu_gemm" { print $c; exit }')
  echo "gpu column: '$got'"
  [ "$got" = "$want" ]
}
STARPU_NCPU=0 step "driver CSV: $ranks rank(s) on $gpus GPU(s) count $gpus" csv_counts_gpus "$gpus"
STARPU_NCPU=0 step "driver CSV: $ranks rank(s) sharing GPU 0 count 1" csv_counts_gpus 1 \
  SG_GPUS_PER_NODE=1
STARPU_NCUDA=$gpus STARPU_NCPU=0 step "pgemm random cases, 1 rank x $gpus GPU(s)" \
  "$run" 1 "$bin/test_pgemm" random 20
# C kept in host memory: GEMMs on the GPUs into scratch tiles, one CPU worker adds beta C
STARPU_NCUDA=$gpus STARPU_NCPU=1 step "pgemm, C at home, 1 rank x $gpus GPU(s)" \
  "$run" 1 "$bin/test_pgemm" 1 1 8 home
STARPU_NCPU=1 step "pgemm, C at home, $ranks rank(s) x 1 GPU, grid ${ranks}x1" \
  "$run" "$ranks" "$per_rank" "$bin/test_pgemm" "$ranks" 1 6 home
STARPU_NCUDA=$gpus STARPU_NCPU=1 step "driver, C at home: zgemm n=2048 t=256 beta=(0.7,0.2), full check" \
  "$run" 1 "$driver" --prec z -M 2048 -N 2048 -K 2048 -t 256 --beta 0.7,0.2 --c-home \
  --niter 2 --warmup 0 --check --quiet
for prec in d z s; do
  STARPU_NCUDA=$gpus STARPU_NCPU=0 STARPU_LIMIT_CUDA_MEM=512 \
    step "memory pressure: ${prec}gemm n=8192 t=1024, STARPU_LIMIT_CUDA_MEM=512" \
    "$run" 1 "$driver" --prec "$prec" -M 8192 -N 8192 -K 8192 -t 1024 --niter 1 --warmup 0 \
    --check --quiet
done
STARPU_NCUDA=$gpus STARPU_NCPU=1 STARPU_LIMIT_CUDA_MEM=512 \
  step "memory pressure, C at home: dgemm n=8192 t=1024, STARPU_LIMIT_CUDA_MEM=512" \
  "$run" 1 "$driver" -M 8192 -N 8192 -K 8192 -t 1024 --c-home --niter 2 --warmup 0 \
  --check --quiet
# C's loads spread over the chunks, forced under the cap (regime b, where it is not
# automatic): scratch tiles may be evicted to host memory and come back
STARPU_NCUDA=$gpus STARPU_NCPU=0 STARPU_LIMIT_CUDA_MEM=512 \
  step "memory pressure, C's loads spread: dgemm n=8192 t=1024, STARPU_LIMIT_CUDA_MEM=512" \
  "$run" 1 "$driver" -M 8192 -N 8192 -K 8192 -t 1024 --c-spread on --niter 1 --warmup 0 \
  --check --quiet
# beta = 0: C's first update writes it without loading it (H2D: A and B only)
STARPU_NCUDA=$gpus STARPU_NCPU=0 STARPU_LIMIT_CUDA_MEM=512 \
  step "memory pressure, beta = 0: dgemm n=8192 t=1024, STARPU_LIMIT_CUDA_MEM=512" \
  "$run" 1 "$driver" -M 8192 -N 8192 -K 8192 -t 1024 --beta 0 --niter 1 --warmup 0 \
  --check --quiet
if [ "${GPU_SANITIZER:-1}" = 1 ] && command -v compute-sanitizer > /dev/null; then
  STARPU_NCUDA=$gpus STARPU_NCPU=0 STARPU_LIMIT_CUDA_MEM=512 \
    step "memory pressure under compute-sanitizer memcheck: dgemm n=4096 t=1024" \
    "$run" 1 compute-sanitizer --tool memcheck --error-exitcode 3 --print-limit 20 \
    "$driver" -M 4096 -N 4096 -K 4096 -t 1024 --niter 1 --warmup 0 --check --quiet
fi
fi
for pin in stage all none; do
  STARPU_NCUDA=1 STARPU_NCPU=0 STARPU_GEMM_PIN=$pin STARPU_GEMM_TILE=32 \
    step "starpu_gemm_gemm on the GPU, STARPU_GEMM_PIN=$pin, 32x32 tiles" \
    env top_builddir="$top_builddir" "$top_srcdir/tests/gemm.sh"
done
for layout in lapack lapack-pinned; do
  STARPU_NCUDA=1 STARPU_NCPU=0 STARPU_GEMM_VERBOSE=1 \
    step "driver --layout $layout: dgemm n=6000 t=1024 (operands pinned when pageable)" \
    "$run" 1 "$driver" --layout "$layout" -M 6000 -N 6000 -K 6000 -t 1024 --niter 1 \
    --warmup 0 --check --quiet
done
STARPU_NCUDA=$gpus STARPU_NCPU=0 step "user-memory descriptors, back-to-back products, 1 rank" \
  "$run" 1 "$bin/test_user_desc" 1 1
[ "${GPU_DOORS_ONLY:-0}" != 1 ] && tensor_steps
echo "# GPU tests: $failures failure(s)"
[ "$failures" -eq 0 ]
