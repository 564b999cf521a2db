#!/usr/bin/env bash
# The driver's ranks never share a core, however mpirun binds them (issue 15): 2 ranks under
# Open MPI's default binding, --bind-to none, --bind-to core and --map-by socket --bind-to
# socket each report their CPU workers on CPUs no other rank uses; 1 rank left unbound has a
# worker on every core. And the note on a rank bound to fewer CPUs than its share (issue 30). Read from the driver's "workers: rank R: ..., on CPUs a,b" lines
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

# note NP MPIRUN_OPTIONS...: a rank bound to fewer CPUs than its share of the node (the CPUs
# this test may use over the ranks) gets one note, from rank 0, and the run still succeeds
# (issue 30); others none. What mpirun binds a rank to is what nproc says under it.
note() {
  local np=$1; shift
  local what="note: $np rank(s), mpirun $*" bound allowed want got status=0
  bound=$(timeout -k 10 60 "${MPIRUN:-mpirun}" -np 1 "$@" nproc 2> /dev/null | head -n 1)
  allowed=$(nproc)
  want=0
  [ "$np" = 1 ] && [ -n "$bound" ] && [ "$bound" -lt "$allowed" ] && want=1
  timeout -k 10 120 "${MPIRUN:-mpirun}" -np "$np" "$@" -x STARPU_SILENT -x STARPU_NCUDA \
    -x STARPU_HOME "$driver" -M 256 -N 256 -K 256 --plan > "$out" 2>&1 || status=$?
  got=$(grep -c 'starpu_gemm: note: .*bound to' "$out")
  if [ "$status" -ne 0 ] || [ "$got" -ne "$want" ] || { [ "$want" = 1 ] &&
     ! grep -q "note: rank 0 is bound to $bound of its node's $allowed CPUs, fewer than its share ($allowed)" "$out"; }; then
    echo "FAIL $what: exit $status, $got note(s), expected $want (bound to ${bound:-?} of $allowed CPUs)"
    cat "$out"; failures=$((failures + 1))
  else
    echo "PASS $what: ${got} note(s)$(grep -m1 'note: .*bound to' "$out" | sed 's/^/: /')"
  fi
}

note 1
note 1 --bind-to none
note 2
launch 2 -
launch 2 - --bind-to none
launch 2 - --bind-to core
launch 2 - --map-by socket --bind-to socket
launch 1 "$cores" --bind-to none
exit $((failures > 0))
