/* The driver's own collectives: MPI's. Under StarPU+SimGrid the application's MPI calls are
 * never delivered (runtime/comm.h says why), so they go through the library's simulated ones
 * instead, reachable there because the simulated build links everything statically. */
#ifndef SG_DRIVER_COLLECTIVES_H
#define SG_DRIVER_COLLECTIVES_H

#include <mpi.h>
#include <starpu_config.h>
#ifdef STARPU_SIMGRID
#include <starpu_mpi.h>
#include "runtime/comm.h"
#endif

static inline void sg_driver_allreduce(const void *in, void *out, int count, size_t elem,
                                       MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
#ifdef STARPU_SIMGRID
	sg_sim_allreduce(in, out, count, elem, type, op, comm);
#else
	(void)elem;
	MPI_Allreduce(in, out, count, type, op, comm);
#endif
}

static inline void sg_driver_bcast(void *buf, int bytes, int root, MPI_Comm comm)
{
#ifdef STARPU_SIMGRID
	sg_sim_bcast(buf, (size_t)bytes, root, comm);
#else
	MPI_Bcast(buf, bytes, MPI_BYTE, root, comm);
#endif
}

/* Into root's all; under simulation every rank gets it (all may be NULL off root). */
static inline void sg_driver_gather(const void *mine, void *all, int bytes, MPI_Comm comm)
{
#ifdef STARPU_SIMGRID
	int size;
	MPI_Comm_size(comm, &size);
	char *everyone = malloc((size_t)bytes * (size_t)size);
	if (!everyone)
		sg_fatal(__FILE__, __LINE__, "malloc", "gathering failed", NULL);
	sg_sim_allgather(mine, everyone, (size_t)bytes, comm);
	if (all)
		memcpy(all, everyone, (size_t)bytes * (size_t)size);
	free(everyone);
#else
	MPI_Gather(mine, bytes, MPI_BYTE, all, bytes, MPI_BYTE, 0, comm);
#endif
}

static inline void sg_driver_barrier(MPI_Comm comm)
{
#ifdef STARPU_SIMGRID
	starpu_mpi_barrier(comm);
#else
	MPI_Barrier(comm);
#endif
}

#endif
