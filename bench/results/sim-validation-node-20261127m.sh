#!/usr/bin/env bash
# The 4 x H200 node's rows in simulation after the GPU chunk rule (compare with call M).
cd /work/main
run() { local name=$1; shift; echo "== $name: $*"; BUILD=build-simgrid scripts/simgrid/simulate.sh "$@" 2>&1 | grep -E "^plan: b=|TFLOP/s|GFLOP/s" | head -4; }
run "1x4 32768" --nodes 1 --gpus 4 -- -M 32768 -N 32768 -K 32768 --niter 1 --warmup 0
run "1x4 65536" --nodes 1 --gpus 4 --host-mem-gb 512 -- -M 65536 -N 65536 -K 65536 --niter 1 --warmup 0
run "4x1 32768" --nodes 1 --gpus 4 --ranks-per-node 4 --intra-gbs 1000 --host-mem-gb 512 -- -M 32768 -N 32768 -K 32768 -P 2 -Q 2 --niter 1 --warmup 0
run "4x1 65536" --nodes 1 --gpus 4 --ranks-per-node 4 --intra-gbs 1000 --host-mem-gb 512 -- -M 65536 -N 65536 -K 65536 -P 2 -Q 2 --niter 1 --warmup 0
run "2x2 65536" --nodes 1 --gpus 4 --ranks-per-node 2 --intra-gbs 1000 --host-mem-gb 512 -- -M 65536 -N 65536 -K 65536 -P 2 -Q 1 --niter 1 --warmup 0
echo done
