#!/usr/bin/env bash
# The pure planner (compute/plan.h) on a table: no MPI, no StarPU started.
set -eu
: "${top_builddir:?}"
"$top_builddir/tests/test_plan"
