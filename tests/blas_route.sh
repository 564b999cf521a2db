#!/usr/bin/env bash
# The interposer linked before the BLAS (tests/test_blas.c): with STARPU_GEMM_BLAS_THRESHOLD=1000
# calls go each way as the threshold says (the program's expected counts against the
# interposer's own), bad arguments reach xerbla_/cblas_xerbla with the reference numbering,
# quick returns leave C alone, 4 threads at once are all correct; unset (or not a number), no
# call of the sizes used here starts StarPU.
set -u
. "$top_srcdir/tests/blas_env.sh"
prog=$top_builddir/tests/test_blas
work=$top_builddir/tests/blas-route
rm -rf "$work"; mkdir -p "$work"
run() { timeout -k 10 "${SG_TEST_TIMEOUT:-300}" "$prog" "$@"; }
failures=0

STARPU_GEMM_BLAS_THRESHOLD=1000 STARPU_GEMM_VERBOSE=1 run route > "$work/route.out" \
	2> "$work/route.err" || failures=$((failures + 1))
cat "$work/route.out"
expected=$(sed -n 's/^expect: \(.*BLAS\)$/\1/p' "$work/route.out")
counted=$(sed -n 's/^starpu_gemm_blas: \(.*BLAS\) (threshold .*/\1/p' "$work/route.err")
if [ -n "$expected" ] && [ "$expected" = "$counted" ]; then
	echo "PASS routing at threshold 1000: the interposer counted $counted"
else
	tail -5 "$work/route.err"
	echo "FAIL routing at threshold 1000: expected '$expected', the interposer counted '$counted'"
	failures=$((failures + 1))
fi

for value in unset lots; do
	(
		if [ $value = unset ]; then unset STARPU_GEMM_BLAS_THRESHOLD
		else export STARPU_GEMM_BLAS_THRESHOLD=$value; fi
		STARPU_GEMM_VERBOSE=1 run unset
	) > "$work/$value.out" 2> "$work/$value.err" || failures=$((failures + 1))
	cat "$work/$value.out"
	if [ "$(through_starpu "$work/$value.err")" = 0 ]; then
		echo "PASS threshold $value: no call through StarPU"
	else
		tail -3 "$work/$value.err"; echo "FAIL threshold $value: calls went through StarPU"
		failures=$((failures + 1))
	fi
done
if grep -q "STARPU_GEMM_BLAS_THRESHOLD='lots' is not a count" "$work/lots.err"; then
	echo "PASS STARPU_GEMM_BLAS_THRESHOLD=lots: a message says it is ignored"
else
	echo "FAIL STARPU_GEMM_BLAS_THRESHOLD=lots: no message"; failures=$((failures + 1))
fi
exit $((failures > 0))
