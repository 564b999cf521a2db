#!/usr/bin/env bash
# Descriptors (distrib/): create, fill_random, gather and owners on 1 to 4 ranks, every grid
# P x Q of the ranks (1x1, 1x2, 2x1, 3x1, 1x3, 1x4, 2x2, 4x1) and every ownership function,
# ragged shapes; bad arguments give -EINVAL everywhere without hanging.
set -eu
: "${top_srcdir:?}" "${top_builddir:?}"
export SG_TEST_TIMEOUT=${SG_TEST_TIMEOUT:-300}
run="$top_srcdir/tests/mpirun.sh"
prog="$top_builddir/tests/test_distrib"
"$run" 1 "$prog" 4
"$run" 2 "$prog" 3
"$run" 3 "$prog" 3
"$run" 4 "$prog" 2
