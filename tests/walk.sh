#!/usr/bin/env bash
# The task order (compute/walk.h): no MPI, no StarPU started.
set -eu
: "${top_builddir:?}"
"$top_builddir/tests/test_walk"
