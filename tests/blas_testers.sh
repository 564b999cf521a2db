#!/usr/bin/env bash
# The interposer against Debian's reference BLAS testers (libblas-test): xblat3[sdcz] for
# ?gemm_ and x[sdcz]cblat3 for cblas_?gemm (column- and row-major), preloaded with every call
# through StarPU (STARPU_GEMM_BLAS_THRESHOLD=0). Each tester's input is cut down to its GEMM
# routine. Every GEMM line must say PASSED, error exits included, nothing may say FAIL or
# FATAL, and the interposer must have run calls through StarPU.
set -u
. "$top_srcdir/tests/blas_env.sh"
skip_under_sanitizers
testers=$(dpkg -L libblas-test 2>/dev/null | sed -n 's|/xblat3d$||p' | head -1)
if [ -z "$testers" ]; then
	echo "SKIP blas_testers: Debian's libblas-test is not installed (scripts/install-deps.sh installs it)"
	exit 77
fi
work=$top_builddir/tests/blas-testers
rm -rf "$work"; mkdir -p "$work"; cd "$work"
# The CBLAS testers need the reference BLAS the package was built with (they refer to its
# RowMajorStrg); the Fortran ones are judged against the same one.
export LD_LIBRARY_PATH=$testers${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# The testers' matrices are at most 9 wide: tiles of 4 make StarPU run them as several tiles,
# ragged ones included, rather than as one tile handed back to the CPU BLAS.
export STARPU_GEMM_TILE=${STARPU_GEMM_TILE:-4}
failures=0
# NAME OUTPUT ERRORS PATTERN...: every pattern in OUTPUT, no failure line, and calls through
# StarPU counted in ERRORS (stderr, where starpu_gemm also writes its per-call lines).
check() {
	local name=$1 out=$2 err=$3; shift 3
	local bad=0 calls
	for pattern in "$@"; do
		grep -q "$pattern" "$out" || { echo "  missing: $pattern"; bad=1; }
	done
	if grep -i 'gemm' "$out" | grep -q -v 'PASSED'; then
		grep -i 'gemm' "$out" | grep -v 'PASSED' | head -5 | sed 's/^/  not passed: /'; bad=1
	fi
	if grep -E -q 'FAIL|FATAL|\*\*\*\*\*' "$out" "$err"; then
		grep -h -E 'FAIL|FATAL|\*\*\*\*\*' "$out" "$err" | head -5 | sed 's/^/  /'; bad=1
	fi
	calls=$(through_starpu "$err")
	[ "${calls:-0}" -gt 0 ] || { echo "  no call ran through StarPU"; bad=1; }
	if [ $bad = 0 ]; then echo "PASS $name: GEMM lines PASSED, ${calls} calls through StarPU"
	else echo "FAIL $name (output: $out)"; failures=$((failures + 1)); fi
}
for p in s d c z; do
	P=$(tr sdcz SDCZ <<<"$p")
	# Fortran: the summary goes to the file named on the first line; only ?GEMM is tested.
	sed -e "1s|^'[^']*'|'$p.summary'|" -e "s/^\\(${P}[A-Z0-9]* *\\) T /\\1 F /" \
	    -e "s/^${P}GEMM  F /${P}GEMM  T /" "$testers/${p}blat3.in" > "$p.in"
	preloaded "$testers/xblat3$p" < "$p.in" > "$p.out" 2> "$p.err"
	cat "$p.summary" >> "$p.out" 2>/dev/null
	check "xblat3$p" "$p.out" "$p.err" "${P}GEMM  PASSED THE TESTS OF ERROR-EXITS" \
		"${P}GEMM  PASSED THE COMPUTATIONAL TESTS"
	sed -e "s/^\\(cblas_${p}[a-z0-9]* *\\) T /\\1 F /" -e "s/^cblas_${p}gemm  F /cblas_${p}gemm  T /" \
	    "$testers/${p}in3" > "c$p.in"
	preloaded "$testers/x${p}cblat3" < "c$p.in" > "c$p.out" 2> "c$p.err"
	check "x${p}cblat3" "c$p.out" "c$p.err" "cblas_${p}gemm  PASSED THE TESTS OF ERROR-EXITS" \
		"cblas_${p}gemm  PASSED THE COLUMN-MAJOR" "cblas_${p}gemm  PASSED THE ROW-MAJOR"
done
exit $((failures > 0))
