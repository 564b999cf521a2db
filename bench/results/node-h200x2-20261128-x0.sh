#!/usr/bin/env bash
# Device call X0 (a 2-GPU node, nvidia-h200-x2 or h100-x2: no 4-GPU kind lent at 04:45), main at
# eaade7a. Does a node's DMA act as one pool (the model of docs/node-sharing.md, from E4's
# both-node row: BF16 1x4 at 0.93 of both ways' bytes over it) on another node?
# 1. cublas_peak --link 2048 --gpus 2 (h2d-node, d2h-node, both-node) and one GPU alone, the
#    BF16 ceiling at n = 65536.
# 2. BF16 1x2 n = 65536, relays on (default) and off, 3 checked runs each. Bytes: relays on
#    51.6 GB both ways (A and B once, C up and down in FP32), off 60.1 GB (A twice, 1 x 2 grid).
#    Prediction: time = max(compute at 2 x the ceiling, ~0.40 s on H200, bytes / pool) x
#    1.03-1.12, pool = 2 x 2 x both-node; relays off slower than on by about the bytes' ratio
#    (1.16) where the pool bounds.
# 3. BF16 1x2 --c-home (3 runs): C's results down, the last shell's C up. Prediction: no faster
#    than relays on where the host's memory is the pool (the adds' traffic); faster only if not.
# 4. tests/gpu.sh's "memory pressure, C's loads spread" step (never run on a GPU): PASSED.
# 5. bench/pin_rate -n 4096 (host memcpy by thread count).
# Result (2 x H200, 32 cores, one NUMA node; log -x0.log, pin_rate rows pins-h200x2-20261128-x0.csv):
# 1. one GPU alone 55.4 / 55.3 GB/s, both ways 49.3 each; both GPUs at once h2d 55.1, d2h 55.2,
#    both ways 36.5 each per GPU: the pool both ways is 146 GB/s. BF16 ceiling 728.5 TFLOP/s
#    (median), so compute at 2 x the ceiling is 0.386 s.
# 2. relays on 0.557 / 0.540 / 0.535 s, off 0.536 / 0.537 / 0.535 s (checked): alike, where
#    the pool would put them at 0.353 and 0.412 s. So here the pool does not bound BF16 (the
#    prediction failed: relays off were not slower); the run is 0.71 of compute, where 4 x H100
#    was 0.93 of its pool. What costs the 2-GPU run is not the node's total but each GPU's own
#    link both ways (h2d 17.2 GB, d2h 8.6 GB per GPU at 36.5 GB/s each way while both copy:
#    0.47 s if both ways ran the whole time) and the walk's first shells.
# 3. C at home 1.668 / 1.267 / 1.234 s: 2.3 x slower (the host's adds of 9.7 GB of FP32 C on
#    one CPU worker and its helpers trail two GPUs), as predicted "no faster".
# 4. PASSED (regime c1, C's loads spread over 8 chunks, rc 0).
# 5. memcpy 1 / 2 / 4 / 8 / 16 / 32 threads: 10.3 / 19.6 / 34.8 / 42.1 / 39.7 / 55.9 GB/s.
set -u
. bundle/env.sh
export STARPU_HOSTNAME=gpu-node NCCL_NVLS_ENABLE=0
bld=bundle/starpu-gemm/build
drv=$bld/drivers/starpu_gemm
mpi=(mpirun --allow-run-as-root --bind-to none -x LD_LIBRARY_PATH -x STARPU_HOME -x STARPU_HOSTNAME -x STARPU_SILENT)
clean() { sed 's/ (.* per GPU)//; s/, check: PASSED.*/, PASSED/'; }
nvidia-smi -L; nproc; lscpu | grep -i "numa node(s)"
echo "== links ($SECONDS s)"
$bld/bench/cublas_peak --link 2048 --niter 5 2>&1 | grep -vE "^system," | tail -3
$bld/bench/cublas_peak --link 2048 --gpus 2 --niter 5 2>&1 | grep -vE "^system," | tail -3
echo "== BF16 ceiling n=65536 ($SECONDS s)"
timeout 60 $bld/bench/cublas_peak --prec b -n 65536 --niter 3 --warmup 1 2>&1 | tail -3
for peers in on off; do
  echo "== bf16 1x2 n=65536 --gpu-peers $peers ($SECONDS s)"
  STARPU_NCUDA=2 timeout 120 "${mpi[@]}" -x STARPU_NCUDA -np 1 $drv --sizes 65536 --prec b --gpu-peers $peers --check --niter 3 --warmup 1 2>&1 | grep -E "^plan: (pred|b=)|^iteration|GPU|rror" | clean
done
echo "== bf16 1x2 n=65536 --c-home ($SECONDS s)"
STARPU_NCUDA=2 timeout 120 "${mpi[@]}" -x STARPU_NCUDA -np 1 $drv --sizes 65536 --prec b --c-home --check --niter 3 --warmup 1 2>&1 | grep -E "^plan: pred|^iteration|GPU|rror" | clean
echo "== gpu.sh step: memory pressure, C's loads spread ($SECONDS s)"
STARPU_NCUDA=2 STARPU_NCPU=0 STARPU_LIMIT_CUDA_MEM=512 timeout 120 "${mpi[@]}" -x STARPU_NCUDA -x STARPU_NCPU -x STARPU_LIMIT_CUDA_MEM -np 1 $drv -M 8192 -N 8192 -K 8192 -t 1024 --c-spread on --niter 1 --warmup 0 --check 2>&1 | grep -E "^plan: (b=|C's)|^iteration|rror|FAIL" | clean
echo "rc=${PIPESTATUS[0]}"
echo "== pin_rate ($SECONDS s)"
[ $SECONDS -lt 450 ] && timeout $((560 - SECONDS)) $bld/bench/pin_rate -n 4096 > "$OUT/pins.csv" 2>&1
grep -i memcpy "$OUT/pins.csv" | head -12
echo "done $SECONDS s"
