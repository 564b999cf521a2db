#!/usr/bin/env bash
# Device call Z1 (4 x H200), 2026-11-27 evening:
# 1. issue 29, the one call and the preload on all 4 GPUs, n = 49152, the staged C tiles now
#    copied back in slices (each tile shared by all copiers, not one copier a tile). Call W:
#    one call 1.386-1.399 s, of it 0.127-0.150 s after the product (14 C tiles each on one
#    copier), 0.839 x the driver; preload 0.820 x (0.048-0.070 s after). Prediction: the
#    one call's tail 0.03-0.06 s, the call 1.30-1.34 s, 0.87-0.90 x; the preload 0.82-0.84 x;
# 2. issue 27, BF16 n = 65536, 1 rank x 4 GPUs, the default against beta = 0 (no C loaded):
#    the simulation gives 0.394 -> 0.280 s (relays) ; prediction: default 0.34-0.36 s,
#    beta = 0 0.27-0.30 s (if so, C's loads are the gap and loading C late is worth building);
# 3. issue 27, 2 ranks x 2 GPUs each its own node, n = 65536, the MPI rate beside: a second
#    call's figure (call Y: 0.977 x at 3.085 GB/s). Prediction 0.85-0.98 x;
# 4. the one call's GPU tests (tests/gpu.sh part 5: the staging changed).
set -u
. bundle/env.sh
export STARPU_HOSTNAME=gpu-node NCCL_NVLS_ENABLE=0
bld=bundle/starpu-gemm/build
drv=$bld/drivers/starpu_gemm
mpi=(mpirun --allow-run-as-root --bind-to none -x LD_LIBRARY_PATH -x STARPU_HOME -x STARPU_HOSTNAME -x STARPU_SILENT)
clean() { sed 's/ (.* per GPU)//; s/, check: PASSED.*/, PASSED/'; }
nvidia-smi -L | head -1
echo "== arrays kit, all GPUs, n=49152 ($SECONDS s)"
BUNDLE=bundle OUT=$OUT/arrays STARPU_GEMM_VERBOSE=1 TAIL_LINES=20 NITER=3 N_LIST=49152 PRELOAD_N=49152 \
  CASES="driver gemm-pageable preload" ARRAYS_GPUS=all timeout 200 scripts/device-session.sh arrays 2>&1 | tail -20
for beta in 1 0; do
  echo "== bf16 1x4 n=65536 beta=$beta ($SECONDS s)"
  STARPU_NCUDA=4 timeout 80 "${mpi[@]}" -x STARPU_NCUDA -np 1 $drv --sizes 65536 --prec b --beta $beta --niter 3 --warmup 1 2>&1 |
    grep -E "^plan: b=|^iteration|rror" | clean
done
echo "== mpi_rate 2 ranks ($SECONDS s)"
timeout 40 "${mpi[@]}" -np 2 $bld/bench/mpi_rate --rounds 5 2>&1 | grep median
if [ $SECONDS -lt 330 ]; then
  echo "== 2x2 own node n=65536 ($SECONDS s)"
  SG_GPUS_PER_NODE=4 SG_GPUS_PER_RANK=2 STARPU_GEMM_SHARE_NODE=0 timeout $((470 - SECONDS)) "${mpi[@]}" \
    -x SG_GPUS_PER_NODE -x SG_GPUS_PER_RANK -x STARPU_GEMM_SHARE_NODE -np 2 \
    bundle/starpu-gemm/scripts/gpu-per-rank.sh $drv --sizes 65536 -P 1 -Q 2 --check --niter 3 --warmup 1 2>&1 | grep -E "^MPI|^iteration|rror" | clean
fi
left=$((585 - SECONDS))
echo "== the one call's GPU tests ($SECONDS s, $left s left)"
BUNDLE=bundle OUT=$OUT/doors timeout $left scripts/device-session.sh doors > "$OUT/doors-tests.log" 2>&1
echo "doors tests rc=$? at $SECONDS s: $(grep -E 'failure|FAIL' "$OUT/doors-tests.log" | tail -3)"
echo "done $SECONDS s"
