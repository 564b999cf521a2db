/* StarPU's start and stop, one way for the driver and both doors (starpu_gemm_runtime_start):
 * the environment checked first (StarPU aborts on a malformed variable or a broken calibration
 * directory), the library's defaults (starpu_gemm_conf_defaults), StarPU or StarPU-MPI, a
 * worker to run on, cuBLAS on the CUDA workers; with a communicator of processes starting
 * together, every verdict agreed, so that none is left waiting in a collective. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include <starpu_mpi.h>
#ifdef STARPU_USE_CUDA
#include <starpu_cublas_v2.h>
#endif
#include <starpu_gemm.h>
#include "runtime/env.h"
#include "runtime/node_conf.h"
#include "runtime/preflight.h"

static int started_mpi = -1; /* -1: not started by us; else whether with StarPU-MPI */
static int cublas_on;

/* Neither CPU nor CUDA workers: say which settings led there. */
static void no_worker(char *err, size_t errlen)
{
	const char *ncpu = sg_env_text(SG_ENV_NCPU), *ncuda = sg_env_text(SG_ENV_NCUDA);
	/* The usual cause on CPU nodes: mpirun bound each rank to one core, which StarPU-MPI's
	 * progress thread takes, leaving none for a CPU worker. */
	int one_core = sg_caller_cpus() == 1;
	snprintf(err, errlen, "no worker to run on: StarPU started no CPU and no CUDA worker "
	         "(STARPU_NCPU=%s, STARPU_NCUDA=%s%s)%s", ncpu ? ncpu : "unset",
	         ncuda ? ncuda : "unset",
	         ncuda && sg_env_int(SG_ENV_NCUDA) == 0 ? "" : ", no GPU found",
	         one_core ? "; this process is bound to one core, which StarPU-MPI's progress "
	                    "thread takes: run mpirun with --bind-to none" : "");
}

/* Collective over together (MPI_COMM_NULL: this process alone, nothing to agree): 0 where
 * every process has ret 0; else the lowest failing process's code on every process, and its
 * text in err on the others ("another process..."). */
static int agree(MPI_Comm together, int ret, char *err, size_t errlen)
{
#ifdef STARPU_SIMGRID
	/* The simulated ranks' collectives need StarPU-MPI running; each has the same
	 * environment, so each decides alone. */
	(void)together, (void)err, (void)errlen;
	return ret;
#else
	if (together == MPI_COMM_NULL)
		return ret;
	int rank, size;
	MPI_Comm_rank(together, &rank);
	MPI_Comm_size(together, &size);
	int mine = ret ? rank : size, first;
	MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, together);
	if (first == size)
		return 0;
	int code = ret;
	char text[512];
	snprintf(text, sizeof(text), "%s", ret ? err : "");
	MPI_Bcast(&code, 1, MPI_INT, first, together);
	MPI_Bcast(text, (int)sizeof(text), MPI_CHAR, first, together);
	if (!ret)
		snprintf(err, errlen, "process %d: %s", first, text);
	return code;
#endif
}

int starpu_gemm_runtime_start(const struct starpu_gemm_runtime *want, char *notice,
                              size_t noticelen, char *err, size_t errlen)
{
	if (noticelen)
		notice[0] = '\0';
	if (errlen)
		err[0] = '\0';
	/* Every process checks before any starts StarPU (the agreement is a barrier), so that
	 * none repairs a calibration file another one's StarPU is writing. */
	int ret = 0;
	if (started_mpi >= 0 || starpu_is_initialized()) {
		snprintf(err, errlen, "StarPU is already running");
		ret = -EALREADY;
	} else if (sg_preflight(notice, noticelen, err, errlen)) {
		ret = -EINVAL;
	}
	ret = agree(want->together, ret, err, errlen);
	if (ret)
		return ret;

	struct starpu_conf conf;
	starpu_conf_init(&conf);
	starpu_gemm_conf_defaults(&conf, want->together, want->mpi);
	if (want->mpi)
		ret = starpu_mpi_init_conf(want->argc, want->argv, 0, want->comm, &conf);
	else
		ret = starpu_init(&conf);
	int up = ret == 0;
	if (ret == -ENODEV || (up && starpu_worker_get_count() == 0)) {
		no_worker(err, errlen);
		ret = -ENODEV;
	} else if (ret) {
		snprintf(err, errlen, "%s failed: %s", want->mpi ? "starpu_mpi_init_conf" : "starpu_init",
		         strerror(-ret));
	}
	if (up)
		started_mpi = want->mpi != 0;
	ret = agree(want->together, ret, err, errlen);
	if (ret) {
		if (up)
			starpu_gemm_runtime_stop();
		return ret;
	}
	if (starpu_cuda_worker_get_count() > 0) {
		starpu_cublas_init();
		cublas_on = 1;
	}
	return 0;
}

void starpu_gemm_runtime_stop(void)
{
	if (started_mpi < 0)
		return;
	if (cublas_on)
		starpu_cublas_shutdown();
	cublas_on = 0;
	if (started_mpi)
		starpu_mpi_shutdown();
	else
		starpu_shutdown();
	started_mpi = -1;
}
