#!/usr/bin/env bash
# The interposer linked before the BLAS (tests/test_blas.c): with STARPU_GEMM_BLAS_THRESHOLD=1000
# calls go each way as the threshold says (the program's expected counts against the
# interposer's own), bad arguments reach xerbla_/cblas_xerbla with the reference numbering,
# quick returns leave C alone, 4 threads at once are all correct; unset (or not a number), no
# call of the sizes used here starts StarPU. Then, each within a minute: a child forked after
# products through StarPU gets correct dgemm_, cblas_dgemm and starpu_gemm_gemm results (the
# CPU BLAS) and the parent goes on; STARPU_GEMM_TILE=1 on n = 8192 is refused with the
# planner's sentence before anything is allocated, and a small product then runs; exit(3) while another thread is inside starpu_gemm_gemm
# ends the process with status 3.
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

# A forked child (issue 29): a hang is killed after a minute and fails.
if STARPU_GEMM_BLAS_THRESHOLD=0 timeout -k 10 60 "$prog" fork > "$work/fork.out" \
	2> "$work/fork.err"; then
	cat "$work/fork.out"; echo "PASS fork: the child's calls and the parent's next ones correct"
else
	cat "$work/fork.out"; tail -5 "$work/fork.err"
	echo "FAIL fork: the child or the parent failed or hung"; failures=$((failures + 1))
fi
# Tiles the planner refuses, refused before allocating (the driver's limit).
if STARPU_GEMM_TILE=1 timeout -k 10 60 "$prog" tile > "$work/tile.out" 2> "$work/tile.err" &&
   grep -q "of StarPU handles per rank" "$work/tile.err"; then
	cat "$work/tile.out"; cat "$work/tile.err"
	echo "PASS STARPU_GEMM_TILE=1: refused up front with the planner's sentence, then a product runs"
else
	cat "$work/tile.out"; tail -5 "$work/tile.err"
	echo "FAIL STARPU_GEMM_TILE=1: not refused up front"; failures=$((failures + 1))
fi
# Staged operands (the GPU default): before, OpenBLAS's destructor ran under the tile kernels.
# The call in flight never frees its arrays: LeakSanitizer (sanitizer builds) would turn the
# status into its own.
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
STARPU_GEMM_PIN=stage STARPU_GEMM_BLAS_THRESHOLD=0 timeout -k 10 60 "$prog" exit \
	> "$work/exit.out" 2> "$work/exit.err"
status=$?
if [ $status = 3 ]; then
	echo "PASS exit(3) during another thread's starpu_gemm_gemm: status 3"
else
	tail -5 "$work/exit.err"
	echo "FAIL exit(3) during another thread's starpu_gemm_gemm: status $status"
	failures=$((failures + 1))
fi
exit $((failures > 0))
