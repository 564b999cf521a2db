#!/bin/bash
# 36 layered products on this 2-core VM (CPU workers, each rank its own node), to look for a
# hang after one run of 8 ranks timed out once under load (2026-11-27, the code before the
# review of ef602db): "i np=... rc= checks passed". All 36 ended, rc=0, 2 checks passed each.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 STARPU_NCPU=1 STARPU_GEMM_SHARE_NODE=0 STARPU_SILENT=1
cd /work/main/build-layers
for i in $(seq 1 12); do
  for args in "-P 2 -Q 4 --layers 4" "-P 2 -Q 2 --layers 2 --beta 0" "-P 4 -Q 2 --layers 2 --prec z"; do
    np=$(( $(echo $args | awk '{print $2*$4}') ))
    timeout 90 mpirun -np $np --oversubscribe drivers/starpu_gemm -M 1024 -N 1024 -K 1024 -t 128 $args --check --niter 2 --warmup 0 > /tmp/hl.out 2>&1
    rc=$?
    echo "$i np=$np $args rc=$rc $(grep -c 'check: PASSED' /tmp/hl.out)"
    [ $rc -ne 0 ] && cp /tmp/hl.out /tmp/hl.fail.$i.$np
  done
done
