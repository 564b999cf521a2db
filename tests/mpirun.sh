#!/usr/bin/env bash
# tests/mpirun.sh NP PROGRAM [ARGS...]: run PROGRAM on NP ranks of this machine, the way every
# CPU test does: oversubscribed (CI has 2 cores), as root if need be, CPU workers only unless
# the caller set STARPU_NCUDA, and killed after SG_TEST_TIMEOUT seconds (default 600) so a
# hang fails the test instead of stalling the suite.
set -u
np=$1; shift
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
# Shared-memory transport without cross-memory attach: containers often forbid ptrace.
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export STARPU_SILENT=${STARPU_SILENT:-1}
export STARPU_NCUDA=${STARPU_NCUDA:-0}
export STARPU_NOPENCL=0
# Oversubscribed ranks must not pin their workers onto the same cores.
export STARPU_WORKERS_NOBIND=${STARPU_WORKERS_NOBIND:-1}
export STARPU_NCPU=${STARPU_NCPU:-1}
export STARPU_HOME=${STARPU_HOME:-${top_builddir:-.}/tests/starpu-home}
mkdir -p "$STARPU_HOME"
# Forward StarPU's settings; the optional ones only when set (mpirun warns about unset names).
fwd=(-x STARPU_SILENT -x STARPU_NCUDA -x STARPU_NCPU -x STARPU_WORKERS_NOBIND -x STARPU_HOME)
for v in STARPU_SCHED STARPU_LIMIT_CUDA_MEM STARPU_LIMIT_CPU_MEM STARPU_CALIBRATE \
         STARPU_PERF_MODEL_DIR STARPU_HOSTNAME SG_TEST_REQUIRE_GPU SG_GPUS_PER_NODE SEED \
         STARPU_MPI_CACHE STARPU_GEMM_SHARE_NODE LD_LIBRARY_PATH; do
  [ -n "${!v+x}" ] && fwd+=(-x "$v")
done
exec timeout -k 10 "${SG_TEST_TIMEOUT:-600}" "${MPIRUN:-mpirun}" -np "$np" --bind-to none \
	"${fwd[@]}" "$@"
