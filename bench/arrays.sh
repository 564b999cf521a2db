#!/usr/bin/env bash
# Issues 12 and 29: the application's own arrays on one GPU and on every GPU of a node. DGEMM
# C = A*B + C, n x n, C back in host memory, every case on the same node in the same run, in
# one process (one rank) using GPUS GPUs:
#   driver         drivers/starpu_gemm, the library's pinned tiles (pinning not timed)
#   gemm-pinned    starpu_gemm_gemm on arrays from starpu_malloc (driver --layout lapack-pinned)
#   gemm-pageable  starpu_gemm_gemm on arrays from malloc, staged in the timed call
#                  (driver --layout lapack)
#   xt-pinned, xt-pageable   cuBLASXt on matrices of the same kind (block XT_BLOCK, on as many
#                  GPUs when GPUS is set or nvidia-smi counts them, else 1)
#   preload        bench/dgemm_app: dgemm_ on malloc'ed arrays, LD_PRELOAD=libstarpu_gemm_blas.so
#                  (for n in PRELOAD_N)
#   scalapack-NB   bench/scalapack_pdgemm, 1 rank, MB = NB, malloc'ed local arrays,
#                  LD_PRELOAD=libstarpu_gemm_scalapack.so (for n in PRELOAD_N)
#   scalapack-ranks-NB  the same on one rank per GPU (scripts/gpu-per-rank.sh), a 2 x GPUS/2
#                  BLACS grid (an even number of GPUs, at least 2), against the driver's one
#                  rank on every GPU (issue 29's ScaLAPACK line)
# Issue 29's case on a 4-GPU node (each of its doors against the driver, same run):
#   N_LIST=49152 PRELOAD_N=49152 CASES="driver gemm-pageable preload scalapack-ranks-4096
#   scalapack-ranks-256" bench/arrays.sh
# and GPUS=1 with the same for one GPU (scripts/device-session.sh arrays: ARRAYS_GPUS="all 1").
# Usage:
#   bench/arrays.sh               run, then bench/report.py's table, targets (kit arrays), plot
#   bench/arrays.sh --report CSV  the table, targets and plot again from a CSV of this script
#                                 (the plot into RESULTS)
# Environment: BUILD [build], RESULTS [bench/results], N_LIST [32768 49152], PRELOAD_N [32768],
#   NITER [2], WARMUP [1], XT_NITER and XT_WARMUP [the same; cuBLASXt from pageable memory is
#   slow enough for one run], XT_BLOCK [4096], STEP_TIMEOUT [300], CASES [every case above],
#   LIB (folder of libstarpu_gemm_blas.so) [BUILD/.libs], DRY_RUN [0], GPUS (STARPU_NCUDA of
#   every case, cuBLASXt's --gpus) [every GPU of the node]
NITER=${NITER:-2} STEP_TIMEOUT=${STEP_TIMEOUT:-300}
# shellcheck source=bench/lib.sh disable=SC2034  # cmd: the command kit_case runs
. "$(dirname "$0")/lib.sh"
gpus=${GPUS:-$(nvidia-smi -L 2> /dev/null | grep -c '^GPU' || true)}
[ "${gpus:-0}" -gt 0 ] 2> /dev/null || gpus= # none seen (a --report elsewhere): "?" GPU(s)
if [ -n "${GPUS:-}" ]; then
  export STARPU_NCUDA=$GPUS
  mpi_env+=(-x STARPU_NCUDA)
fi
title="DGEMM from host arrays, ${gpus:-?} GPU(s): starpu_gemm_gemm vs the driver and cuBLASXt"
kit_cli arrays "$title" "$@"
sizes=$(echo "${N_LIST:-32768 49152}" | tr ' ' ',')
runs=(--niter "$NITER" --warmup "$WARMUP")
driver_run=("$MPIRUN" --bind-to none -np 1 "${mpi_env[@]}" "$driver" "${runs[@]}" --csv --quiet --sizes "$sizes")
xt=("$build/bench/cublasxt_dgemm" --block "${XT_BLOCK:-4096}" --niter "${XT_NITER:-$NITER}"
    --warmup "${XT_WARMUP:-$WARMUP}")
[ "${gpus:-0}" -gt 1 ] && xt+=(--gpus "$gpus")

kit_start arrays
for c in ${CASES:-driver gemm-pinned gemm-pageable xt-pinned xt-pageable preload scalapack-256 scalapack-4096}; do
  case $c in
    driver) kit_case "$c" "${driver_run[@]}" ;;
    gemm-pinned) kit_case "$c" "${driver_run[@]}" --layout lapack-pinned ;;
    gemm-pageable) kit_case "$c" "${driver_run[@]}" --layout lapack ;;
    xt-pinned) for n in ${sizes//,/ }; do kit_case "$c" "${xt[@]}" -n "$n"; done ;;
    xt-pageable) for n in ${sizes//,/ }; do kit_case "$c" "${xt[@]}" -n "$n" --pageable; done ;;
    preload)
      for n in ${PRELOAD_N:-32768}; do
        kit_case "$c" env LD_PRELOAD="${LIB:-$build/.libs}/libstarpu_gemm_blas.so" \
          STARPU_GEMM_BLAS_THRESHOLD=1 "$build/bench/dgemm_app" -n "$n" "${runs[@]}"
      done ;;
    scalapack-ranks-*)
      if [ "${gpus:-0}" -lt 2 ] || [ $((gpus % 2)) != 0 ]; then
        echo "bench/arrays.sh: $c needs an even number of GPUs, at least 2 (${gpus:-0}): skipped" >&2
        continue
      fi
      for n in ${PRELOAD_N:-32768}; do
        kit_case "$c" env SG_GPUS_PER_NODE="$gpus" "$MPIRUN" --bind-to none -np "$gpus" \
          "${mpi_env[@]}" -x SG_GPUS_PER_NODE \
          -x LD_PRELOAD="${LIB:-$build/.libs}/libstarpu_gemm_scalapack.so" \
          "$bench_top/scripts/gpu-per-rank.sh" "$build/bench/scalapack_pdgemm" -n "$n" -P 2 \
          -Q $((gpus / 2)) --nb "${c#scalapack-ranks-}" "${runs[@]}"
      done ;;
    scalapack-*)
      for n in ${PRELOAD_N:-32768}; do
        kit_case "$c" "$MPIRUN" --bind-to none -np 1 "${mpi_env[@]}" \
          -x LD_PRELOAD="${LIB:-$build/.libs}/libstarpu_gemm_scalapack.so" \
          "$build/bench/scalapack_pdgemm" -n "$n" --nb "${c#scalapack-}" "${runs[@]}"
      done ;;
    *) echo "bench/arrays.sh: unknown case '$c'" >&2; exit 2 ;;
  esac
done
kit_report arrays "$title"
