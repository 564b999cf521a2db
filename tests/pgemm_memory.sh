#!/usr/bin/env bash
# The chunked order bounds the remote tiles a rank holds; submitting everything at once does not.
set -eu
"$top_srcdir/tests/mpirun.sh" 4 "$top_builddir/tests/test_pgemm_memory" 12 16
