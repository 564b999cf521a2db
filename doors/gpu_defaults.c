/* The driver's defaults on GPU nodes, for the doors (doors/runtime.h). A file of its own: the
 * ScaLAPACK drop-in compiles it in as well. */
#include <stdlib.h>
#include <starpu.h>
#ifdef STARPU_USE_CUDA
#include <cuda_runtime.h>
#endif
#include "doors/runtime.h"

static int gpu_present(void)
{
#ifdef STARPU_USE_CUDA
	const char *want = getenv("STARPU_NCUDA");
	int devices = 0;
	return !(want && atoi(want) == 0) && cudaGetDeviceCount(&devices) == cudaSuccess &&
	       devices > 0;
#else
	return 0;
#endif
}

int sg_runtime_gpu_defaults(struct starpu_conf *conf)
{
	if (!gpu_present())
		return 0;
	if (!getenv("STARPU_NCPU"))
		conf->ncpus = 0;
	const char *sched = getenv("STARPU_SCHED");
	if (!sched || !*sched)
		conf->sched_policy_name = "dmdas";
	return 1;
}


