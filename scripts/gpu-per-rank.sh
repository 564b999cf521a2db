#!/usr/bin/env bash
# mpirun ... scripts/gpu-per-rank.sh PROGRAM [ARGS...]: gives each rank of a node its own GPU,
# the one numbered by its node-local rank (modulo the GPUs present), as StarPU's only CUDA
# worker: STARPU_NCUDA=1, STARPU_WORKERS_CUDAID=<local rank>. Every rank still sees every GPU
# (no CUDA_VISIBLE_DEVICES), so the CUDA runtime's view of the node is the same on all ranks.
set -eu
local_rank=${OMPI_COMM_WORLD_LOCAL_RANK:-${MPI_LOCALRANKID:-${SLURM_LOCALID:-0}}}
gpus=${SG_GPUS_PER_NODE:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)}
[ "${gpus:-0}" -gt 0 ] || { echo "gpu-per-rank.sh: no GPU on $(hostname)" >&2; exit 2; }
export STARPU_NCUDA=1 STARPU_WORKERS_CUDAID=$((local_rank % gpus))
exec "$@"
