#!/usr/bin/env bash
# Run starpu_gemm in simulation (StarPU+SimGrid): N nodes of G simulated GPUs, each GPU's
# tile GEMMs taking the time the calibrated node's performance models say, each copy the
# time the node's buses and the network take. Nothing is computed.
#   scripts/simgrid/simulate.sh [options] [--] [driver options]
# Options (defaults in brackets):
#   --node NAME      calibrated node: h100 or h200 (perfmodels/NAME), or a folder laid out
#                    like them [h200]
#   --gpus G         GPUs per node [1];  --nodes N  nodes [1]
#   --ranks-per-node R  MPI ranks on each node [1]: R <= G, each rank drives G/R of the GPUs;
#                    R > G (a multiple of G), R/G ranks share each GPU (node.py --share: each
#                    gets 1/(R/G) of the GPU's speed, host link and memory). Ranks of one node
#                    talk through MPI at the node's measured rate (node.py: the kit's mpi-rate),
#                    a cap on each message (SimGrid's loopback links share nothing).
#   --intra-gbs R    that rate, GB/s, instead: e.g. 1000 for ranks that share their tiles in
#                    place (node sharing itself is not simulated: every simulated rank is a
#                    node of its own, runtime/node_comm.c)
#   --net-gbps B     network bandwidth per node, Gb/s [200];  --net-lat-us L  latency [2]
#   --h2d GBS, --d2h GBS, --nvlink GBS, --host-links separate|paired, --starpu-bus
#                    node bus settings: scripts/simgrid/node.py --help (where each comes from)
#   --host-mem-gb M  host memory per node, GB, shared by its ranks [what the node type's runs
#                    reported: h100 134.3, h200 109.5; scripts/simgrid/node.py]
#   --keep DIR       keep the generated platform and models in DIR
# Environment: BUILD [build-simgrid] (the simulated build), VERBOSE=1 (SimGrid's own lines),
# SIMGRID_CFG (more SimGrid settings, e.g. "--cfg=network/crosstraffic:0": what SMPI charges
# by default is in docs/simulation.md), and any STARPU_* setting (STARPU_SCHED [dmdas],
# STARPU_LIMIT_CUDA_MEM, ...).
# Example, 16 nodes of 4 GPUs over 200 Gb/s:
#   scripts/simgrid/simulate.sh --nodes 16 --gpus 4 -- -M 131072 -N 131072 -K 131072 -P 4 -Q 4
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
node=h200 gpus=1 nodes=1 rpn=1 gbps=200 lat_us=2 host_mem_gb= keep= intra=
node_args=()
while [ $# -gt 0 ]; do
  case $1 in
    --node) node=$2; shift 2 ;;
    --gpus) gpus=$2; shift 2 ;;
    --nodes) nodes=$2; shift 2 ;;
    --ranks-per-node) rpn=$2; shift 2 ;;
    --net-gbps) gbps=$2; shift 2 ;;
    --net-lat-us) lat_us=$2; shift 2 ;;
    --host-mem-gb) host_mem_gb=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    --intra-gbs) intra=$2; shift 2 ;;
    --h2d|--d2h|--nvlink|--host-links) node_args+=("$1" "$2"); shift 2 ;;
    --starpu-bus) node_args+=("$1"); shift ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    --) shift; break ;;
    *) break ;;
  esac
done
[ -d "$node" ] || node=$top/perfmodels/$node
[ -d "$node/bus" ] || { echo "simulate.sh: no calibrated node $node (perfmodels/ has: $(ls "$top/perfmodels" | grep -v '\.' | tr '\n' ' '))" >&2; exit 2; }
build=${BUILD:-$top/build-simgrid}
case $build in /*) ;; *) build=$top/$build ;; esac
driver=$build/drivers/starpu_gemm
export STARPU_GEMM_SIMGRID=1
. "$top/scripts/paths.sh"
smpirun=$STARPU_PREFIX/bin/starpu_smpirun
for f in "$driver" "$smpirun"; do
  [ -x "$f" ] || { echo "simulate.sh: $f not found: run ./bootstrap.sh simulate first" >&2; exit 2; }
done
[[ $gpus =~ ^[0-9]+$ && $nodes =~ ^[0-9]+$ && $rpn =~ ^[0-9]+$ && $gpus -ge 1 && $nodes -ge 1 &&
   $rpn -ge 1 ]] ||
  { echo "simulate.sh: --gpus, --nodes and --ranks-per-node must be positive integers" >&2; exit 2; }
# What each rank's simulated node holds: its GPUs, or its share of one.
if [ "$rpn" -le "$gpus" ]; then
  (( gpus % rpn == 0 )) || { echo "simulate.sh: --ranks-per-node must divide --gpus" >&2; exit 2; }
  rank_gpus=$((gpus / rpn)) share=1
else
  (( rpn % gpus == 0 )) || { echo "simulate.sh: --gpus must divide --ranks-per-node" >&2; exit 2; }
  rank_gpus=1 share=$((rpn / gpus))
fi
ranks=$((nodes * rpn))

run=$(mktemp -d)
trap 'rm -rf "$run"' EXIT
# The simulated node: its platform and the calibrated models, in a folder of its own (StarPU
# may write there; the committed models stay as they are).
read -r label intra_gbs node_mem_gb < <(python3 "$top/scripts/simgrid/node.py" --from "$node" --gpus "$rank_gpus" \
  --share "$share" --out "$run/models" "${node_args[@]}")
[ -n "${node_mem_gb:-}" ] || exit 2
host_mem_gb=${host_mem_gb:-$node_mem_gb}
intra_gbs=${intra:-$intra_gbs}
[ "$host_mem_gb" != 0 ] || { echo "simulate.sh: host memory of $node unknown: give --host-mem-gb" >&2; exit 2; }
# The cluster: one host per node, each with its own link to a non-blocking switch
# (bandwidth and latency: --net-gbps, --net-lat-us; the backbone is assumed never to limit),
# and a loopback link for MPI between ranks of one node (at the rate node.py gives; latency assumed 1 us).
bw=$(awk -v g="$gbps" 'BEGIN { printf "%.6f", g / 8 }')
bb=$(awk -v g="$gbps" -v n="$nodes" 'BEGIN { printf "%.6f", g / 8 * n }')
cat > "$run/cluster.xml" <<XML
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM 'http://simgrid.gforge.inria.fr/simgrid/simgrid.dtd'>
<platform version="4">
<AS id="AS0" routing="Full">
  <cluster id="nodes" prefix="node" suffix="" radical="0-$((nodes - 1))" speed="1Gf"
           bw="${bw}GBps" lat="${lat_us}us" bb_bw="${bb}GBps" bb_lat="0us"
           loopback_bw="${intra_gbs}GBps" loopback_lat="1us"/>
</AS>
</platform>
XML
for ((i = 0; i < ranks; i++)); do echo "node$((i / rpn))"; done > "$run/hosts"
[ -n "$keep" ] && { mkdir -p "$keep"; cp -r "$run"/. "$keep"/; }

export STARPU_PERF_MODEL_DIR=$run/models STARPU_HOSTNAME=$label
# Every simulated GPU uses GPU 0's measurements (the calibrated node has one).
export STARPU_PERF_MODEL_HOMOGENEOUS_CUDA=1
export STARPU_NCUDA=${STARPU_NCUDA:-$rank_gpus} STARPU_NCPU=${STARPU_NCPU:-0}
export STARPU_SCHED=${STARPU_SCHED:-dmdas}
# StarPU-MPI's sends in flight: the library's default (runtime/node_conf.c,
# mpi_sends_in_flight: P + Q - 2, at least 2, for the most square grid over the job's nodes,
# every simulated rank a node), given here because under SMPI StarPU-MPI reads it before the
# driver's main starts. tests/simulate.sh checks that both give 3 for 6 nodes.
if [ -z "${STARPU_MPI_NDETACHED_SEND:-}" ] && [ "$ranks" -gt 1 ]; then
  rows=1
  for ((p = 1; p * p <= ranks; p++)); do (( ranks % p == 0 )) && rows=$p; done
  others=$((rows + ranks / rows - 2))
  export STARPU_MPI_NDETACHED_SEND=$((others > 2 ? others : 2))
fi
# The network term the plan prints and the driver scores its runs against: each rank's share
# of its node's link (all of a node's ranks receive at once).
export STARPU_GEMM_MPI_GBPS=${STARPU_GEMM_MPI_GBPS:-$(awk -v g="$gbps" -v r="$rpn" 'BEGIN { printf "%.6g", g / 8 / r }')}
# StarPU charges a simulated cudaHostAlloc (0.65 ms per MiB) for each buffer it receives
# from MPI unless told not to: real StarPU reuses its pinned buffers, and a real run of 2
# ranks on 2 GPUs reached 0.95 x peak (bench/results/gpu-h200x2-20261124-table.txt), which
# that cost (4-7x slower) contradicts.
export STARPU_SIMGRID_CUDA_MALLOC_COST=${STARPU_SIMGRID_CUDA_MALLOC_COST:-0}
export STARPU_LIMIT_CPU_MEM=${STARPU_LIMIT_CPU_MEM:-$(awk -v g="$host_mem_gb" -v r="$rpn" 'BEGIN { printf "%d", g / r * 1e9 / 1048576 }')}
export STARPU_SILENT=${STARPU_SILENT:-1}
# starpu_smpirun takes TEST_LOGS (which make check sets) for StarPU's own test suite.
unset TEST_LOGS
echo "simulated: $nodes node(s) x $gpus GPU(s), $rpn rank(s) each ($label from $node), ${gbps} Gb/s ${lat_us} us network" >&2
# Folded tiles are mapped in blocks of this size: one or a few per tile (SimGrid's default,
# 1 MiB, passes the kernel's 65530 mappings with a few GB of tiles).
sg_cfg=(--cfg=smpi/shared-malloc-blocksize:${SG_FOLD_BLOCK:-33554432})
read -ra simgrid_cfg <<< "${SIMGRID_CFG:-}" # words: one --cfg each
sg_cfg+=("${simgrid_cfg[@]}")
cd "$run"
if [ "${VERBOSE:-0}" = 1 ]; then
  "$smpirun" -platform cluster.xml -hostfile hosts -np "$ranks" "$driver" "$@" "${sg_cfg[@]}"
  exit $?
fi
# SimGrid's configuration and shutdown lines (and the backtrace of the submission actor it
# kills at the end) are noise here.
"$smpirun" -platform cluster.xml -hostfile hosts -np "$ranks" "$driver" "$@" "${sg_cfg[@]}" > out.txt 2>&1
status=$?
grep -v -e '^\[[0-9.]*\] \[' -e '^Backtrace (displayed' -e '^  -> ' -e 'simgrid_update_xml' \
     -e '^$' -e 'MPI_THREAD_SINGLE; MPI does not have multi-thread' -e '^\[starpu_comm_stats' out.txt
if grep -q 'Deadlock detected\|Execution failed' out.txt; then
  grep 'Deadlock detected\|Execution failed' out.txt >&2
  [ "$status" = 0 ] && status=1
fi
exit $status
