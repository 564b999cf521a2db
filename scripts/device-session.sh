#!/usr/bin/env bash
# One call on a lent GPU node, run from the bundle (scripts/bundle.sh), everything in one go:
#   scripts/device-session.sh [STAGE...]    (default: info sanity tests calibrate quick)
# Stages:
#   info       GPUs, links, cores, memory, Open MPI and tool versions
#   sanity     one rank per GPU (scripts/gpu-per-rank.sh): StarPU-MPI starts, every rank
#              reports its CUDA worker, a checked DGEMM runs
#   tests      tests/gpu.sh (cuBLAS codelets, compute-sanitizer, pgemm on GPUs, memory pressure)
#   calibrate  perfmodels/calibrate.sh: history perf models for this node
#   quick      bench/gpu.sh --quick (n = 8192 16384, 2 runs each)
#   bench      bench/gpu.sh (N_LIST, G_LIST, CASES... as it documents)
#   pins       bench/pin_rate: pinning and unpinning speed with 1-16 threads, H2D pageable/pinned,
#              host memcpy with 1, 2, 4, ... threads up to the cores (rows of the results' CSV);
#              then bench/stage_rate -n STAGE_N [16384]: a pageable array to every GPU by the
#              one call's staging against a ring of small slots, by copier count
#   doors      the GPU tests of the one call on host arrays only (tests/gpu.sh, part 5)
#   arrays     bench/arrays.sh (N_LIST, CASES, PRELOAD_N, GPUS as it documents), once per entry
#              of ARRAYS_GPUS [all]: "all" every GPU of the node, a number that many (GPUS);
#              issue 29: N_LIST=49152 PRELOAD_N=49152 CASES="driver gemm-pageable preload"
#              ARRAYS_GPUS="all 1", and CASES="driver scalapack-ranks-4096 scalapack-ranks-256"
#              (the ScaLAPACK drop-in on a rank per GPU)
#   Each benchmark stage leaves its CSV, table, log and plot under bench/ in results.tar.gz;
#   bench/report.py remakes the table and plot from the CSV anywhere.
#   tensor     issue 17 on one GPU: the tensor-core GPU tests (tests/gpu.sh GPU_TENSOR_ONLY=1),
#              then bench/tensor.sh (ceilings, link rates, BF16/FP16 n=65536 with and without
#              STARPU_LIMIT_CUDA_MEM=16384, TF32 n=49152, each against its roofline bound);
#              TENSOR_TESTS=0 skips the tests
#   node       issue 27 on this node's GPUs: bench/node.sh (cuBLAS peak, links, MPI rate, DGEMM
#              1x4 and 4x1 at 32768 and 65536, 2x2 and 2x2 own node at 65536, BF16 1x4; about
#              8.5 minutes on 4 H100s), stopped after NODE_BUDGET_S [540] s so that the results
#              are still packed; its table is then remade from the CSV of the cases that ran.
#              N_LIST, CASES, NITER... as bench/node.sh documents
#   sweep      1-GPU DGEMM at n in SWEEP_N [8192 16384 32768 49152 61440], throttled and not,
#              GPU memory capped (8 GiB) and not, 3 timed runs each (--csv): the measurements
#              the simulation (scripts/simgrid/validate.sh) is scored against
# Environment: BUNDLE [./bundle], OUT [./device-results] (stage logs, and results.tar.gz with
#   them, the benchmark's results and StarPU's perf models and bus calibration),
#   SG_NODE_MEM_GIB (set it on VMs whose MemTotal starts low: each rank may then use 85% of
#   it divided by the GPUs, through STARPU_LIMIT_CPU_MEM), STARPU_HOSTNAME [gpu-node] (perf
#   model file names carry it: a fixed name lets the models follow the bundle to a new node).
set -u
bundle=$(cd "${BUNDLE:-bundle}" && pwd)
final=${OUT:-$PWD/device-results}
# Everything is written in a work folder, then packed: the device tool returns at most 8 files.
out=$(mktemp -d)
mkdir -p "$final"
# shellcheck source=/dev/null
. "$bundle/env.sh"
export STARPU_HOSTNAME=${STARPU_HOSTNAME:-gpu-node}
export NCCL_NVLS_ENABLE=0
# StarPU warns at every start when its compile-time perf-model folder (on the build machine)
# is missing; an empty one silences it.
[ -f "$bundle/starpu/BUILD_PREFIX" ] &&
  mkdir -p "$(cat "$bundle/starpu/BUILD_PREFIX")/share/starpu/perfmodels/sampling" 2>/dev/null
sg=$bundle/starpu-gemm
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
if [ -n "${SG_NODE_MEM_GIB:-}" ] && [ "${gpus:-0}" -gt 0 ]; then
  export STARPU_LIMIT_CPU_MEM=$((SG_NODE_MEM_GIB * 1024 * 85 / 100 / gpus))
fi
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(info sanity tests calibrate quick)
mpirun_gpu=(mpirun --allow-run-as-root --bind-to none -x LD_LIBRARY_PATH -x STARPU_HOME
            -x STARPU_HOSTNAME -x STARPU_SILENT ${STARPU_LIMIT_CPU_MEM:+-x STARPU_LIMIT_CPU_MEM})
summary=()

stage_info() {
  nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv
  nvidia-smi topo -m
  echo "cores: $(nproc)"; grep -E 'MemTotal|MemAvailable' /proc/meminfo
  mpirun --version | head -1
  command -v compute-sanitizer && compute-sanitizer --version | tail -1
  echo "STARPU_LIMIT_CPU_MEM=${STARPU_LIMIT_CPU_MEM:-unset} STARPU_HOME=$STARPU_HOME"
}
stage_sanity() {
  # At least 2 ranks, so StarPU-MPI is exercised on a 1-GPU node too (the ranks share it).
  # The GPU count counted above, so that no rank runs nvidia-smi again.
  SG_GPUS_PER_NODE=$gpus "${mpirun_gpu[@]}" -x SG_GPUS_PER_NODE -np $(( gpus < 2 ? 2 : gpus )) \
    "$sg/scripts/gpu-per-rank.sh" \
    starpu_gemm -M 16384 -N 16384 \
    -K 16384 -t 2048 --niter 2 --warmup 1 --check --quiet
}
stage_tests() {
  top_srcdir=$sg top_builddir=$sg/build "$sg/tests/gpu.sh"
}
stage_calibrate() { "$sg/perfmodels/calibrate.sh"; }
# tune: one line per configuration of the 1-GPU and all-GPU DGEMM (TUNE_N, default 32768):
# scheduler, tile, workers per GPU, CUDA pipeline depth, CPU workers, static GPU ownership.
stage_tune() {
  local n=${TUNE_N:-32768} cfg label envs args
  local configs=(
    "dmdas t2048|STARPU_SCHED=dmdas|-t 2048"
    "lws t2048|STARPU_SCHED=lws|-t 2048"
    "dmda t2048|STARPU_SCHED=dmda|-t 2048"
    "dmdas t4096|STARPU_SCHED=dmdas|-t 4096"
    "dmdas t2048 2 workers/GPU|STARPU_SCHED=dmdas STARPU_NWORKER_PER_CUDA=2|-t 2048"
    "dmdas t2048 pipeline 4|STARPU_SCHED=dmdas STARPU_CUDA_PIPELINE=4|-t 2048"
    "dmdas t2048 no throttle|STARPU_SCHED=dmdas|-t 2048 --no-throttle"
    "dmdas t2048 8 CPU workers|STARPU_SCHED=dmdas STARPU_NCPU=8|-t 2048"
    "dmdas t2048 8 GB GPU limit|STARPU_SCHED=dmdas STARPU_LIMIT_CUDA_MEM=8192|-t 2048"
    "dmdas t2048 8 GB no throttle|STARPU_SCHED=dmdas STARPU_LIMIT_CUDA_MEM=8192|-t 2048 --no-throttle"
  )
  # TUNE_CONFIGS: lines of "label|VAR=value ...|driver options" replacing the list above
  # (options after the default -M/-N/-K override them).
  if [ -n "${TUNE_CONFIGS:-}" ]; then mapfile -t configs <<< "$TUNE_CONFIGS"; fi
  for g in ${TUNE_GPUS:-1}; do
    for cfg in "${configs[@]}"; do
      IFS='|' read -r label envs args <<< "$cfg"
      # shellcheck disable=SC2086
      vals=$(env STARPU_NCUDA="$g" $envs timeout 150 "${mpirun_gpu[@]}" -np 1 \
             starpu_gemm -M "$n" -N "$n" -K "$n" \
             $args --niter 3 --warmup 1 --csv 2>&1 | awk -F, '
             /^system,/ { for (i = 1; i <= NF; i++) if ($i == "gflops") c = i; next }
             c && NF > 10 { print $c }' | sort -g)
      if [ -z "$vals" ]; then line=FAILED
      else line=$(printf '%s\n' "$vals" | awk '{ v[NR] = $1 }
             END { printf "%.1f TFLOP/s (median of %d; min %.1f max %.1f)",
                   v[int((NR + 1) / 2)] / 1000, NR, v[1] / 1000, v[NR] / 1000 }'); fi
      printf 'tune n=%s G=%s %-32s %s\n' "$n" "$g" "$label" "$line"
    done
  done
}
stage_pins() {
  "$sg/build/bench/pin_rate" -n "${PIN_MIB:-8192}" | tee "$out/pins.csv"
  "$sg/build/bench/stage_rate" -n "${STAGE_N:-16384}" | tee "$out/stage-rate.csv"
}
stage_doors() { top_srcdir=$sg top_builddir=$sg/build GPU_DOORS_ONLY=1 "$sg/tests/gpu.sh"; }
stage_arrays() {
  local g rc=0
  for g in ${ARRAYS_GPUS:-all}; do
    [ "$g" = all ] && g=
    GPUS=$g RESULTS=$out/bench BUILD=$sg/build LIB=$sg/lib "$sg/bench/arrays.sh" || rc=$?
  done
  return "$rc"
}
stage_tensor() {
  if [ "${TENSOR_TESTS:-1}" = 1 ]; then
    STARPU_NCUDA=1 top_srcdir=$sg top_builddir=$sg/build GPU_TENSOR_ONLY=1 "$sg/tests/gpu.sh"
  fi
  STARPU_NCUDA=1 RESULTS=$out/bench BUILD=$sg/build "$sg/bench/tensor.sh"
}
stage_sweep() {
  local n cap thr capenv capfwd
  for n in ${SWEEP_N:-8192 16384 32768 49152 61440}; do
    for cap in 0 8192; do
      capenv=() capfwd=()
      [ "$cap" != 0 ] && capenv=(STARPU_LIMIT_CUDA_MEM=$cap) capfwd=(-x STARPU_LIMIT_CUDA_MEM)
      for thr in "" --no-throttle; do
        echo "# sweep n=$n limit_mb=$cap ${thr:-throttle}"
        env STARPU_NCUDA=1 STARPU_NCPU=0 STARPU_SCHED=dmdas "${capenv[@]}" timeout 300 \
          "${mpirun_gpu[@]}" -x STARPU_NCUDA -x STARPU_NCPU -x STARPU_SCHED "${capfwd[@]}" \
          -np 1 starpu_gemm -M "$n" -N "$n" -K "$n" $thr --niter 3 --warmup 1 --csv
      done
    done
  done
}
stage_node() {
  local rc=0 csv="" f
  RESULTS=$out/bench BUILD=$sg/build timeout -k 10 "${NODE_BUDGET_S:-540}" \
    "$sg/bench/node.sh" || rc=$?
  for f in "$out"/bench/node-*.csv; do [ -f "$f" ] && csv=$f; done  # the newest: DATE sorts
  if [ "$rc" != 0 ] && [ -n "$csv" ] && [ ! -f "${csv%.csv}-table.txt" ]; then
    echo "bench/node.sh stopped (exit $rc): the table of the cases that ran"
    RESULTS=$out/bench "$sg/bench/node.sh" --report "$csv" | tee "${csv%.csv}-table.txt"
  fi
  return "$rc"
}
stage_quick() { RESULTS=$out/bench BUILD=$sg/build "$sg/bench/gpu.sh" --quick; }
stage_bench() { RESULTS=$out/bench BUILD=$sg/build "$sg/bench/gpu.sh"; }

for stage in "${stages[@]}"; do
  t0=$SECONDS
  echo "=== stage $stage ($(date +%T))"
  "stage_$stage" > "$out/$stage.log" 2>&1
  status=$?
  tail -n "${TAIL_LINES:-25}" "$out/$stage.log"
  summary+=("$stage: exit $status, $((SECONDS - t0)) s")
done
# Perf models and bus calibration come back with the results, to be carried next time.
tar -C "$out" -czf "$final/results.tar.gz" . -C "$STARPU_HOME" .starpu 2>/dev/null
cp "$out"/*.log "$final/" 2>/dev/null
echo "=== summary"; printf '%s\n' "${summary[@]}"
