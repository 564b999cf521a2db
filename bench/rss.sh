#!/usr/bin/env bash
# bench/rss.sh [OUT.csv]: the peak resident memory of each rank (VmHWM) against the host bound
# the driver states before allocating (issue 14): the process at the start, its own A, B and
# C tiles, and the plan's StarPU handles, tasks and remote tiles in flight. One CPU run per
# tile x size (dgemm, square, one timed run, no warm-up), read from the driver's line
# "memory: peak resident per rank X, bound Y". ratio = peak / bound: at most 1 when the bound
# holds, near 1 when it is tight.
# The driver decides what runs: each case is planned first (--plan: nothing allocated), and
# one it refuses is recorded as "refused" with its message. The only other case not run is
# one that would take longer than MAX_MINUTES on this machine, estimated from its tasks at
# TASK_RATE; it is recorded as "not run: N tasks, est. T min". host_gb: the host memory per
# rank the plan was sized for (what a refusal depends on: other processes take from it).
#   RANKS (1), TILES ("1 4 16 64 512"), SIZES ("300 512 1024 2048 4096"), MAX_MINUTES (10),
#   TASK_RATE (tile tasks per second, all ranks together, 75000: 110 000 on 1 rank and 78 000
#   on 2 at t = 1..4 on 2 cores), BUILD (build/).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
ranks=${RANKS:-1}
max_minutes=${MAX_MINUTES:-10}
task_rate=${TASK_RATE:-75000}
out=${1:-$top/bench/results/rss-cpu-$(hostname)-$(date +%Y%m%d).csv}
mkdir -p "$(dirname "$out")"

# "682.0 MB" -> bytes (the driver's units are decimal; binary ones, as older logs have them,
# read too)
bytes() {
	awk -v v="$1" -v u="$2" 'BEGIN { split("B kB MB GB TB", dec, " "); split("B KiB MiB GiB TiB", bin, " ");
		for (i = 1; i <= 5; i++) { if (dec[i] == u) printf "%.0f", v * 1000 ^ (i - 1);
			else if (bin[i] == u) printf "%.0f", v * 1024 ^ (i - 1) } }'
}

driver() {
	top_builddir=$build nice "$top/tests/mpirun.sh" "$ranks" "$build/drivers/starpu_gemm" \
		-M "$n" -N "$n" -K "$n" -t "$t" "$@" 2>&1
}

# One CSV field: the driver's message, its quotes doubled, in quotes.
quoted() {
	printf '"%s"' "$(sed 's/"/""/g' <<<"$1")"
}

echo "ranks,n,tile,tasks,host_gb,peak_bytes,bound_bytes,ratio,seconds,status" >"$out"
for t in ${TILES:-1 4 16 64 512}; do
	for n in ${SIZES:-300 512 1024 2048 4096}; do
		nt=$(((n + t - 1) / t))
		tasks=$((nt * nt * nt))
		plan=$(driver --plan)
		status=$?
		host=$(sed -n 's/^plan: sized for \(.* GB per GPU, \)\{0,1\}\([0-9.]*\) GB host per rank$/\2/p' <<<"$plan")
		if [ -z "$host" ]; then # refused before planning: the figure is in the message
			host=$(sed -n 's/.* of the \([0-9.]*\) GB of host memory per rank.*/\1/p' <<<"$plan")
		fi
		if [ "$status" -ne 0 ]; then
			msg=$(grep -m1 '^starpu_gemm: ' <<<"$plan")
			echo "$ranks,$n,$t,$tasks,$host,,,,,$(quoted "refused (exit $status): ${msg#starpu_gemm: }")" >>"$out"
			echo "rss: ranks $ranks n $n tile $t: refused: $msg" >&2
			continue
		fi
		minutes=$(awk -v k="$tasks" -v rate="$task_rate" 'BEGIN { printf "%.1f", k / rate / 60 }')
		if awk -v m="$minutes" -v max="$max_minutes" 'BEGIN { exit !(m > max) }'; then
			echo "$ranks,$n,$t,$tasks,$host,,,,,not run: $tasks tasks est. $minutes min" >>"$out"
			echo "rss: ranks $ranks n $n tile $t: not run ($tasks tasks, est. $minutes min)" >&2
			continue
		fi
		start=$(date +%s)
		log=$(driver --niter 1 --warmup 0 -q)
		status=$?
		seconds=$(($(date +%s) - start))
		set -- $(sed -n 's/^memory: peak resident per rank \([0-9.]*\) \([A-Za-z]*\), bound \([0-9.]*\) \([A-Za-z]*\).*$/\1 \2 \3 \4/p' <<<"$log")
		if [ "$status" -ne 0 ] || [ $# -ne 4 ]; then
			msg=$(grep -m1 '^starpu_gemm: ' <<<"$log")
			echo "$ranks,$n,$t,$tasks,$host,,,,$seconds,$(quoted "failed (exit $status): $msg")" >>"$out"
			echo "rss: ranks $ranks n $n tile $t: FAILED (exit $status): $msg" >&2
			continue
		fi
		peak=$(bytes "$1" "$2")
		bound=$(bytes "$3" "$4")
		ratio=$(awk -v p="$peak" -v b="$bound" 'BEGIN { printf "%.3f", p / b }')
		echo "$ranks,$n,$t,$tasks,$host,$peak,$bound,$ratio,$seconds,ok" >>"$out"
		echo "rss: ranks $ranks n $n tile $t: peak $1 $2, bound $3 $4, ratio $ratio, ${seconds} s" >&2
	done
done
echo "rss: $out" >&2
