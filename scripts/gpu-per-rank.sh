#!/usr/bin/env bash
# mpirun ... scripts/gpu-per-rank.sh PROGRAM [ARGS...]: gives each rank of a node its own GPUs
# as StarPU's CUDA workers. With SG_GPUS_PER_RANK=G [1], node-local rank r gets the G GPUs
# r*G ... r*G+G-1 (modulo the GPUs present): STARPU_NCUDA=G and
# STARPU_WORKERS_CUDAID="r*G ... r*G+G-1", space-separated as StarPU's documentation writes
# it (STARPU_WORKERS_CUDAID="1 3"). Every rank still sees every GPU (no CUDA_VISIBLE_DEVICES),
# so the CUDA runtime's view of the node is the same on all ranks.
set -eu
local_rank=${OMPI_COMM_WORLD_LOCAL_RANK:-${MPI_LOCALRANKID:-${SLURM_LOCALID:-0}}}
gpus=${SG_GPUS_PER_NODE:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)}
[ "${gpus:-0}" -gt 0 ] || { echo "gpu-per-rank.sh: no GPU on $(hostname)" >&2; exit 2; }
per_rank=${SG_GPUS_PER_RANK:-1}
case $per_rank in ''|*[!0-9]*|0)
  echo "gpu-per-rank.sh: SG_GPUS_PER_RANK must be a positive integer, not '$per_rank'" >&2
  exit 2 ;;
esac
[ "$per_rank" -le "$gpus" ] || {
  echo "gpu-per-rank.sh: SG_GPUS_PER_RANK=$per_rank, but $(hostname) has $gpus GPU(s)" >&2
  exit 2
}
ids=()
for ((g = 0; g < per_rank; g++)); do ids+=($(((local_rank * per_rank + g) % gpus))); done
export STARPU_NCUDA=$per_rank STARPU_WORKERS_CUDAID="${ids[*]}"
exec "$@"
