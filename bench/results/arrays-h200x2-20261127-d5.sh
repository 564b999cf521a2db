#!/usr/bin/env bash
# Device call (2 GPUs), 2026-11-27 night, after call D4 (the preload without relays still 2.69-2.83
# s a call against the one call's 2.36-2.40 under the driver, n = 49152: its copiers fall behind,
# 70-84 C tiles back during the product against 143, 0.6 s waiting for staged tiles against 0.3,
# 0.2-0.25 s after the product against 0.02). Which of the two processes' differences is it?
#  a. dgemm_app under the preload launched as the driver is (mpirun -np 1 --bind-to none)
#  b. dgemm_app under the preload with OPENBLAS_NUM_THREADS=1 (the system BLAS it links starts
#     a thread per core)
#  c. the driver's one call without mpirun
# Prediction (before the call): (b) brings the preload to the one call's 2.35-2.40 s (OpenBLAS's
# threads wake with the process and take the copiers' cores); (a) and (c) change nothing.
# Result (log -d5.log): the prediction failed: OPENBLAS_NUM_THREADS=1 2.742 / 2.749 s, the
# preload under mpirun 2.762 / 2.791, the plain preload 2.715 / 2.725; the driver's one call
# without mpirun 2.387 / 2.369. Not the process: the plan. Under the driver the one call follows
# the driver's plan, which takes the GPU chunk rule (d = 3 at Kt = 12); the one call's own plan
# (the preload's) excepted staged arrays and took d = 12, and its copiers fell behind. Now the
# rule covers staged arrays too (compute/plan.c); call D6 checks it.
set -u
. bundle/env.sh
export STARPU_HOSTNAME=gpu-node NCCL_NVLS_ENABLE=0
sg=bundle/starpu-gemm
drv=$sg/build/drivers/starpu_gemm
app=$sg/build/bench/dgemm_app
pre=$sg/lib/libstarpu_gemm_blas.so
ldd $app | grep -i blas
show() { grep -E "^dgemm_app,|^iteration|^starpu_gemm: dgemm" | sed -E 's/ \(setup/\n    (setup/' | cut -c1-300; }
echo "== b. preload, OPENBLAS_NUM_THREADS=1 ($SECONDS s)"
OPENBLAS_NUM_THREADS=1 STARPU_GEMM_VERBOSE=1 STARPU_SILENT=1 LD_PRELOAD=$pre STARPU_GEMM_BLAS_THRESHOLD=1 \
  timeout 150 $app -n 49152 --niter 2 --warmup 1 2>&1 | show
echo "== a. preload under mpirun ($SECONDS s)"
timeout 150 mpirun --allow-run-as-root --bind-to none -np 1 -x LD_LIBRARY_PATH -x STARPU_HOSTNAME \
  -x STARPU_GEMM_VERBOSE=1 -x STARPU_SILENT=1 -x LD_PRELOAD=$pre -x STARPU_GEMM_BLAS_THRESHOLD=1 \
  $app -n 49152 --niter 2 --warmup 1 2>&1 | show
echo "== c. one call without mpirun ($SECONDS s)"
STARPU_GEMM_VERBOSE=1 STARPU_SILENT=1 timeout 150 $drv --sizes 49152 --layout lapack --niter 2 --warmup 1 2>&1 | show
echo "== plain preload again ($SECONDS s)"
STARPU_GEMM_VERBOSE=1 STARPU_SILENT=1 LD_PRELOAD=$pre STARPU_GEMM_BLAS_THRESHOLD=1 \
  timeout 150 $app -n 49152 --niter 2 --warmup 1 2>&1 | show
echo "done $SECONDS s"
