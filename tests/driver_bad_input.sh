#!/usr/bin/env bash
# Bad input to the starpu_gemm driver on 2 ranks: each case must exit non-zero without hanging
# (not 124 from timeout), print the expected message, and print exactly one line of its own
# on stderr (mpirun may add its own lines about the non-zero exit).
set -eu
: "${top_srcdir:?}" "${top_builddir:?}"
driver="$top_builddir/drivers/starpu_gemm"
export SG_TEST_TIMEOUT=50
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
failures=0

# bad 'EXPECTED STDERR SUBSTRING' ARGS...  (an ENV=VALUE first argument goes to the env)
bad() {
	local expected=$1
	shift
	local envs=()
	while [ $# -gt 0 ] && [[ $1 == *=* && $1 != -* ]]; do
		envs+=("$1")
		shift
	done
	local status=0
	env ${envs[@]+"${envs[@]}"} timeout 60 "$top_srcdir/tests/mpirun.sh" 2 "$driver" \
		--quiet "$@" >"$out" 2>"$err" || status=$?
	local ours matching
	ours=$(grep -c '^starpu_gemm: ' "$err" || true)
	matching=$(grep -cF -- "$expected" "$err" || true)
	if [ "$status" -eq 0 ] || [ "$status" -eq 124 ] || [ "$ours" -ne 1 ] ||
	   [ "$matching" -ne 1 ] || ! grep -q '^starpu_gemm: error: ' "$err"; then
		failures=$((failures + 1))
		echo "FAIL ${envs[*]+${envs[*]} }$*: exit $status, $ours line(s) of ours," \
		     "$matching matching '$expected'; stderr:"
		sed 's/^/    /' "$err"
	else
		echo "PASS ${envs[*]+${envs[*]} }$* -> exit $status: $(grep '^starpu_gemm: ' "$err")"
	fi
}

# Sizes: not numbers, not positive, too large.
bad "-M/--M: 'abc' is not an integer" -M abc
bad "--M: '12x' is not an integer" --M 12x
bad "-N/--N: 0 must be positive" -N 0
bad "-K/--K: -5 must be positive" -K -5
bad "-M/--M: 99999999999 is too large" -M 99999999999
bad "-M/--M: missing value" -M
bad "-M/--M: '' is not an integer" -M 64,,128
bad "--sizes: 0 must be positive" --sizes 64,0
bad "-M/--M: 2 sizes, but another dimension has 3" -M 64,128 -N 1,2,3
# Tile.
bad "-t/--tile: 0 must be positive" -t 0
bad "-t/--tile: -64 must be positive" --tile -64
# Grid against the job's 2 ranks.
bad "grid 2 x 2 has 4 processes but the job has 2 rank(s)" -P 2 -Q 2
bad "-P/--P: 3 does not divide the job's 2 rank(s)" -P 3
bad "-Q/--Q: 0 must be positive" -Q 0
# Letters.
bad "--prec: unknown precision 'x'" --prec x
bad "--prec: unknown precision 'dd'" --prec dd
bad "--transA: unknown transpose 'X'" --transA X
bad "--transB: unknown transpose 'Q'" --transB Q
bad "--dist: unknown distribution 'diag'" --dist diag
bad "--layout: unknown layout 'rows'" --layout rows
bad "--layout lapack: the matrices are whole arrays of one process; run it on 1 rank, not 2" --layout lapack
# Options that do not exist, and stray arguments.
bad "unknown option '--bogus'" --bogus
bad "unknown option '-x'" -x
bad "unexpected argument 'extra'" -M 64 extra
# Plan parameters.
bad "-l/--lookahead: -1 must be non-negative" -l -1
bad "-b/--block-rows: 0 must be positive" -b 0
bad "-c/--block-cols: -2 must be positive" -c -2
bad "-d/--chunk: 0 must be positive" -d 0
# Scalars and iteration counts.
bad "--alpha: 'foo' is not a number" --alpha foo
bad "--beta: an imaginary part needs a complex precision" --beta 1,2 --prec d
bad "--alpha: 1e+300 overflows the precision s" --alpha 1e300 --prec s
bad "--niter: 0 must be positive" --niter 0
bad "--warmup: -1 must be non-negative" --warmup -1
bad "--check-samples: -3 must be non-negative" --check-samples -3
# Found once StarPU runs: matrices larger than host memory, no worker at all.
bad "matrices too large for host memory" -M 4000000 -N 4000000 -K 4000000
# STARPU_NCUDA=0 makes "no GPU" true on a machine that has one too.
bad "no worker to run on" STARPU_NCPU=0 STARPU_NCUDA=0 -M 64 -N 64 -K 64

echo "# driver_bad_input: $failures failure(s)"
[ "$failures" -eq 0 ]
