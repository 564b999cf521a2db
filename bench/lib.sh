# shellcheck shell=bash disable=SC2034,SC2154  # driver, cmd: shared with the runners
# Sourced by bench/cpu.sh, gpu.sh and arrays.sh, which list cases; this runs them. Every
# program prints the results' CSV (common/results_csv.h); each case's rows go into one CSV
# with case,status,host,date in front, its whole output into the log, and bench/report.py
# makes the table and the plot from the CSV.
#   kit_start NAME        RESULTS/NAME-DATE.{csv,log}; prints where
#   kit_case CASE CMD...  run CMD under STEP_TIMEOUT; DRY_RUN=1 prints it instead. CMD may be
#                         a function of the runner that puts the command in the array cmd
#   kit_report KIT TITLE  the reporter on this run's CSV, targets of KIT, plot
#   kit_cli KIT TITLE "$@"  a runner's arguments: none (run), --help, or --report CSV (the
#                         reporter again on a CSV of the runner, the plot into RESULTS)
set -uo pipefail
bench_top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
abs() { case $1 in /*) echo "$1" ;; *) echo "$bench_top/$1" ;; esac; }
build=$(abs "${BUILD:-build}")
results=$(abs "${RESULTS:-bench/results}")
NITER=${NITER:-3} WARMUP=${WARMUP:-1} STEP_TIMEOUT=${STEP_TIMEOUT:-900}
# Root in containers.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 STARPU_SILENT=${STARPU_SILENT:-1}
MPIRUN=${MPIRUN:-mpirun}
driver=$build/drivers/starpu_gemm
# MPI between the ranks of one node as a user's launch gets it (issue 27): Open MPI's default
# single-copy mechanism (CMA, process_vm_readv), not forced off. It is turned off only where it
# would fail: Yama's ptrace_scope >= 1 forbids one rank to read a sibling's memory, and a
# container without CAP_SYS_PTRACE (seccomp) refuses process_vm_readv; either way a large
# message aborts the job. Decided once per kit by the file, then by a 2-rank run of
# bench/mpi_rate with 1 MiB messages (above the eager limit: the single copy is used). A value
# set by the caller (OMPI_MCA_btl_vader_single_copy_mechanism=none, cma...) is kept.
cma_works() {
  local scope; scope=$(cat /proc/sys/kernel/yama/ptrace_scope 2> /dev/null || echo 0)
  [ "$scope" -ge 1 ] && return 1
  [ -x "$build/bench/mpi_rate" ] || return 0
  timeout -k 5 60 "$MPIRUN" -np 2 --oversubscribe --bind-to none "$build/bench/mpi_rate" \
    --bytes 1048576 --rounds 1 > /dev/null 2>&1
}
if [ -z "${OMPI_MCA_btl_vader_single_copy_mechanism+set}" ] && [ "${DRY_RUN:-0}" != 1 ] &&
   ! cma_works; then
  export OMPI_MCA_btl_vader_single_copy_mechanism=none
fi
# The -x options every mpirun passes on: StarPU's settings and perf models, where set.
mpi_env=()
for v in LD_LIBRARY_PATH STARPU_SILENT STARPU_HOME STARPU_PERF_MODEL_DIR STARPU_HOSTNAME \
         STARPU_LIMIT_CPU_MEM STARPU_SCHED STARPU_GEMM_VERBOSE STARPU_GEMM_PIN \
         STARPU_GEMM_PIN_THREADS STARPU_GEMM_STAGE_THREADS STARPU_GEMM_STAGE_MB STARPU_GEMM_STAGE_C; do
  [ -n "${!v:-}" ] && mpi_env+=(-x "$v")
done

# --help of a script: its header comment.
kit_help() { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; }

kit_cli() {
  local kit=$1 title=$2 me; me=bench/$(basename "$0"); shift 2
  case ${1:-} in
    --report)
      [ -f "${2:-}" ] || { echo "$me: --report needs a CSV" >&2; exit 2; }
      mkdir -p "$results" && exec python3 "$bench_top/bench/report.py" --kit "$kit" \
        --title "$title" --out "$results/$(basename "${2%.csv}")" "$2" ;;
    -h|--help) kit_help; exit 0 ;;
    "") ;;
    *) echo "$me: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
}

kit_start() {
  stamp=$(date +%Y%m%d-%H%M%S)
  mkdir -p "$results" || exit 2
  csv=$results/$1-$stamp.csv log=$results/$1-$stamp.log
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  [ "${DRY_RUN:-0}" = 1 ] && return
  : > "$log"
  echo "$1 on $(hostname), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), MPI single copy ${OMPI_MCA_btl_vader_single_copy_mechanism:-default}; csv: $csv"
}

kit_case() {
  local name=$1; shift
  if [ "$(type -t "$1")" = function ]; then "$@"; set -- "${cmd[@]}"; fi
  if [ "${DRY_RUN:-0}" = 1 ]; then echo "$name: $*"; return; fi
  local out=$work/out t0=$SECONDS rc=0
  echo "=== $name: $* (load $(cut -d' ' -f1 /proc/loadavg))" >> "$log"
  # Rows come from stdout only: a line a program writes to stderr (StarPU's, a verbose
  # library's) must not break or fake a row. The log keeps both.
  timeout -k 10 "$STEP_TIMEOUT" "$@" > "$out" 2> "$work/err" || rc=$?
  cat "$out" "$work/err" >> "$log"
  local status=ok
  case $rc in 0) ;; 124|137) status=timeout ;; *) status=failed-$rc ;; esac
  # The results' rows: the lines after a header, as wide as it (the table of several ranks
  # or sizes is printed once), prefixed; no row at all: one saying why. The CSV is the first
  # header seen, then every case's rows.
  awk -F, -v pre="$name,$status,$(hostname),$stamp" -v head="$work/head" -v rows="$work/rows.csv" '
    /^system,/ { nf = NF; print "case,status,host,date," $0 > head; next }
    nf && NF == nf { print pre "," $0 >> rows; n++ }
    END { if (!n) print pre >> rows; print n + 0 }' "$out" > "$work/n"
  if [ "$(cat "$work/n")" = 0 ] && [ "$status" = ok ]; then
    sed -i "\$s/,ok,/,no-rows,/" "$work/rows.csv"
    status=no-rows
  fi
  { cat "$work/head" 2> /dev/null || echo "case,status,host,date"; cat "$work/rows.csv"; } > "$csv"
  printf '[%s] %-28s %s, %s row(s), %d s\n' "$(date +%T)" "$name" "$status" \
    "$(cat "$work/n")" $((SECONDS - t0))
}

kit_report() {
  [ "${DRY_RUN:-0}" = 1 ] && return
  echo
  command -v python3 > /dev/null || { echo "no python3 here: run bench/report.py on $csv"; return; }
  python3 "$bench_top/bench/report.py" --kit "$1" --title "$2" --out "${csv%.csv}" "$csv" |
    tee "${csv%.csv}-table.txt"
  echo "csv: $csv  log: $log"
}
