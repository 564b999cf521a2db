#!/usr/bin/env bash
# starpu_gemm_gemm on host arrays, no MPI: every precision and transpose pair against CBLAS,
# cut in 16x16 tiles so ragged multi-tile products are exercised on small matrices; then the
# same with pinning forced, and with the library's own tile size (one tile) and 1 CPU worker.
set -eu
prog="$top_builddir/tests/test_gemm"
export STARPU_SILENT=1 STARPU_NCUDA=${STARPU_NCUDA:-0} STARPU_WORKERS_NOBIND=1
export STARPU_HOME=${STARPU_HOME:-$top_builddir/tests/starpu-home}
mkdir -p "$STARPU_HOME"
STARPU_GEMM_TILE=${STARPU_GEMM_TILE:-16} STARPU_NCPU=${STARPU_NCPU:-2} timeout -k 10 "${SG_TEST_TIMEOUT:-600}" "$prog" 12
# Each way of handling pageable operands, forced (the default uses them only with GPUs):
# staged through pinned tiles (copier threads ahead of the walk; where beta reads C, the product
# runs with beta = 0 and the copiers add beta*C as they copy C back, or with
# STARPU_GEMM_STAGE_C=1 C is copied in for the product to update),
# staged with a pool too small (falls back to pinning), and pinned whole with their page ranges
# merged (on CPU the registration itself fails, harmlessly; the GPU tests run it for real).
# With 12 copiers each tile is copied in and back in 3 slices of its columns (a tile of 16:
# 5, 5 and 6 columns), as on GPU nodes; with this machine's cores, in one.
for setting in "STARPU_GEMM_PIN=stage" "STARPU_GEMM_PIN=stage STARPU_GEMM_STAGE_C=1" \
               "STARPU_GEMM_PIN=stage STARPU_GEMM_STAGE_THREADS=12" \
               "STARPU_GEMM_PIN=stage STARPU_GEMM_STAGE_MB=0" "STARPU_GEMM_PIN=all"; do
  env $setting STARPU_GEMM_TILE=${STARPU_GEMM_TILE:-16} STARPU_NCPU=${STARPU_NCPU:-2} \
    timeout -k 10 "${SG_TEST_TIMEOUT:-600}" "$prog" 4
done
# Which of the two each setting ran, from the verbose lines.
for stage_c in 0 1; do
  added=$(STARPU_GEMM_PIN=stage STARPU_GEMM_STAGE_C=$stage_c STARPU_GEMM_VERBOSE=1 SEED=1 \
          STARPU_GEMM_TILE=16 STARPU_NCPU=${STARPU_NCPU:-2} \
          timeout -k 10 "${SG_TEST_TIMEOUT:-600}" "$prog" 2 2>&1 |
          grep -c 'beta\*C added on the way back' || true)
  if [ "$stage_c" = 0 ] && [ "$added" = 0 ]; then
    echo "FAIL STARPU_GEMM_STAGE_C=0: no product added beta*C on the way back"; exit 1
  elif [ "$stage_c" = 1 ] && [ "$added" != 0 ]; then
    echo "FAIL STARPU_GEMM_STAGE_C=1: $added product(s) added beta*C on the way back"; exit 1
  fi
  echo "PASS STARPU_GEMM_STAGE_C=$stage_c: $added product(s) added beta*C on the way back"
done
# A pool too small for a product's tiles but large enough for A's and two panels of C (and
# B): C is multiplied panel by panel, A staged once (60 KiB, tiles of 16, sizes of a fixed
# seed: some products take panels, others fit, others fall back to pinning).
pool_mb=0.06
out=$(STARPU_GEMM_PIN=stage STARPU_GEMM_STAGE_MB=$pool_mb STARPU_GEMM_VERBOSE=1 SEED=1 \
      STARPU_GEMM_TILE=16 STARPU_NCPU=${STARPU_NCPU:-2} \
      timeout -k 10 "${SG_TEST_TIMEOUT:-600}" "$prog" 4 2>&1) || { echo "$out"; exit 1; }
grep -v '^starpu_gemm: [sdcz]gemm' <<< "$out"
panels=$(grep -c 'C in panels' <<< "$out" || true)
[ "$panels" -gt 0 ] || { echo "FAIL no product ran in panels with a $pool_mb MiB pool"; exit 1; }
echo "PASS $panels products ran in panels of C with a $pool_mb MiB staging pool"
# How many threads copy staged tiles (doors/stage.c, sg_stage_threads), from the verbose
# lines: STARPU_GEMM_STAGE_THREADS when set; else the cores the calling thread may run on (its
# affinity, as nproc counts them) less those StarPU binds a thread to (none here but where
# STARPU_WORKERS_NOBIND=0: then its one CPU worker's), at most 16 per GPU, 16 without: one core
# under taskset (with a bound worker there, nothing left: the caller's). On several NUMA
# nodes (here a synthetic topology of two, one core each) they are dealt over them.
copiers() { # COMMAND PREFIX...: what the products' lines say of their copiers, each once
  "$@" env STARPU_GEMM_PIN=stage STARPU_GEMM_VERBOSE=1 SEED=1 STARPU_GEMM_TILE=16 \
    STARPU_NCPU=1 timeout -k 10 "${SG_TEST_TIMEOUT:-600}" "$prog" 2 2>&1 |
    sed -n 's/.*staged through pinned tiles (\([0-9][^)]*\)).*/\1/p' | sort -u | paste -sd';'
}
check_copiers() { # WHAT EXPECTED COMMAND PREFIX...
  local what=$1 expected=$2 got; shift 2
  got=$(copiers "$@")
  [ "$got" = "$expected" ] || { echo "FAIL $what: '$got', expected '$expected'"; exit 1; }
  echo "PASS $what: $got"
}
check_copiers "STARPU_GEMM_STAGE_THREADS=3" "3 copier threads" env STARPU_GEMM_STAGE_THREADS=3
if [ "${STARPU_NCUDA:-0}" = 0 ]; then
  n=$(nproc); n=$((n < 16 ? n : 16))
  check_copiers "default without GPUs, $(nproc) core(s)" \
    "$n copier thread$([ "$n" -gt 1 ] && echo s)" env
  n=$(( $(nproc) > 1 ? $(nproc) - 1 : 1 )); n=$((n < 16 ? n : 16))
  check_copiers "default, StarPU's CPU worker bound to a core" \
    "$n copier thread$([ "$n" -gt 1 ] && echo s)" env STARPU_WORKERS_NOBIND=0
fi
if command -v taskset > /dev/null; then
  first=$(taskset -pc $$ | sed 's/.*: *//; s/[-,].*//')
  check_copiers "default under taskset -c $first" "1 copier thread" taskset -c "$first"
  if taskset -c 0,1 true 2> /dev/null; then
    check_copiers "2 NUMA nodes (synthetic)" "4 copier threads over 2 NUMA nodes" \
      taskset -c 0,1 env HWLOC_SYNTHETIC="numa:2 core:1 pu:1" STARPU_GEMM_STAGE_THREADS=4
  fi
fi
STARPU_NCPU=${STARPU_NCPU:-1} timeout -k 10 "${SG_TEST_TIMEOUT:-600}" "$prog" 3
# StarPU's life around the door: the application's, then the door's own, then none at exit
# (staged too: the pool's buffers outlive the application's StarPU).
for pin in auto stage; do
  STARPU_GEMM_PIN=$pin STARPU_NCPU=${STARPU_NCPU:-1} timeout -k 10 "${SG_TEST_TIMEOUT:-600}" \
    "$prog" runtime
done
