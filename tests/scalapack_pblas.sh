#!/usr/bin/env bash
# libstarpu_gemm_scalapack against ScaLAPACK's own PBLAS testers (Debian scalapack-mpi-test):
# dpb3tst, spb3tst, cpb3tst and zpb3tst with the library preloaded and every call sent through
# StarPU (STARPU_GEMM_SCALAPACK_THRESHOLD=0), GEMM only. Each tester runs the stock
# P?BLAS3TST.dat (error exits on, 4 ranks: grids 2x2 1x2 2x1 1x4), then tests/pblas3-hard.dat:
# sub-matrix offsets, IMB != MB, block sizes 1-16 differing between A, B and C, RSRC/CSRC != 0,
# all transposes (C too), K = 1 and K = 0, on 1x1, 2x2, 1x3 and 3x1 grids, beta = 0 (C must
# not be read) and alpha = 0. Small tiles (STARPU_GEMM_SCALAPACK_TILE=8) so that the matrices
# spread over every rank. A run passes when the tester's summary has every GEMM test PASSED
# (none FAILED or SKIPPED) and the library said, once per test, that it did the call itself.
set -u
testers=/usr/lib/x86_64-linux-gnu/scalapack/openmpi-tests/PBLAS
if [ ! -x "$testers/dpb3tst" ]; then
  echo "SKIP: the PBLAS testers are missing (apt-get install scalapack-mpi-test)"
  exit 77
fi
. "$top_srcdir/tests/scalapack_common.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

# The stock file with every routine but GEMM switched off.
only_gemm() {
  sed -E '/^P[SDCZ][A-Z0-9]+ +[TF]/{/^P[SDCZ]GEMM/!s/^(P[SDCZ][A-Z0-9]+ +)T/\1F/}' "$1"
}

# hard PREC NGRIDS "P..." "Q..." ALPHA BETA "RSRC..." "CSRC..." [RSRC_B CSRC_B]: our problems
# in the stock file's frame (its title lines and routine list), the process sources of A and C
# (and of B, else those of A swapped); error exits off, the stock runs do those.
hard() {
  local stock="$testers/P$1BLAS3TST.dat"
  { sed -n 1,3p "$stock"
    sed -e "s/@ERREXIT@/F/;s/@NGRIDS@/$2/;s/@P@/$3/;s/@Q@/$4/;s/@ALPHA@/$5/;s/@BETA@/$6/" \
        -e "s/@RS@/$7/;s/@CS@/$8/;s/@RSB@/${9:-$8}/;s/@CSB@/${10:-$7}/" \
        "$top_srcdir/tests/pblas3-hard.dat"
    only_gemm "$stock" | grep -E '^P[SDCZ][A-Z0-9]+ +[TF]'; } > "P$1BLAS3TST.dat"
}

# check NP PREC WHAT [fallback]: run the tester on the P?BLAS3TST.dat in place and judge its
# output; "fallback": MPI left at the thread level the testers ask for (MPI_Init: single), so
# the library must say so once and hand every call to ScaLAPACK.
# check NP PREC WHAT [MODE [VAR=VALUE...]]: MODE ours (default) or fallback; the settings are
# passed to every rank (STARPU_GEMM_SCALAPACK_OVERLAP=1: each call must say it moved the
# operands beside the product).
check() {
  local np=$1 prec=$2 what=$3 mode=${4:-ours} lower log threads=(-x OMPI_MPI_THREAD_LEVEL=3)
  shift $(($# < 4 ? $# : 4))
  local settings=() setting
  for setting in "$@"; do settings+=(-x "$setting"); done
  [ "$mode" = fallback ] && threads=()
  lower=$(echo "$prec" | tr SDCZ sdcz)
  log="$work/$lower-$what.log"
  "$run" "$np" -x LD_PRELOAD="$lib" -x STARPU_GEMM_SCALAPACK_THRESHOLD=0 \
    -x STARPU_GEMM_VERBOSE=1 -x STARPU_GEMM_SCALAPACK_TILE=8 "${threads[@]}" \
    -x OPENBLAS_NUM_THREADS=1 "${settings[@]}" "$testers/${lower}pb3tst" > "$log" 2>&1
  local status=$?
  # "|  PDGEMM  TOTAL  PASSED  FAILED  SKIPPED"
  read -r total passed failed skipped < <(sed -n "s/^ *| *P${prec}GEMM *//p" "$log")
  local ours errexit=ok
  # Not anchored: the tester's stdout (buffered by Fortran) and our stderr share the log, and
  # a line of ours may land after an unfinished line of its table.
  ours=$(grep -o "starpu_gemm_scalapack: p${lower}gemm_ " "$log" | wc -l)
  local expected=$passed
  if [ "$mode" = fallback ]; then
    expected=0
    # Not anchored either (the same interleaving): counted where it lands.
    [ "$(grep -o "starpu_gemm_scalapack: warning: MPI was initialised with thread level" \
         "$log" | wc -l)" -eq 1 ] || expected="one warning"
  fi
  case " $* " in
    *" STARPU_GEMM_SCALAPACK_OVERLAP=1 "*)
      # Every call that multiplies (not the "no product" ones: K = 0 or alpha = 0).
      [ $(($(grep -o "moves planned in .* beside it" "$log" | wc -l) +
           $(grep -o "in place, no product" "$log" | wc -l))) = "$ours" ] ||
        expected="$expected, each with the moves beside the product" ;;
  esac
  if grep -q "Test for error exits flag *: *T" "$log" &&
     ! grep -q "Error-exit tests completed" "$log"; then
    errexit=missing
  fi
  if [ $status -eq 0 ] && [ -n "${total:-}" ] && [ "$total" -gt 0 ] && [ "$passed" = "$total" ] &&
     [ "$failed" = 0 ] && [ "$skipped" = 0 ] && [ "$ours" = "$expected" ] &&
     [ $errexit = ok ] && ! grep -q "FAILED  \*\*\*\*\*" "$log"; then
    echo "PASS ${lower}pb3tst $what on $np ranks: $passed/$total GEMM tests PASSED, $ours calls" \
         "done by libstarpu_gemm_scalapack"
  else
    fail "${lower}pb3tst $what on $np ranks: exit $status, tests ${total:-?} passed \
${passed:-?} failed ${failed:-?} skipped ${skipped:-?}, our calls $ours (expected $expected), \
error exits $errexit" "$(cat "$log")"
  fi
}

for prec in S D C Z; do
  case $prec in
    S|D) alpha=2.0 beta=3.0 ;;
    *) alpha="(2.0,-4.0)" beta="(3.0,-2.0)" ;;
  esac
  only_gemm "$testers/P${prec}BLAS3TST.dat" > "P${prec}BLAS3TST.dat"
  check 4 $prec stock
  hard $prec 1 2 2 "$alpha" "$beta" "1 0 1 0 1 1" "0 1 1 0 1 0"
  check 4 $prec hard-2x2
done
# Grids of 3 processes in a row or a column (3 ranks), and one process.
zeros="0 0 0 0 0 0"
hard D 1 1 3 2.0 3.0 "$zeros" "2 1 0 2 1 0" "$zeros" "1 0 2 2 0 1"; check 3 D hard-1x3
hard C 1 3 1 "(2.0,-4.0)" "(3.0,-2.0)" "2 1 0 2 1 0" "$zeros" "0 2 1 1 2 0" "$zeros"
check 3 C hard-3x1
hard Z 1 1 1 "(2.0,-4.0)" "(3.0,-2.0)" "$zeros" "$zeros"; check 1 Z hard-1x1
# beta = 0: C is not read (its tiles are never filled); alpha = 0: C = beta C, no product.
hard D 1 2 2 2.0 0.0 "1 0 1 0 1 1" "0 1 1 0 1 0"; check 4 D hard-beta0
hard Z 1 2 2 "(2.0,-4.0)" "(0.0,0.0)" "1 0 1 0 1 1" "0 1 1 0 1 0"; check 4 Z hard-beta0
hard S 1 1 3 0.0 3.0 "$zeros" "2 1 0 2 1 0" "$zeros" "1 0 2 2 0 1"; check 3 S hard-alpha0
# MPI_THREAD_SINGLE: one warning, every call (errors included) to ScaLAPACK.
# The moves beside the product (the default where GPUs compute it), forced on these CPUs.
overlap=STARPU_GEMM_SCALAPACK_OVERLAP=1
hard Z 1 2 2 "(2.0,-4.0)" "(3.0,-2.0)" "1 0 1 0 1 1" "0 1 1 0 1 0"
check 4 Z hard-2x2-overlap ours $overlap
check 4 Z hard-2x2-overlap-stage-c ours $overlap STARPU_GEMM_STAGE_C=1
hard D 1 1 3 2.0 3.0 "$zeros" "2 1 0 2 1 0" "$zeros" "1 0 2 2 0 1"; check 3 D hard-1x3-overlap ours $overlap
hard D 1 2 2 2.0 0.0 "1 0 1 0 1 1" "0 1 1 0 1 0"; check 4 D hard-beta0-overlap ours $overlap
only_gemm "$testers/PDBLAS3TST.dat" > PDBLAS3TST.dat
check 4 D stock-overlap ours $overlap
check 4 D stock-thread-single fallback
exit $((failures > 0))
