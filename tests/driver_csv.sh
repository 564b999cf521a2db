#!/usr/bin/env bash
# starpu_gemm --csv: stdout is a CSV table and nothing else. Parses it: the header names every
# required column, one row per timed iteration, every row as wide as the header, numeric
# columns are numbers, gflops > 0, residual <= 10 when checked and -1 when not.
set -eu
: "${top_srcdir:?}" "${top_builddir:?}"
driver="$top_builddir/drivers/starpu_gemm"
export SG_TEST_TIMEOUT=${SG_TEST_TIMEOUT:-180}
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
failures=0

required="prec,M,N,K,tile,P,Q,ranks,ncuda,ncpu,sched,b,c,d,lookahead,time_s,gflops,residual"
numeric="iter,M,N,K,tile,P,Q,ranks,ncuda,ncpu,b,c,d,lookahead,throttled,time_s,gflops,residual"

# check_csv NITER CHECKED: parse $out.
check_csv() {
	awk -F, -v niter="$1" -v checked="$2" -v required="$required" -v numeric="$numeric" '
	function is_number(s) { return s ~ /^-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$/ }
	NR == 1 {
		for (c = 1; c <= NF; c++) column[$c] = c
		width = NF
		n = split(required, names, ",")
		for (r = 1; r <= n; r++)
			if (!(names[r] in column)) { print "header lacks column " names[r]; bad++ }
		nn = split(numeric, numbers, ",")
		next
	}
	{
		rows++
		if (NF != width) { print "row " rows " has " NF " fields, header " width; bad++; next }
		for (r = 1; r <= nn; r++) {
			name = numbers[r]
			if ((name in column) && !is_number($column[name])) {
				print "row " rows ": " name "=" $column[name] " is not a number"; bad++
			}
		}
		if (!($column["gflops"] > 0)) { print "row " rows ": gflops " $column["gflops"]; bad++ }
		res = $column["residual"] + 0
		if (checked && (res < 0 || res > 10)) { print "row " rows ": residual " res; bad++ }
		if (!checked && res != -1) { print "row " rows ": unchecked residual " res; bad++ }
	}
	END {
		if (rows != niter) { print rows " row(s), expected " niter; bad++ }
		exit bad ? 1 : 0
	}' "$out"
}

# run_csv NP NITER CHECKED ARGS...
run_csv() {
	local np=$1 niter=$2 checked=$3
	shift 3
	local status=0
	"$top_srcdir/tests/mpirun.sh" "$np" "$driver" --csv --niter "$niter" "$@" >"$out" 2>"$err" ||
		status=$?
	if [ "$status" -ne 0 ] || ! check_csv "${EXPECT_ROWS:-$niter}" "$checked"; then
		failures=$((failures + 1))
		echo "FAIL np=$np --csv --niter $niter $* (exit $status); stdout:"
		sed 's/^/    /' "$out"
		echo "  stderr:"
		sed 's/^/    /' "$err"
	else
		echo "PASS np=$np --csv --niter $niter $*"
		sed 's/^/    /' "$out"
	fi
}

run_csv 2 3 1 --check --warmup 1 -M 300 -N 200 -K 150 -t 64 --prec d
run_csv 1 2 0 --warmup 0 -M 128 -N 96 -K 64 -t 32 --prec c --transA C
run_csv 4 1 1 --check --warmup 0 -M 200 -N 200 -K 100 -t 64 --prec s --dist row
# Size lists: one table, each size's rows in turn, all in one StarPU start.
EXPECT_ROWS=4 run_csv 2 2 1 --check --warmup 0 --sizes 64,96 -t 32
sizes=$(awk -F, 'NR > 1 { printf "%s/%s/%s ", $5, $6, $7 }' "$out")
if [ "$sizes" != "64/64/64 64/64/64 96/96/96 96/96/96 " ]; then
	echo "FAIL --sizes 64,96: M/N/K of the rows are $sizes"; failures=$((failures + 1))
fi
EXPECT_ROWS=2 run_csv 1 1 0 --warmup 0 -M 64,80 -N 48 -K 40,56 -t 32
sizes=$(awk -F, 'NR > 1 { printf "%s/%s/%s ", $5, $6, $7 }' "$out")
if [ "$sizes" != "64/48/40 80/48/56 " ]; then
	echo "FAIL -M 64,80 -N 48 -K 40,56: M/N/K of the rows are $sizes"; failures=$((failures + 1))
fi

# Rows that cannot be written fail the run. Started alone (a singleton): under mpirun the
# ranks write to mpirun, which writes the file and does not tell them when that fails (--csv
# FILE below is the way there).
if [ -w /dev/full ]; then
	full_status=0
	full_err=$(STARPU_SILENT=1 STARPU_NCUDA=0 timeout 60 "$top_builddir/drivers/starpu_gemm" \
		--csv -M 64 -N 64 -K 64 -t 32 --niter 1 --warmup 0 2>&1 > /dev/full) || full_status=$?
	if [ "$full_status" = 1 ] && grep -q "writing the results to standard output failed" <<<"$full_err"; then
		echo "PASS --csv > /dev/full: exit 1, '$full_err'"
	else
		echo "FAIL --csv > /dev/full: exit $full_status, '$full_err'"; failures=$((failures + 1))
	fi
fi

# --csv FILE: rank 0 writes the file itself, so rows it cannot write fail the run under
# mpirun too (issue 30): one error line, exit 1 from every rank (each rank's status recorded
# by a shell around it), within the time bound. Then a file that can be written holds the
# table and stdout nothing of it; and a path that cannot be opened is bad input (exit 2).
rank_status() { # DIR ARGS...: the driver on 2 ranks; each rank's exit status in DIR/exit.R
	local dir=$1; shift
	SG_TEST_TIMEOUT=60 "$top_srcdir/tests/mpirun.sh" 2 sh -c 'd=$1; shift; "$@"; rc=$?
		echo $rc > "$d/exit.${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-x}}"; exit $rc' sh "$dir" \
		"$driver" "$@"
}
statuses=$(mktemp -d)
trap 'rm -f "$out" "$err"; rm -rf "$statuses"' EXIT
if [ -w /dev/full ]; then
	job=0
	rank_status "$statuses" --csv /dev/full -M 64 -N 64 -K 64 -t 32 --niter 1 --warmup 0 \
		>"$out" 2>"$err" || job=$?
	ranks=$(cat "$statuses"/exit.* 2>/dev/null | xargs)
	lines=$(grep -c '^starpu_gemm: error: writing the results to /dev/full failed: No space left on device$' "$err" || true)
	if [ "$job" -ne 0 ] && [ "$job" -ne 124 ] && [ "$ranks" = "1 1" ] && [ "$lines" = 1 ]; then
		echo "PASS np=2 --csv /dev/full: mpirun exit $job, ranks' exits $ranks, '$(grep -m1 '^starpu_gemm: error' "$err")'"
	else
		echo "FAIL np=2 --csv /dev/full: mpirun exit $job, ranks' exits '$ranks' (expected 1 1), $lines error line(s):"
		sed 's/^/    /' "$err"; failures=$((failures + 1))
	fi
fi
rm -f "$statuses"/exit.*
job=0
rank_status "$statuses" --csv "$statuses/rows.csv" --check -M 64 -N 64 -K 64 -t 32 --niter 2 \
	--warmup 0 >"$out" 2>"$err" || job=$?
cp "$statuses/rows.csv" "$out.file" 2>/dev/null || true
if [ "$job" -eq 0 ] && [ "$(cat "$statuses"/exit.* | xargs)" = "0 0" ] && ! grep -q '^system,' "$out" &&
	mv "$out.file" "$out" && check_csv 2 1; then
	echo "PASS np=2 --csv FILE: the table in FILE, none of it on stdout"
else
	echo "FAIL np=2 --csv FILE (exit $job); stdout, then stderr:"
	sed 's/^/    /' "$out" "$err"; failures=$((failures + 1))
fi
rm -f "$out.file" "$statuses"/exit.*
job=0
rank_status "$statuses" --csv "$statuses/no/such/dir.csv" -M 64 -N 64 -K 64 >"$out" 2>"$err" ||
	job=$?
if [ "$(cat "$statuses"/exit.* | xargs)" = "2 2" ] &&
	[ "$(grep -c "^starpu_gemm: error: --csv: cannot write '.*/no/such/dir.csv': No such file or directory$" "$err")" = 1 ]; then
	echo "PASS np=2 --csv into a missing folder: exit 2 on each rank, '$(grep -m1 '^starpu_gemm:' "$err")'"
else
	echo "FAIL np=2 --csv into a missing folder: mpirun exit $job; stderr:"
	sed 's/^/    /' "$err"; failures=$((failures + 1))
fi

echo "# driver_csv: $failures failure(s)"
[ "$failures" -eq 0 ]
