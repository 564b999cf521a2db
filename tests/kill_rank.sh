#!/usr/bin/env bash
# A rank that dies mid-run ends the whole job (issue 8): a 3-rank driver run is started, rank 1
# is killed with SIGKILL once every rank runs, and mpirun must exit non-zero within 30 s of the
# kill, with no rank left behind.
set -eu
: "${top_srcdir:?}" "${top_builddir:?}"
driver="$top_builddir/drivers/starpu_gemm"
# The job's own time limit, far above the 30 s asserted: a hang shows as a failure here.
export SG_TEST_TIMEOUT=90
dir=$(mktemp -d)
job=
cleanup() {
	# Leave nothing behind even when the test fails: the ranks we recorded, by pid.
	[ -n "$job" ] && kill -9 "$job" 2>/dev/null || true
	for f in "$dir"/pid.*; do [ -e "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null || true; done
	rm -rf "$dir"
}
trap cleanup EXIT

# Every rank records its pid, then becomes the driver (exec keeps the pid).
cat >"$dir/rank.sh" <<WRAPPER
#!/bin/sh
echo \$\$ >"$dir/pid.\$OMPI_COMM_WORLD_RANK.tmp" && mv "$dir/pid.\$OMPI_COMM_WORLD_RANK.tmp" "$dir/pid.\$OMPI_COMM_WORLD_RANK"
exec "\$@"
WRAPPER
chmod +x "$dir/rank.sh"

# Far longer than the test: about a minute of DGEMM on 2 cores, unless killed.
"$top_srcdir/tests/mpirun.sh" 3 "$dir/rank.sh" "$driver" -M 1536 -N 1536 -K 1536 -t 256 \
	--niter 100 --warmup 0 >"$dir/out" 2>"$dir/err" &
job=$!

# Wait for the three ranks, then let them get into the product.
for _ in $(seq 1 300); do
	[ -e "$dir/pid.0" ] && [ -e "$dir/pid.1" ] && [ -e "$dir/pid.2" ] && break
	sleep 0.2
done
failures=0
if ! [ -e "$dir/pid.1" ]; then
	echo "FAIL the ranks did not start within 60 s"
	cat "$dir/out" "$dir/err"
	exit 1
fi
sleep 4
victim=$(cat "$dir/pid.1")
if ! kill -0 "$victim" 2>/dev/null; then
	echo "FAIL rank 1 (pid $victim) ended before it could be killed: the run is too short"
	cat "$dir/out" "$dir/err"
	exit 1
fi
echo "# ranks: pids $(cat "$dir/pid.0") $victim $(cat "$dir/pid.2"); killing rank 1 (pid $victim)"
killed_at=$(date +%s%N)
kill -9 "$victim"
status=0
wait "$job" || status=$?
job=
ms=$(( ($(date +%s%N) - killed_at) / 1000000 ))
seconds=$((ms / 1000)).$(printf %03d $((ms % 1000)))
echo "# mpirun exited with status $status, ${seconds}s after the kill"

# mpirun passes the signal on (137 = 128 + SIGKILL); the time below tells it from timeout's.
if [ "$status" -ne 0 ] && [ "$status" -ne 124 ]; then
	echo "PASS mpirun exits non-zero ($status)"
else
	echo "FAIL mpirun exit status $status (want non-zero, not the timeout's 124)"
	failures=$((failures + 1))
fi
if [ "$ms" -le 30000 ]; then
	echo "PASS the job ended ${seconds}s after the kill (<= 30 s)"
else
	echo "FAIL the job took ${seconds}s after the kill (> 30 s)"
	failures=$((failures + 1))
fi
sleep 1
left=
for r in 0 1 2; do
	pid=$(cat "$dir/pid.$r")
	# A zombie (state Z) has exited: only its reaping by init is pending (mpirun did not wait).
	# /proc, not ps: CI images may lack procps.
	state=$(sed 's/^.*) \(.\).*/\1/' "/proc/$pid/stat" 2>/dev/null || true)
	if [ -n "$state" ] && [ "$state" != Z ]; then
		left="$left rank $r (pid $pid, state $state: $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null))"
	fi
done
if [ -z "$left" ]; then
	echo "PASS no rank left behind"
else
	echo "FAIL left behind:$left"
	failures=$((failures + 1))
fi
grep -m3 -i 'signal\|killed\|exited' "$dir/err" | sed 's/^/# mpirun: /' || true
[ "$failures" -eq 0 ] || { sed 's/^/    stderr: /' "$dir/err"; }
echo "# kill_rank: $failures failure(s)"
[ "$failures" -eq 0 ]
