#!/usr/bin/env bash
# Tile codelets (codelets/): every precision x every (transA, transB) in {N,T,C}^2 x ragged
# shapes with padded leading dimensions against sg_cblas_gemm; bad arguments give -EINVAL and
# submit nothing; a task packed against the header's contract aborts the job with a message.
# On 1 rank with 2 CPU workers, so tasks run concurrently. On a GPU node,
# STARPU_NCUDA=1 STARPU_NCPU=0 SG_TEST_REQUIRE_GPU=1 runs the same checks on cuBLAS.
set -eu
: "${top_srcdir:?}" "${top_builddir:?}"
export SG_TEST_TIMEOUT=${SG_TEST_TIMEOUT:-300}
export STARPU_NCPU=${STARPU_NCPU:-2}
run="$top_srcdir/tests/mpirun.sh"
prog="$top_builddir/tests/test_codelets"
"$run" 1 "$prog" 4

if out=$("$run" 1 "$prog" bad-packing 2>&1); then
	printf '%s\n' "$out"; echo "FAIL bad packing: the job did not abort"; exit 1
fi
if ! grep -q "alpha and beta must be packed with the precision's size" <<<"$out"; then
	printf '%s\n' "$out"; echo "FAIL bad packing: no message naming the packing"; exit 1
fi
echo "PASS bad packing: a dgemm task with float alpha/beta aborts the job with a message"
