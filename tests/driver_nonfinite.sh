#!/usr/bin/env bash
# No silent wrong answers: a NaN or Inf in C makes the driver's --check fail (exit 1) and name
# the first such entry and its tile, in the full and the sampled check, real and complex, on 1
# and 2 ranks. --alpha nan / --beta inf are how a user sees it happen.
set -eu
: "${top_srcdir:?}" "${top_builddir:?}"
driver="$top_builddir/drivers/starpu_gemm"
export SG_TEST_TIMEOUT=120
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
failures=0

# nonfinite NP 'EXPECTED CHECK LINE SUBSTRING' DRIVER-ARGS...
nonfinite() {
	local np=$1 expected=$2
	shift 2
	local status=0
	"$top_srcdir/tests/mpirun.sh" "$np" "$driver" --quiet --niter 1 --warmup 0 --check "$@" \
		>"$out" 2>"$err" || status=$?
	local line
	line=$(grep -m1 'check: ' "$out" || true)
	if [ "$status" -eq 1 ] && [[ $line == *"check: FAILED (scaled residual inf"* ]] &&
	   [[ $line == *"$expected"* ]]; then
		echo "PASS np=$np $* -> exit $status: ${line#*check: }"
	else
		failures=$((failures + 1))
		echo "FAIL np=$np $*: exit $status (want 1), check line '$line', want '$expected'"
		sed 's/^/    stdout: /' "$out"
		sed 's/^/    stderr: /' "$err"
	fi
}

# alpha = NaN: every entry is NaN, the first is C(0,0), in tile (0,0).
nonfinite 1 ": C(0,0) in tile (0,0) is NaN or Inf" -M 70 -N 50 -K 30 -t 16 --alpha nan
nonfinite 2 ": C(0,0) in tile (0,0) is NaN or Inf" -M 70 -N 50 -K 30 -t 16 --alpha nan \
	--check-samples 5
nonfinite 2 ": C(0,0) in tile (0,0) is NaN or Inf" -M 40 -N 33 -K 20 -t 8 --prec z \
	--alpha 1,nan
# beta = Inf: C = alpha AB + Inf C0, Inf (or NaN where C0 is 0) everywhere.
nonfinite 2 ": C(0,0) in tile (0,0) is NaN or Inf" -M 64 -N 64 -K 64 -t 16 --prec s \
	--beta inf --transA T
# A finite run right after still passes: the check is not stuck failing.
status=0
"$top_srcdir/tests/mpirun.sh" 2 "$driver" --quiet --niter 1 --warmup 0 --check -M 70 -N 50 \
	-K 30 -t 16 >"$out" 2>"$err" || status=$?
if [ "$status" -eq 0 ] && grep -q 'check: PASSED' "$out"; then
	echo "PASS finite run: $(grep -m1 -o 'check: .*' "$out")"
else
	failures=$((failures + 1))
	echo "FAIL finite run: exit $status"
	cat "$out" "$err"
fi

echo "# driver_nonfinite: $failures failure(s)"
[ "$failures" -eq 0 ]
