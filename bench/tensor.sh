#!/usr/bin/env bash
# Issue 17: tensor-core GEMM from host memory against its roofline, one GPU, C back on the host.
# Measured in the same run, before the cases:
#   link           the pinned copy rates host->GPU and GPU->host (bench/cublas_peak --link)
#   ceiling-P      cuBLAS with the matrices already on the GPU (bench/cublas_peak --prec P):
#                  b and h at N_HALF, t at N_TF32 (each case's own product), s and d at
#                  CEIL_N, and b at the tile sizes TILE_NS (a tile's rate)
# Then the cases, drivers/starpu_gemm on its pinned tiles, C = A*B + C, --check (sampled):
#   bf16 fp16             --prec b|h, n = N_HALF [65536]
#   bf16-limit fp16-limit the same with STARPU_LIMIT_CUDA_MEM=LIMIT_MB [16384] (C does not fit)
#   bf16-nothrottle       bf16-limit with --no-throttle (every task submitted at once)
#   tf32                  --prec s --math tf32, n = N_TF32 [49152]
#   bf16-beta0            bf16 with --beta 0: C written, never loaded (H2D: A and B only)
#   bf16-home bf16-limit-home  bf16 and bf16-limit with C kept in host memory (--c-home)
# bench/report.py (kit tensor) prints each case's roofline bound: the longest of 2n^3 / the
# ceiling of its precision (t for TF32; its median run at the case's n), the plan's
# host->GPU bytes / the h2d rate and its GPU->host bytes / the d2h rate; the ratio bound /
# time (1 = at the roofline); the targets of bench/targets.csv (issue 17: >= 0.85, limited
# >= 0.8 and >= 2 x its --no-throttle run).
# Usage:
#   bench/tensor.sh               run, then the table, the bounds, the targets and the plot
#   bench/tensor.sh --report CSV  the same again from a CSV of this script (plot into RESULTS)
# Environment: BUILD [build], RESULTS [bench/results], CASES [every case above], NITER [2],
#   WARMUP [1], TILE [the driver's default], STEP_TIMEOUT [150], CEIL_N [16384],
#   TILE_NS [4096 8192], N_HALF [65536], N_TF32 [49152], LIMIT_MB [16384], DRY_RUN [0]
NITER=${NITER:-2} STEP_TIMEOUT=${STEP_TIMEOUT:-150}
# shellcheck source=bench/lib.sh disable=SC2034  # cmd: the command kit_case runs
. "$(dirname "$0")/lib.sh"
title="Tensor-core GEMM from host memory, 1 GPU, against its roofline"
kit_cli tensor "$title" "$@"
peak=$build/bench/cublas_peak
# The cases choose STARPU_LIMIT_CUDA_MEM themselves.
unset STARPU_LIMIT_CUDA_MEM
# case N [VAR=value...] -- DRIVER_OPTIONS: the driver on one rank, n x n x n, VARs passed on.
case_run() {
  local n=$1 vars=() env=(); shift
  while [ "$1" != -- ]; do vars+=("$1"); env+=(-x "${1%%=*}"); shift; done; shift
  cmd=(env "${vars[@]}" "$MPIRUN" --bind-to none -np 1 "${mpi_env[@]}" "${env[@]}"
       ${STARPU_NCUDA:+-x STARPU_NCUDA} ${STARPU_NCPU:+-x STARPU_NCPU}
       "$driver" -M "$n" -N "$n" -K "$n" ${TILE:+-t "$TILE"} --niter "$NITER"
       --warmup "$WARMUP" --check --csv --quiet "$@")
}
nh=${N_HALF:-65536} nt=${N_TF32:-49152} limit=STARPU_LIMIT_CUDA_MEM=${LIMIT_MB:-16384}
all="bf16 fp16 bf16-limit fp16-limit bf16-nothrottle tf32 bf16-beta0 bf16-home bf16-limit-home"
for c in ${CASES:-$all}; do  # before anything runs
  case " $all " in *" $c "*) ;; *) echo "bench/tensor.sh: unknown case '$c'" >&2; exit 2 ;; esac
done

kit_start tensor
kit_case link "$peak" --link 2048 --niter 5
# Each case's ceiling at its own n (the same product with the data on the GPU, after 2 s of
# warm-up: the clock sustained work settles at), s and d at CEIL_N for docs/tensor-cores.md's table.
for pn in "b $nh" "h $nh" "t $nt" "s ${CEIL_N:-16384}" "d ${CEIL_N:-16384}"; do
  kit_case "ceiling-${pn% *}" "$peak" --prec "${pn% *}" -n "${pn#* }" --niter 3 --warmup 1
done
for n in ${TILE_NS:-4096 8192}; do
  kit_case ceiling-b "$peak" --prec b -n "$n" --niter 5 --warmup 2
done
for c in ${CASES:-$all}; do
  case $c in
    bf16) kit_case "$c" case_run "$nh" -- --prec b ;;
    fp16) kit_case "$c" case_run "$nh" -- --prec h ;;
    bf16-limit) kit_case "$c" case_run "$nh" "$limit" -- --prec b ;;
    fp16-limit) kit_case "$c" case_run "$nh" "$limit" -- --prec h ;;
    bf16-nothrottle) kit_case "$c" case_run "$nh" "$limit" -- --prec b --no-throttle ;;
    tf32) kit_case "$c" case_run "$nt" -- --prec s --math tf32 ;;
    bf16-beta0) kit_case "$c" case_run "$nh" -- --prec b --beta 0 ;;
    bf16-home) kit_case "$c" case_run "$nh" -- --prec b --c-home ;;
    bf16-limit-home) kit_case "$c" case_run "$nh" "$limit" -- --prec b --c-home ;;
  esac
done
kit_report tensor "$title"
