#!/usr/bin/env bash
# Ranks of one node read each other's tiles in place (issue 27, distrib/node_share.c), on CPU
# workers: 2 and 4 ranks of one job, every product checked, StarPU-MPI sends no byte and the
# plan predicts none; each rank its own node (STARPU_GEMM_SHARE_NODE=0): the tiles go through
# MPI, exactly the plan's prediction (also transposed, uneven, without StarPU-MPI's cache); a
# shared-memory folder that cannot be used (STARPU_GEMM_SHM_DIR missing): one notice naming the
# reason, the MPI path, still correct, its bytes those of the plan made again
# (drivers/starpu_gemm.c, replan_unshared); a killed job's segments removed by the next job;
# the layers of the communication-avoiding schedule, their bytes the plan's.
# Read from the driver's --csv rows (columns by name).
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
driver="$top_builddir/drivers/starpu_gemm"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none STARPU_SILENT=1 STARPU_NCUDA=0
export STARPU_HOME=${STARPU_HOME:-$top_builddir/tests/starpu-home}
unset STARPU_GEMM_SHARE_NODE STARPU_GEMM_SHM_DIR STARPU_GEMM_MPI_GBPS
mkdir -p "$STARPU_HOME"
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
failures=0

# run WHAT NP MPI(zero|plan) [VAR=value...] -- DRIVER_OPTIONS: the job passes its checks, and
# its MPI bytes are 0 (zero) or the plan's prediction, above 0 (plan).
run() {
  local what=$1 np=$2 mpi=$3 vars=() pass=(); shift 3
  while [ "$1" != -- ]; do vars+=("$1"); pass+=(-x "${1%%=*}"); shift; done; shift
  if ! env "${vars[@]}" timeout -k 10 180 "${MPIRUN:-mpirun}" -np "$np" -x STARPU_SILENT \
       -x STARPU_NCUDA -x STARPU_HOME "${pass[@]}" "$driver" --csv --check --niter 2 \
       --warmup 0 "$@" > "$out" 2> "$err"; then
    echo "FAIL $what: the run failed"; cat "$out" "$err"; failures=$((failures + 1)); return 1
  fi
  local verdict
  verdict=$(awk -F, -v mpi="$mpi" -v np="$np" '
    /^system,/ { for (c = 1; c <= NF; c++) col[$c] = c; next }
    $1 == "starpu_gemm" { rows++
      if ($col["ranks"] != np) bad = bad " ranks " $col["ranks"]
      if ($col["residual"] < 0 || $col["residual"] > 10) bad = bad " residual " $col["residual"]
      if (mpi == "zero" && ($col["mpi_bytes"] != 0 || $col["pred_mpi_bytes"] != 0))
        bad = bad " MPI bytes " $col["mpi_bytes"] " (plan " $col["pred_mpi_bytes"] ")"
      if (mpi == "plan" && ($col["mpi_bytes"] != $col["pred_mpi_bytes"] || $col["mpi_bytes"] == 0))
        bad = bad " MPI bytes " $col["mpi_bytes"] ", plan " $col["pred_mpi_bytes"]
      last = "MPI " $col["mpi_bytes"] " B (plan " $col["pred_mpi_bytes"] " B), residual " $col["residual"] }
    END { if (rows != 2) bad = bad " rows " rows + 0; print (bad ? "bad:" bad : "ok: " last) }' "$out")
  if [ "${verdict%%:*}" = ok ] && grep -q "check: PASSED" "$err" && ! grep -q "check: FAILED" "$err"; then
    echo "PASS $what: $verdict"
  else
    echo "FAIL $what: $verdict"; cat "$out" "$err"; failures=$((failures + 1)); return 1
  fi
}

sizes=(-M 768 -N 640 -K 896 -t 128)
run "2 ranks of one node share their tiles" 2 zero -- "${sizes[@]}"
run "4 ranks (2x2) of one node share their tiles" 4 zero -- "${sizes[@]}" -P 2 -Q 2
run "4 ranks, A and B transposed" 4 zero -- "${sizes[@]}" --transA T --transB T
run "4 ranks, each its own node (STARPU_GEMM_SHARE_NODE=0)" 4 plan STARPU_GEMM_SHARE_NODE=0 -- \
  -M 768 -N 768 -K 896 -t 128 -P 2 -Q 2
# Each rank's inputs counted on the grid: a transposed operand, whose rows of op(A) other
# ranks own, and tiles dealt unevenly; without StarPU-MPI's cache a task receives each input.
run "4 ranks, each its own node, A transposed, uneven tiles" 4 plan STARPU_GEMM_SHARE_NODE=0 -- \
  "${sizes[@]}" -P 2 -Q 2 --transA T
run "3 ranks, each its own node, B transposed, no StarPU-MPI cache" 3 plan \
  STARPU_GEMM_SHARE_NODE=0 STARPU_MPI_CACHE=0 -- "${sizes[@]}" -P 3 -Q 1 --transB T
# The communication-avoiding schedule (--layers, compute/layers.h), each rank its own node:
# the partial C tiles go to C's owners through MPI with the A and B tiles, all of it the
# plan's bytes; beta = 0 reads no C (the check fills it with NaN); 4 layers of 2 x 1 ranks.
run "4 ranks as 2 layers (--layers 2)" 4 plan STARPU_GEMM_SHARE_NODE=0 -- "${sizes[@]}" \
  -P 2 -Q 2 --layers 2
run "4 ranks as 2 layers, z, op(A) conjugated, beta = 0" 4 plan STARPU_GEMM_SHARE_NODE=0 -- \
  "${sizes[@]}" -P 2 -Q 2 --layers 2 --prec z --transA C --beta 0
run "8 ranks (2x4) as 4 layers" 8 plan STARPU_GEMM_SHARE_NODE=0 -- -M 512 -N 640 -K 1024 \
  -t 128 -P 2 -Q 4 --layers 4
# 4 x 1 ranks, 2 x 2 tiles of C: the second layer's two ranks own no tile, yet run its tasks
# (they hung, never walking, before they were told to).
run "4 ranks as 2 layers, two of them owning nothing" 4 plan STARPU_GEMM_SHARE_NODE=0 -- \
  -M 256 -N 256 -K 1024 -t 128 -P 4 -Q 1 --transB T --layers 2
# Where node peers read each other's tiles in place, layers do not apply: one line, every
# rank fails.
if timeout -k 10 120 "${MPIRUN:-mpirun}" -np 4 -x STARPU_SILENT -x STARPU_NCUDA -x STARPU_HOME \
     "$driver" "${sizes[@]}" -P 2 -Q 2 --layers 2 --niter 1 --warmup 0 > "$out" 2> "$err"; then
  echo "FAIL --layers 2 with node sharing: the job succeeded"; failures=$((failures + 1))
elif [ "$(grep -c 'do not apply here: node peers' "$err")" = 1 ]; then
  echo "PASS --layers 2 with node sharing: $(grep 'do not apply' "$err")"
else
  echo "FAIL --layers 2 with node sharing: not one line saying why"; cat "$out" "$err"
  failures=$((failures + 1))
fi
# Each rank its own node: rank 0 inserts only the tasks it runs (a tile it only sends is
# posted, not a task), and registers only the tiles it uses, as many as the plan counts (at
# 6 x 6 x 7 tiles on 2 x 2: its A rows 21, B columns 21, C 9 = 51 of the 120).
if env STARPU_GEMM_SHARE_NODE=0 timeout -k 10 180 "${MPIRUN:-mpirun}" -np 4 -x STARPU_SILENT \
     -x STARPU_NCUDA -x STARPU_HOME -x STARPU_GEMM_SHARE_NODE "$driver" --niter 1 --warmup 0 \
     -M 768 -N 768 -K 896 -t 128 -P 2 -Q 2 > "$out" 2> "$err"; then
  line=$(grep "submission on rank 0:" "$out")
  planned=$(sed -n 's/.* \([0-9]*\) tile handles (.*/\1/p' "$out")
  read -r inserted run handles total < <(echo "$line" |
    sed -n 's/.*: \([0-9]*\) tasks inserted of the product.s [0-9]* (\([0-9]*\) run here).*; \([0-9]*\) tile handles of the \([0-9]*\)/\1 \2 \3 \4/p')
  # StarPU-MPI's sends in flight: the 2 other nodes of a rank's row and column of the 2 x 2
  # grid of nodes, at least 2 (runtime/node_conf.c; below, 6 nodes).
  sends=$(sed -n 's/^MPI: at most \([0-9]*\) tile sends in flight per rank.*/\1/p' "$out")
  if [ -n "${inserted:-}" ] && [ "$inserted" = "$run" ] && [ "$handles" = 51 ] &&
     [ "$planned" = 51 ] && [ "$total" = 120 ] && [ "$sends" = 2 ]; then
    echo "PASS each rank its own node: rank 0 inserts the $run tasks it runs, registers $handles of $total tiles (plan $planned); $sends sends in flight per rank"
  else
    echo "FAIL each rank its own node: '$line', plan's handles '$planned'"; cat "$out" "$err"
    failures=$((failures + 1))
  fi
else
  echo "FAIL each rank its own node, text output: the run failed"; cat "$out" "$err"
  failures=$((failures + 1))
fi
missing=/nonexistent-starpu-gemm-shm-$$
if run "4 ranks, STARPU_GEMM_SHM_DIR missing" 4 plan STARPU_GEMM_SHM_DIR="$missing" -- \
     "${sizes[@]}" -P 2 -Q 2; then
  notices=$(grep -c "could not share their tiles in $missing (STARPU_GEMM_SHM_DIR): No such file or directory" "$err")
  if [ "$notices" = 1 ]; then
    echo "PASS the missing folder: one notice naming the reason"
  else
    echo "FAIL the missing folder: $notices notice(s) naming the reason"; cat "$err"
    failures=$((failures + 1))
  fi
fi
# Segments a killed job left behind (distrib/node_share.c): the next job on the node removes
# those of processes that no longer exist, older than ten minutes; a live process's, and a
# recent one (a job starting beside it), stay.
shm=$(mktemp -d)
sleep 0 & dead=$!
wait $dead
touch -d '1 hour ago' "$shm/starpu_gemm.$dead.0" "$shm/starpu_gemm.$$.0"
touch "$shm/starpu_gemm.$dead.1"
if run "2 ranks, after a killed job's segments" 2 zero STARPU_GEMM_SHM_DIR="$shm" -- \
     "${sizes[@]}"; then
  left=$(cd "$shm" && ls | sort | tr '\n' ' ')
  kept=$(printf '%s\n' "starpu_gemm.$$.0" "starpu_gemm.$dead.1" | sort | tr '\n' ' ')
  if [ "$left" = "$kept" ]; then
    echo "PASS a killed job's old segment removed, a live process's and a recent one kept"
  else
    echo "FAIL segments left after the run: $left(expected $kept)"
    failures=$((failures + 1))
  fi
fi
rm -rf "$shm"

# 6 ranks, each its own node: a grid of nodes 2 x 3, a rank's row and column hold 3 other
# nodes, one send in flight for each (tests/simulate.sh checks that simulate.sh agrees).
if env STARPU_GEMM_SHARE_NODE=0 timeout -k 10 180 "${MPIRUN:-mpirun}" -np 6 --oversubscribe \
     -x STARPU_SILENT -x STARPU_NCUDA -x STARPU_HOME -x STARPU_GEMM_SHARE_NODE "$driver" \
     -M 256 -N 256 -K 256 -t 128 --niter 1 --warmup 0 > "$out" 2> "$err" &&
   grep -q "^MPI: at most 3 tile sends in flight per rank" "$out"; then
  echo "PASS 6 ranks, each its own node: 3 sends in flight per rank"
else
  echo "FAIL 6 ranks, each its own node: not 3 sends in flight per rank"; cat "$out" "$err"
  failures=$((failures + 1))
fi

# The network term (STARPU_GEMM_MPI_GBPS): the plan's MPI bytes per rank over the given rate,
# printed by the plan in seconds and against the runs; unknown (not printed) where a rank
# lacks it (the grid's smallest rate is taken, 0 when unset).
if env STARPU_GEMM_SHARE_NODE=0 STARPU_GEMM_MPI_GBPS=2 timeout -k 10 180 "${MPIRUN:-mpirun}" \
     -np 4 -x STARPU_SILENT -x STARPU_NCUDA -x STARPU_HOME -x STARPU_GEMM_SHARE_NODE \
     -x STARPU_GEMM_MPI_GBPS "$driver" "${sizes[@]}" -P 2 -Q 2 --niter 1 --warmup 0 \
     > "$out" 2> "$err" &&
   awk '/^plan: network term of this rank/ { s = $7; gb = $9; r = $15; d = s - gb / r
          ok = (r == 2 && gb > 0 && d * d < 1e-6 * s * s) }
        /^  network term .* the runs took/ { runs = 1 }
        END { exit !(ok && runs) }' "$out"; then
  echo "PASS STARPU_GEMM_MPI_GBPS=2: $(grep -h 'network term' "$out" | tr -s ' ' | paste -sd';')"
else
  echo "FAIL STARPU_GEMM_MPI_GBPS=2: no network term, or not the plan's bytes over 2 GB/s"
  cat "$out" "$err"; failures=$((failures + 1))
fi

# Settings that only some ranks have must not leave ranks in different collectives at start
# (the sends in flight are chosen from the job's nodes, collectively): each job ends.
for setting in STARPU_GEMM_SHARE_NODE=0 STARPU_MPI_NDETACHED_SEND=3 STARPU_GEMM_MPI_GBPS=2; do
  if timeout -k 10 120 "${MPIRUN:-mpirun}" -np 4 -x STARPU_SILENT -x STARPU_NCUDA -x STARPU_HOME \
       bash -c 'if [ "${OMPI_COMM_WORLD_RANK:-0}" = 2 ]; then export "$0"; fi; exec "$@"' \
       "$setting" "$driver" "${sizes[@]}" -P 2 -Q 2 --niter 1 --warmup 0 --check \
       > "$out" 2> "$err" && grep -q "check: PASSED" "$out" "$err" &&
     ! grep -q "network term" "$out"; then
    echo "PASS $setting on rank 2 only: the job ran and its check passed"
  else
    echo "FAIL $setting on rank 2 only: the job failed or hung"; cat "$out" "$err"
    failures=$((failures + 1))
  fi
done
exit $((failures > 0))
