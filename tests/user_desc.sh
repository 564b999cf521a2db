#!/usr/bin/env bash
# Descriptors over caller memory (arrays and tile callbacks), process-local descriptors, and
# products submitted back to back beside the caller's own tasks, on 1-4 ranks.
set -eu
run="$top_srcdir/tests/mpirun.sh"
prog="$top_builddir/tests/test_user_desc"
"$run" 1 "$prog" 1 1
"$run" 2 "$prog" 1 2
"$run" 3 "$prog" 3 1
"$run" 4 "$prog" 2 2
