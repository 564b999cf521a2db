/* StarPU for the one call on host arrays: started on the first call, kept for the next ones
 * (starting StarPU costs far more than a small product), shut down at exit. The defaults are
 * the driver's (starpu_gemm_conf_defaults): with a GPU, no CPU workers (a CPU tile is 100
 * times slower than a GPU tile and ends the product late) and the dmdas scheduler; each
 * STARPU_* variable overrides its default. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <starpu.h>
#ifdef STARPU_USE_CUDA
#include <starpu_cublas_v2.h>
#endif
#include <starpu_gemm.h>
#include "doors/runtime.h"
#include "doors/stage.h"

static int started, ncuda, at_exit, stopped;

/* One product at a time: each already uses every worker, and StarPU's start is not
 * thread-safe. Also held while StarPU runs a call, which the exit handler must not tear
 * down under it. */
static pthread_mutex_t door_lock = PTHREAD_MUTEX_INITIALIZER;

/* A fork()ed child of a process where StarPU ran: the child has the runtime's memory but
 * none of its threads (workers, progress, copiers), so any call through it would wait for
 * ever. The doors compute the child's calls on the CPU BLAS instead (README). */
static atomic_int forked;

static void in_child(void)
{
	if (started || stopped || starpu_is_initialized())
		atomic_store(&forked, 1);
}

__attribute__((constructor)) static void watch_fork(void)
{
	pthread_atfork(NULL, NULL, in_child);
}

int sg_runtime_forked(void)
{
	return atomic_load(&forked);
}

void sg_door_enter(void)
{
	pthread_mutex_lock(&door_lock);
}

void sg_door_leave(void)
{
	pthread_mutex_unlock(&door_lock);
}

/* How long exit() waits for another thread's call to end. */
#define EXIT_WAIT_S 10

static void stop_runtime(void)
{
	/* A forked child: StarPU's threads are the parent's, nothing here to stop. */
	if (sg_runtime_forked())
		return;
	/* Another thread inside a call (exit() from elsewhere): shutting StarPU down under its
	 * tasks, or the libraries' destructors that run after this handler (OpenBLAS's frees
	 * its buffers) under its tile kernels, end the process in SIGSEGV. Wait for the call to
	 * end, a bounded time; past it, no task starts any more and those running get a moment
	 * to end, StarPU left as it is. */
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += EXIT_WAIT_S;
	if (pthread_mutex_timedlock(&door_lock, &until) != 0) {
		fprintf(stderr, "starpu_gemm: exit during a product that has not ended in %d s: "
		        "StarPU stopped taking tasks, not shut down\n", EXIT_WAIT_S);
		starpu_pause();
		sleep(1);
		return;
	}
	sg_stage_pool_drain(); /* pinned through StarPU: freed while it runs */
	starpu_gemm_runtime_stop();
	stopped = 1;
	pthread_mutex_unlock(&door_lock);
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
