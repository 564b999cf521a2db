#!/usr/bin/env bash
# starpu_gemm against its CPU peers on this machine, in the same run (DGEMM, M = N = K):
#   bench/cpu.sh           1 rank, a CPU worker per core, vs OpenBLAS on every core; 2 ranks
#                          (grid 1x2) under Open MPI's default binding and under --bind-to
#                          none, vs ScaLAPACK PDGEMM 1x2, nb=256
#   bench/cpu.sh --sweep   scheduler x tile at SWEEP_N on 1 rank, next to OpenBLAS
# The cases run REPEAT times in turn (noise on a shared machine spreads over all of them); a
# figure is the median of every timed run. Writes RESULTS/cpu[-sweep]-DATE.{csv,log,png,...}
# and prints bench/report.py's table with the targets of bench/targets.csv (kit cpu).
# Environment [defaults]: BUILD [build], RESULTS [bench/results], N_LIST [2048 4096 6144],
#   NITER [3], WARMUP [1], REPEAT [1], TILE (-t), SWEEP_N [4096], SWEEP_SCHEDS
#   [eager lws dmda dmdas], SWEEP_TILES [256 512 1024], STEP_TIMEOUT [900], DRY_RUN [0]
# shellcheck source=bench/lib.sh disable=SC2034  # cmd: the command kit_case runs
. "$(dirname "$0")/lib.sh"
mode=cpu
case ${1:-} in
  --sweep) mode=cpu-sweep ;;
  "") ;;
  -h|--help) kit_help; exit 0 ;;
  *) echo "bench/cpu.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
esac
cores=$(nproc)
sizes=$(echo "${N_LIST:-2048 4096 6144}" | tr ' ' ',')
runs=(--niter "$NITER" --warmup "$WARMUP")
# Each StarPU worker's tile GEMM on one BLAS thread (the driver sets it too).
starpu() {  # starpu RANKS MPIRUN_OPTIONS... -- DRIVER_OPTIONS...
  local ranks=$1 opts=(); shift
  while [ "$1" != -- ]; do opts+=("$1"); shift; done; shift
  cmd=("$MPIRUN" -np "$ranks" "${opts[@]}" "${mpi_env[@]}" -x STARPU_NCUDA=0
       -x OPENBLAS_NUM_THREADS=1 "$driver" -P 1 -Q "$ranks" --check --csv "${runs[@]}"
       ${TILE:+-t "$TILE"} "$@")
}
openblas() { cmd=(env OPENBLAS_NUM_THREADS="$cores" "$build/bench/openblas_dgemm" "${runs[@]}" -n "$1"); }

kit_start "$mode"
for ((round = 1; round <= ${REPEAT:-1}; round++)); do
  if [ "$mode" = cpu-sweep ]; then
    n=${SWEEP_N:-4096}
    kit_case openblas openblas "$n"
    for sched in ${SWEEP_SCHEDS:-eager lws dmda dmdas}; do
      for tile in ${SWEEP_TILES:-256 512 1024}; do
        STARPU_SCHED=$sched kit_case "$sched-t$tile" \
          starpu 1 --bind-to none -x STARPU_SCHED -- --sizes "$n" -t "$tile"
      done
    done
    continue
  fi
  kit_case starpu-1r starpu 1 --bind-to none -- --sizes "$sizes"
  for n in ${sizes//,/ }; do kit_case openblas openblas "$n"; done
  kit_case starpu-2r-default starpu 2 -- --sizes "$sizes"
  kit_case starpu-2r-none starpu 2 --bind-to none -- --sizes "$sizes"
  for n in ${sizes//,/ }; do
    kit_case scalapack-1x2 "$MPIRUN" -np 2 -x OPENBLAS_NUM_THREADS=1 \
      "$build/bench/scalapack_pdgemm" -n "$n" -P 1 -Q 2 --nb 256 "${runs[@]}"
  done
done
kit_report "$mode" "DGEMM on $(hostname), $cores cores"
