#!/usr/bin/env bash
# Issue 6: starpu_gemm against its CPU peers, measured in the same run on this machine.
#   bench/cpu.sh           for each N: (a) starpu_gemm on 1 rank, all cores as CPU workers, vs
#                          one OpenBLAS dgemm on all cores; (b) starpu_gemm on 2 ranks (grid
#                          1x2, 1 CPU worker each) vs ScaLAPACK PDGEMM 1x2, nb=256
#   bench/cpu.sh --sweep   STARPU_SCHED x tile at N=SWEEP_N on 1 rank, next to OpenBLAS
# Prints a table of GFLOP/s and ratios, writes RESULTS/cpu[-sweep]-DATE.csv, a PNG (gnuplot)
# and a log of every command with its output. OpenBLAS always runs one thread per core; the
# starpu_gemm runs and ScaLAPACK one BLAS thread per worker or rank. A cell marked '*' was
# measured while other processes used more than BUSY_PCT % of the machine: run again.
# Environment (defaults in brackets):
#   BUILD [build]             build tree with drivers/starpu_gemm and bench/*
#   N_LIST [2048 4096 6144]   matrix orders        NITER [3], WARMUP [1]   runs per point
#   BIND [checked]            mpirun binding for the starpu runs: 'none' (--bind-to none) or
#                             'default'; unset: both are measured at BIND_N [first N] and the
#                             faster is used
#   TILE, SCHED               passed to the driver (-t) and StarPU (STARPU_SCHED) when set
#   SWEEP_N [4096], SWEEP_SCHEDS [eager lws dmda dmdas], SWEEP_TILES [256 512 1024]
#   STEP_TIMEOUT [900]        seconds allowed to one step    RESULTS [bench/results]
#   BUSY_PCT [10]             see above        ACCEPT_N [4096]   where issue 6's targets are checked
set -uo pipefail
bench_top=$(cd "$(dirname "$0")/.." && pwd)
. "$bench_top/bench/common.sh"

mode=main
case ${1:-} in
  --sweep) mode=sweep ;;
  "") ;;
  -h|--help) bench_help "$0"; exit 0 ;;
  *) echo "bench/cpu.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
esac

build=$(bench_abs "${BUILD:-build}")
driver=$build/drivers/starpu_gemm
openblas=$build/bench/openblas_dgemm
scalapack=$build/bench/scalapack_pdgemm
for program in "$driver" "$openblas"; do
  if [ ! -x "$program" ]; then
    echo "bench/cpu.sh: $program not found: build first (./bootstrap.sh build), or set BUILD" >&2
    exit 2
  fi
done
[ -x "$scalapack" ] || echo "note: $scalapack not built (no ScaLAPACK): its column stays empty"

cores=$(nproc)
N_LIST=${N_LIST:-2048 4096 6144}
NITER=${NITER:-3}
WARMUP=${WARMUP:-1}
STEP_TIMEOUT=${STEP_TIMEOUT:-900}
BUSY_PCT=${BUSY_PCT:-10}
# The OpenBLAS peer uses every core, whatever OPENBLAS_NUM_THREADS the caller exported.
ob_threads=$cores
busy_seen=0
results=$(bench_abs "${RESULTS:-bench/results}")
stamp=$(date +%Y%m%d-%H%M%S)
host=$(hostname)
mkdir -p "$results"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=cpu
[ "$mode" = sweep ] && prefix=cpu-sweep
bench_log=$results/$prefix-$stamp.log
csv=$results/$prefix-$stamp.csv
data=$results/$prefix-$stamp.dat
: > "$bench_log"

# mpirun options for a binding choice and a rank count.
mpirun_opts() {
  local bind=$1 ranks=$2
  [ "$bind" = none ] && printf -- '--bind-to\nnone\n'
  [ "$ranks" -gt "$cores" ] && printf -- '--oversubscribe\n'
  return 0
}

# starpu_run RANKS P Q NCPU BIND N [driver options]: sets gflops (median of the CSV rows),
# status, tile and sched (what the driver reports it used). sched_env: STARPU_SCHED to set.
sched_env=${SCHED:-}
starpu_run() {
  local ranks=$1 P=$2 Q=$3 ncpu=$4 bind=$5 n=$6; shift 6
  local out=$work/starpu.csv opts=()
  mapfile -t opts < <(mpirun_opts "$bind" "$ranks")
  local env=(-x STARPU_NCPU="$ncpu" -x STARPU_NCUDA=0 -x OPENBLAS_NUM_THREADS=1
             -x STARPU_SILENT=1)
  [ -n "$sched_env" ] && env+=(-x STARPU_SCHED="$sched_env")
  status=$(run_step "$STEP_TIMEOUT" "$out" "$MPIRUN" -np "$ranks" "${opts[@]}" "${env[@]}" \
           "$driver" -M "$n" -N "$n" -K "$n" -P "$P" -Q "$Q" --prec d --niter "$NITER" \
           --warmup "$WARMUP" --check --csv ${TILE:+-t "$TILE"} "$@")
  gflops=$(csv_column "$out" gflops | median)
  others=$(cat "$out.others" 2> /dev/null)
  tile=$(csv_column "$out" tile | head -1)
  sched=$(csv_column "$out" sched | head -1)
  if [ "$status" = ok ] && [ -z "$gflops" ]; then status=no-csv; fi
}

# peer_run command...: sets peer_gflops and peer_status from its RESULT line.
peer_run() {
  local out=$work/peer.txt
  peer_status=$(run_step "$STEP_TIMEOUT" "$out" "$@")
  peer_gflops=$(result_field "$out" gflops)
  peer_others=$(cat "$out.others" 2> /dev/null)
  if [ "$peer_status" = ok ] && [ -z "$peer_gflops" ]; then peer_status=no-result; fi
}

# The number shown in a table cell: GFLOP/s, or why there is none; with '*' when other
# processes used more than BUSY_PCT % of the machine meanwhile (third argument).
cell() {
  if [ -z "$1" ]; then echo "$2"; return; fi
  if [ -n "${3:-}" ] && [ "$3" -gt "$BUSY_PCT" ]; then echo "$1*"; else echo "$1"; fi
}
# Remember that some cell given (made by cell, in a subshell) carries the '*'.
note_busy() { case "$*" in *'*'*) busy_seen=1 ;; esac; }

# Which binding makes starpu_gemm faster with RANKS ranks of NCPU workers: sets chosen, and
# prints both measurements.
choose_bind() {
  local ranks=$1 P=$2 Q=$3 ncpu=$4 n=$5 bind line="" best_gflops=0
  chosen=default
  for bind in default none; do
    starpu_run "$ranks" "$P" "$Q" "$ncpu" "$bind" "$n"
    line+="  $bind: $(cell "$gflops" "$status" "$others")"
    if [ -n "$gflops" ] && awk -v a="$gflops" -v b="$best_gflops" 'BEGIN { exit !(a > b) }'; then
      chosen=$bind best_gflops=$gflops
    fi
  done
  note_busy "$line"
  printf 'binding check, %d rank(s) x %d CPU workers, N=%d, GFLOP/s:%s -> %s\n' \
    "$ranks" "$ncpu" "$n" "$line" "$chosen"
}

echo "starpu_gemm CPU benchmark on $host ($cores cores), DGEMM, median of $NITER runs after" \
     "$WARMUP warm-up; log: $bench_log"
first_n=${N_LIST%% *}
if [ -n "${BIND:-}" ]; then
  bind1=$BIND bind2=$BIND
  echo "binding: $BIND (from BIND)"
else
  choose_bind 1 1 1 "$cores" "${BIND_N:-$first_n}"
  bind1=$chosen
  choose_bind 2 1 2 1 "${BIND_N:-$first_n}"
  bind2=$chosen
fi

if [ "$mode" = sweep ]; then
  SWEEP_N=${SWEEP_N:-4096}
  echo "date,host,n,ranks,cpu_workers,bind,sched,tile,gflops,openblas_gflops,ratio,status,others_pct" > "$csv"
  peer_run env OPENBLAS_NUM_THREADS="$ob_threads" "$openblas" \
    -n "$SWEEP_N" --niter "$NITER" --warmup "$WARMUP"
  ob=$peer_gflops ob_cell=$(cell "$peer_gflops" "$peer_status" "$peer_others")
  note_busy "$ob_cell"
  tiles=${SWEEP_TILES:-256 512 1024}
  scheds=${SWEEP_SCHEDS:-eager lws dmda dmdas}
  # cells: the table's text (GFLOP/s or why not, '*' when busy); values: GFLOP/s for the plot.
  declare -A cells values
  for s in $scheds; do
    for t in $tiles; do
      sched_env=$s TILE=$t starpu_run 1 1 1 "$cores" "$bind1" "$SWEEP_N"
      cells[$s,$t]=$(cell "$gflops" "$status" "$others") values[$s,$t]=$gflops
      note_busy "${cells[$s,$t]}"
      echo "$stamp,$host,$SWEEP_N,1,$cores,$bind1,$s,$t,$gflops,$ob,$(ratio "$gflops" "$ob"),$status,$others" >> "$csv"
      echo "  sched=$s tile=$t: ${cells[$s,$t]} GFLOP/s" >&2
    done
  done
  {
    printf '# tile'
    for s in $scheds; do printf ' %s' "$s"; done
    echo
    for t in $tiles; do
      printf '%s' "$t"
      for s in $scheds; do printf ' %s' "${values[$s,$t]:-NaN}"; done
      echo
    done
  } > "$data"

  echo
  echo "Sweep at N=$SWEEP_N, 1 rank x $cores CPU workers (bind: $bind1); GFLOP/s (ratio to" \
       "OpenBLAS $ob_cell GFLOP/s, $ob_threads threads)"
  printf '%-8s' "sched"
  for t in $tiles; do printf ' | %-16s' "tile $t"; done
  echo
  for s in $scheds; do
    printf '%-8s' "$s"
    for t in $tiles; do
      printf ' | %-16s' "${cells[$s,$t]} ($(ratio "${cells[$s,$t]%\*}" "$ob"))"
    done
    echo
  done
  [ "$busy_seen" = 1 ] && echo "* other processes used more than $BUSY_PCT% of the machine" \
    "during this measurement: run again on a quiet machine"
  echo "csv: $csv"
  PLOT_YZERO=1 PLOT_XTICS=1 PLOT_KEY="right bottom" plot_series "$data" "${data%.dat}.gp" "${data%.dat}.png" \
    "starpu_gemm DGEMM N=$SWEEP_N, 1 rank x $cores workers ($host)" "tile" "GFLOP/s" logx
  exit 0
fi

echo "date,host,experiment,system,n,ranks,P,Q,cpu_workers_per_rank,blas_threads,bind,tile,sched,gflops,peer,ratio_to_peer,status,others_pct" > "$csv"
echo "# n starpu_1rank openblas starpu_2ranks_1x2 scalapack_1x2" > "$data"
table=()
for n in $N_LIST; do
  # (a) one rank, every core a StarPU CPU worker, vs OpenBLAS threaded over every core.
  starpu_run 1 1 1 "$cores" "$bind1" "$n"
  s1=$gflops s1_status=$status s1_tile=$tile s1_sched=$sched s1_others=$others
  peer_run env OPENBLAS_NUM_THREADS="$ob_threads" "$openblas" -n "$n" \
    --niter "$NITER" --warmup "$WARMUP"
  ob=$peer_gflops ob_status=$peer_status ob_others=$peer_others
  # (b) two ranks on a 1x2 grid, one single-threaded worker each, vs ScaLAPACK on the same
  # grid (Open MPI's default binding: one core per rank, what ScaLAPACK expects).
  starpu_run 2 1 2 1 "$bind2" "$n"
  s2=$gflops s2_status=$status s2_tile=$tile s2_sched=$sched s2_others=$others
  sc="" sc_status=missing sc_others=""
  if [ -x "$scalapack" ]; then
    mapfile -t sc_opts < <(mpirun_opts default 2)
    peer_run "$MPIRUN" -np 2 "${sc_opts[@]}" -x OPENBLAS_NUM_THREADS=1 "$scalapack" \
      -n "$n" -P 1 -Q 2 --nb 256 --niter "$NITER" --warmup "$WARMUP"
    sc=$peer_gflops sc_status=$peer_status sc_others=$peer_others
  fi

  r1=$(ratio "$s1" "$ob") r2=$(ratio "$s2" "$sc")
  {
    echo "$stamp,$host,a,starpu_gemm,$n,1,1,1,$cores,1,$bind1,$s1_tile,$s1_sched,$s1,openblas,$r1,$s1_status,$s1_others"
    echo "$stamp,$host,a,openblas,$n,1,1,1,,$ob_threads,,,,$ob,,,$ob_status,$ob_others"
    echo "$stamp,$host,b,starpu_gemm,$n,2,1,2,1,1,$bind2,$s2_tile,$s2_sched,$s2,scalapack,$r2,$s2_status,$s2_others"
    echo "$stamp,$host,b,scalapack,$n,2,1,2,,1,default,256,,$sc,,,$sc_status,$sc_others"
  } >> "$csv"
  echo "$n ${s1:-NaN} ${ob:-NaN} ${s2:-NaN} ${sc:-NaN}" >> "$data"
  c1=$(cell "$s1" "$s1_status" "$s1_others") c2=$(cell "$ob" "$ob_status" "$ob_others")
  c3=$(cell "$s2" "$s2_status" "$s2_others") c4=$(cell "$sc" "$sc_status" "$sc_others")
  note_busy "$c1$c2$c3$c4"
  row=$(printf '%6s | %12s | %10s | %9s | %12s | %10s | %9s' "$n" "$c1" "$c2" "$r1" "$c3" "$c4" \
        "$r2")
  [ "$n" = "${ACCEPT_N:-4096}" ] && accept_a=$r1 accept_b=$r2
  table+=("$row")
  echo "$row" >&2
done

echo
echo "DGEMM GFLOP/s on $host, $cores cores (median of $NITER runs). (a) 1 rank x $cores workers" \
     "(bind: $bind1) vs OpenBLAS, $ob_threads threads; (b) 2 ranks 1x2 x 1 worker (bind: $bind2)" \
     "vs ScaLAPACK 1x2 nb=256"
printf '%6s | %12s | %10s | %9s | %12s | %10s | %9s\n' N "starpu 1r" OpenBLAS "ratio a" \
  "starpu 2r" ScaLAPACK "ratio b"
printf '%s\n' "${table[@]}"
echo "ratio a = starpu/OpenBLAS, ratio b = starpu/ScaLAPACK; tile and scheduler: the driver's" \
     "defaults unless TILE/SCHED (here: tile ${s1_tile:-?}, ${s1_sched:-?})"
[ "$busy_seen" = 1 ] && echo "* other processes used more than $BUSY_PCT% of the machine" \
  "during this measurement: run again on a quiet machine"
# Issue 6's acceptance targets, at N=ACCEPT_N when it was measured.
verdict() { awk -v r="$1" -v t="$2" 'BEGIN { if (r !~ /^[0-9.]+$/) print "not measured";
  else if (r + 0 >= t) print "met"; else print "MISSED" }'; }
if [ -n "${accept_a:-}${accept_b:-}" ]; then
  echo "targets at N=${ACCEPT_N:-4096}: (a) ${accept_a:--} x OpenBLAS, >= 0.95:" \
       "$(verdict "${accept_a:-}" 0.95); (b) ${accept_b:--} x ScaLAPACK, >= 1.3:" \
       "$(verdict "${accept_b:-}" 1.3)"
fi
echo "csv: $csv"
PLOT_YZERO=1 PLOT_XTICS=1 PLOT_KEY="right bottom" \
PLOT_TITLES="starpu_gemm, 1 rank x $cores workers|OpenBLAS dgemm, $ob_threads threads|starpu_gemm, 2 ranks (1x2) x 1 worker|ScaLAPACK PDGEMM, 2 ranks (1x2), nb=256" \
  plot_series "$data" "${data%.dat}.gp" "${data%.dat}.png" \
  "DGEMM on $host ($cores cores), median of $NITER runs" "N" "GFLOP/s"
