#!/usr/bin/env bash
# Products that meet StarPU-MPI's cache across requests (tests/test_requests.c): B == A, two
# requests in flight on the same A and B, a user's task warming the cache, unthrottled products
# back to back; 2 and 3 ranks, with StarPU-MPI's cache and without (STARPU_MPI_CACHE=0), each
# rank its own node so that the tiles go through MPI. Every product checked; a hang is killed.
set -eu
run="$top_srcdir/tests/mpirun.sh"
prog="$top_builddir/tests/test_requests"
export STARPU_GEMM_SHARE_NODE=0 SG_TEST_TIMEOUT=${SG_TEST_TIMEOUT:-120}
for cache in 1 0; do
  export STARPU_MPI_CACHE=$cache
  echo "# STARPU_MPI_CACHE=$cache"
  "$run" 2 "$prog" alias 16 64
  "$run" 3 "$prog" overlap 16 96 2
  "$run" 2 "$prog" warm 16 64 2
  "$run" 2 "$prog" b2b 16 64
done
