#!/usr/bin/env bash
# Predictions for the machines we cannot rent: the driver simulated (StarPU+SimGrid, H200
# models, scripts/simgrid/simulate.sh) on 1 node of 1-8 GPUs and on 2x2, 4x4 and 8x8 nodes of
# 4 GPUs over each network of NET_LIST, strong scaling (one n) and weak scaling (n growing with the square
# root of the GPU count: the same memory per GPU). Writes RESULTS/sim-predictions.csv (one row
# per case: the driver's CSV columns after the case's), .gp and .png (gnuplot).
#   scripts/simgrid/predict.sh           (after ./bootstrap.sh simulate)
# Environment: RESULTS [bench/results], NET_LIST [200 1600: Gb/s per node, one link, and four
# of 400 as on DGX H100 nodes; one-node cases run once], STRONG_N [65536], WEAK_N [16384: n on one node of 4
# GPUs], CASES (lines "kind nodes gpus_per_node P Q n" replacing the list below). The "large"
# case is docs/simulation.md's 16-node, 64-GPU command (./bootstrap.sh simulate --nodes 16 --gpus 4
# -- -M 131072 -N 131072 -K 131072 -P 4 -Q 4). About 10 minutes on 2 cores.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${RESULTS:-$top/bench/results}
strong=${STRONG_N:-65536} weak=${WEAK_N:-16384}
default_cases="strong 1 1 1 1 $strong
strong 1 2 1 1 $strong
strong 1 4 1 1 $strong
strong 1 8 1 1 $strong
strong 4 4 2 2 $strong
strong 16 4 4 4 $strong
strong 64 4 8 8 $strong
weak 1 4 1 1 $weak
weak 4 4 2 2 $((weak * 2))
weak 16 4 4 4 $((weak * 4))
weak 64 4 8 8 $((weak * 8))
large 16 4 4 4 131072"
csv=$out/sim-predictions.csv
header=
nets=(${NET_LIST:-200 1600})
while read -r kind nodes gpus P Q n; do
  [ -n "$kind" ] || continue
  for net in "${nets[@]}"; do
  # One node has no network: its case runs once, under the first.
  [ "$nodes" -gt 1 ] || [ "$net" = "${nets[0]}" ] || continue
  start=$SECONDS
  rows=$(cd "$top" && nice scripts/simgrid/simulate.sh --nodes "$nodes" --gpus "$gpus" --net-gbps "$net" -- \
         -M "$n" -N "$n" -K "$n" -P "$P" -Q "$Q" --niter 1 --warmup 0 --csv 2> "$out/.predict.err")
  row=$(printf '%s\n' "$rows" | grep '^starpu_gemm,' | head -1)
  if [ -z "$header" ]; then
    header=$(printf '%s\n' "$rows" | grep '^system,' | head -1)
    [ -n "$header" ] && echo "kind,net_gbps,nodes,gpus_per_node,gpus,sim_wall_s,$header" > "$csv"
  fi
  if [ -z "$row" ]; then
    echo "FAILED: $kind $nodes x $gpus n=$n:" >&2
    tail -5 "$out/.predict.err" >&2
    continue
  fi
  echo "$kind,$net,$nodes,$gpus,$((nodes * gpus)),$((SECONDS - start)),$row" >> "$csv"
  printf '%s\n%s\n' "$header" "$row" | awk -F, -v k="$kind" -v N="$nodes" -v G="$gpus" -v n="$n" -v net="$net" \
    'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "gflops") g = i; next }
     { printf "%-6s %2d node(s) x %d GPU(s)  n=%-6d %4d Gb/s %8.1f TFLOP/s\n", k, N, G, n, net, $g / 1000 }'
  done
done <<< "${CASES:-$default_cases}"
rm -f "$out/.predict.err"
[ -s "$csv" ] || { echo "predict.sh: no case ran" >&2; exit 1; }
"$top/scripts/simgrid/report.sh" "$csv"
