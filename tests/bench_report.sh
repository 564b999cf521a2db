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

# dry RUNNER [VAR=value...]: its commands, not run; RESULTS: nothing of a dry run may land in
# the source tree's bench/results.
dry() { env RESULTS="$work" DRY_RUN=1 BUILD="$top_builddir" "${@:2}" "$top_srcdir/bench/$1"; }
cpu=$(dry cpu.sh N_LIST="2048 4096")
gpu=$(dry gpu.sh FAKE_GPUS=2)
arrays=$(dry arrays.sh)
if [ "$(wc -l <<< "$cpu")" = 7 ] && grep -q '^starpu-2r-none: .*--bind-to none .*--sizes 2048,4096' <<< "$cpu" &&
   grep -q '^shared-2r: .*gpu-per-rank.sh .*--sizes 32768' <<< "$gpu" &&
   grep -q '^shared-mps: .*CUDA_MPS_PIPE_DIRECTORY=.*cma .*gpu-per-rank.sh' <<< "$gpu" &&
   grep -q '^preload: .*LD_PRELOAD=' <<< "$arrays"; then
  echo "PASS runners' cases (DRY_RUN): cpu $(wc -l <<< "$cpu"), gpu $(wc -l <<< "$gpu"), arrays $(wc -l <<< "$arrays")"
else
  fail "runners' cases"; printf '%s\n' "$cpu" "$gpu" "$arrays"
fi
exit $((failures > 0))
