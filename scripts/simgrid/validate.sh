#!/usr/bin/env bash
# Simulate the runs measured on real GPUs (bench/results/) and set each prediction next to its
# measurement: bench/results/sim-validation.csv and .md (RESULTS to write elsewhere).
#   scripts/simgrid/validate.sh        (after ./bootstrap.sh simulate; a few minutes)
# Each case: label | measured TFLOP/s | where it was measured | simulate.sh options | env.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${RESULTS:-$top/bench/results}
h200=bench/results/gpu-h200-20261123.csv tune=bench/results/gpu-tune-20261123.txt
x2=bench/results/gpu-h200x2-20261124.csv h100=bench/results/arrays-h100-20261124.csv
cases=(
  "H200 n=32768 t4096 throttle|50.938|$h200|-- -M 32768 -N 32768 -K 32768|"
  "H200 n=32768 t4096 no throttle|50.860|$h200|-- -M 32768 -N 32768 -K 32768 --no-throttle|"
  "H200 n=32768 t4096 8 GB cap, throttle|51.364|$h200|-- -M 32768 -N 32768 -K 32768|STARPU_LIMIT_CUDA_MEM=8192"
  "H200 n=32768 t4096 8 GB cap, no throttle|47.954|$h200|-- -M 32768 -N 32768 -K 32768 --no-throttle|STARPU_LIMIT_CUDA_MEM=8192"
  "H200 n=32768 t2048 throttle|45.4|$tune (round 2)|-- -M 32768 -N 32768 -K 32768 -t 2048|"
  "H200 n=32768 t2048 8 GB cap, throttle|48.7|$tune (round 1)|-- -M 32768 -N 32768 -K 32768 -t 2048|STARPU_LIMIT_CUDA_MEM=8192"
  "H200 n=32768 t2048 8 GB cap, no throttle|41.4|$tune (round 2)|-- -M 32768 -N 32768 -K 32768 -t 2048 --no-throttle|STARPU_LIMIT_CUDA_MEM=8192"
  "H200 n=32768 lws|50.1|$tune (round 2)|-- -M 32768 -N 32768 -K 32768|STARPU_SCHED=lws"
  "H200 n=49152 t4096|50.9|$tune (round 2)|-- -M 49152 -N 49152 -K 49152|"
  "2 x H200, 1 rank x 2 GPUs, n=32768|101.344|$x2|--gpus 2 -- -M 32768 -N 32768 -K 32768|"
  "2 x H200, 2 ranks x 1 GPU, n=65536 (*)|96.725|$x2|--nodes 2 -- -M 65536 -N 65536 -K 65536 -P 1 -Q 2|"
  "H100 n=32768 (H200 models, **)|51.077|$h100|-- -M 32768 -N 32768 -K 32768|"
  "H100 n=49152 (H200 models, **)|51.320|$h100|-- -M 49152 -N 49152 -K 49152|"
)
csv=$out/sim-validation.csv
md_rows=()
echo "case,measured_tflops,simulated_tflops,error_pct,measured_in,command" > "$csv"
for c in "${cases[@]}"; do
  IFS='|' read -r label measured source opts envs <<< "$c"
  # shellcheck disable=SC2086
  cmd="$envs scripts/simgrid/simulate.sh $opts --niter 1 --warmup 0 --csv"
  sim=$(cd "$top" && env $envs nice scripts/simgrid/simulate.sh $opts --niter 1 --warmup 0 --csv 2>/dev/null |
        awk -F, '/^system,/ { for (i = 1; i <= NF; i++) if ($i == "gflops") g = i; next }
                 g && NF > 10 { printf "%.2f", $g / 1000 }')
  err=$(awk -v s="${sim:-0}" -v m="$measured" 'BEGIN { if (s > 0) printf "%+.1f", 100 * (s - m) / m }')
  printf '%-48s measured %7s  simulated %7s  %s%%\n' "$label" "$measured" "${sim:-FAILED}" "${err:-}"
  echo "\"$label\",$measured,${sim:-},${err:-},$source,\"${cmd# }\"" >> "$csv"
  md_rows+=("| $label | $measured | ${sim:-failed} | ${err:+$err%} | \`$source\` | \`${cmd# }\` |")
done
{
  echo "| case | measured TFLOP/s | simulated TFLOP/s | error | measured in | simulated by |"
  echo "| --- | ---: | ---: | ---: | --- | --- |"
  printf '%s\n' "${md_rows[@]}"
  echo
  echo "(*) the 2 ranks shared one node (MPI through shared memory); simulated as 2 nodes over"
  echo "200 Gb/s, one GPU each. (**) no H100 models are committed: the H100 runs are predicted"
  echo "with the H200's (perfmodels/README.md says how to calibrate an H100)."
} > "$out/sim-validation.md"
echo "wrote $csv and $out/sim-validation.md"
