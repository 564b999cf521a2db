#!/usr/bin/env bash
# The two same-machine runs after the kit (node-h200x4-20261127g-kit.*, which ran with relays on
# for DGEMM, the default then): the same cases with --gpu-peers off, on the same warm 4 x H200
# node; their CSV rows, labelled, are node-h200x4-20261127g-relays-off.csv.
. bundle/env.sh; export STARPU_HOSTNAME=gpu-node STARPU_NCUDA=4
mpirun --allow-run-as-root --bind-to none -x LD_LIBRARY_PATH -x STARPU_HOME -x STARPU_HOSTNAME -x STARPU_NCUDA -np 1 \
  bundle/starpu-gemm/build/drivers/starpu_gemm --sizes 65536 --niter 3 --warmup 1 --gpu-peers off --csv --check
unset STARPU_NCUDA; export SG_GPUS_PER_NODE=4 SG_GPUS_PER_RANK=2
mpirun --allow-run-as-root --bind-to none -x LD_LIBRARY_PATH -x STARPU_HOME -x STARPU_HOSTNAME -x SG_GPUS_PER_NODE -x SG_GPUS_PER_RANK -np 2 \
  bundle/starpu-gemm/scripts/gpu-per-rank.sh bundle/starpu-gemm/build/drivers/starpu_gemm --sizes 65536 --niter 2 --warmup 1 --gpu-peers off --csv --check
