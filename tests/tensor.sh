#!/usr/bin/env bash
# The tensor-core precisions (issue 17) on CPU workers: bfloat16 and half conversions; the b,
# h and t codelets in every transpose pair; starpu_gemm_pgemm in b, h and TF32 on 1 and 2
# ranks, every transpose pair, checked by starpu_gemm_check_math and an independent
# reference; starpu_gemm_gemm on uint16 arrays; the driver's --prec b|h and --math tf32 with
# --check. On a GPU node tests/gpu.sh runs the same on cuBLAS (GPU_TENSOR_ONLY=1: only those).
set -eu
: "${top_srcdir:?}" "${top_builddir:?}"
export SG_TEST_TIMEOUT=${SG_TEST_TIMEOUT:-300}
run="$top_srcdir/tests/mpirun.sh"
prog="$top_builddir/tests/test_tensor"
driver="$top_builddir/drivers/starpu_gemm"
"$prog" conversions
STARPU_NCPU=${STARPU_NCPU:-2} "$run" 1 "$prog" codelets
"$run" 1 "$prog" pgemm 1 1
"$run" 2 "$prog" pgemm 1 2
(
  export STARPU_SILENT=1 STARPU_NCUDA=${STARPU_NCUDA:-0} STARPU_WORKERS_NOBIND=1
  export STARPU_HOME=${STARPU_HOME:-$top_builddir/tests/starpu-home}
  mkdir -p "$STARPU_HOME"
  STARPU_GEMM_TILE=${STARPU_GEMM_TILE:-16} STARPU_NCPU=${STARPU_NCPU:-2} \
    timeout -k 10 "$SG_TEST_TIMEOUT" "$prog" door
  # Staged through pinned tiles: the pool holds tiles of two sizes (uint16 A and B, float C),
  # which from a tile of 33 take different counts of pages (filling the pool once wrote every
  # new buffer with the last one's size: a heap overflow at tile 40).
  for tile in ${STARPU_GEMM_TILE:-16 40}; do
    STARPU_GEMM_PIN=stage STARPU_GEMM_TILE=$tile STARPU_NCPU=${STARPU_NCPU:-2} \
      timeout -k 10 "$SG_TEST_TIMEOUT" "$prog" door
  done
)
for mode in "--prec b" "--prec h" "--prec s --math tf32"; do
  out=$("$run" 2 "$driver" $mode -M 200 -N 150 -K 170 -t 48 --transA T --niter 1 --warmup 0 \
        --check --quiet 2>&1) || { printf '%s\n' "$out"; echo "FAIL driver $mode"; exit 1; }
  grep -q "check: PASSED" <<<"$out" || { printf '%s\n' "$out"; echo "FAIL driver $mode"; exit 1; }
  grep -q "^check reference: double" <<<"$out" ||
    { printf '%s\n' "$out"; echo "FAIL driver $mode: the check does not say what it compares"; exit 1; }
  echo "PASS driver $mode --check: $(grep -o 'scaled residual [^,]*' <<<"$out")"
done
# Refused before StarPU starts, with one line and exit 2.
for bad in "--prec t" "--prec d --math tf32" "--prec b --math tf32" "--math tf64"; do
  if out=$("$run" 1 "$driver" $bad 2>&1); then echo "FAIL $bad was accepted"; exit 1; fi
  grep -q "error: --" <<<"$out" || { printf '%s\n' "$out"; echo "FAIL $bad: no message"; exit 1; }
  echo "PASS refused: $bad: $(grep -o 'error: .*' <<<"$out")"
done
