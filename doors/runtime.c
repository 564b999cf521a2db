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
#include "common/env.h"
#include "common/preflight.h"
#include <starpu_gemm.h>
#include "doors/runtime.h"
#include "doors/stage.h"

static int started, ncuda, at_exit, stopped;

static void stop_runtime(void)
{
	sg_stage_pool_drain(); /* pinned through StarPU: freed while it runs */
	if (ncuda > 0)
		starpu_cublas_shutdown();
	starpu_shutdown();
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
		 * this thread then): measured on an H100, "cuBLAS gemm failed: the library was not
		 * initialized". */
		started = 1;
		ncuda = (int)starpu_cuda_worker_get_count();
#ifdef STARPU_USE_CUDA
		if (ncuda > 0 && !starpu_cublas_get_local_handle())
			starpu_cublas_init();
#endif
		return ncuda;
	}
	/* StarPU aborts the application on a malformed STARPU_* variable or a broken
	 * calibration directory: say so and fail this call instead. */
	char notice[512], err[512];
	if (sg_preflight(notice, sizeof(notice), err, sizeof(err))) {
		fprintf(stderr, "starpu_gemm: error: %s\n", err);
		return -ENODEV;
	}
	if (notice[0])
		fprintf(stderr, "starpu_gemm: notice: %s\n", notice);
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	starpu_gemm_conf_defaults(&conf, MPI_COMM_NULL, 0);
	int ret = starpu_init(&conf);
	if (ret != 0) {
		fprintf(stderr, "starpu_gemm: StarPU could not start (%s)\n", strerror(-ret));
		return -ENODEV;
	}
	if (starpu_worker_get_count() == 0) {
		fprintf(stderr, "starpu_gemm: StarPU started no worker (STARPU_NCPU=%s, "
		        "STARPU_NCUDA=%s)\n",
		        sg_env_text(SG_ENV_NCPU) ? sg_env_text(SG_ENV_NCPU) : "unset",
		        sg_env_text(SG_ENV_NCUDA) ? sg_env_text(SG_ENV_NCUDA) : "unset");
		starpu_shutdown();
		return -ENODEV;
	}
	ncuda = (int)starpu_cuda_worker_get_count();
	if (ncuda > 0)
		starpu_cublas_init();
	started = 1;
	if (!at_exit)
		atexit(stop_runtime);
	at_exit = 1;
	return ncuda;
}
