#!/usr/bin/env bash
# rank r of a node drives GPUs r*G .. r*G+G-1 (G = SG_GPR), as StarPU's CUDA workers.
lr=${OMPI_COMM_WORLD_LOCAL_RANK:-0}; g=${SG_GPR:-1}
ids=""; for ((i = 0; i < g; i++)); do ids="$ids $((lr * g + i))"; done
export STARPU_NCUDA=$g STARPU_WORKERS_CUDAID="${ids# }"
exec "$@"
