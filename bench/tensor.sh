#!/usr/bin/env bash
# Issue 17: tensor-core GEMM from host memory against its roofline, one GPU, C back on the host.
# Measured in the same run, before the cases:
#   link       the pinned copy rates host->GPU and GPU->host (bench/cublas_peak --link)
#   ceilings   cuBLAS with the matrices already on the GPU (bench/cublas_peak --prec P), n =
#              CEIL_N, plus the tile sizes TILE_NS for b (a tile task's own rate)
# Then the cases, drivers/starpu_gemm on its pinned tiles, C = A*B + C, --check (sampled):
#   bf16 fp16             --prec b|h, n = N_HALF [65536]
#   bf16-limit fp16-limit the same with STARPU_LIMIT_CUDA_MEM=LIMIT_MB [16384] (C does not fit)
#   bf16-nothrottle       bf16-limit with --no-throttle (every task submitted at once)
#   tf32                  --prec s --math tf32, n = N_TF32 [49152]
# Each case's roofline bound: max(2n^3 / ceiling, the plan's host->GPU bytes / h2d rate, its
# GPU->host bytes / d2h rate), the ceiling being the best median of its precision's ceilings;
# ratio = bound / time (1 = at the roofline). Targets (issue 17): >= 0.85, limited >= 0.8 and
# >= 2 x its --no-throttle run.
# Usage:
#   bench/tensor.sh               run, then the table and the acceptance lines
#   bench/tensor.sh --report CSV  the table again from a CSV of this script
# Environment: BUILD [build], RESULTS [bench/results], CASES [every case above], NITER [2],
#   WARMUP [1], TILE [the driver's default], STEP_TIMEOUT [150], CEIL_N [16384],
#   TILE_NS [4096 8192], N_HALF, N_TF32, LIMIT_MB.
# CSV columns: kind,name,prec,n,tflops,time_s,pred_h2d_bytes,pred_d2h_bytes,h2d_gbs,d2h_gbs,status
#   kind link: the rates; kind ceiling: cuBLAS on device-resident matrices (prec d, s, b, h,
#   or t for TF32); kind case: a driver run (time and TFLOP/s: medians of the timed runs).
set -uo pipefail
bench_top=$(cd "$(dirname "$0")/.." && pwd)
. "$bench_top/bench/common.sh"

report() {
  awk -F, '
    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    function f(name) { return $col[name] }
    f("kind") == "link" && f("status") == "ok" { h2d = f("h2d_gbs"); d2h = f("d2h_gbs") }
    f("kind") == "ceiling" && f("status") == "ok" && f("tflops") + 0 > ceil[f("prec")] + 0 {
      ceil[f("prec")] = f("tflops"); ceil_n[f("prec")] = f("n") }
    f("kind") == "case" { n_cases++; name[n_cases] = f("name"); prec[n_cases] = f("prec")
      n[n_cases] = f("n"); tf[n_cases] = f("tflops"); t[n_cases] = f("time_s")
      up[n_cases] = f("pred_h2d_bytes"); down[n_cases] = f("pred_d2h_bytes")
      st[n_cases] = f("status"); row[f("name")] = n_cases }
    function sec(x) { return x < 0 ? "-" : sprintf("%.3f", x) }
    function num(x) { return x ~ /^[0-9.eE+-]+$/ && x + 0 > 0 }
    function met(x, target) { return x == "-" ? "not run" : (x + 0 >= target ? "MET" : "MISSED") }
    END {
      printf "link: host->GPU %s GB/s, GPU->host %s GB/s (pinned)\n", h2d, d2h
      for (p in ceil) printf "ceiling %s: %s TFLOP/s (cuBLAS, device-resident, best median, n=%s)\n", p, ceil[p], ceil_n[p]
      printf "%-16s %6s %9s %8s | %8s %8s %8s -> %8s %9s | %6s %s\n", "case", "n", "TFLOP/s",
             "time s", "compute", "h2d", "d2h", "bound s", "bound TF", "ratio", "status"
      for (c = 1; c <= n_cases; c++) {
        flops = 2 * n[c] ^ 3; p = prec[c]
        tc = num(ceil[p]) ? flops / (ceil[p] * 1e12) : -1
        tu = num(h2d) && up[c] != "" ? up[c] / (h2d * 1e9) : -1
        td = num(d2h) && down[c] != "" ? down[c] / (d2h * 1e9) : -1
        bound = tc > tu ? tc : tu; bound = bound > td ? bound : td
        ratio[c] = (tc > 0 && tu >= 0 && num(t[c]) && st[c] == "ok") ? sprintf("%.3f", bound / t[c]) : "-"
        printf "%-16s %6s %9s %8s | %8s %8s %8s -> %8s %9s | %6s %s\n", name[c], n[c],
               tf[c], t[c], sec(tc), sec(tu), sec(td), sec(bound),
               (bound > 0 ? sprintf("%.1f", flops / bound / 1e12) : "-"), ratio[c], st[c]
      }
      for (c = 1; c <= n_cases; c++) {
        if (name[c] ~ /nothrottle/) continue
        target = name[c] ~ /limit/ ? 0.8 : 0.85
        line = sprintf("accept %s: %s x bound, >= %.2f: %s", name[c], ratio[c], target, met(ratio[c], target))
        other = name[c]; sub(/-limit$/, "-nothrottle", other)
        if (name[c] ~ /limit/ && (other in row)) {
          o = row[other]
          speed = (num(t[c]) && num(t[o]) && st[c] == "ok" && st[o] == "ok") ? sprintf("%.2f", t[o] / t[c]) : "-"
          line = line sprintf("; %s x --no-throttle, >= 2: %s", speed, met(speed, 2))
        }
        print line
      } }' "$1" | tee "${1%.csv}-table.txt"
}

bench_cli "$0" "$@"

bench_start tensor "kind,name,prec,n,tflops,time_s,pred_h2d_bytes,pred_d2h_bytes,h2d_gbs,d2h_gbs,status"
niter=${NITER:-2} warmup=${WARMUP:-1} limit=${STEP_TIMEOUT:-150}
peak=$build/bench/cublas_peak
out=$(mktemp)
say() { printf '[%s] %s\n' "$(date +%T)" "$*"; }

# Rates first: the link, then each precision's ceiling.
link_field() {
  awk -v key="$1" '/^RESULT name=link/ {
    for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == key) print kv[2] } }' "$out"
}
status=$(run_step 60 "$out" "$peak" --link 2048 --niter 5)
h2d=$(link_field h2d_gbs) d2h=$(link_field d2h_gbs)
[ -n "$h2d" ] || status=${status/ok/no-result}
echo "link,link,,,,,,,$h2d,$d2h,$status" >> "$csv"
say "link: host->GPU ${h2d:--} GB/s, GPU->host ${d2h:--} GB/s ($status)"
ceiling() {
  local prec=$1 n=$2 tflops
  status=$(run_step 60 "$out" "$peak" --prec "$prec" -n "$n" --niter 5 --warmup 2)
  tflops=$(result_field "$out" tflops)
  [ -n "$tflops" ] || status=${status/ok/no-result}
  echo "ceiling,cublas,$prec,$n,$tflops,,,,,,$status" >> "$csv"
  say "ceiling $prec n=$n: ${tflops:--} TFLOP/s ($status)"
}
ceil_n=${CEIL_N:-16384}
for p in b h t s d; do ceiling "$p" "$ceil_n"; done
for n in ${TILE_NS:-4096 8192}; do ceiling b "$n"; done

# The cases choose STARPU_LIMIT_CUDA_MEM themselves.
unset STARPU_LIMIT_CUDA_MEM
export STARPU_SILENT=${STARPU_SILENT:-1}
fwd=(-x LD_LIBRARY_PATH -x STARPU_SILENT)
for v in STARPU_SCHED STARPU_HOME STARPU_HOSTNAME STARPU_LIMIT_CPU_MEM STARPU_NCUDA STARPU_NCPU; do
  [ -n "${!v+x}" ] && fwd+=(-x "$v")
done
# One case: name, precision letter of its ceiling, n, then env assignments and driver options.
run_case() {
  local name=$1 prec=$2 n=$3; shift 3
  local envs=() x=() tflops time_s up down
  while [ $# -gt 0 ] && [[ $1 == *=* ]]; do envs+=("$1"); x+=(-x "${1%%=*}"); shift; done
  status=$(run_step "$limit" "$out" env "${envs[@]}" \
           "$MPIRUN" --allow-run-as-root --bind-to none -np 1 "${fwd[@]}" "${x[@]}" \
           "$build/drivers/starpu_gemm" -M "$n" -N "$n" -K "$n" ${TILE:+-t "$TILE"} \
           --niter "$niter" --warmup "$warmup" --check --csv --quiet "$@")
  tflops=$(csv_column "$out" gflops | median | awk '{ printf "%.3f", $1 / 1000 }')
  time_s=$(csv_column "$out" time_s | median)
  up=$(csv_column "$out" pred_load_bytes | head -1)
  down=$(csv_column "$out" pred_d2h_bytes | head -1)
  [ -n "$tflops" ] || status=${status/ok/no-result}
  echo "case,$name,$prec,$n,$tflops,$time_s,$up,$down,,,$status" >> "$csv"
  say "$name n=$n: ${tflops:--} TFLOP/s, ${time_s:--} s ($status)"
}
nh=${N_HALF:-65536} nt=${N_TF32:-49152} mb=${LIMIT_MB:-16384}
for c in ${CASES:-bf16 fp16 bf16-limit fp16-limit bf16-nothrottle tf32}; do
  case $c in
    bf16) run_case "$c" b "$nh" --prec b ;;
    fp16) run_case "$c" h "$nh" --prec h ;;
    bf16-limit) run_case "$c" b "$nh" STARPU_LIMIT_CUDA_MEM="$mb" --prec b ;;
    fp16-limit) run_case "$c" h "$nh" STARPU_LIMIT_CUDA_MEM="$mb" --prec h ;;
    bf16-nothrottle) run_case "$c" b "$nh" STARPU_LIMIT_CUDA_MEM="$mb" --prec b --no-throttle ;;
    tf32) run_case "$c" t "$nt" --prec s --math tf32 ;;
    *) echo "bench/tensor.sh: unknown case '$c'" >&2; exit 2 ;;
  esac
done
rm -f "$out" "$out.others"
echo "csv: $csv"
report "$csv"
