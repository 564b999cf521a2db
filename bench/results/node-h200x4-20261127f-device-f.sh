#!/usr/bin/env bash
# Device call F: the GPU tests on the merged code (precision table entry points, node sharing,
# GPUs owning their C tiles).
set -u
top=$PWD
. bundle/env.sh
export STARPU_HOSTNAME=gpu-node NCCL_NVLS_ENABLE=0
sg=$top/bundle/starpu-gemm
top_srcdir=$sg top_builddir=$sg/build GPU_SANITIZER=${GPU_SANITIZER:-1} timeout 330 $sg/tests/gpu.sh > $OUT/gpu-tests.log 2>&1
echo "gpu tests: exit $?, $(tail -1 $OUT/gpu-tests.log), $SECONDS s"
grep -E "^FAIL" $OUT/gpu-tests.log | head
