/* StarPU for the one call on host arrays: started on the first call, kept for the next ones
 * (starting StarPU costs far more than a small product), shut down at exit. The defaults are
 * the driver's (starpu_gemm_conf_defaults): with a GPU, no CPU workers (a CPU tile is 100
 * times slower than a GPU tile and ends the product late) and the dmdas scheduler; each
 * STARPU_* variable overrides its default. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#ifdef STARPU_USE_CUDA
#include <starpu_cublas_v2.h>
#endif
#include <starpu_gemm.h>
#include "doors/runtime.h"
#include "doors/stage.h"

static int started, ncuda, at_exit, stopped;

static void stop_runtime(void)
{
	sg_stage_pool_drain(); /* pinned through StarPU: freed while it runs */
	starpu_gemm_runtime_stop();
	stopped = 1;
}

int sg_runtime_start(void)
{
	/* A call from an exit handler or destructor run after ours: StarPU is gone for good
	 * (submitting would abort the process; the interposer passes such calls on). */
	if (stopped) {
		fprintf(stderr, "starpu_gemm: called after StarPU was shut down at exit\n");
		return -ENODEV;
	}
	/* The application's StarPU may have been shut down since: then start our own. */
	if (started && starpu_is_initialized())
		return ncuda;
	started = 0;
	if (starpu_is_initialized()) {
		/* The application's StarPU: used as it is, and its to shut down. Our CUDA codelets
		 * need cuBLAS on its workers, which it may not have initialised (no handle for
		 * this thread then: "cuBLAS gemm failed: the library was not initialized"). */
		started = 1;
		ncuda = (int)starpu_cuda_worker_get_count();
#ifdef STARPU_USE_CUDA
		if (ncuda > 0 && !starpu_cublas_get_local_handle())
			starpu_cublas_init();
#endif
		return ncuda;
	}
	/* This process alone: no MPI (the one call needs none). */
	char notice[512], err[512];
	struct starpu_gemm_runtime want = { .mpi = 0, .together = MPI_COMM_NULL };
	if (starpu_gemm_runtime_start(&want, notice, sizeof(notice), err, sizeof(err))) {
		fprintf(stderr, "starpu_gemm: error: %s\n", err);
		return -ENODEV;
	}
	if (notice[0])
		fprintf(stderr, "starpu_gemm: notice: %s\n", notice);
	ncuda = (int)starpu_cuda_worker_get_count();
	started = 1;
	if (!at_exit)
		atexit(stop_runtime);
	at_exit = 1;
	return ncuda;
}
