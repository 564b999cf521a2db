#!/usr/bin/env bash
# The front door. On a fresh machine:
#   ./bootstrap.sh run  [driver options]   set up, build, run a small DGEMM on 2 ranks with --check
#   ./bootstrap.sh check                   set up, build, run the test suite (make check), then
#                                          again under ASan+UBSan in ./build-sanitize, then
#                                          make distcheck (the tarball, on a subset of the tests)
#   ./bootstrap.sh build                   set up and build only
#   ./bootstrap.sh simulate [sim options] [-- driver options]
#                                          the driver on simulated nodes and GPUs (StarPU+SimGrid;
#                                          scripts/simgrid/simulate.sh --help lists the options)
# Setup installs missing Debian packages, builds StarPU 1.4.10 once into ~/.cache/starpu-gemm
# (reused afterwards), and builds this project in ./build (simulate: the simulated StarPU in
# ~/.cache/starpu-gemm/starpu-1.4.10-simgrid and this project in ./build-simgrid).
# STARPU_GEMM_FXT=1: StarPU with FxT traces (~/.cache/starpu-gemm/starpu-1.4.10-fxt) and this
# project in ./build-fxt. SANITIZE=0, SIMULATE=0, DISTCHECK=0 skip those parts of check.
set -euo pipefail
top=$(cd "$(dirname "$0")" && pwd)
cd "$top"
action=${1:-help}
[ $# -gt 0 ] && shift

# The simulated build (StarPU+SimGrid): packages, StarPU and build tree of their own, nothing
# of ./build touched. SimGrid's MPI (smpicc) makes programs that only run under smpirun, so
# configure cross-compiles. Run in a subshell: it changes PATH and PKG_CONFIG_PATH.
build_simulated() {
  export STARPU_GEMM_SIMGRID=1
  scripts/install-deps.sh
  scripts/install-starpu.sh
  . scripts/paths.sh
  if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ]; then
    autoreconf -fi > /dev/null 2>&1 || autoreconf -fi
  fi
  mkdir -p build-simgrid
  (cd build-simgrid
   if [ ! -f Makefile ] || [ ../configure -nt config.status ]; then
     ../configure --quiet MPICC=smpicc LIBS=-lhwloc --disable-shared --enable-static \
       --build=x86_64-pc-linux-gnu --host=x86_64-smpi-linux-gnu > configure.out 2>&1 ||
       { cat configure.out; exit 1; }
   fi
   make -j"$(nproc)" drivers/starpu_gemm > /dev/null 2>&1 || make drivers/starpu_gemm)
}

case $action in
  run|check|build) ;;
  simulate)
    build_simulated
    if [ $# -eq 0 ]; then
      # A small default: 4 nodes of 4 GPUs (H200 models) over 200 Gb/s.
      set -- --nodes 4 --gpus 4 -- -M 32768 -N 32768 -K 32768 -P 2 -Q 2 --niter 1 --warmup 0
    fi
    echo "+ scripts/simgrid/simulate.sh $*"
    exec scripts/simgrid/simulate.sh "$@"
    ;;
  *) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac

scripts/install-deps.sh
scripts/install-starpu.sh
. scripts/paths.sh

if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ]; then
  autoreconf -fi > /dev/null 2>&1 || autoreconf -fi
fi
# StarPU with FxT is another StarPU: its own build tree, so ./build never mixes the two.
build=build
[ "${STARPU_GEMM_FXT:-0}" = 1 ] && build=build-fxt
mkdir -p "$build"
cd "$build"
if [ ! -f Makefile ] || [ ../configure -nt config.status ]; then
  ../configure --quiet ${STARPU_GEMM_CONFIGURE_FLAGS:-}
fi
make -j"$(nproc)" >/dev/null || make

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
case $action in
  build) echo "built: $top/$build/drivers/starpu_gemm" ;;
  run)
    # A small default problem on 2 ranks with CPU workers; any driver option may be added.
    ranks=${RANKS:-2}
    cmd=(mpirun -np "$ranks" --oversubscribe --bind-to none
         -x STARPU_SILENT=1 -x STARPU_NCUDA="${STARPU_NCUDA:-0}" -x STARPU_WORKERS_NOBIND=1
         drivers/starpu_gemm --check)
    [ $# -gt 0 ] && cmd+=("$@")
    echo "+ ${cmd[*]}"
    "${cmd[@]}"
    ;;
  check)
    # One closing line any CI reader understands, from automake's own summary.
    summary() {
      local log=test-suite.log pass fail xpass err skip
      pass=$(sed -n 's/^# PASS: *//p' "$log" | head -1); fail=$(sed -n 's/^# FAIL: *//p' "$log" | head -1)
      xpass=$(sed -n 's/^# XPASS: *//p' "$log" | head -1); err=$(sed -n 's/^# ERROR: *//p' "$log" | head -1)
      skip=$(sed -n 's/^# SKIP: *//p' "$log" | head -1)
      echo "$1: ${pass:-0} passed, $(( ${fail:-0} + ${xpass:-0} + ${err:-0} )) failed, ${skip:-0} skipped"
    }
    # A failing test's own log, its end, where CI keeps only what this script prints: automake
    # leaves it in DIR/tests/NAME.log and names the test in DIR/test-suite.log.
    failures() {
      local dir=$1 t
      for t in $(sed -n 's/^\(FAIL\|XPASS\|ERROR\): //p' "$dir/test-suite.log" 2>/dev/null | sort -u); do
        echo "---- the end of ${t%.sh}.log ----"
        tail -n 40 "$dir/${t%.sh}.log" 2>/dev/null
      done
    }
    status=0
    # tests/simulate.sh runs the driver on simulated nodes (skipped without the simulated
    # build): built here unless SIMULATE=0; the first time, about 10 minutes on 2 cores
    # (SimGrid packages and the simulated StarPU, then cached in ~/.cache/starpu-gemm).
    if [ "${SIMULATE:-1}" != 0 ]; then
      (cd "$top" && build_simulated) || echo "warning: the simulated build failed: tests/simulate.sh will be skipped"
    fi
    make check ${TESTS:+TESTS="$TESTS"} || { status=$?; failures .; }
    lines=$(summary tests)
    # The CPU tests again with AddressSanitizer, LeakSanitizer and UBSan on our code, in a tree
    # of their own (StarPU and Open MPI are not instrumented). SANITIZE=0 skips this.
    if [ "${SANITIZE:-1}" != 0 ]; then
      mkdir -p "$top/$build-sanitize"
      cd "$top/$build-sanitize"
      if [ ! -f Makefile ] || [ ../configure -nt config.status ]; then
        ../configure --quiet --enable-sanitizers ${STARPU_GEMM_CONFIGURE_FLAGS:-}
      fi
      make -j"$(nproc)" >/dev/null || make
      make check ${TESTS:+TESTS="$TESTS"} || { status=$?; failures .; }
      lines="$lines
$(summary "sanitizer tests ($build-sanitize)")"
    fi
    # The release tarball: make dist, then from the unpacked tarball (read-only sources) a
    # fresh build, make check, install, uninstall and dist again. Its make check runs a subset
    # (DISTCHECK_TESTS): the build, the driver, the library and the whole install chain from
    # the tarball, about 5 minutes on 2 cores; the full suite already ran above.
    if [ "${DISTCHECK:-1}" != 0 ]; then
      cd "$top/$build"
      dtests=${DISTCHECK_TESTS:-tests/codelets.sh tests/pgemm.sh tests/driver.sh tests/gemm.sh tests/bench_report.sh tests/install.sh}
      if make distcheck TESTS="$dtests" > distcheck.log 2>&1; then
        lines="$lines
distcheck: passed ($(sed -n 's/ archives ready for distribution.*//p' distcheck.log | head -1).tar.gz; tests: $dtests)"
      else
        status=1
        tail -n 40 distcheck.log
        failures "$(ls -d starpu-gemm-*/_build/sub 2>/dev/null | head -1)"
        lines="$lines
distcheck: FAILED (tests: $dtests; log: $top/$build/distcheck.log)"
      fi
    fi
    echo "$lines"
    exit $status
    ;;
esac
