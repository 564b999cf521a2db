#!/usr/bin/env bash
# Distributed GEMM on CPU workers: 1-4 ranks, grids 1x1 1x2 2x1 3x1 1x3 2x2, every precision,
# transpose and ownership function, ragged shapes; forced plans and the unthrottled order too.
set -eu
run="$top_srcdir/tests/mpirun.sh"
prog="$top_builddir/tests/test_pgemm"
"$run" 1 "$prog" 1 1 12 forced
"$run" 2 "$prog" 1 2 8
"$run" 2 "$prog" 2 1 8 forced
"$run" 3 "$prog" 3 1 8
"$run" 3 "$prog" 1 3 8
"$run" 4 "$prog" 2 2 12 forced
# C kept in host memory: scratch tiles, one CPU worker adding them (with a helper thread on
# the core left free where STARPU_NCPU=1 on a 2-core machine)
"$run" 1 "$prog" 1 1 8 home
STARPU_NCPU=2 "$run" 2 "$prog" 1 2 8 home
"$run" 3 "$prog" 3 1 6 home
