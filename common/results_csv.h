/* The one CSV layout of every measurement: the driver (--csv) and the peer programs of bench/
 * print this header, then one row per timed run, and everything downstream (bench/report.py)
 * reads the columns by name. A program leaves empty what it does not know.
 *   system      starpu_gemm, openblas, scalapack, cublas_peak, cublasxt, dgemm_app, h2d, ...
 *   prec .. throttled, regime, layout, pin_s   the driver's setting and plan (drivers/report.h)
 *   iter        the timed run (1-based)          time_s, gflops   that run
 *   residual    scaled residual of --check (-1: not checked)
 *   *_bytes     measured traffic, then the plan's predictions (drivers/report.h)
 *   nb, block   ScaLAPACK's block size, cuBLASXt's      memory   pinned or pageable
 *   threads     BLAS or copying threads                gbs      GB/s of a copy (h2d, pin)
 *   gpu         the device's name (the driver: how many GPUs the job drives, each once)
 *   math        the driver's --math (default, tf32)
 *   pred_d2d_bytes  the plan's A and B tiles copied between a rank's GPUs (plan.gpu_peers),
 *               after the columns before so that they keep their places
 *   layers      the driver's plan: its layers (compute/layers.h; 1: the 2D schedule), last
 * Header only, no symbols: the peers link nothing of the library. */
#ifndef SG_RESULTS_CSV_H
#define SG_RESULTS_CSV_H

#define SG_RESULTS_CSV_HEADER                                                                \
	"system,prec,transA,transB,M,N,K,tile,P,Q,dist,ranks,ncuda,ncpu,sched,b,c,d,lookahead," \
	"throttled,iter,time_s,gflops,residual,h2d_bytes,d2h_bytes,d2d_bytes,mpi_bytes,"       \
	"pred_load_bytes,pred_d2h_bytes,pred_mpi_bytes,regime,layout,pin_s,nb,block,memory,"   \
	"threads,gbs,gpu,math,pred_d2d_bytes,layers"

#endif
