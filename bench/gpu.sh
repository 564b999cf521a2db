#!/usr/bin/env bash
# starpu_gemm on the GPUs of one node, next to the single-GPU cuBLAS peak and cuBLASXt, in the
# same run. DGEMM, matrices in host memory, C back on the host. Cases, in order:
#   cublas-peak    cuBLAS on data already on one GPU (the practical peak), each n
#   h2d            host<->GPU copy rates (bench/pin_rate): the link the bounds divide by
#   auto-G<g>      starpu_gemm, 1 rank x g GPUs, every n in one StarPU start
#   nothrottle-G<g>  the same with --no-throttle
#   home-G1        auto-G1 with C kept in host memory (--c-home: CPU adds beta*C)
#   limit-G1, limit-nothrottle-G1   1 GPU capped at LIMIT_MB (STARPU_LIMIT_CUDA_MEM), LIMIT_N
#   ranks-<R>      R ranks x 1 GPU each (scripts/gpu-per-rank.sh) at MR_N, when R > 1
#   shared-2r      2 ranks sharing GPU 0 at SHARED_N
#   shared-mps     the same launched as the driver's note advises: under a CUDA MPS daemon
#                  of its own (private pipe folder, stopped after the case) and Open MPI's
#                  CMA transfers between the ranks
#   xt-G<g>-b<B>   cuBLASXt on pinned host matrices, each n
#   bench/gpu.sh --quick    N_LIST=8192 16384, NITER=2, WARMUP=0, no limit/ranks cases
# CASES="auto nothrottle ..." picks case kinds (default: all). The table and the targets
# (bench/targets.csv, kit gpu) come from bench/report.py; RESULTS/gpu-DATE.{csv,log,png,...}.
# Environment [defaults]: BUILD [build], RESULTS [bench/results], N_LIST [8192 16384 32768],
#   G_LIST [1 and every GPU], NITER [3], WARMUP [1], TILE, LIMIT_MB [8192], LIMIT_N [32768],
#   MR_N [32768], MR_RANKS [GPUs], SHARED_N [32768], XT_BLOCKS [4096], STEP_TIMEOUT [900],
#   DRY_RUN [0] (print the commands only)
# shellcheck source=bench/lib.sh disable=SC2034  # cmd: the command kit_case runs
. "$(dirname "$0")/lib.sh"
quick=0
case ${1:-} in
  --quick) quick=1 N_LIST=${N_LIST:-8192 16384} NITER=2 WARMUP=0 ;;
  "") ;;
  -h|--help) kit_help; exit 0 ;;
  *) echo "bench/gpu.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
esac
gpus=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU')
gpus=${FAKE_GPUS:-$gpus}
[ "$gpus" -gt 0 ] || { echo "bench/gpu.sh: no GPU (nvidia-smi lists none)" >&2; exit 2; }
N_LIST=${N_LIST:-8192 16384 32768}
G_LIST=${G_LIST:-$(echo 1 "$gpus" | tr ' ' '\n' | sort -nu | xargs)}
CASES=${CASES:-cublas-peak h2d auto home nothrottle limit ranks shared shared-mps xt}
[ "$quick" = 1 ] && CASES=${CASES/limit/} CASES=${CASES/ranks/}
MR_RANKS=${MR_RANKS:-$gpus}
sizes=${N_LIST// /,}
runs=(--niter "$NITER" --warmup "$WARMUP")
want() { case " $CASES " in *" $1 "*) return 0 ;; esac; return 1; }
# starpu RANKS [VAR=value...] -- DRIVER_OPTIONS: the driver under --bind-to none, which it
# binds itself (starpu_gemm_conf_defaults), VARs passed to every rank, started through
# WRAP when set (the per-rank GPU wrapper).
starpu() {
  local ranks=$1 env=() vars=(); shift
  while [ "$1" != -- ]; do vars+=("$1"); env+=(-x "${1%%=*}"); shift; done; shift
  cmd=(env "${vars[@]}" "$MPIRUN" -np "$ranks" --bind-to none "${mpi_env[@]}" "${env[@]}"
       ${WRAP:+"$WRAP"} "$driver" --check --csv "${runs[@]}" ${TILE:+-t "$TILE"} "$@")
}
per_rank=$bench_top/scripts/gpu-per-rank.sh

kit_start gpu
if want cublas-peak; then
  for n in $N_LIST; do kit_case cublas-peak "$build/bench/cublas_peak" -n "$n" --niter 5 --warmup 1; done
fi
want h2d && kit_case h2d "$build/bench/pin_rate" -n 1024
for g in $G_LIST; do
  want auto && kit_case "auto-G$g" starpu 1 STARPU_NCUDA="$g" -- --sizes "$sizes"
  want home && [ "$g" = 1 ] && kit_case home-G1 starpu 1 STARPU_NCUDA=1 -- --sizes "$sizes" \
    --c-home
  want nothrottle && kit_case "nothrottle-G$g" starpu 1 STARPU_NCUDA="$g" -- --sizes "$sizes" \
    --no-throttle
done
if want limit; then
  limit=(STARPU_NCUDA=1 STARPU_LIMIT_CUDA_MEM="${LIMIT_MB:-8192}" --)
  kit_case limit-G1 starpu 1 "${limit[@]}" --sizes "${LIMIT_N:-32768}"
  kit_case limit-nothrottle-G1 starpu 1 "${limit[@]}" --sizes "${LIMIT_N:-32768}" --no-throttle
fi
if want ranks && [ "$MR_RANKS" -gt 1 ]; then
  WRAP=$per_rank kit_case "ranks-$MR_RANKS" starpu "$MR_RANKS" SG_GPUS_PER_NODE="$gpus" -- \
    --sizes "${MR_N:-32768}"
fi
want shared && WRAP=$per_rank kit_case shared-2r starpu 2 SG_GPUS_PER_NODE=1 -- \
  --sizes "${SHARED_N:-32768}"
# MPS: both ranks' kernels in one GPU context, no time-slicing. A daemon of this case alone
# (its pipe folder in the kit's work folder): no other job on the node connects to it. It is
# stopped after the case, or when the kit exits early; its logs go into the kit's log.
mps_case() {
  local dir=$work/mps lib_trap
  mps=(CUDA_MPS_PIPE_DIRECTORY="$dir" CUDA_MPS_LOG_DIRECTORY="$dir")
  shared_mps() {
    WRAP=$per_rank kit_case shared-mps starpu 2 SG_GPUS_PER_NODE=1 "${mps[@]}" \
      OMPI_MCA_btl_vader_single_copy_mechanism=cma -- --sizes "${SHARED_N:-32768}"
  }
  [ "${DRY_RUN:-0}" = 1 ] && { shared_mps; return; }
  if ! mkdir -p "$dir" || ! env "${mps[@]}" nvidia-cuda-mps-control -d >> "$log" 2>&1; then
    kit_case shared-mps sh -c 'echo "no CUDA MPS daemon could start" >&2; exit 2'
    return
  fi
  mps_stop() {
    echo quit | env "${mps[@]}" nvidia-cuda-mps-control
    local pid i; pid=$(cat "$dir/nvidia-cuda-mps-control.pid" 2> /dev/null)
    for i in 1 2 3 4 5 6 7 8 9 10; do  # quit returns before the daemon has gone
      if [ -z "$pid" ] || ! kill -0 "$pid" 2> /dev/null; then break; fi
      sleep 1
    done
    [ -n "$pid" ] && kill "$pid" 2> /dev/null
    cat "$dir"/*.log >> "$log" 2> /dev/null
  }
  lib_trap=$(trap -p EXIT)
  trap 'mps_stop; rm -rf "$work"' EXIT
  shared_mps
  mps_stop
  eval "$lib_trap"
}
want shared-mps && mps_case
if want xt; then
  for g in $G_LIST; do for b in ${XT_BLOCKS:-4096}; do for n in $N_LIST; do
    kit_case "xt-G$g-b$b" "$build/bench/cublasxt_dgemm" -n "$n" --gpus "$g" --block "$b" "${runs[@]}"
  done; done; done
fi
kit_report gpu "DGEMM on $(hostname), $gpus GPU(s), host-resident matrices, C back on the host"
