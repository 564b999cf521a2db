#!/usr/bin/env bash
# Verification (check/): exact products pass the full and the sampled check, perturbed ones
# fail, NaN/Inf give +Inf and name the first bad entry; 1 to 4 ranks, every precision,
# transposes N/T/C, distributions and ragged shapes.
set -eu
: "${top_srcdir:?}" "${top_builddir:?}"
export SG_TEST_TIMEOUT=${SG_TEST_TIMEOUT:-300}
run="$top_srcdir/tests/mpirun.sh"
prog="$top_builddir/tests/test_check"
"$run" 1 "$prog" 8
"$run" 2 "$prog" 6
"$run" 3 "$prog" 4
"$run" 4 "$prog" 4
