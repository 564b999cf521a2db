#!/usr/bin/env bash
# A rank that meets an error says where and does not leave the others waiting (issue 8):
#   - a tile that cannot be allocated (on the last rank only): every rank's desc_create
#     returns -ENOMEM, the failing rank names the tile, the job ends normally;
#   - a tile GEMM whose tiles do not conform: the codelet names the rank, the worker and the
#     tiles (coordinates and shapes) and MPI_Abort ends the whole job, quickly.
set -eu
: "${top_srcdir:?}" "${top_builddir:?}"
run="$top_srcdir/tests/mpirun.sh"
prog="$top_builddir/tests/test_errors"
export SG_TEST_TIMEOUT=60
# Under AddressSanitizer an impossible malloc must return NULL, as it does without it.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}allocator_may_return_null=1"
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
failures=0

# expect 'DESCRIPTION' CONDITION: one PASS/FAIL line; the logs on a failure.
expect() {
	if eval "$2"; then
		echo "PASS $1"
	else
		echo "FAIL $1"
		failures=$((failures + 1))
		sed 's/^/    stdout: /' "$out"
		sed 's/^/    stderr: /' "$err"
	fi
}

status=0
"$run" 2 "$prog" alloc >"$out" 2>"$err" || status=$?
cat "$out"
expect "alloc: exit 0 (got $status)" '[ "$status" -eq 0 ]'
expect "alloc: rank 1 names the tile it cannot allocate" \
	'grep -q "rank 1 cannot allocate tile (0,0) (35184372088832 bytes)" "$err"'

status=0
start=$(date +%s)
"$run" 2 "$prog" bad_tile >"$out" 2>"$err" || status=$?
seconds=$(( $(date +%s) - start ))
line=$(grep -m1 '^starpu_gemm: rank' "$err" || true)
echo "# bad_tile: exit $status after ${seconds}s: $line"
expect "bad_tile: the job fails (exit $status, not 0 and not the timeout's 124)" \
	'[ "$status" -ne 0 ] && [ "$status" -ne 124 ] && [ "$status" -ne 137 ]'
expect "bad_tile: ends within 30 s (${seconds}s)" '[ "$seconds" -le 30 ]'
expect "bad_tile: the message names the rank, the check and the worker" \
	'[[ $line == "starpu_gemm: rank 1: tile shapes failed at "*"op(A), op(B) and C do not conform (dgemm on worker "*" (CPU "* ]]'
expect "bad_tile: the message names the three tiles by coordinates and shape" \
	'[[ $line == *"C tile (1,1) 2x2, A tile (0,0) 4x4, B tile (0,0) 4x4)" ]]'
# MPI_Abort(..., 1) makes mpirun exit 1; a rank that went on past the task would say so. (Not
# mpirun's "MPI_ABORT was invoked" text: Open MPI sometimes loses it in the abort's race.)
expect "bad_tile: the job was ended by MPI_Abort (exit 1), no rank went on" \
	'[ "$status" -eq 1 ] && ! grep -q "went on" "$out"'

echo "# errors: $failures failure(s)"
[ "$failures" -eq 0 ]
