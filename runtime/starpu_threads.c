/* The cores StarPU's threads hold: runtime/starpu_threads.h says what and why. */
#define _GNU_SOURCE
#include <sched.h>
#include <starpu.h>
#include <starpu_mpi.h>
#include "runtime/env.h"
#include "runtime/starpu_threads.h"

/* The PUs (logical, as StarPU numbers them) StarPU bound its threads to, into pus (room for
 * STARPU_NMAXWORKERS + 1): its workers' (StarPU decides which core each kind takes: CUDA
 * workers first, on their GPU's NUMA node where it can) and StarPU-MPI's, less those that
 * float (STARPU_WORKERS_NOBIND, STARPU_MPI_NOBIND). Returns how many. */
static int starpu_bound_pus(int *pus)
{
	int n = 0;
	if (!sg_env_int(SG_ENV_WORKERS_NOBIND))
		for (unsigned w = 0; w < starpu_worker_get_count() && w < STARPU_NMAXWORKERS; w++)
			pus[n++] = starpu_worker_get_bindid((int)w);
	if (!sg_env_int(SG_ENV_MPI_NOBIND))
		pus[n++] = starpu_mpi_get_thread_cpuid();
	return n;
}

int sg_starpu_thread_on(unsigned pu)
{
	int pus[STARPU_NMAXWORKERS + 1], n = starpu_bound_pus(pus);
	for (int i = 0; i < n; i++)
		if (pus[i] == (int)pu)
			return 1;
	return 0;
}

#ifndef STARPU_SIMGRID /* simulated workers bind nothing */
/* Takes logical PU pu out of set. Its hyperthreads, where the core has several, stay: a copier
 * there shares the core's units, not the thread's time (not measured: the node of the
 * measurements did not say whether it has any). */
static void clear_pu(cpu_set_t *set, int pu)
{
	int os = starpu_get_pu_os_index((unsigned)pu);
	if (os >= 0 && os < CPU_SETSIZE)
		CPU_CLR(os, set);
}
#endif

int sg_copier_cpus(cpu_set_t *set)
{
	cpu_set_t mine;
	CPU_ZERO(set);
	if (sched_getaffinity(0, sizeof(mine), &mine) != 0)
		return 0;
	*set = mine;
#ifndef STARPU_SIMGRID
	if (starpu_is_initialized()) {
		int pus[STARPU_NMAXWORKERS + 1], n = starpu_bound_pus(pus);
		for (int i = 0; i < n; i++)
			if (pus[i] >= 0)
				clear_pu(set, pus[i]);
		/* StarPU's threads on half of the caller's cores or more (4 GPUs on 7 cores): the
		 * copiers would be too few to feed them, so they share all of the cores as before. */
		if (2 * CPU_COUNT(set) < CPU_COUNT(&mine))
			*set = mine;
	}
#endif
	return CPU_COUNT(set);
}

int sg_copier_start(pthread_t *id, const cpu_set_t *cpus, void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	if (cpus && pthread_attr_init(&attr) == 0) {
		int ret = pthread_attr_setaffinity_np(&attr, sizeof(*cpus), cpus) == 0
		          ? pthread_create(id, &attr, fn, arg) : -1;
		pthread_attr_destroy(&attr);
		if (ret == 0)
			return 0;
	}
	/* Unbound, or a binding refused: where the caller's threads are. */
	return pthread_create(id, NULL, fn, arg);
}
