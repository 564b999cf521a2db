/* What the machine offers the driver: whether the matrices fit in the ranks' host memory,
 * found before anything is allocated. (Workers and cores: starpu_gemm_conf_defaults.) */
#ifndef SG_DRIVER_RESOURCES_H
#define SG_DRIVER_RESOURCES_H

#include <stddef.h>
#include <mpi.h>
#include "drivers/options.h"

/* Bytes of the A, B and C tiles rank owns under opts' distribution and tile size
 * (op(A) is M x K, op(B) is K x N, so A and B are stored transposed when trans != N). */
double sg_driver_owned_bytes(const struct sg_driver_options *opts, int rank);

/* Collective over host (starpu_gemm_node_comm(MPI_COMM_WORLD)): ranks of one host share its memory, so each host
 * compares what all its ranks will own, plus what the plan holds beside (plan->host_bytes;
 * plan NULL before planning), with what it has. Returns 0, or -1 with one sentence in err on
 * the ranks of a host that is short. */
struct starpu_gemm_plan;
int sg_driver_check_host_memory(const struct sg_driver_options *opts,
                                const struct starpu_gemm_plan *plan, MPI_Comm host, char *err,
                                size_t errlen);

/* Host memory a process with CUDA workers gains at its first products, after the driver's
 * bound samples its resident memory, once per process (a later size's sample holds it): it
 * varies with the precision, so cuBLAS's first calls; not its kernels' modules (with
 * CUDA_MODULE_LOADING=EAGER they load with the context, 1.69 GB before the sample, and the
 * same 51 MB still came).
 * Measured as the peak less the bound without it, tile layout, n = 4096 and 6000, 1 x H100
 * (bench/results/memory-bound-h100-20261127.log): s 104 MB, TF32 87, z 80, h 58, d 51, b 50,
 * c 18; on 4 x H200 (node-h200x4-20261127z3-gpu-tests.log) s 108, TF32 88, z 85, d 56: per
 * process, a few MB more with 4 GPUs than with 1. The largest, rounded up. */
#define SG_DRIVER_CUDA_FIRST_GEMM_HOST_BYTES 112e6

/* Peak resident memory of this process so far (VmHWM), and now (VmRSS), in bytes; 0 where
 * /proc/self/status does not say. */
double sg_driver_peak_rss(void);
double sg_driver_rss(void);

/* "1.5 GB" (decimal units: kB, MB, GB ...) */
const char *sg_driver_format_bytes(double bytes, char *buf, size_t len);
/* The same with gb_decimals decimals from GB up ("5.798 GB" with 3). */
const char *sg_driver_format_bytes_to(double bytes, int gb_decimals, char *buf, size_t len);

#endif
