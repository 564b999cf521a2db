#!/usr/bin/env bash
# Device call I (issues 27, 29): (1) the host->GPU rate when 1, 2 or 4 GPUs load at once
# (bench/cublas_peak --link on each GPU, concurrently): is 1 rank x 4 GPUs at n = 32768 short
# of host bandwidth in its first half? (2) that case with relays off and on, timelines;
# (3) the door on one GPU (issue 29: still >= 0.9 there with the new copier count).
set -u
. bundle/env.sh
export STARPU_HOSTNAME=gpu-node NCCL_NVLS_ENABLE=0
sg=bundle/starpu-gemm/build
for g in 1 2 4; do
  for ((d = 0; d < g; d++)); do
    "$sg/bench/cublas_peak" --link 4096 --niter 20 --device $d > "$OUT/link-$g-$d.txt" 2>&1 &
  done
  wait
  echo "== $g GPU(s) loading at once:"; grep -h "RESULT\|GB/s" "$OUT"/link-$g-*.txt | head -8
done
mpi=(mpirun --allow-run-as-root --bind-to none -x LD_LIBRARY_PATH -x STARPU_HOME -x STARPU_HOSTNAME -x STARPU_SILENT -x STARPU_NCUDA)
export STARPU_NCUDA=4
for peers in off on; do
  echo "== 1x4 n=32768 --gpu-peers $peers ($SECONDS s)"
  timeout 150 "${mpi[@]}" -np 1 "$sg/drivers/starpu_gemm" --check --sizes 32768 --niter 3 --warmup 1 --gpu-peers $peers 2>&1 |
    grep -E "^iteration|timeline|host -> GPU|GPU <->|plan: predicted"
done
unset STARPU_NCUDA
echo "== door on one GPU ($SECONDS s)"
BUNDLE=bundle OUT="$OUT/arr1" STARPU_GEMM_VERBOSE=1 N_LIST=32768 CASES="driver gemm-pageable" ARRAYS_GPUS=1 \
  timeout 240 scripts/device-session.sh arrays > "$OUT/arrays-1gpu.log" 2>&1
tr -d '\000' < "$OUT/arrays-1gpu.log" | grep -aE "^32768|pageable arrays / driver" | head -4
echo "done $SECONDS s"
