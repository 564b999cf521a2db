#!/usr/bin/env bash
# Device call X2 (a 4-GPU node), main at cf9e380 against the libraries of eaade7a (oldlib/,
# the same code but where the copiers run): the doors' copiers now run on the cores StarPU's
# threads leave. Before, 64 copiers floated over all 64 cores, and each GPU's CUDA worker
# (bound to cores 0-3) shared its core with a copier busy for the whole product; with relays
# the one call waited less for staged tiles (0.31-0.35 s against 0.41-0.56) but its product
# stayed at 1.29 s against the driver's 1.19 (call D7): what holds it is not the copies' rate.
# n = 49152, alternated old / new, each after one untimed call:
# 1. the driver 1 rank x 4 GPUs (3 checked runs): 1.17-1.23 s.
# 2. the one call on malloc'ed arrays under the driver (--layout lapack, 3 calls): old 0.83-0.87
#    x the driver (D7), new 0.87-0.93 x (product 1.29 -> 1.20-1.25 s).
# 3. the ScaLAPACK drop-in, 4 ranks x 1 GPU, MB = NB = 4096 (3 calls): old 0.76-0.83 x, new
#    0.80-0.88 x (each rank's CUDA worker and StarPU-MPI's thread share its 16 cores with 16
#    copiers before, 13 copiers on the other 13 cores after).
# Result (a 4 x H200 node, 64 cores, one NUMA node, though nvidia-h100-x4 was asked; log
# node-h200x4-20261128-x2.log): the driver 1.2353 / 1.1627 / 1.1602 s (checked). The one call,
# old: 1.352 / 1.439 / 1.336 s, 0.860 x the driver (medians), 64 copier threads, products
# 1.27-1.34 s; new: 1.296 / 1.278 / 1.280 s, **0.908 x**, 58 copier threads, products 1.19-1.20
# s, waiting for staged tiles 0.50 s in each (old 0.35-0.69). The drop-in, old: 1.449 / 1.385 /
# 1.412 s, 0.823 x; new: 1.284 / 1.288 / 1.275 s, **0.906 x**, its products beside the moves
# 1.22-1.24 s against 1.33-1.43 (its verbose line prints the configured 16 copiers; 13 ran).
# Both predictions held, at their upper ends: the products now run at the driver's pace
# though the walk still waits as long for staged tiles; what held them was the GPUs' workers'
# share of their cores.
set -u
. bundle/env.sh
export STARPU_HOSTNAME=gpu-node NCCL_NVLS_ENABLE=0
sg=bundle/starpu-gemm
bld=$sg/build
drv=$bld/drivers/starpu_gemm
old=$PWD/.scratch/oldlib new=$sg/lib
nvidia-smi -L | head -4; nproc; lscpu | grep -i "numa node(s)"
mpi=(mpirun --allow-run-as-root --bind-to none -x LD_LIBRARY_PATH -x STARPU_HOME -x STARPU_HOSTNAME -x STARPU_SILENT=1)
show() { grep -E "^iteration|^scalapack,|^starpu_gemm: dgemm|beside it|rror|Killed" | sed -E 's/ \(setup/\n    (setup/; s/ \(.* per GPU\)//' | cut -c1-330; }
echo "== driver 1x4 ($SECONDS s)"
STARPU_NCUDA=4 timeout 100 "${mpi[@]}" -x STARPU_NCUDA -np 1 $drv --sizes 49152 --check --niter 3 --warmup 1 2>&1 | show
for lib in old new; do
  [ $SECONDS -gt 330 ] && { echo "skipped one call $lib: $SECONDS s"; continue; }
  echo "== one call --layout lapack, $lib libraries ($SECONDS s)"
  L=${!lib}
  LD_LIBRARY_PATH=$L:$LD_LIBRARY_PATH STARPU_NCUDA=4 timeout 110 "${mpi[@]}" -x STARPU_NCUDA -x STARPU_GEMM_VERBOSE=1 -np 1 $drv --sizes 49152 --layout lapack --niter 3 --warmup 1 2>&1 | show
done
for lib in old new; do
  [ $SECONDS -gt 480 ] && { echo "skipped drop-in $lib: $SECONDS s"; continue; }
  echo "== ScaLAPACK drop-in 4 ranks x 1 GPU, nb 4096, $lib libraries ($SECONDS s)"
  L=${!lib}
  LD_LIBRARY_PATH=$L:$LD_LIBRARY_PATH SG_GPUS_PER_NODE=4 timeout $((590 - SECONDS)) "${mpi[@]}" -x SG_GPUS_PER_NODE -x LD_PRELOAD=$L/libstarpu_gemm_scalapack.so -x STARPU_GEMM_VERBOSE=1 -np 4 \
    $sg/scripts/gpu-per-rank.sh $bld/bench/scalapack_pdgemm -n 49152 -P 2 -Q 2 --nb 4096 --niter 3 --warmup 1 2>&1 | show
done
echo "done $SECONDS s"
