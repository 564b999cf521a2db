#!/usr/bin/env bash
# Valgrind memcheck on one small 2-rank driver run with --check: no invalid access, no use of
# uninitialised memory, no definite leak. Suppressions (tests/valgrind.supp) cover only
# StarPU, Open MPI and the system libraries below them, each with why. Skips (77) without
# valgrind, and in a sanitizer build (valgrind cannot run ASan binaries).
set -eu
: "${top_srcdir:?}" "${top_builddir:?}"
if ! command -v valgrind >/dev/null 2>&1; then
	echo "SKIP: valgrind not found (Debian: apt-get install valgrind)"
	exit 77
fi
if [ "${SG_SANITIZERS:-no}" = yes ]; then
	echo "SKIP: this build has AddressSanitizer, which valgrind cannot run under"
	exit 77
fi
driver="$top_builddir/drivers/starpu_gemm"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# Valgrind runs code ~20-50 times slower: a small problem, one iteration, one OpenBLAS thread.
export SG_TEST_TIMEOUT=${SG_TEST_TIMEOUT:-400}
export OPENBLAS_NUM_THREADS=1
vg=(valgrind --tool=memcheck --error-exitcode=99 --track-origins=yes --num-callers=40
    --leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite
    --keep-debuginfo=yes --suppressions="$top_srcdir/tests/valgrind.supp"
    --gen-suppressions=all --log-file="$dir/memcheck.%q{OMPI_COMM_WORLD_RANK}")
args=(-M 200 -N 150 -K 100 -t 64 --check --niter 1 --warmup 0 --quiet)
echo "# valgrind $(valgrind --version | sed 's/^valgrind-//'): mpirun -np 2 ${vg[0]} ... $driver ${args[*]}"
status=0
"$top_srcdir/tests/mpirun.sh" 2 "${vg[@]}" "$driver" "${args[@]}" >"$dir/out" 2>"$dir/err" ||
	status=$?
cat "$dir/out"
failures=0
for rank in 0 1; do
	log="$dir/memcheck.$rank"
	if [ ! -s "$log" ]; then
		echo "FAIL rank $rank: no memcheck log"
		failures=$((failures + 1))
		continue
	fi
	summary=$(grep -m1 'ERROR SUMMARY' "$log" | sed 's/^==[0-9]*== //')
	definite=$(grep -m1 'definitely lost:' "$log" | sed 's/^==[0-9]*== *//')
	if grep -q 'ERROR SUMMARY: 0 errors' "$log"; then
		echo "PASS rank $rank: $summary; ${definite:-no leak summary}"
	else
		echo "FAIL rank $rank: $summary; the errors, with suppressions to judge (never to"
		echo "     paste blindly: only StarPU's, Open MPI's or the system's own belong there):"
		sed 's/^/    /' "$log"
		failures=$((failures + 1))
	fi
done
if [ "$status" -ne 0 ] || ! grep -q 'check: PASSED' "$dir/out"; then
	echo "FAIL the run under valgrind: exit $status, no 'check: PASSED'"
	sed 's/^/    stderr: /' "$dir/err"
	failures=$((failures + 1))
else
	echo "PASS the run under valgrind: exit 0, $(grep -m1 -o 'check: PASSED[^)]*)' "$dir/out")"
fi
echo "# valgrind: $failures failure(s)"
[ "$failures" -eq 0 ]
