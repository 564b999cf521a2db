#!/usr/bin/env bash
# bench/rss.sh [OUT.csv]: the peak resident memory of each rank (VmHWM) against the host bound
# the driver states before allocating (issue 14): the process at the start, its own A, B and
# C tiles, and the plan's StarPU handles, tasks and remote tiles in flight. One CPU run per
# tile x size (dgemm, square, one timed run, no warm-up), read from the driver's line
# "memory: peak resident per rank X, bound Y". ratio = peak / bound: at most 1 when the bound
# holds, near 1 when it is tight.
#   RANKS (1), TILES ("4 16 64 512"), SIZES ("300 512 1024 2048"), MAX_TASKS (2200000: cases
#   with more tile tasks are listed as skipped, they take minutes on 2 cores), BUILD (build/).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
ranks=${RANKS:-1}
max_tasks=${MAX_TASKS:-2200000}
out=${1:-$top/bench/results/rss-cpu-$(hostname)-$(date +%Y%m%d).csv}
mkdir -p "$(dirname "$out")"

# "682.0 MiB" -> bytes
bytes() {
	awk -v v="$1" -v u="$2" 'BEGIN { split("B KiB MiB GiB TiB", units, " ");
		for (i = 1; i <= 5; i++) if (units[i] == u) printf "%.0f", v * 1024 ^ (i - 1) }'
}

echo "ranks,n,tile,tasks,peak_bytes,bound_bytes,ratio,status" >"$out"
for t in ${TILES:-4 16 64 512}; do
	for n in ${SIZES:-300 512 1024 2048}; do
		nt=$(((n + t - 1) / t))
		tasks=$((nt * nt * nt))
		if [ "$tasks" -gt "$max_tasks" ]; then
			echo "$ranks,$n,$t,$tasks,,,,skipped (more than $max_tasks tasks)" >>"$out"
			continue
		fi
		log=$(top_builddir=$build nice "$top/tests/mpirun.sh" "$ranks" \
			"$build/drivers/starpu_gemm" -M "$n" -N "$n" -K "$n" -t "$t" --niter 1 \
			--warmup 0 -q 2>&1)
		status=$?
		set -- $(sed -n 's/^memory: peak resident per rank \([0-9.]*\) \([A-Za-z]*\), bound \([0-9.]*\) \([A-Za-z]*\)$/\1 \2 \3 \4/p' <<<"$log")
		if [ "$status" -ne 0 ] || [ $# -ne 4 ]; then
			echo "$ranks,$n,$t,$tasks,,,,failed (exit $status)" >>"$out"
			continue
		fi
		peak=$(bytes "$1" "$2")
		bound=$(bytes "$3" "$4")
		ratio=$(awk -v p="$peak" -v b="$bound" 'BEGIN { printf "%.3f", p / b }')
		echo "$ranks,$n,$t,$tasks,$peak,$bound,$ratio,ok" >>"$out"
		echo "rss: ranks $ranks n $n tile $t: peak $1 $2, bound $3 $4, ratio $ratio" >&2
	done
done
echo "rss: $out" >&2
