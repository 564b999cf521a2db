#!/usr/bin/env bash
# Randomized property test: >= 100 cases over 1-4 ranks, each with its own precision,
# transposes, sizes (1..1500), tile, grid, ownership function, plan parameters, alpha and beta.
# The seed is printed; replay a run with SEED=<value> make check TESTS=tests/pgemm_random.sh.
set -eu
export SEED=${SEED:-$(date +%s)}
echo "# seed $SEED"
run="$top_srcdir/tests/mpirun.sh"
prog="$top_builddir/tests/test_pgemm"
for np in 1 2 3 4; do
  "$run" "$np" "$prog" random "${CASES_PER_RANK_COUNT:-26}"
done
