#!/usr/bin/env bash
# Issue 12: the application's own arrays on one GPU. DGEMM C = A*B + C, n x n, C back in host
# memory, every case on the same node in the same run:
#   driver         drivers/starpu_gemm, the library's pinned tiles (pinning not timed)
#   gemm-pinned    starpu_gemm_gemm on arrays from starpu_malloc (driver --layout lapack-pinned)
#   gemm-pageable  starpu_gemm_gemm on arrays from malloc, pinning in the timed call
#                  (driver --layout lapack)
#   xt-pinned, xt-pageable   cuBLASXt on matrices of the same kind (block XT_BLOCK)
#   preload        bench/dgemm_app: dgemm_ on malloc'ed arrays, LD_PRELOAD=libstarpu_gemm_blas.so
#                  (for n in PRELOAD_N)
# Usage:
#   bench/arrays.sh               run, then the table, the acceptance lines and the plot
#   bench/arrays.sh --report CSV  the table, acceptance and plot again from a CSV of this script
# Environment: BUILD [build], RESULTS [bench/results], N_LIST [32768 49152], PRELOAD_N [32768],
#   NITER [2], WARMUP [1], XT_BLOCK [4096], STEP_TIMEOUT [300], CASES [every case above],
#   LIB (folder of libstarpu_gemm_blas.so) [BUILD/.libs]
# CSV columns: case,n,tflops,time_s,pin_s,status (tflops: median of the timed runs).
set -uo pipefail
bench_top=$(cd "$(dirname "$0")/.." && pwd)
. "$bench_top/bench/common.sh"

report() {
  local csv=$1 base=${1%.csv}
  # Table: TFLOP/s per case and n, then the ratios the issue asks for.
  awk -F, 'NR > 1 && $6 == "ok" { t[$1 "," $2] = $3; ns[$2] = 1 }
    function r(a, b) { return (a == "" || b == "" || b == 0) ? "-" : sprintf("%.3f", a / b) }
    function met(x, bound) { return (x == "-") ? "not run" : ((x + 0 >= bound) ? "MET" : "MISSED") }
    END {
      printf "%-8s %8s %8s %8s %8s %8s %8s | %s\n", "n", "driver", "g-pinned", "g-pageab",
             "xt-pin", "xt-page", "preload", "pinned/drv pinned/xt pageable/drv pageable/xt preload/drv"
      for (n in ns) {
        d = t["driver," n]; gp = t["gemm-pinned," n]; gq = t["gemm-pageable," n]
        xp = t["xt-pinned," n]; xq = t["xt-pageable," n]; pl = t["preload," n]
        printf "%-8s %8s %8s %8s %8s %8s %8s | %s %s %s %s %s\n", n, d, gp, gq, xp, xq, pl,
               r(gp, d), r(gp, xp), r(gq, d), r(gq, xq), r(pl, d)
        printf "accept n=%s pinned >= 0.95 x driver: %s; >= 1.1 x cuBLASXt: %s; pageable >= 0.8 x driver: %s; >= 1.5 x cuBLASXt pageable: %s; preload >= 0.8 x driver: %s\n",
               n, met(r(gp, d), 0.95), met(r(gp, xp), 1.1), met(r(gq, d), 0.8),
               met(r(gq, xq), 1.5), (pl == "" ? "not run" : met(r(pl, d), 0.8))
      } }' "$csv" | tee "$base-table.txt"
  # Plot: TFLOP/s against n, one line per case.
  awk -F, 'NR > 1 && $6 == "ok" { t[$2, $1] = $3; ns[$2] = 1 }
    END { split("driver gemm-pinned gemm-pageable xt-pinned xt-pageable preload", c, " ")
          printf "# n"; for (i = 1; i <= 6; i++) printf " %s", c[i]; print ""
          for (n in ns) { printf "%s", n
            for (i = 1; i <= 6; i++) printf " %s", ((n, c[i]) in t) ? t[n, c[i]] : "NaN"; print "" } }' \
    "$csv" | sort -n > "$base.dat"
  PLOT_YZERO=1 PLOT_XTICS=1 PLOT_KEY="right bottom" plot_series "$base.dat" "$base.gp" "$base.png" \
    "DGEMM from host arrays, 1 GPU: starpu_gemm_gemm vs the driver and cuBLASXt" "n" "TFLOP/s"
}

bench_cli "$0" "$@"

bench_start arrays "case,n,tflops,time_s,pin_s,status"
niter=${NITER:-2} warmup=${WARMUP:-1} limit=${STEP_TIMEOUT:-300} lib=${LIB:-$build/.libs}
fwd=(-x LD_LIBRARY_PATH -x STARPU_SILENT)
for v in STARPU_GEMM_VERBOSE STARPU_GEMM_PIN STARPU_GEMM_PIN_THREADS STARPU_SCHED STARPU_HOME; do
  [ -n "${!v+x}" ] && fwd+=(-x "$v")
done
driver=(mpirun --allow-run-as-root --bind-to none -np 1 "${fwd[@]}"
        "$build/drivers/starpu_gemm" --niter "$niter" --warmup "$warmup" --csv --quiet)
out=$(mktemp)

# One case: run it, append its row (the driver's CSV or the peer's RESULT line).
run_case() {
  local name=$1 n=$2; shift 2
  local status tflops="" time_s="" pin_s=0
  status=$(run_step "$limit" "$out" "$@")
  if grep -q '^iter,' "$out"; then
    tflops=$(csv_column "$out" gflops | median | awk '{ printf "%.3f", $1 / 1000 }')
    time_s=$(csv_column "$out" time_s | median)
    pin_s=$(csv_column "$out" pin_s | median)
  else
    tflops=$(result_field "$out" tflops); time_s=$(result_field "$out" time_s)
  fi
  [ -n "$tflops" ] || status=${status/ok/no-result}
  echo "$name,$n,$tflops,$time_s,$pin_s,$status" >> "$csv"
  printf '[%s] %-14s n=%-6s %8s TFLOP/s  %s s  (pinning %s s)  %s\n' "$(date +%T)" "$name" \
    "$n" "${tflops:--}" "${time_s:--}" "$pin_s" "$status"
}

cases=${CASES:-driver gemm-pinned gemm-pageable xt-pinned xt-pageable preload}
for n in ${N_LIST:-32768 49152}; do
  size=(-M "$n" -N "$n" -K "$n")
  for c in $cases; do
    case $c in
      driver) run_case "$c" "$n" "${driver[@]}" "${size[@]}" ;;
      gemm-pinned) run_case "$c" "$n" "${driver[@]}" "${size[@]}" --layout lapack-pinned ;;
      gemm-pageable) run_case "$c" "$n" "${driver[@]}" "${size[@]}" --layout lapack ;;
      xt-pinned) run_case "$c" "$n" "$build/bench/cublasxt_dgemm" -n "$n" --block "${XT_BLOCK:-4096}" \
                   --niter "$niter" --warmup "$warmup" ;;
      xt-pageable) run_case "$c" "$n" "$build/bench/cublasxt_dgemm" -n "$n" --block "${XT_BLOCK:-4096}" \
                     --niter "$niter" --warmup "$warmup" --pageable ;;
      preload)
        case " ${PRELOAD_N:-32768} " in *" $n "*) ;; *) continue ;; esac
        run_case "$c" "$n" env LD_PRELOAD="$lib/libstarpu_gemm_blas.so" \
          STARPU_GEMM_BLAS_THRESHOLD=1 "$build/bench/dgemm_app" -n "$n" --niter "$niter" \
          --warmup "$warmup" ;;
      *) echo "bench/arrays.sh: unknown case '$c'" >&2; exit 2 ;;
    esac
  done
done
rm -f "$out" "$out.others"
echo "csv: $csv"
report "$csv"
