#!/usr/bin/env bash
# Issue 27 on one node of G GPUs (4 in the issue): starpu_gemm over the node's GPUs as one rank,
# one rank per GPU, and ranks of several GPUs, against G x the single-GPU cuBLAS peak measured
# in the same run. DGEMM unless said, matrices in host memory, C back on the host, --check
# (sampled), WARMUP [1] untimed run, then NITER [3] timed runs (NITER_BIG [2] at n >= 65536).
# Cases, in order (CASES picks kinds; default all):
#   cublas-peak    cuBLAS DGEMM on data already on one GPU at PEAK_N [32768] (a DGEMM of
#                  n = 65536, 96 GiB, does not fit an H100: the peak of the largest n measured
#                  stands for the larger ones)
#   link           pinned host<->GPU copy rates (bench/cublas_peak --link): the rooflines' links,
#                  one GPU alone, then every GPU at once (--gpus G: "nodebound:" targets)
#   mpi-rate       bench/mpi_rate among G ranks (128 MiB messages, all pairs at once), and
#                  among 2 ranks (mpi-rate-2r, the ranks of the 2x2 cases): MPI as a launch
#                  gets it (bench/lib.sh: CMA on unless it would fail)
#   1x4            1 rank, STARPU_NCUDA=G, at each n of N_LIST [32768 65536]
#   4x1            G ranks x 1 GPU (scripts/gpu-per-rank.sh), grid 2 x G/2, each n of N_LIST
#   2x2            2 ranks x G/2 GPUs (SG_GPUS_PER_RANK), at N_BIG [the largest of N_LIST]:
#                  the ranks read each other's tiles in place (distrib/node_share.c)
#   2x2-own-node   the same with STARPU_GEMM_SHARE_NODE=0: every rank its own node, the tiles
#                  move through MPI
#   bf16-1x4       --prec b at N_BIG, 1 rank x G GPUs, after ceiling-b (cuBLAS BF16 at N_BIG)
# bench/report.py (kit node, bench/targets.csv) prints each case's TFLOP/s, its ratio to G x
# the cuBLAS peak, and for 2x2-own-node and bf16-1x4 the ratio to their roofline: the longest
# of flops / (G x ceiling), the plan's host->GPU bytes per rank / (its GPUs x the h2d rate),
# GPU->host likewise, and pred_mpi_bytes per rank / the median MPI rate among as many ranks.
# Time on a 4 x H100 node (allocating and filling n = 65536 takes about a minute a case):
#   cublas-peak 20 s, link 5 s, mpi-rate 10 s, 1x4 20 s + 80 s, 4x1 25 s + 80 s, 2x2 80 s,
#   2x2-own-node 90 s, ceiling-b 25 s, bf16-1x4 60 s: about 8.5 minutes in all.
# Usage:
#   bench/node.sh               run, then the table, the targets and the plot
#   bench/node.sh --report CSV  the same again from a CSV of this script (plot into RESULTS)
# Environment: BUILD [build], RESULTS [bench/results], CASES, N_LIST, N_BIG, PEAK_N, NITER,
#   NITER_BIG, WARMUP, TILE [the driver's], STEP_TIMEOUT [150 s a case], DRY_RUN [0],
#   FAKE_GPUS (the GPU count, for DRY_RUN on a machine without GPUs)
STEP_TIMEOUT=${STEP_TIMEOUT:-150}
# shellcheck source=bench/lib.sh disable=SC2034  # cmd: the command kit_case runs
. "$(dirname "$0")/lib.sh"
title="DGEMM on the GPUs of one node (issue 27), host-resident matrices"
kit_cli node "$title" "$@"
gpus=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU')
gpus=${FAKE_GPUS:-$gpus}
if [ "$gpus" -lt 2 ] || [ $((gpus % 2)) != 0 ]; then
  echo "bench/node.sh: needs an even number of GPUs, at least 2 ($gpus here)" >&2; exit 2
fi
N_LIST=${N_LIST:-32768 65536}
N_BIG=${N_BIG:-$(tr ' ' '\n' <<< "$N_LIST" | sort -n | tail -1)}
all="cublas-peak link mpi-rate 1x4 4x1 2x2 2x2-own-node bf16-1x4"
CASES=${CASES:-$all}
for c in $CASES; do  # before anything runs
  case " $all " in *" $c "*) ;; *) echo "bench/node.sh: unknown case '$c'" >&2; exit 2 ;; esac
done
want() { case " $CASES " in *" $1 "*) return 0 ;; esac; return 1; }
peak=$build/bench/cublas_peak per_rank=$bench_top/scripts/gpu-per-rank.sh
# The cases choose their GPUs themselves.
unset STARPU_NCUDA STARPU_WORKERS_CUDAID STARPU_GEMM_SHARE_NODE
# starpu RANKS N [VAR=value...] -- DRIVER_OPTIONS: the driver on RANKS ranks, n x n x n,
# under --bind-to none (it binds itself), VARs passed to every rank, started through WRAP
# when set (the per-rank GPU wrapper).
starpu() {
  local ranks=$1 n=$2 env=() vars=() niter=$NITER; shift 2
  [ "$n" -ge 65536 ] && niter=${NITER_BIG:-2}
  while [ "$1" != -- ]; do vars+=("$1"); env+=(-x "${1%%=*}"); shift; done; shift
  cmd=(env "${vars[@]}" "$MPIRUN" -np "$ranks" --bind-to none "${mpi_env[@]}" "${env[@]}"
       ${WRAP:+"$WRAP"} "$driver" -M "$n" -N "$n" -K "$n" ${TILE:+-t "$TILE"} --check --csv
       --niter "$niter" --warmup "$WARMUP" "$@")
}
mpi_rate() {
  cmd=("$MPIRUN" -np "$1" --bind-to none "${mpi_env[@]}" "$build/bench/mpi_rate" --rounds 5)
}
half=$((gpus / 2))

kit_start node
# The ranks of the node keep their tiles in POSIX shared memory (distrib/node_share.c): at
# n = 65536, 96 GiB of A, B and C in /dev/shm, which containers often size small.
[ "${DRY_RUN:-0}" = 1 ] || echo "/dev/shm: $(df -h --output=size,avail /dev/shm | tail -1 | xargs) (size, free)"
want cublas-peak && kit_case cublas-peak "$peak" -n "${PEAK_N:-32768}" --niter 5 --warmup 1
if want link; then
  kit_case link "$peak" --link 2048 --niter 5
  # The same with every GPU copying at once: what each link gets while the node's GPUs share
  # its memory and PCIe switches (a 4-GPU product loads on all four).
  kit_case link-node "$peak" --link 2048 --gpus "$gpus" --niter 5
fi
if want mpi-rate; then
  kit_case mpi-rate mpi_rate "$gpus"
  [ "$gpus" != 2 ] && kit_case mpi-rate-2r mpi_rate 2
fi
for n in $N_LIST; do
  want 1x4 && kit_case 1x4 starpu 1 "$n" STARPU_NCUDA="$gpus" --
done
for n in $N_LIST; do
  want 4x1 && WRAP=$per_rank kit_case 4x1 starpu "$gpus" "$n" SG_GPUS_PER_NODE="$gpus" -- \
    -P 2 -Q "$half"
done
share=(SG_GPUS_PER_NODE="$gpus" SG_GPUS_PER_RANK="$half")
want 2x2 && WRAP=$per_rank kit_case 2x2 starpu 2 "$N_BIG" "${share[@]}" --
want 2x2-own-node && WRAP=$per_rank kit_case 2x2-own-node starpu 2 "$N_BIG" "${share[@]}" \
  STARPU_GEMM_SHARE_NODE=0 --
if want bf16-1x4; then
  kit_case ceiling-b "$peak" --prec b -n "$N_BIG" --niter 3 --warmup 1
  kit_case bf16-1x4 starpu 1 "$N_BIG" STARPU_NCUDA="$gpus" -- --prec b
fi
kit_report node "$title, $gpus GPUs"
