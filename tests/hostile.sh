#!/usr/bin/env bash
# Hostile input and environments for the starpu_gemm driver, on 2 ranks, from one table (issue
# 14). Each case must end with its expected exit status within its time bound, print the
# expected words (and never the ones marked '!'), kill no rank with a signal (no abort, no
# backtrace), and an error case prints exactly one line of ours. Cases that need a tmpfs
# (a read-only and a full StarPU home) run where mount works (root), and are skipped else.
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
driver="$top_builddir/drivers/starpu_gemm"
export SG_TEST_TIMEOUT=60
# StarPU's own precedence puts XDG_CACHE_HOME before STARPU_HOME: the cases choose the home.
unset XDG_CACHE_HOME STARPU_PERF_MODEL_DIR
work=$(mktemp -d)
cleanup() {
	wait
	for m in "$work/ro" "$work/full"; do mountpoint -q "$m" 2>/dev/null && umount "$m"; done
	rm -rf "$work"
}
trap cleanup EXIT

# Setups, named in the table's third column; each prints the STARPU_HOME to use, or fails
# (then the case is skipped).
home=$work/home
setup() {
	case $1 in
	-) echo "$home" ;;
	# A regular file where a directory should be: unusable without any privilege.
	file-home) echo /etc/passwd ;;
	# What a run on a full disk used to leave: every bus file empty.
	truncated-bus)
		local bus=$work/truncated/.starpu/sampling/bus
		mkdir -p "$bus"
		for s in config bandwidth latency affinity platform.xml platform.v4.xml; do
			: >"$bus/$(hostname).$s"
		done
		echo "$work/truncated" ;;
	truncated-again) echo "$work/truncated" ;;
	ro-home)
		mkdir -p "$work/ro" && mount -t tmpfs -o size=1m,ro tmpfs "$work/ro" 2>/dev/null &&
			echo "$work/ro" ;;
	full-home)
		mkdir -p "$work/full" && mount -t tmpfs -o size=256k tmpfs "$work/full" 2>/dev/null ||
			return 1
		dd if=/dev/zero of="$work/full/fill" bs=4k 2>/dev/null
		echo "$work/full" ;;
	# The same home once space is back: a normal run, nothing to say.
	full-freed) [ -e "$work/full/fill" ] && rm -f "$work/full/fill" && echo "$work/full" ;;
	*) return 1 ;;
	esac
}

# run_case N STATUS SECONDS SETUP WORDS ENV ARGS (row N of the table): its verdict, one line,
# in $work/N.verdict (and the stderr of a failure after it).
run_case() {
	local n=$1; shift
	exec >"$work/$n.verdict"
	local status=$1 seconds=$2 what=$3 words=$4 envs=$5 args=$6 starpu_home
	local label="[$what] ${envs:+$envs }$args"
	if ! starpu_home=$(setup "$what"); then
		echo "SKIP $label (setup '$what' not possible here)"; return
	fi
	local interrupt=
	[[ $args == interrupt* ]] && { interrupt=${args%% *}; args=${args#* }; }
	eval "set -- $args"
	local start=$SECONDS got=0
	if [ -n "$interrupt" ]; then
		env STARPU_HOME="$starpu_home" $envs "$top_srcdir/tests/mpirun.sh" 2 "$driver" "$@" \
			</dev/null >"$work/$n.out" 2>"$work/$n.err" &
		local job=$!
		sleep "${interrupt#interrupt:}"
		kill -TERM "$job" 2>/dev/null
		wait "$job"; got=$?
	else
		env STARPU_HOME="$starpu_home" $envs "$top_srcdir/tests/mpirun.sh" 2 "$driver" "$@" \
			</dev/null >"$work/$n.out" 2>"$work/$n.err" || got=$?
	fi
	local took=$((SECONDS - start)) why=
	case $status in
	any) [ "$got" -ne 0 ] && [ "$got" -ne 124 ] || why="exit $got, expected non-zero" ;;
	*) [ "$got" -eq "$status" ] || why="exit $got, expected $status" ;;
	esac
	[ "$took" -le "$seconds" ] || why="$why; took ${took}s, bound ${seconds}s"
	local w
	IFS=';' read -ra w <<<"$words"
	for word in ${w[@]+"${w[@]}"}; do
		word=${word# }; word=${word% }
		[ -z "$word" ] && continue
		if [[ $word == '!'* ]]; then
			! grep -qF -- "${word#!}" "$work/$n.out" "$work/$n.err" || why="$why; printed '${word#!}'"
		else
			grep -qF -- "$word" "$work/$n.out" "$work/$n.err" || why="$why; no '$word'"
		fi
	done
	if [ -z "$interrupt" ] && grep -qE 'exited on signal|Aborted|[Bb]acktrace|Assertion|core dumped' \
		"$work/$n.out" "$work/$n.err"; then
		why="$why; a rank died by a signal"
	fi
	if [ "$status" = 2 ] && [ "$(grep -c '^starpu_gemm: ' "$work/$n.err")" -ne 1 ]; then
		why="$why; $(grep -c '^starpu_gemm: ' "$work/$n.err") lines of ours, expected 1"
	fi
	if [ -n "$why" ]; then
		echo "FAIL $label: ${why#; }"
		sed 's/^/    /' "$work/$n.err" | head -20
	else
		echo "PASS $label -> $got in ${took}s: $(grep -m1 '^starpu_gemm: ' "$work/$n.err" || grep -m1 'check:' "$work/$n.out")"
	fi
}

# STATUS | SECONDS | SETUP | WORDS (';'-separated, '!' = must not appear) | ENV | ARGS
# Small products keep every run under a few seconds on 2 shared cores.
S='-M 64 -N 64 -K 64 -q'
# Cases without a setup of their own are independent: three run at a time (mpirun's start,
# waiting more than computing, is most of a case). The others run alone, in table order.
n=0
while IFS='|' read -r status seconds what words envs args; do
	[[ -z $status || $status == \#* ]] && continue
	n=$((n + 1))
	what=$(echo $what)
	if [ "$what" = - ] && [[ $args != *interrupt* ]]; then
		while [ "$(jobs -rp | wc -l)" -ge 3 ]; do wait -n; done
		run_case $n "$(echo $status)" "$(echo $seconds)" "$what" "$words" "$(echo $envs)" \
			"${args# }" &
	else
		wait
		(run_case $n "$(echo $status)" "$(echo $seconds)" "$what" "$words" "$(echo $envs)" \
			"${args# }")
	fi
done <<TABLE
# Sizes: not numbers, not positive, too large, missing, empty.
2 | 20 | - | -M/--M: 'abc' is not an integer | | -M abc
2 | 20 | - | --M: '12x' is not an integer | | --M 12x
2 | 20 | - | -N/--N: 0 must be positive | | -N 0
2 | 20 | - | -K/--K: -5 must be positive | | -K -5
2 | 20 | - | -M/--M: 99999999999 is too large | | -M 99999999999
2 | 20 | - | -M/--M: missing value | | -M
2 | 20 | - | -M/--M: '' is not an integer | | -M ''
2 | 20 | - | -M/--M: '1e3' is not an integer | | -M 1e3
2 | 20 | - | -M/--M: '' is not an integer | | -M 64,,128
2 | 20 | - | --sizes: 0 must be positive | | --sizes 64,0
2 | 20 | - | -M/--M: 2 sizes, but another dimension has 3 | | -M 64,128 -N 1,2,3
2 | 20 | - | -M/--M: M is set by --sizes too | | --sizes 64 -M 128
2 | 20 | - | --sizes: N is set by -M/-N/-K too | | -N 64 --sizes 128
2 | 20 | - | -K/--K: '0x10' is not an integer | | -K 0x10
# Tiles.
2 | 20 | - | -t/--tile: 0 must be positive | | -t 0
2 | 20 | - | -t/--tile: -64 must be positive | | --tile -64
2 | 20 | - | -t/--tile: 40000 is too large | | -t 40000
# Grids against the job's 2 ranks.
2 | 20 | - | grid 2 x 2 has 4 processes but the job has 2 rank(s) | | -P 2 -Q 2
2 | 20 | - | -P/--P: 3 does not divide the job's 2 rank(s) | | -P 3
2 | 20 | - | -Q/--Q: 0 must be positive | | -Q 0
0 | 30 | - | check: PASSED | | $S -P 2 -Q 1 --check
# Letters.
2 | 20 | - | --prec: unknown precision 'x' | | --prec x
2 | 20 | - | --prec: unknown precision 'dd' | | --prec dd
2 | 20 | - | --prec: unknown precision '' | | --prec ''
2 | 20 | - | --transA: unknown transpose 'X' | | --transA X
2 | 20 | - | --transB: unknown transpose 'Q' | | --transB Q
2 | 20 | - | --dist: unknown distribution 'diag' | | --dist diag
2 | 20 | - | --layout: unknown layout 'rows' | | --layout rows
2 | 20 | - | run it on 1 rank, not 2 | | --layout lapack
# Options unknown, given a value they do not take, given twice, or with =value.
2 | 20 | - | unknown option '--bogus' | | --bogus
2 | 20 | - | unknown option '-x' | | -x
2 | 20 | - | unknown option '-x' in '-qx' | | -qx
2 | 20 | - | unknown option '-\x07' | | -$'\a'
2 | 20 | - | --check takes no value (got '--check=yes') | | --check=yes
2 | 20 | - | --plan takes no value (got '--plan=1') | | --plan=1
2 | 20 | - | --csv: empty file name | | --csv ''
2 | 20 | - | --csv: cannot write '/nonexistent-dir/x.csv': No such file or directory | | $S --csv /nonexistent-dir/x.csv
2 | 20 | - | unexpected argument 'extra' | | -M 64 extra
2 | 20 | - | unknown option '--M\x0d\x0a' | | --M$'\r\n'
0 | 30 | - | check: PASSED | | --M=64 --N=48 --K=80 --tile=32 -q --check
0 | 30 | - | M=32 N=64 K=64 | | -M 64 -M 32 -N 64 -K 64 --plan
0 | 30 | - | zgemm | | $S --prec s --prec z --plan
# Plan parameters.
2 | 20 | - | -l/--lookahead: -1 must be non-negative | | -l -1
2 | 20 | - | -b/--block-rows: 0 must be positive | | -b 0
2 | 20 | - | -c/--block-cols: -2 must be positive | | -c -2
2 | 20 | - | -d/--chunk: 0 must be positive | | -d 0
0 | 30 | - | notice: -l 1000000; lookahead 0 | | $S -l 1000000 --plan
# Scalars and iteration counts.
2 | 20 | - | --alpha: 'foo' is not a number | | --alpha foo
2 | 20 | - | --beta: an imaginary part needs a complex precision | | --beta 1,2 --prec d
2 | 20 | - | --alpha: 1e+300 overflows the precision s | | --alpha 1e300 --prec s
2 | 20 | - | --alpha: 1e400 overflows a double | | --alpha 1e400
2 | 20 | - | --beta: 1,1e999 overflows a double | | --beta 1,1e999 --prec z
2 | 20 | - | --niter: 0 must be positive | | --niter 0
2 | 20 | - | --warmup: -1 must be non-negative | | --warmup -1
2 | 20 | - | --warmup: 100000 is too large (at most 1000) | | --warmup 100000
2 | 20 | - | --check-samples: -3 must be non-negative | | --check-samples -3
1 | 30 | - | check: FAILED | | $S --alpha nan --check --niter 1
# Sizes that need StarPU or the machine: too large for memory, no worker at all.
2 | 30 | - | matrices too large for host memory | | -M 4000000 -N 4000000 -K 4000000
2 | 30 | - | matrices too large for host memory; (STARPU_LIMIT_CPU_MEM=1 MiB, per rank) | STARPU_LIMIT_CPU_MEM=1 | -M 4096 -N 4096 -K 4096
# The plan comes from the sizes alone: --plan allocates nothing (1 TiB of tiles per rank here)
# and answers at once; tiny tiles state their bound (StarPU's handles and tasks), or are refused.
0 | 15 | - | plan: b=;GB host per rank (STARPU_LIMIT_CPU_MEM=100000000 MiB);memory: resident per rank <= | STARPU_LIMIT_CPU_MEM=100000000 | -M 300000 -N 300000 -K 300000 --plan
2 | 15 | - | matrices too large for host memory; 2.2 TB for the 2 rank(s) | | -M 300000 -N 300000 -K 300000 -t 16384 --plan
0 | 15 | - | 270000 tile handles (22.0 kB each;at most 7500 tasks in flight;memory: resident per rank <= | STARPU_LIMIT_CPU_MEM=32768 | -M 300 -N 300 -K 300 -t 1 --plan
2 | 15 | - | 270000 tiles of 1 x 1 (27000000 tasks) are 6.0 GB of StarPU handles;8.6 GB of host memory;use a tile of at least 2 (-t) (host memory per rank: STARPU_LIMIT_CPU_MEM=8192 MiB) | STARPU_LIMIT_CPU_MEM=8192 | -M 300 -N 300 -K 300 -t 1
# ... and the tile it advises fits.
0 | 15 | - | 67500 tile handles | STARPU_LIMIT_CPU_MEM=8192 | -M 300 -N 300 -K 300 -t 2 --plan
2 | 30 | - | no worker to run on | STARPU_NCPU=0 STARPU_NCUDA=0 | $S
# Edge sizes that must run.
0 | 30 | - | check: PASSED | | -M 1 -N 1 -K 1 -q --check
0 | 30 | - | check: PASSED | | -M 513 -N 7 -K 1025 -t 512 -q --check --niter 1
0 | 30 | - | tile=100; check: PASSED | | -M 100 -N 100 -K 100 -t 16384 --check --niter 1
# StarPU's variables: each one the driver documents, reads or sets.
2 | 20 | - | STARPU_LIMIT_CPU_MEM='abc' is not a size in MiB | STARPU_LIMIT_CPU_MEM=abc | $S
2 | 20 | - | STARPU_LIMIT_CPU_MEM='12abc' is not a size in MiB | STARPU_LIMIT_CPU_MEM=12abc | $S
2 | 20 | - | STARPU_LIMIT_CPU_MEM='-1' is not a size in MiB | STARPU_LIMIT_CPU_MEM=-1 | $S
2 | 20 | - | STARPU_LIMIT_CUDA_MEM='x' is not a size in MiB | STARPU_LIMIT_CUDA_MEM=x | $S
2 | 20 | - | STARPU_LIMIT_CUDA_MEM='99999999999' is too large | STARPU_LIMIT_CUDA_MEM=99999999999 | $S
2 | 20 | - | STARPU_NCPU='abc' is not a number of CPU workers | STARPU_NCPU=abc | $S
2 | 20 | - | STARPU_NCPU='-2' is not a number of CPU workers | STARPU_NCPU=-2 | $S
2 | 20 | - | STARPU_NCUDA='two' is not a number of CUDA workers | STARPU_NCUDA=two | $S
2 | 20 | - | STARPU_SCHED='foo' is not a StarPU scheduler; lws, ws, dm, dmda | STARPU_SCHED=foo | $S
2 | 20 | - | STARPU_SCHED is set but empty | STARPU_SCHED= | $S
0 | 30 | - | check: PASSED | STARPU_SCHED=eager | $S --check
2 | 20 | - | STARPU_SILENT='yes' | STARPU_SILENT=yes | $S
2 | 20 | - | STARPU_WORKERS_NOBIND='x' | STARPU_WORKERS_NOBIND=x | $S
2 | 20 | - | STARPU_CALIBRATE='7' is too large | STARPU_CALIBRATE=7 | $S
2 | 20 | - | STARPU_MPI_STATS='on' | STARPU_MPI_STATS=on | $S
2 | 20 | - | STARPU_GEMM_PIN='sometimes' is not a pinning mode | STARPU_GEMM_PIN=sometimes | $S
2 | 20 | - | STARPU_GEMM_TILE='0' is not a tile size | STARPU_GEMM_TILE=0 | $S
# StarPU's home: unusable, full, truncated by an earlier full disk; the next run is normal.
0 | 30 | file-home | notice: StarPU's calibration directory; Not a directory; check: PASSED | | $S --check
0 | 30 | truncated-bus | notice: removed 6 empty StarPU calibration file(s); check: PASSED | | $S --check
0 | 30 | truncated-again | check: PASSED; !notice | | $S --check
0 | 30 | ro-home | Read-only file system; check: PASSED | | $S --check
0 | 30 | full-home | No space left on device; check: PASSED | | $S --check
0 | 30 | full-freed | check: PASSED; !notice | | $S --check
# Stopped (SIGTERM to the job, as a batch system does) mid-run: the job ends, and the next run is normal.
any | 30 | - | | | interrupt:3 -M 2048 -N 2048 -K 2048 -t 256 --niter 100 --warmup 0 -q
0 | 30 | - | check: PASSED; !notice | | $S --check
TABLE

wait
for v in $(seq 1 $n); do cat "$work/$v.verdict"; done
passes=$(cat "$work"/*.verdict | grep -c '^PASS')
failures=$(cat "$work"/*.verdict | grep -c '^FAIL')
skips=$(cat "$work"/*.verdict | grep -c '^SKIP')
echo "# hostile: $n cases: $passes passed, $failures failed, $skips skipped"
[ "$failures" -eq 0 ]
