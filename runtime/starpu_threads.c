/* The cores StarPU's threads hold: runtime/starpu_threads.h says what and why. */
#define _GNU_SOURCE
#include <sched.h>
#include <starpu.h>
#include <starpu_mpi.h>
#include "runtime/env.h"
#include "runtime/starpu_threads.h"

/* The PU (logical, as StarPU numbers them) StarPU bound its thread i to: a worker's for i below
 * the workers' count (StarPU decides which core each kind takes: CUDA workers first, on their
 * GPU's NUMA node where it can), StarPU-MPI's for i equal to it; -1 where that thread floats
 * (STARPU_WORKERS_NOBIND, STARPU_MPI_NOBIND). */
static int starpu_bound_pu(int i)
{
	int workers = (int)starpu_worker_get_count();
	if (i < workers)
		return sg_env_int(SG_ENV_WORKERS_NOBIND) ? -1 : starpu_worker_get_bindid(i);
	return sg_env_int(SG_ENV_MPI_NOBIND) ? -1 : starpu_mpi_get_thread_cpuid();
}

int sg_starpu_thread_on(unsigned pu)
{
	for (int i = 0; i <= (int)starpu_worker_get_count(); i++)
		if (starpu_bound_pu(i) == (int)pu)
			return 1;
	return 0;
}

int sg_copier_cpus(int *cpus, int max)
{
	cpu_set_t mine, spare;
	if (sched_getaffinity(0, sizeof(mine), &mine) != 0)
		return 0;
	spare = mine;
	if (starpu_is_initialized()) {
		for (int i = 0; i <= (int)starpu_worker_get_count(); i++) {
			int pu = starpu_bound_pu(i);
			int os = pu >= 0 ? starpu_get_pu_os_index((unsigned)pu) : -1;
			if (os >= 0 && os < CPU_SETSIZE)
				CPU_CLR(os, &spare);
		}
		if (CPU_COUNT(&spare) == 0)
			spare = mine;
	}
	int n = 0;
	for (int c = 0; c < CPU_SETSIZE && n < max; c++)
		if (CPU_ISSET(c, &spare))
			cpus[n++] = c;
	return n;
}
