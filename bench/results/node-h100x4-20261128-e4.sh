#!/usr/bin/env bash
# Device call E4 (4 x H100, nvidia-h100-x4), main with the links' concurrent rate in the kit:
# 1. issue 27's kit: cuBLAS peak, the links alone and all four at once, DGEMM 1x4 and 4x1 at
#    n = 32768 (C's loads spread by default), BF16 1x4 at n = 65536 with its BF16 ceiling.
#    Prediction: 1x4 and 4x1 0.95-1.00 x 4 x peak (E2/E3: 0.339 / 0.336 s); each link while all
#    four copy: 28-40 GB/s host->GPU (the BF16 timeline of E1 puts the four at 113-119 GB/s);
#    BF16 0.55-0.65 x its four-link roofline and 0.80-0.95 x the roofline at the links'
#    concurrent rate.
# 2. if time is left, issue 29's ScaLAPACK line as a kit run (bench/arrays.sh: driver,
#    scalapack-ranks-4096 and -256 at n = 49152). Prediction: as E2, 0.80-0.84 x.
set -u
export NCCL_NVLS_ENABLE=0
NODE_BUDGET_S=250 BUNDLE=bundle OUT=$OUT/node N_LIST=32768 N_BIG=65536 CASES="cublas-peak link 1x4 4x1 bf16-1x4" scripts/device-session.sh node
echo "== arrays ($SECONDS s)"
if [ $SECONDS -lt 150 ]; then
  NITER=3 BUNDLE=bundle OUT=$OUT/arrays N_LIST=49152 PRELOAD_N=49152 CASES="driver scalapack-ranks-4096 scalapack-ranks-256" scripts/device-session.sh arrays
fi
echo "done $SECONDS s"
