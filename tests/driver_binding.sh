#!/usr/bin/env bash
# The driver's ranks never share a core, however mpirun binds them (issue 15): 2 ranks under
# Open MPI's default binding, --bind-to none, --bind-to core and --map-by socket --bind-to
# socket each report their CPU workers on CPUs no other rank uses; 1 rank left unbound has a
# worker on every core. Read from the driver's "workers: rank R: ..., on CPUs a,b" lines
# (starpu_gemm_conf_defaults places them; StarPU binds them there).
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
driver="$top_builddir/drivers/starpu_gemm"
# Cores, not hardware threads: one worker per core.
cores=$(lscpu -p=core 2> /dev/null | grep -v '^#' | sort -u | wc -l)
[ "$cores" -gt 0 ] || cores=$(nproc)
if [ "$cores" -lt 2 ]; then
  echo "SKIP: one CPU here, nothing to share"
  exit 77
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none STARPU_SILENT=1 STARPU_NCUDA=0
export STARPU_HOME=${STARPU_HOME:-$top_builddir/tests/starpu-home}
unset STARPU_NCPU STARPU_WORKERS_NOBIND STARPU_WORKERS_CPUID STARPU_WORKERS_COREID
mkdir -p "$STARPU_HOME"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
failures=0

# launch NP EXPECTED_CPUS MPIRUN_OPTIONS...: the ranks' CPUs are all distinct, and
# EXPECTED_CPUS of them in all unless it is '-'.
launch() {
  local np=$1 expected=$2; shift 2
  local what="$np rank(s), mpirun $*"
  if ! timeout -k 10 120 "${MPIRUN:-mpirun}" -np "$np" "$@" -x STARPU_SILENT -x STARPU_NCUDA \
       -x STARPU_HOME "$driver" -M 256 -N 256 -K 256 --niter 1 --warmup 0 --check > "$out" 2>&1
  then
    echo "FAIL $what: the run failed"; cat "$out"; failures=$((failures + 1)); return
  fi
  local verdict
  verdict=$(awk -v np="$np" -v expected="$expected" '
    /^workers: rank / { ranks++; n = split($NF, cpu, ",")
      for (i = 1; i <= n; i++) { if (cpu[i] in owner) shared = shared " " cpu[i]; owner[cpu[i]] = $3; all++ } }
    END { if (ranks != np) print "ranks reported: " ranks + 0
          else if (shared != "") print "CPUs used by several workers:" shared
          else if (expected != "-" && all != expected) print "CPUs used: " all ", expected " expected }' "$out")
  if [ -z "$verdict" ] && grep -q 'check: PASSED' "$out"; then
    echo "PASS $what: $(grep '^workers:' "$out" | sed 's/.*rank \([0-9]*\):.*on CPUs /r\1:/' | xargs)"
  else
    echo "FAIL $what: ${verdict:-no check: PASSED}"; grep -E '^(workers|check)' "$out"
    failures=$((failures + 1))
  fi
}

launch 2 -
launch 2 - --bind-to none
launch 2 - --bind-to core
launch 2 - --map-by socket --bind-to socket
launch 1 "$cores" --bind-to none
exit $((failures > 0))
