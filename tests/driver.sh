#!/usr/bin/env bash
# The starpu_gemm driver with --check on CPU workers, on 1, 2 and 4 ranks: every precision,
# transposes N/T/C, ragged and tiny shapes, grids 1x1, 1x2, 2x1, 2x2, 1D distributions, a
# forced plan, the un-throttled baseline and C's loads spread. Each run must exit 0 and print
# one "check: PASSED" line per timed iteration. Also: --help lists every option, --plan exits 0.
set -eu
: "${top_srcdir:?}" "${top_builddir:?}"
driver="$top_builddir/drivers/starpu_gemm"
export SG_TEST_TIMEOUT=${SG_TEST_TIMEOUT:-180}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
failures=0

fail() {
	echo "FAIL $*"
	failures=$((failures + 1))
}

# run_check NP NITER ARGS...: a checked run; exit 0 and exactly NITER PASSED lines.
run_check() {
	local np=$1 niter=$2
	shift 2
	local status=0
	"$top_srcdir/tests/mpirun.sh" "$np" "$driver" --check --quiet --niter "$niter" "$@" \
		>"$out" 2>&1 || status=$?
	local passed failed
	passed=$(grep -c 'check: PASSED' "$out" || true)
	failed=$(grep -c 'check: FAILED' "$out" || true)
	if [ "$status" -ne 0 ] || [ "$passed" -ne "$niter" ] || [ "$failed" -ne 0 ]; then
		fail "np=$np $* (exit $status, $passed PASSED, $failed FAILED):"
		sed 's/^/    /' "$out"
	else
		echo "PASS np=$np $*: $(grep 'check:' "$out" | tail -n 1 | sed 's/.*check: //')"
	fi
}

# 1 rank, grid 1x1: each precision, ragged tiles, transposes.
run_check 1 1 --prec d -M 200 -N 150 -K 100 -t 64
run_check 1 1 --prec s -M 130 -N 97 -K 61 -t 32 --transA T
run_check 1 1 --prec c -M 100 -N 120 -K 90 -t 64 --transA C --transB T --alpha 0.5,-1.5 --beta 2,0.25
run_check 1 1 --prec z -M 96 -N 64 -K 160 -t 64 --transB C
run_check 1 1 --prec d -M 1 -N 1 -K 1 -t 64
run_check 1 1 --prec z -M 5 -N 3 -K 7 -t 2 --transA T --transB T
run_check 1 2 --prec d -M 300 -N 300 -K 300 -t 128 --warmup 1 --check-samples 200
# 2 ranks: 1x2 and 2x1 grids, 1D distributions, the un-throttled baseline.
run_check 2 1 --prec c -M 300 -N 200 -K 257 -t 64 -P 1 -Q 2 --transA C --transB T
run_check 2 1 --prec z -M 256 -N 256 -K 256 -t 128 -P 2 -Q 1 --transB C
run_check 2 1 --prec s -M 250 -N 190 -K 130 -t 64 --dist row --alpha -1 --beta 0
# C's loads spread over the chunks (forced: on CPU workers it is not automatic), the tensor
# precisions' float C among them.
run_check 1 1 --prec b -M 200 -N 150 -K 300 -t 64 -d 1 --c-spread on
run_check 2 1 --prec h -M 190 -N 250 -K 200 -t 64 -P 1 -Q 2 -d 2 -b 1 -c 1 --c-spread on
run_check 2 1 --prec d -M 190 -N 250 -K 130 -t 64 --dist col --transA T --transB T
run_check 2 1 --prec z -M 200 -N 300 -K 100 -t 64 --no-throttle
# 4 ranks, 2x2: a ragged problem with warm-up and two timed runs; a forced plan.
run_check 4 2 --prec d -M 600 -N 500 -K 300 -t 128 --warmup 1
run_check 4 1 --prec s -M 257 -N 255 -K 129 -t 64 -P 2 -Q 2 -b 1 -c 1 -d 1 -l 1
run_check 4 1 --prec c -M 200 -N 130 -K 190 -t 64 --transA T --transB C -l 0
# The user-matrices path: whole column-major arrays (pageable, then pinned) multiplied by
# starpu_gemm_gemm, wrapped in place.
run_check 1 2 --layout lapack --prec d -M 300 -N 200 -K 250 -t 64 --transA T
run_check 1 1 --layout lapack-pinned --prec z -M 130 -N 170 -K 90 -t 32 --transB C

# --help: exit 0, every option listed.
status=0
"$top_srcdir/tests/mpirun.sh" 1 "$driver" --help >"$out" 2>&1 || status=$?
[ "$status" -eq 0 ] || fail "--help exited $status"
for option in M N K tile P Q prec transA transB alpha beta dist block-rows block-cols chunk \
	lookahead layout no-throttle static-gpu niter warmup check check-samples csv plan quiet help; do
	grep -q -- "--$option\b" "$out" || fail "--help does not list --$option"
done
echo "PASS --help lists every option"

# --help-env: the environment's table (runtime/env.c), which docs/environment.md must be.
status=0
"$top_srcdir/tests/mpirun.sh" 1 "$driver" --help-env >"$out" 2>&1 || status=$?
[ "$status" -eq 0 ] || fail "--help-env exited $status"
diff -u "$top_srcdir/docs/environment.md" "$out" ||
	fail "docs/environment.md differs from --help-env (regenerate it: starpu_gemm --help-env)"
echo "PASS --help-env is docs/environment.md"

# --plan: the plan, exit 0, no run.
status=0
"$top_srcdir/tests/mpirun.sh" 2 "$driver" --plan -M 300 -N 200 -K 100 -t 64 >"$out" 2>&1 ||
	status=$?
if [ "$status" -ne 0 ] || ! grep -q '^plan:' "$out" || grep -q 'iteration' "$out"; then
	fail "--plan (exit $status):"
	sed 's/^/    /' "$out"
else
	echo "PASS --plan"
fi

# The human-readable report: scheduler, workers, iteration line, traffic table; on CPU
# workers alone (mpirun.sh: STARPU_NCUDA=0), not a word of GPUs on any line (issue 30).
status=0
"$top_srcdir/tests/mpirun.sh" 2 "$driver" -M 200 -N 200 -K 200 -t 64 --niter 1 --warmup 0 \
	--check >"$out" 2>&1 || status=$?
for pattern in '^scheduler: ' '^workers: rank 1: ' '^iteration 1/1: .* GFLOP/s' '^  MPI ' \
	'^memory: peak'; do
	grep -q "$pattern" "$out" || fail "report has no line matching '$pattern'"
done
if grep -Ei 'gpu|cuda|nvlink|device' "$out"; then
	fail "a CPU-only report speaks of GPUs (the lines above)"
fi
[ "$status" -eq 0 ] || fail "report run exited $status"
echo "PASS report"
sed 's/^/    /' "$out"

# The memory line's bound holds for checked runs (issue 30): the check's reference buffers
# are counted (starpu_gemm_check_host_bytes; uncounted, the peak was 4.6% above the bound at
# 1024^3 and 8.7% at 2048^3), and so are the CPU workers' BLAS panels of tiles above 512
# (2048^3 gets t = 1024 on one worker). The bound is tight by design (bench/rss.sh: peak /
# bound up to 0.9996) and counts other libraries' buffers as measured here, so 0.5% of slack
# lets another machine's BLAS differ by a megabyte. Not under the sanitizers, whose shadow
# memory no bound counts.
# Also --layout lapack, whose one call stages the arrays through pinned tiles (on CPUs when
# STARPU_GEMM_PIN=stage), whole or in panels of C (a small STARPU_GEMM_STAGE_MB): the bound
# counts them (starpu_gemm_gemm_staged_bytes; uncounted, the peak was 18% above it here, and
# 80% above it on a GPU at 6000^3).
# within PEAK UNIT BOUND UNIT ("250.5 MB 252.1 MB", the driver's decimal units): true when
# the peak is at most the bound and 0.5%.
within() { awk -v p="$1" -v pu="$2" -v b="$3" -v bu="$4" 'BEGIN { n = split("B kB MB GB TB", u, " ")
	for (i = 1; i <= n; i++) { if (u[i] == pu) pb = p * 1000 ^ (i - 1); if (u[i] == bu) bb = b * 1000 ^ (i - 1) }
	exit !(pb > 0 && bb > 0 && pb <= 1.005 * bb) }'; }
# memory_case [VAR=VALUE...] -- ARGS...: a checked run on 1 rank, in that environment, whose
# peak is within its bound.
memory_case() {
	local vars=() status=0 line peak peak_unit bound bound_unit
	while [ "$1" != -- ]; do vars+=("$1"); shift; done
	shift
	env "${vars[@]}" "$top_srcdir/tests/mpirun.sh" 1 "$driver" "$@" --check --niter 1 \
		--warmup 0 >"$out" 2>&1 || status=$?
	line=$(grep '^memory: peak' "$out" || true)
	read -r peak peak_unit bound bound_unit <<<"$(sed -n \
		's/^memory: peak resident per rank \([0-9.]*\) \([a-zA-Z]*\), bound \([0-9.]*\) \([a-zA-Z]*\).*/\1 \2 \3 \4/p' \
		<<<"$line")"
	if [ "$status" -ne 0 ] || ! within "${peak:-}" "${peak_unit:-}" "${bound:-}" \
		"${bound_unit:-}" || [[ $line != *"with --check's reference buffers"* ]]; then
		fail "memory ${vars[*]:+${vars[*]} }$* --check (exit $status): '$line'"
	else
		echo "PASS memory ${vars[*]:+${vars[*]} }$* --check: $line"
	fi
}
if [ "${SG_SANITIZERS:-no}" != yes ]; then
	memory_case -- -M 1024 -N 1024 -K 1024
	memory_case -- -M 2048 -N 2048 -K 2048
	memory_case -- -M 1000 -N 700 -K 1500 --prec z --check-samples 500
	memory_case STARPU_GEMM_PIN=stage -- --layout lapack -M 1500 -N 1100 -K 1300 -t 256 \
		--transA T
	memory_case STARPU_GEMM_PIN=stage STARPU_GEMM_STAGE_MB=40 -- --layout lapack -M 1500 \
		-N 1100 -K 1300 -t 256 --transB T
fi

echo "# driver: $failures failure(s)"
[ "$failures" -eq 0 ]
