#!/usr/bin/env bash
# Device call S (4 x H200): (1) the GPU tests of the one call on host arrays (tests/gpu.sh part
# 5) with beta*C added on the way back (the new default); (2) the one call on 4 GPUs, n = 49152
# (driver --layout lapack, checked), by chunk depth and block: with C no longer copied in, only
# A and B are staged (38.7 GB at ~44 GB/s, 0.86 s, against 1.19 s of GEMMs); one chunk (d = 12)
# front-loads them (each C tile's 12 updates need its whole row of A and column of B), chunks of
# d = 3 ask for them at the GEMMs' average rate (~32 GB/s). Prediction: d = 3 cuts the wait for
# staged tiles from ~0.4 s to ~0.15 s and the call to ~1.4 s, unless C's adds all at the end
# (every tile's last update in the last chunk: 19 GB read twice, written once) cost it back;
# blocks of 6 x 6 tiles send C back block by block.
set -u
echo "== doors GPU tests ($SECONDS s)"
BUNDLE=bundle OUT=$OUT/doors TAIL_LINES=6 scripts/device-session.sh doors 2>&1 | tail -6
. bundle/env.sh
export STARPU_HOSTNAME=gpu-node STARPU_GEMM_VERBOSE=1
bld=bundle/starpu-gemm/build
for v in "" "-d 3" "-d 6" "-b 6 -c 6 -d 3" "-b 6 -c 12 -d 4"; do
  [ $SECONDS -gt 500 ] && { echo "skipped '$v': $SECONDS s"; continue; }
  echo "== lapack 4 GPUs n=49152 [$v] ($SECONDS s)"
  STARPU_NCUDA=4 timeout 100 mpirun --allow-run-as-root --bind-to none -x LD_LIBRARY_PATH -x STARPU_HOME \
    -x STARPU_HOSTNAME -x STARPU_SILENT -x STARPU_NCUDA -x STARPU_GEMM_VERBOSE -np 1 $bld/drivers/starpu_gemm \
    --layout lapack --sizes 49152 --check --niter 3 --warmup 1 $v 2>&1 |
    grep -E "^plan: b=|^iteration|starpu_gemm: dgemm|rror" | sed 's/ of it pinning 0.000;//; s/tile 4096, 4 CUDA worker(s), staged through pinned tiles (64 copier threads), //'
done
echo "done $SECONDS s"
