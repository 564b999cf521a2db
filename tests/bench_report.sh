#!/usr/bin/env bash
# bench/report.py, the one reporter of bench/, on a committed sample of the results' CSV
# (tests/bench_report_sample.csv: CPU cases, a GPU case with its peak and link, 2 ranks sharing
# its GPU, counted once in their roofline, a case that timed out): the table and the targets'
# verdicts must be tests/bench_report.expected, the plot's data one line per size. Then the
# runners list their cases without running them (DRY_RUN=1), which checks that each still
# parses and builds its commands.
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
command -v python3 > /dev/null || { echo "SKIP: no python3"; exit 77; }
sample=$top_srcdir/tests/bench_report_sample.csv
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }

for kit in cpu gpu; do
  python3 "$top_srcdir/bench/report.py" --kit "$kit" --out "$work/$kit" "$sample" |
    grep -v '^plot: ' > "$work/$kit.txt" || fail "report.py --kit $kit exited non-zero"
done
if diff -u "$top_srcdir/tests/bench_report.expected" <(cat "$work/cpu.txt" "$work/gpu.txt"); then
  echo "PASS report.py table and targets (kits cpu and gpu) as expected"
else
  fail "report.py output differs from tests/bench_report.expected (above)"
fi
if [ "$(grep -cv '^#' "$work/cpu.dat")" = 3 ] && grep -q "^set output 'cpu.png'" "$work/cpu.gp"; then
  echo "PASS plot data: $(head -1 "$work/cpu.dat")"
else
  fail "plot data"; cat "$work/cpu.dat" "$work/cpu.gp"
fi
RESULTS=$work "$top_srcdir/bench/arrays.sh" --report "$sample" > /dev/null ||
  fail "bench/arrays.sh --report"

# Kit node (bench/node.sh, issue 27) on its own sample (tests/node-report-sample.csv, made-up
# numbers): the ratios to 4 x the cuBLAS peak take its median run at 32768 (51, not the fastest
# 52) also at 65536, which no single-GPU DGEMM fits; the own-node case's roofline is its MPI
# term, 150e9 bytes per rank / 25 GB/s (mpi_rate_median among 2 ranks, not 4's 20.5) = 6 s
# over compute 2*65536^3 / (4 x 51e12) = 2.76 s and h2d 200e9 / (2 GPUs x 50 GB/s) = 2 s;
# bf16's is its loads over four host links, 120e9 / (4 x 50e9) = 0.6 s, and at the rate each
# link gets while all four copy (rows h2d-node 30, d2h-node 40 GB/s), 120e9 / (4 x 30e9) = 1 s,
# under both ways' bytes at the node's rate while all copy both ways (row both-node, 15 GB/s each
# way), (120e9 + 17179869184) / (2 x 4 x 15e9) = 1.143 s.
node=$(python3 "$top_srcdir/bench/report.py" --kit node "$top_srcdir/tests/node-report-sample.csv")
for line in \
  "1x4 / 4 x cuBLAS peak at n=65536: 0.936 (191.000 / 204.000 TFLOP/s), target >= 0.95: MISSED" \
  "4x1 / 4 x cuBLAS peak at n=32768: 0.873 (178.000 / 204.000 TFLOP/s), target >= 0.85: met" \
  "2x2 own node / 4 x cuBLAS peak at n=65536: 0.431 (88.000 / 204.000 TFLOP/s), no target" \
  "2x2-own-node  65536     d   51.000   88.000   6.398      2.760  1.000  0.086  3.000    3.000  187.6  0.469" \
  "2x2 own node / its roofline with MPI at n=65536: 0.469 (88.000 / 187.650 TFLOP/s), target >= 0.90: MISSED" \
  "    bf16-1x4  65536     b  710.000  800.000   0.704      0.198  0.600  0.086  0.000    0.600  938.2  0.853" \
  "bf16 1x4 / its roofline at the node's copy rates (all four GPUs copying: each way and both ways) at n=65536: 1.625 (800.000 / 492.448 TFLOP/s), no target" \
  "each while 4 GPUs copy at once: h2d 30.00 GB/s, d2h 40.00 GB/s, each way of both at once 15.00 GB/s" \
  "MPI 25.00 GB/s per rank of 2, 20.50 GB/s per rank of 4"; do
  grep -qF -- "$line" <<< "$node" || fail "kit node: no '$line'"
done
[ $failures = 0 ] && echo "PASS kit node: ratios to 4 x the cuBLAS peak, rooflines with MPI and four links"

# dry RUNNER [VAR=value...]: its commands, not run; RESULTS: nothing of a dry run may land in
# the source tree's bench/results.
dry() { env RESULTS="$work" DRY_RUN=1 BUILD="$top_builddir" "${@:2}" "$top_srcdir/bench/$1"; }
cpu=$(dry cpu.sh N_LIST="2048 4096")
gpu=$(dry gpu.sh FAKE_GPUS=2)
arrays=$(dry arrays.sh)
nodekit=$(dry node.sh FAKE_GPUS=4)
if [ "$(wc -l <<< "$nodekit")" = 13 ] &&
   grep -q '^link-node: .*cublas_peak --link 2048 --gpus 4 ' <<< "$nodekit" &&
   grep -q '^mpi-rate: .*-np 4 .*bench/mpi_rate' <<< "$nodekit" &&
   grep -q '^4x1: .*-np 4 .*gpu-per-rank.sh .*-M 32768 .*--niter 3 .*-P 2 -Q 2$' <<< "$nodekit" &&
   grep -q '^2x2: env SG_GPUS_PER_NODE=4 SG_GPUS_PER_RANK=2 .*-np 2 .*-M 65536 .*--niter 2' <<< "$nodekit" &&
   grep -q '^2x2-own-node: .*STARPU_GEMM_SHARE_NODE=0 .*-x STARPU_GEMM_SHARE_NODE ' <<< "$nodekit" &&
   grep -q '^bf16-1x4: env STARPU_NCUDA=4 .*-np 1 .*--prec b$' <<< "$nodekit"; then
  echo "PASS bench/node.sh's cases (DRY_RUN): $(cut -d: -f1 <<< "$nodekit" | uniq | xargs)"
else
  fail "bench/node.sh's cases"; printf '%s\n' "$nodekit"
fi
if [ "$(wc -l <<< "$cpu")" = 7 ] && grep -q '^starpu-2r-none: .*--bind-to none .*--sizes 2048,4096' <<< "$cpu" &&
   grep -q '^shared-2r: .*gpu-per-rank.sh .*--sizes 32768' <<< "$gpu" &&
   grep -q '^shared-mps: .*CUDA_MPS_PIPE_DIRECTORY=.*cma .*gpu-per-rank.sh' <<< "$gpu" &&
   grep -q '^preload: .*LD_PRELOAD=' <<< "$arrays"; then
  echo "PASS runners' cases (DRY_RUN): cpu $(wc -l <<< "$cpu"), gpu $(wc -l <<< "$gpu"), arrays $(wc -l <<< "$arrays")"
else
  fail "runners' cases"; printf '%s\n' "$cpu" "$gpu" "$arrays"
fi
exit $((failures > 0))
