#!/usr/bin/env bash
# Device call T (2-GPU node; 4-GPU kinds were not lent): 2 ranks x 1 GPU, each rank its own node, n = 32768, tiles sent
# with StarPU-MPI's detached isend (today) or issend (SG_ISSEND=1, an experiment's switch): a
# tile whose send arrives before its receive is posted goes, with isend, into an early-data
# buffer StarPU-MPI allocates (plain malloc: faulted in by the receive) and is copied again
# into the tile; with issend the receive goes straight into the tile once posted. Prediction:
# issend 5-15% faster if early data is frequent (the simulation, which charges neither the
# faults nor the copy, has issend 13% slower: the transfer then waits for the receiver).
set -u
. bundle/env.sh
export STARPU_HOSTNAME=gpu-node
bld=bundle/starpu-gemm/build
mpi=(mpirun --allow-run-as-root --bind-to none -x LD_LIBRARY_PATH -x STARPU_HOME -x STARPU_HOSTNAME -x STARPU_SILENT)
timeout 60 "${mpi[@]}" -np 2 $bld/bench/mpi_rate --rounds 5 2>&1 | grep mpi_rate_median
for v in 0 1 0 1; do
  [ $SECONDS -gt 330 ] && { echo "skipped SG_ISSEND=$v: $SECONDS s"; continue; }
  echo "== 2x2 own node n=32768 SG_ISSEND=$v ($SECONDS s)"
  SG_ISSEND=$v SG_GPUS_PER_NODE=2 SG_GPUS_PER_RANK=1 STARPU_GEMM_SHARE_NODE=0 timeout 80 "${mpi[@]}" \
    -x SG_ISSEND -x SG_GPUS_PER_NODE -x SG_GPUS_PER_RANK -x STARPU_GEMM_SHARE_NODE -np 2 \
    bundle/starpu-gemm/scripts/gpu-per-rank.sh $bld/drivers/starpu_gemm --sizes 32768 -P 1 -Q 2 \
    --check --niter 4 --warmup 1 2>&1 | grep -E "^iteration|MPI  |rror" | sed 's/ (.* per GPU)//; s/, check: PASSED.*//'
done
echo "done $SECONDS s"
