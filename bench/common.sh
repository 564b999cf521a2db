# shellcheck shell=bash disable=SC2154
# (bench_top and bench_log are set by the script that sources this file.)
# Sourced by bench/cpu.sh and bench/gpu.sh: reading the driver's CSV and the peers' RESULT
# lines, running a step under a time limit, and plotting. Bash only.

# Which mpirun to use, and the Open MPI settings every run needs here and on the GPU nodes
# (root in containers, no CMA between ranks of one container).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
MPIRUN=${MPIRUN:-mpirun}

# --help of a script: its header comment, from the second line to the first line that is not
# a comment.
bench_help() { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$1"; }

# The command line of a benchmark script with a reporter (a function named report): --report
# CSV runs it on the CSV and exits, --help prints the header and exits, nothing goes on.
bench_cli() {
  local script=$1; shift
  if [ "${1:-}" = --report ]; then
    [ -f "${2:-}" ] || { echo "$script: --report needs a CSV" >&2; exit 2; }
    bench_log=/dev/null report "$2"; exit 0
  fi
  case ${1:-} in -h|--help) bench_help "$script"; exit 0 ;; "") ;;
    *) echo "$script: unknown argument '$1' (try --help)" >&2; exit 2 ;; esac
}

# A run's files: sets build (BUILD [build]), results (RESULTS [bench/results], created), csv
# and bench_log (RESULTS/NAME-<date>-<time>.csv and .log), and writes HEADER into the CSV.
bench_start() {
  build=$(bench_abs "${BUILD:-build}")
  results=$(bench_abs "${RESULTS:-bench/results}")
  mkdir -p "$results"
  local stamp
  stamp=$(date +%Y%m%d-%H%M%S)
  csv=$results/$1-$stamp.csv bench_log=$results/$1-$stamp.log
  echo "$2" > "$csv"
}

# A path given relative to the repository root (BUILD=build, the default) made absolute.
bench_abs() {
  case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$bench_top/$1" ;; esac
}

# The values of column NAME in the data rows of the driver's --csv output in FILE (the rows
# after its header line; anything before the header is skipped).
csv_column() {
  awk -F, -v name="$2" '
    !c { for (i = 1; i <= NF; i++) if ($i == name) { c = i; nf = NF }; next }
    NF == nf { print $c }' "$1"
}

# Median of the numbers on stdin, one a line; prints nothing when there are none.
median() {
  sort -g | awk '{ v[NR] = $1 }
    END { if (NR == 0) exit; if (NR % 2) print v[(NR + 1) / 2];
          else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# Field KEY of the RESULT line with the highest gflops in FILE, among the lines that have
# every key=value of FILTER ("gpus=2 block=4096") when given; prints nothing when there is no
# such line.
result_field() {
  awk -v key="$2" -v filter="${3:-}" '
    BEGIN { nf = split(filter, want, " "); for (i = 1; i <= nf; i++) wanted[want[i]] = 1 }
    /^RESULT / { g = ""; v = ""; have = 0
      for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "gflops") g = kv[2];
                                  if (kv[1] == key) v = kv[2]; if ($i in wanted) have++ }
      if (have >= nf && g != "" && (best == "" || g + 0 > best + 0)) { best = g; val = v } }
    END { if (best != "") print val }' "$1"
}

# a / b with two decimals, or "-" when either is missing or b is zero.
ratio() {
  awk -v a="$1" -v b="$2" 'BEGIN {
    if (a == "" || b == "" || a !~ /^[0-9.eE+-]+$/ || b !~ /^[0-9.eE+-]+$/ || b + 0 == 0)
      print "-"; else printf "%.2f\n", a / b }'
}

# x / 1000 with three decimals (GFLOP/s to TFLOP/s), or "-".
per_thousand() {
  awk -v a="$1" 'BEGIN { if (a !~ /^[0-9.eE+-]+$/) print "-"; else printf "%.3f\n", a / 1000 }'
}

# Busy and total CPU time of the whole machine so far, in clock ticks (from /proc/stat).
machine_ticks() {
  awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' \
    /proc/stat 2> /dev/null
}

# CPU time of this shell and of the children it has waited for, in clock ticks.
shell_ticks() { awk '{ print $14 + $15 + $16 + $17 }' "/proc/$1/stat" 2> /dev/null; }

# Run a step under `timeout`, its output to FILE and its stderr appended to the log.
# Prints "ok", "timeout" or "failed(rc)" as the step's status. Also writes FILE.others: the
# share of the machine (%) that other processes used while the step ran, a timing taken on a
# busy machine being worth little; empty where /proc cannot tell.
run_step() {
  local limit=$1 file=$2; shift 2
  local rc=0 me=$BASHPID busy0 total0 busy1 total1 own0 own1
  echo "+ $*" >> "$bench_log"
  read -r busy0 total0 < <(machine_ticks)
  own0=$(shell_ticks "$me")
  timeout -k 10 "$limit" "$@" > "$file" 2>> "$bench_log" || rc=$?
  read -r busy1 total1 < <(machine_ticks)
  own1=$(shell_ticks "$me")
  awk -v b="$busy1" -v b0="$busy0" -v t="$total1" -v t0="$total0" -v o="$own1" -v o0="$own0" \
    'BEGIN { if (b == "" || o == "" || t - t0 <= 0) exit;
             x = 100 * ((b - b0) - (o - o0)) / (t - t0); printf "%.0f\n", (x < 0 ? 0 : x) }' \
    > "$file.others"
  [ -s "$file.others" ] && echo "  (other processes: $(cat "$file.others")% of the machine)" \
    >> "$bench_log"
  cat "$file" >> "$bench_log"
  case $rc in
    0) echo ok ;;
    124|137) echo timeout ;;
    *) echo "failed($rc)" ;;
  esac
}

# gnuplot's best PNG terminal, or nothing when gnuplot is missing.
png_terminal() {
  command -v gnuplot > /dev/null 2>&1 || return 0
  if gnuplot -e 'set terminal pngcairo' > /dev/null 2>&1; then
    echo 'pngcairo noenhanced size 900,600'
  else
    echo 'png noenhanced size 900,600'
  fi
}

# Write GP, a gnuplot script drawing DATA (whitespace columns: x, then one per series named
# in the header line "# x name1 name2 ...", "NaN" where missing) into PNG; run it when
# gnuplot is here. Args: DATA GP PNG TITLE XLABEL YLABEL [logx].
# Optional, set for the call: PLOT_TITLES="title 1|title 2|..." (the legend, instead of the
# header's names), PLOT_YZERO=1 (the y axis starts at 0), PLOT_XTICS=1 (a tic at each x),
# PLOT_KEY="right bottom" (where the legend goes; default left top).
plot_series() {
  local data=$1 gp=$2 png=$3 title=$4 xlabel=$5 ylabel=$6 logx=${7:-}
  local titles=${PLOT_TITLES:-}
  local terminal
  terminal=$(png_terminal)
  local ncols
  ncols=$(awk 'NR == 1 { print NF - 2; exit }' "$data")
  {
    echo "# Made by bench/$(basename "$0"); run: gnuplot $(basename "$gp")"
    echo "set terminal ${terminal:-pngcairo noenhanced size 900,600}"
    echo "set output '$(basename "$png")'"
    echo "set title '$title'"
    echo "set xlabel '$xlabel'"
    echo "set ylabel '$ylabel'"
    echo "set key ${PLOT_KEY:-left top}"
    echo "set grid"
    echo "set datafile missing 'NaN'"
    [ -n "$logx" ] && echo "set logscale x 2"
    [ -n "${PLOT_YZERO:-}" ] && echo "set yrange [0:*]"
    if [ -n "${PLOT_XTICS:-}" ]; then
      printf 'set xtics (%s)\n' "$(awk '!/^#/ { printf "%s%s", s, $1; s = ", " }' "$data")"
    fi
    printf "plot "
    for ((s = 1; s <= ncols; s++)); do
      local name
      name=$(awk -v s="$s" 'NR == 1 { print $(s + 2); exit }' "$data")
      if [ -n "$titles" ]; then
        name=$(awk -v s="$s" -v t="$titles" -v name="$name" \
          'BEGIN { n = split(t, a, "|"); print (s <= n && a[s] != "") ? a[s] : name }')
      fi
      printf "'%s' using 1:%d with linespoints lw 2 title '%s'" "$(basename "$data")" $((s + 1)) "$name"
      [ "$s" -lt "$ncols" ] && printf ", \\\\\n     "
    done
    echo
  } > "$gp"
  if [ -n "$terminal" ]; then
    (cd "$(dirname "$gp")" && gnuplot "$(basename "$gp")") >> "$bench_log" 2>&1 &&
      echo "plot: $png" || echo "plot: gnuplot failed (see $bench_log)"
  else
    echo "plot: gnuplot not found; run 'gnuplot $(basename "$gp")' in $(dirname "$gp") elsewhere"
  fi
}
