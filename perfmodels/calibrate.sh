#!/usr/bin/env bash
# (Re)calibrate the history-based performance models of starpu_gemm's tile codelets
# (starpu_gemm_sgemm ... starpu_gemm_zgemm) and StarPU's bus model on this node, then copy them
# to perfmodels/LABEL/, in StarPU's own layout, so that any run can use them:
#   perfmodels/calibrate.sh [LABEL]     LABEL: STARPU_HOSTNAME if set, else this node's hostname
# StarPU 1.4 keeps models in DIR/codelets/45/<symbol>.<hostname> and DIR/bus/<hostname>.*, DIR
# being STARPU_PERF_MODEL_DIR, else $STARPU_HOME/.starpu/sampling ($HOME when STARPU_HOME is
# unset); <hostname> is STARPU_HOSTNAME when set. The calibration runs there (later runs of this
# session use the models at once); the files are named after LABEL (STARPU_HOSTNAME=LABEL while
# calibrating). To use the copy on any node (perfmodels/README.md):
#   export STARPU_PERF_MODEL_DIR=$PWD/perfmodels/LABEL STARPU_HOSTNAME=LABEL
# The models only matter to model-aware schedulers (dmda, dmdas, heteroprio...; bench/gpu.sh uses
# dmdas); StarPU's default, lws, ignores them.
# Environment (defaults in brackets):
#   BUILD [build]          build tree (or bundle: starpu-gemm/build) with drivers/starpu_gemm
#   SIZES [8192 16384]     square products run per pass; each tile GEMM needs >= 10 samples
#   TILES [2048 4096]      tile sizes (-t): the driver's defaults with GPUs (4096 once M, N
#                          and K hold 8 of them, else 2048); a model entry is per tile size
#   PRECS [d]              precisions among s d c z b h
#   NCUDA [every GPU]      CUDA workers;  NCPU [0]: CPU workers too, to calibrate their model
#                          (slow: a 2048-tile DGEMM takes ~0.3 s on one core)
#   PASSES [3]             passes at most, until StarPU stops reporting uncalibrated models
#   FRESH [0]              1: drop earlier measurements first (STARPU_CALIBRATE=2)
#   DEST [perfmodels/LABEL]   where the models are copied;  STEP_TIMEOUT [300] s per run
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
case ${1:-} in
  -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
  -*) echo "perfmodels/calibrate.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
esac
label=${1:-${STARPU_HOSTNAME:-$(hostname)}}
if ! [[ $label =~ ^[A-Za-z0-9._-]+$ ]]; then
  echo "perfmodels/calibrate.sh: LABEL '$label': use letters, digits, '.', '_' and '-' only" >&2
  exit 2
fi
build=${BUILD:-build}
case $build in /*) ;; *) build=$top/$build ;; esac
driver=$build/drivers/starpu_gemm
dest=${DEST:-$top/perfmodels/$label}
case $dest in /*) ;; *) dest=$PWD/$dest ;; esac
[ -x "$driver" ] || { echo "perfmodels/calibrate.sh: $driver not found: build first, or set BUILD" >&2; exit 2; }

# starpu_perfmodel_display: on PATH (the bundle's env.sh puts it there), else StarPU's prefix.
display=$(command -v starpu_perfmodel_display || true)
if [ -z "$display" ] && [ -f "$top/scripts/paths.sh" ]; then
  display=$(. "$top/scripts/paths.sh" && echo "$STARPU_PREFIX/bin/starpu_perfmodel_display")
fi

ngpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
NCUDA=${NCUDA:-${ngpus:-0}}
NCPU=${NCPU:-0}
SIZES=${SIZES:-8192 16384}
TILES=${TILES:-2048 4096}
PRECS=${PRECS:-d}
PASSES=${PASSES:-3}
STEP_TIMEOUT=${STEP_TIMEOUT:-300}
if [ "$NCUDA" -eq 0 ] && [ "$NCPU" -eq 0 ]; then
  echo "perfmodels/calibrate.sh: no GPU seen by nvidia-smi and NCPU=0: nothing to calibrate" \
       "(set NCPU for the CPU model)" >&2
  exit 2
fi

# Where StarPU itself reads and writes the models in this environment.
sampling=${STARPU_PERF_MODEL_DIR:-${STARPU_HOME:-$HOME}/.starpu/sampling}
mkdir -p "$dest" "$sampling"
log=$dest/calibrate.log
: > "$log"
# This label's files in a model folder: the codelets' models and the bus calibration.
model_files() {
  (cd "$1" 2>/dev/null || exit 0
   find codelets/45 -maxdepth 1 -type f -name "starpu_gemm_?gemm.$label" 2>/dev/null
   find bus -maxdepth 1 -type f -name "$label.*" 2>/dev/null)
}
# Earlier measurements kept in DEST (e.g. committed ones) seed the calibration, unless FRESH.
if [ "${FRESH:-0}" != 1 ]; then
  model_files "$dest" | while read -r f; do
    [ -e "$sampling/$f" ] || { mkdir -p "$sampling/$(dirname "$f")" && cp "$dest/$f" "$sampling/$f"; }
  done
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export STARPU_HOSTNAME=$label
# dmda places tasks by the models, so it gives every worker kind the tasks its model lacks.
export STARPU_SCHED=dmda STARPU_NCUDA=$NCUDA STARPU_NCPU=$NCPU OPENBLAS_NUM_THREADS=1
# StarPU's "not calibrated enough" warnings are how a pass tells whether another is needed.
export STARPU_SILENT=0
unset STARPU_LIMIT_CUDA_MEM STARPU_WORKERS_CUDAID
pass_env=(-x STARPU_HOSTNAME -x STARPU_SCHED -x STARPU_NCUDA -x STARPU_NCPU -x STARPU_SILENT
          -x STARPU_CALIBRATE -x OPENBLAS_NUM_THREADS)
for v in LD_LIBRARY_PATH STARPU_HOME STARPU_PERF_MODEL_DIR; do
  [ -n "${!v:-}" ] && pass_env+=(-x "$v")
done

echo "calibrating on $(hostname) as '$label': $NCUDA CUDA + $NCPU CPU workers, precisions [$PRECS]," \
     "tiles [$TILES], n in [$SIZES]; models in $sampling, copied to $dest (log: $log)"

# run_driver PREC TILE N: one run at STARPU_CALIBRATE; prints a line; sets warned (StarPU's
# count of "not calibrated enough" warnings: only given when STARPU_CALIBRATE=0).
status=0
run_driver() {
  local p=$1 t=$2 n=$3 out rc=0 start speed
  out=$(mktemp)
  start=$(date +%s)
  echo "+ starpu_gemm --prec $p -t $t -M $n -N $n -K $n (STARPU_CALIBRATE=$STARPU_CALIBRATE)" >> "$log"
  timeout -k 10 "$STEP_TIMEOUT" mpirun -np 1 --bind-to none "${pass_env[@]}" "$driver" \
    --prec "$p" -t "$t" -M "$n" -N "$n" -K "$n" --niter 3 --warmup 1 -q > "$out" 2>&1 || rc=$?
  cat "$out" >> "$log"
  warned=$(grep -c 'not calibrated enough' "$out" || true)
  speed=$(grep -o '[0-9.]* GFLOP/s' "$out" | tail -1)
  printf '  %sgemm t=%d n=%d, STARPU_CALIBRATE=%s: %s, %s, %ss%s\n' "$p" "$t" "$n" \
    "$STARPU_CALIBRATE" "$([ "$rc" = 0 ] && echo ok || echo "FAILED (exit $rc, see $log)")" \
    "${speed:-no timing}" "$(( $(date +%s) - start ))" \
    "$([ "$warned" -gt 0 ] && echo "; StarPU: model not calibrated enough")"
  [ "$rc" = 0 ] || status=1
  rm -f "$out"
}

smallest=$(for n in $SIZES; do echo "$n"; done | sort -n | head -1)
uncalibrated=1
for ((pass = 1; pass <= PASSES && uncalibrated; pass++)); do
  echo "pass $pass:"
  # Calibration runs: every task's time is recorded.
  export STARPU_CALIBRATE=1
  [ "$pass" = 1 ] && [ "${FRESH:-0}" = 1 ] && STARPU_CALIBRATE=2
  for p in $PRECS; do for t in $TILES; do for n in $SIZES; do
    run_driver "$p" "$t" "$n"
    # FRESH clears the history once, on the first run.
    export STARPU_CALIBRATE=1
  done; done; done
  # Check runs, as a benchmark runs (STARPU_CALIBRATE=0): StarPU says when a model still
  # lacks samples for a worker kind and tile size.
  export STARPU_CALIBRATE=0
  uncalibrated=0
  for p in $PRECS; do for t in $TILES; do
    run_driver "$p" "$t" "$smallest"
    [ "$warned" -gt 0 ] && uncalibrated=1
  done; done
done
# The copy: this label's codelet models and bus calibration, nothing else of the folder.
model_files "$sampling" | while read -r f; do
  mkdir -p "$dest/$(dirname "$f")" && cp "$sampling/$f" "$dest/$f"
done

echo
for p in $PRECS; do
  echo "== starpu_perfmodel_display -s starpu_gemm_${p}gemm"
  if [ -x "$display" ]; then
    "$display" -s "starpu_gemm_${p}gemm" 2>&1 | tee -a "$log"
  else
    echo "(starpu_perfmodel_display not found: on PATH or in StarPU's prefix)"
  fi
done
echo
echo "models in $dest:"
(cd "$dest" && find . -type f ! -name calibrate.log | sort | sed 's|^\./|  |')
echo "use them elsewhere:  export STARPU_PERF_MODEL_DIR=$dest STARPU_HOSTNAME=$label"
[ "$uncalibrated" = 0 ] || echo "note: StarPU still reported uncalibrated models after $PASSES pass(es)"
exit $status
