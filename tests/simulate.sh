#!/usr/bin/env bash
# The driver on 4 simulated nodes of 4 GPUs each (StarPU+SimGrid, H200 models, 200 Gb/s):
# it runs to the end, and the MPI traffic StarPU-MPI simulated equals the plan's prediction
# (Equation 1's remote A and B tiles), as does GPU -> host (C once); then 2 ranks sharing one
# simulated GPU, the same checks; and one rank's 4 GPUs relaying A and B tiles between them.
# Needs the simulated build
# (./bootstrap.sh simulate, or ./bootstrap.sh check, which makes it): skipped without it.
set -u
: "${top_srcdir:?}"
sim_build=${SG_SIMGRID_BUILD:-$top_srcdir/build-simgrid}
if [ ! -x "$sim_build/drivers/starpu_gemm" ]; then
	echo "SKIP: no simulated build in $sim_build (./bootstrap.sh simulate makes it)"
	exit 77
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
bad=0
# simulate RANKS GPUS [simulate.sh options] -- [driver options]: runs, then checks the traffic.
simulate() {
	local ranks=$1 gpus=$2
	shift 2
	BUILD=$sim_build timeout -k 10 "${SG_TEST_TIMEOUT:-600}" "$top_srcdir/scripts/simgrid/simulate.sh" \
		"$@" --niter 1 --warmup 0 --csv > "$out"
	local status=$?
	cat "$out"
	[ "$status" = 0 ] || { echo "FAIL: the simulation exited with $status"; bad=1; return; }
	awk -F, -v ranks="$ranks" -v gpus="$gpus" '
		/^system,/ { for (c = 1; c <= NF; c++) col[$c] = c; next }
		!("gflops" in col) { next }
		{
			rows++
			printf "simulated: %.1f TFLOP/s on %d GPUs; MPI %s B (plan %s B), GPU->host %s B (plan %s B)\n",
			       $col["gflops"] / 1000, $col["ncuda"], $col["mpi_bytes"], $col["pred_mpi_bytes"],
			       $col["d2h_bytes"], $col["pred_d2h_bytes"]
			if (!($col["gflops"] > 0)) { print "FAIL: no speed"; bad++ }
			if ($col["ranks"] != ranks || $col["ncuda"] != gpus) {
				print "FAIL: not " ranks " ranks and " gpus " GPUs"; bad++ }
			if ($col["mpi_bytes"] != $col["pred_mpi_bytes"] || $col["mpi_bytes"] == 0) {
				print "FAIL: simulated MPI traffic is not the plan'"'"'s"; bad++ }
			if ($col["d2h_bytes"] != $col["pred_d2h_bytes"]) {
				print "FAIL: simulated GPU -> host traffic is not the plan'"'"'s"; bad++ }
		}
		END { if (rows != 1) { print "FAIL: expected one CSV row, got " rows + 0; bad++ } exit bad > 0 }' \
		"$out" || bad=1
}
simulate 4 16 --nodes 4 --gpus 4 -- -M 16384 -N 16384 -K 16384 -t 2048 -P 2 -Q 2
# StarPU-MPI's sends in flight, which simulate.sh gives as the library would on 6 nodes
# (tests/driver_node.sh checks the library's): a 2 x 3 grid of nodes, 3.
sends=$(BUILD=$sim_build timeout -k 10 "${SG_TEST_TIMEOUT:-600}" "$top_srcdir/scripts/simgrid/simulate.sh" \
	--nodes 6 --gpus 1 -- -M 4096 -N 4096 -K 4096 -t 2048 -P 2 -Q 3 --niter 1 --warmup 0 |
	sed -n 's/^MPI: at most \([0-9]*\) tile sends in flight per rank.*/\1/p')
if [ "$sends" = 3 ]; then
	echo "PASS simulated 6 nodes: 3 sends in flight per rank, as the library chooses"
else
	echo "FAIL simulated 6 nodes: '$sends' sends in flight per rank, the library chooses 3"; bad=1
fi
# Two ranks sharing one GPU of one node (scripts/simgrid/node.py --share): MPI through the
# node's memory, each rank with half the GPU.
simulate 2 2 --gpus 1 --ranks-per-node 2 -- -M 8192 -N 8192 -K 8192 -t 2048 -P 1 -Q 2
# Relays between the GPUs of one rank (--gpu-peers on, compute/pgemm.c): 1 node of 4 GPUs, the
# run ends, every tile the GPUs read crossed a link (host->GPU + GPU<->GPU = the plan's sum,
# within 2%), and most of the relayed bytes went GPU to GPU (StarPU takes the host's copy when
# the loader's is not there yet: 94% at n = 32768).
BUILD=$sim_build timeout -k 10 "${SG_TEST_TIMEOUT:-600}" "$top_srcdir/scripts/simgrid/simulate.sh" \
	--gpus 4 -- -M 16384 -N 16384 -K 16384 -t 2048 --gpu-peers on --niter 1 --warmup 0 --csv > "$out"
status=$?
awk -F, -v status="$status" '
	/^system,/ { for (c = 1; c <= NF; c++) col[$c] = c; next }
	!("gflops" in col) { next }
	{
		rows++
		loads = $col["h2d_bytes"] + $col["d2d_bytes"]; plan = $col["pred_load_bytes"] + $col["pred_d2d_bytes"]
		printf "simulated relays: %.1f TFLOP/s; host->GPU %s B + GPU<->GPU %s B (plan %s + %s)\n",
		       $col["gflops"] / 1000, $col["h2d_bytes"], $col["d2d_bytes"], $col["pred_load_bytes"],
		       $col["pred_d2d_bytes"]
		if ($col["pred_d2d_bytes"] <= 0) { print "FAIL: the plan has no relays"; bad++ }
		else if (loads < 0.98 * plan || loads > 1.02 * plan) { print "FAIL: the loads are not the plan'"'"'s"; bad++ }
		else if ($col["d2d_bytes"] < 0.8 * $col["pred_d2d_bytes"]) { print "FAIL: few tiles relayed"; bad++ }
	}
	END { if (status != 0) { print "FAIL: the simulation exited with " status; bad++ }
	      if (rows != 1) { print "FAIL: expected one CSV row, got " rows + 0; bad++ }
	      exit bad > 0 }' "$out" || bad=1
exit $bad
