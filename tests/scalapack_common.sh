# Sourced by the tests of libstarpu_gemm_scalapack: $run starts ranks, $lib is what to preload,
# fail NAME OUTPUT records a failure in $failures.
run="$top_srcdir/tests/mpirun.sh"
lib="$top_builddir/.libs/libstarpu_gemm_scalapack.so"
export SG_TEST_TIMEOUT=${SG_TEST_TIMEOUT:-120}
# configure --enable-sanitizers: the library carries AddressSanitizer, whose runtime must be
# the first library of a process, and the programs preloading it may not: preload that runtime
# first. Leaks are not looked for here (ScaLAPACK's, BLACS's and Open MPI's own would bury
# ours); the library's memory errors still stop the run.
if [ "${SG_SANITIZERS:-no}" = yes ]; then
  lib="$(ldd "$lib" | awk '/libasan/ { print $3 }'):$lib"
  export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
fi
failures=0

fail() {
  echo "FAIL $1; output:"
  echo "$2"
  failures=$((failures + 1))
}
