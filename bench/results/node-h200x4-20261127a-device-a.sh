#!/usr/bin/env bash
# Device call A: machine facts, the plans of the old (d6b2c27) and new drivers, the GPU tests,
# and node sharing on GPUs at n = 16384.
set -u
top=$PWD
. bundle/env.sh
export STARPU_HOSTNAME=gpu-node NCCL_NVLS_ENABLE=0
sg=$top/bundle/starpu-gemm
new=$sg/build/drivers/starpu_gemm
old=$top/.old/starpu_gemm
mpi=(mpirun --allow-run-as-root --bind-to none -x LD_LIBRARY_PATH -x STARPU_HOME -x STARPU_HOSTNAME -x STARPU_SILENT)
{
  nvidia-smi --query-gpu=index,name,memory.total --format=csv; nvidia-smi topo -m
  echo "cores $(nproc)"; grep -E 'MemTotal|MemAvailable' /proc/meminfo; df -h /dev/shm /tmp
  mpirun --version | head -1; cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null
} > $OUT/info.txt 2>&1
echo "info done $SECONDS s"
plans() { # binary label
  local b=$1
  for g in 1 4; do
    for args in "--sizes 8192,16384,32768,49152,65536" "--prec b --sizes 32768,65536" "--prec s --math tf32 --sizes 49152"; do
      echo "== G=$g $args"
      STARPU_NCUDA=$g timeout 120 "${mpi[@]}" -x STARPU_NCUDA -np 1 $b --plan $args 2>&1 | grep "^plan\|^problem\|error"
    done
    echo "== G=$g limit 8 GiB"
    STARPU_NCUDA=$g STARPU_LIMIT_CUDA_MEM=8192 timeout 120 "${mpi[@]}" -x STARPU_NCUDA -x STARPU_LIMIT_CUDA_MEM -np 1 $b --plan --sizes 32768 2>&1 | grep "^plan\|^problem\|error"
  done
}
LD_LIBRARY_PATH=$top/.old:$LD_LIBRARY_PATH plans $old > $OUT/plans-old.txt 2>&1
plans $new > $OUT/plans-new.txt 2>&1
echo "plans done $SECONDS s"
# The choices and bytes, without the lines the new driver words differently.
key() { grep -E "^plan: b=|^plan: peak|^problem|^==|host->GPU [0-9.]+ GB," "$1" | sed -E 's/, MPI received.*//; s/ \(from other nodes\).*//'; }
diff <(key $OUT/plans-old.txt) <(key $OUT/plans-new.txt) > $OUT/plans-diff.txt && echo "PLANS SAME ($(grep -c '^plan: b=' $OUT/plans-new.txt) plans)" || echo "PLANS DIFFER"
top_srcdir=$sg top_builddir=$sg/build GPU_SANITIZER=${GPU_SANITIZER:-1} timeout 330 $sg/tests/gpu.sh > $OUT/gpu-tests.log 2>&1
echo "gpu tests: exit $?, $(tail -1 $OUT/gpu-tests.log), $SECONDS s"
share() { # label ranks gpus-per-rank extra-env...
  local label=$1 np=$2 gpr=$3; shift 3
  echo "== $label"
  env SG_GPR=$gpr "$@" timeout 150 "${mpi[@]}" -x SG_GPR -x STARPU_GEMM_SHARE_NODE -np $np $top/.scratch/gpus-per-rank.sh $new -M 16384 -N 16384 -K 16384 --check --niter 2 --warmup 1 2>&1 | grep -E "iteration|MPI  |host -> GPU|plan: pred|notice|error|Error|workers"
}
{
  share "1x4 n=16384" 1 4
  share "4x1 n=16384 shared" 4 1
  share "4x1 n=16384 own nodes" 4 1 STARPU_GEMM_SHARE_NODE=0
  share "2x2 n=16384 shared" 2 2
} > $OUT/share.txt 2>&1
echo "share done $SECONDS s"; cat $OUT/share.txt | grep -E "==|iteration|MPI  "
