#!/usr/bin/env bash
# An application never compiled against starpu-gemm (tests/test_scalapack_app.c: ScaLAPACK
# only, column-major BLACS grid) gives the same residual with libstarpu_gemm_scalapack
# preloaded as without it: 1, 2 and 4 ranks, all transposes, block sizes that do not divide
# the sizes, grids 1x1 1x2 2x1 2x2, sizes up to 700, repeated calls. Then bench/scalapack_pdgemm (it prints no residual) runs
# through the preload, and below the default threshold the preload hands the call to
# ScaLAPACK.
set -u
prog="$top_builddir/tests/test_scalapack_app"
bench="$top_builddir/bench/scalapack_pdgemm"
if [ ! -x "$prog" ]; then
  echo "SKIP: built without ScaLAPACK (libscalapack-openmpi-dev)"
  exit 77
fi
. "$top_srcdir/tests/scalapack_common.sh"
preload=(-x LD_PRELOAD="$lib" -x STARPU_GEMM_VERBOSE=1 -x OPENBLAS_NUM_THREADS=1)

residual() { sed -n 's/.*residual=\([^ ]*\).*/\1/p' <<< "$1"; }
ours() { grep -c "^starpu_gemm_scalapack: pdgemm_ " <<< "$1"; }

# NP M N K TRANSA TRANSB NB P Q CALLS (the calls after the first reuse its tiles)
for case in "1 130 120 110 N N 32 1 1 1" "2 301 257 173 N T 37 1 2 3" "2 211 97 150 T N 17 2 1 1" \
            "4 160 190 140 T T 24 2 2 2" "4 97 203 64 C N 8 2 2 1" \
            "2 700 650 600 N N 64 2 1 2" "2 1500 1300 1100 N T 50 1 2 2" \
            "4 1100 1000 900 T N 24 2 2 1"; do
  set -- $case
  np=$1
  shift
  without=$("$run" "$np" -x OPENBLAS_NUM_THREADS=1 "$prog" "$@" 2>&1) ||
    { fail "without the preload: $*" "$without"; continue; }
  with=$("$run" "$np" "${preload[@]}" -x STARPU_GEMM_SCALAPACK_THRESHOLD=0 \
         -x STARPU_GEMM_SCALAPACK_TILE=64 -x STARPU_GEMM_SCALAPACK_THREADS=3 "$prog" "$@" 2>&1) ||
    { fail "with the preload: $*" "$with"; continue; }
  if [ "$(ours "$with")" != "${9}" ] || [ -z "$(residual "$with")" ]; then
    fail "with the preload, the call was not done by libstarpu_gemm_scalapack: $*" "$with"
    continue
  fi
  # A grid of one process multiplies the arrays in place (no redistribution).
  if [ "$np" = 1 ] && ! grep -q "one process: the arrays in place" <<< "$with"; then
    fail "on one process, the call was redistributed instead of done in place: $*" "$with"
    continue
  fi
  # Ranks of one machine redistribute through the node's shared memory, not MPI.
  if [ "$np" != 1 ] && ! grep -q "(the node's shared memory, no MPI)" <<< "$with"; then
    fail "on one node, the redistribution went through MPI: $*" "$with"
    continue
  fi
  echo "PASS test_scalapack_app $* on $np ranks: residual $(residual "$without") without," \
       "$(residual "$with") with libstarpu_gemm_scalapack (both < 10)"
done

# Each rank its own node (STARPU_GEMM_SHARE_NODE=0): the redistribution through MPI, as
# between nodes, and the same result.
set -- 4 1100 1000 900 T N 24 2 2 1
with=$("$run" 4 "${preload[@]}" -x STARPU_GEMM_SCALAPACK_THRESHOLD=0 -x STARPU_GEMM_SHARE_NODE=0 \
       -x STARPU_GEMM_SCALAPACK_TILE=64 "$prog" "${@:2}" 2>&1)
if [ $? != 0 ] || [ -z "$(residual "$with")" ] || ! grep -q "redistribution out .* (MPI)" <<< "$with"; then
  fail "each rank its own node: not through MPI, or failed: ${*:2}" "$with"
else
  echo "PASS test_scalapack_app ${*:2} on 4 ranks, each its own node: through MPI, residual" \
       "$(residual "$with")"
fi

# Below the default threshold (2^27 = 512^3) ScaLAPACK does the call: same result, no line.
out=$("$run" 2 "${preload[@]}" "$prog" 200 200 200 N N 32 1 2 2>&1)
if [ $? -eq 0 ] && [ "$(ours "$out")" = 0 ] && [ -n "$(residual "$out")" ]; then
  echo "PASS below the default threshold ScaLAPACK did the call: residual $(residual "$out")"
else
  fail "below the default threshold" "$out"
fi

# Issue 29, each within a minute, the result correct: a first call on a grid that leaves a
# process of MPI_COMM_WORLD out goes to ScaLAPACK with one warning (StarPU-MPI starts on all of
# them together; once started, smaller grids run through it: the stock PBLAS testers' 1x2);
# STARPU_GEMM_SCALAPACK_THRESHOLD or _TILE set differently on two ranks: one error naming the
# variable and the ranks, the call to ScaLAPACK; tiles of 1 refused up front with the planner's
# sentence (it allocated 6 GB before). Each followed by a call that goes through StarPU.
robust() { # WHAT EXPECTED-LINE NP MPIRUN-AND-PROGRAM-ARGS...
  local what=$1 expect=$2 np=$3
  shift 3
  local out
  out=$(SG_TEST_TIMEOUT=60 "$run" "$np" "$@" 2>&1)
  if [ $? -eq 0 ] && [ -n "$(residual "$out")" ] && [ "$(grep -c "$expect" <<< "$out")" = 1 ]; then
    echo "PASS $what: residual $(residual "$out"), one line: $(grep "$expect" <<< "$out")"
  else
    fail "$what (expected one line matching '$expect', and a residual, within 60 s)" "$out"
  fi
}
robust "a 1x2 grid of 3 processes" "grid of 2 of the 3 processes" 3 "${preload[@]}" \
  -x STARPU_GEMM_SCALAPACK_THRESHOLD=0 "$prog" 300 200 250 N N 32 1 2 2
for variable in STARPU_GEMM_SCALAPACK_THRESHOLD STARPU_GEMM_SCALAPACK_TILE; do
  robust "$variable 0 on rank 0, 1000 on rank 1" "error: $variable differs.*0: 0, 1: 1000)" 2 \
    -x OPENBLAS_NUM_THREADS=1 -x STARPU_GEMM_VERBOSE=1 -x STARPU_GEMM_SCALAPACK_THRESHOLD=0 \
    bash -c 'export '$variable'=$((OMPI_COMM_WORLD_RANK ? 1000 : 0)); LD_PRELOAD="$0" exec "$@"' \
    "$lib" "$prog" 300 200 250 N N 32 1 2 2
done
# STARPU_GEMM_STAGE_C on one rank only (C redistributed in for the product to update, or added
# on the way back): the grid takes the smallest value, and the call runs through StarPU.
out=$(SG_TEST_TIMEOUT=60 "$run" 2 -x OPENBLAS_NUM_THREADS=1 -x STARPU_GEMM_VERBOSE=1 \
      -x STARPU_GEMM_SCALAPACK_THRESHOLD=0 \
      bash -c 'export STARPU_GEMM_STAGE_C=$((OMPI_COMM_WORLD_RANK ? 0 : 1)); LD_PRELOAD="$0" exec "$@"' \
      "$lib" "$prog" 300 200 250 N N 32 1 2 2 2>&1)
if [ $? -eq 0 ] && [ -n "$(residual "$out")" ] && [ "$(ours "$out")" = 2 ]; then
  echo "PASS STARPU_GEMM_STAGE_C=1 on rank 0 only: both calls through StarPU, residual $(residual "$out")"
else
  fail "STARPU_GEMM_STAGE_C=1 on rank 0 only (2 calls through StarPU, a residual, within 60 s)" "$out"
fi
robust "STARPU_GEMM_SCALAPACK_TILE=1 on n = 2000" "of StarPU handles per rank" 2 "${preload[@]}" \
  -x STARPU_GEMM_SCALAPACK_THRESHOLD=0 -x STARPU_GEMM_SCALAPACK_TILE=1 "$prog" 2000 2000 2000 N N 64 1 2
# Then the normal call, through StarPU.
out=$(SG_TEST_TIMEOUT=60 "$run" 2 "${preload[@]}" -x STARPU_GEMM_SCALAPACK_THRESHOLD=0 "$prog" \
      300 200 250 N T 32 2 1 2 2>&1)
if [ $? -eq 0 ] && [ "$(ours "$out")" = 2 ] && [ -n "$(residual "$out")" ]; then
  echo "PASS then a 2x1 grid of both processes: through StarPU, residual $(residual "$out")"
else
  fail "the normal call after the cases of issue 29" "$out"
fi

if [ -x "$bench" ]; then
  out=$("$run" 2 "${preload[@]}" -x STARPU_GEMM_SCALAPACK_THRESHOLD=0 -x OMPI_MPI_THREAD_LEVEL=3 \
        "$bench" -n 512 --nb 64 --niter 2 --warmup 1 2>&1)
  if [ $? -eq 0 ] && [ "$(ours "$out")" = 3 ] && [ "$(grep -c "^scalapack," <<< "$out")" = 2 ]; then
    echo "PASS bench/scalapack_pdgemm through the preload: 3 calls done by" \
         "libstarpu_gemm_scalapack, rows:" $(grep '^scalapack,' <<< "$out")
  else
    fail "bench/scalapack_pdgemm through the preload" "$out"
  fi
fi
exit $((failures > 0))
