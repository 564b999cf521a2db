# Sourced by the interposer's tests (blas_*.sh): where libstarpu_gemm_blas.so is, a light
# StarPU (one CPU worker, no GPU), one place that runs a program under the preload, and one
# that reads the interposer's count of calls.
: "${top_srcdir:?}" "${top_builddir:?}"
blas_so=$top_builddir/.libs/libstarpu_gemm_blas.so
test -f "$blas_so" || { echo "FAIL $(basename "$0"): $blas_so was not built"; exit 1; }
export STARPU_SILENT=1 STARPU_NCUDA=${STARPU_NCUDA:-0} STARPU_NCPU=${STARPU_NCPU:-1}
export STARPU_NOPENCL=0 STARPU_WORKERS_NOBIND=1
export STARPU_HOME=${STARPU_HOME:-$top_builddir/tests/starpu-home}
# The next BLAS runs one thread: two cores, and StarPU's worker beside it.
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
mkdir -p "$STARPU_HOME"
# (Under the sanitizers, Makefile.am keeps hwloc's PCI plugin out of every test.)
# An ASan-instrumented library cannot be preloaded into programs built without ASan: the
# scripts that preload call this first.
skip_under_sanitizers() {
	if [ "${SG_SANITIZERS:-}" = yes ]; then
		echo "SKIP $(basename "$0"): the sanitizer build's interposer cannot be preloaded into uninstrumented programs"
		exit 77
	fi
}

# preloaded COMMAND...: run COMMAND with the interposer preloaded, every GEMM through StarPU
# and the count of such calls printed at exit; killed after SG_TEST_TIMEOUT seconds.
preloaded() {
	LD_PRELOAD="$blas_so${LD_PRELOAD:+ $LD_PRELOAD}" STARPU_GEMM_BLAS_THRESHOLD=0 \
		STARPU_GEMM_VERBOSE=1 timeout -k 10 "${SG_TEST_TIMEOUT:-300}" "$@"
}

# through_starpu FILE: the count of calls the interposer ran through StarPU, from its exit line.
through_starpu() {
	sed -n 's/^starpu_gemm_blas: \([0-9]*\) calls through starpu_gemm_gemm.*/\1/p' "$1" | tail -1
}
