/* The library's and the driver's own collectives under StarPU+SimGrid (SMPI). There, each
 * rank's MPI process is StarPU-MPI's progress thread, and the application's main runs as
 * another simulated actor whose messages SMPI never delivers (StarPU: "the application can
 * make calls to StarPU-MPI functions, but not call directly MPI communication functions").
 * So the few collectives we make (common/comm.h) go through StarPU-MPI's point-to-point
 * calls: every rank's block to rank 0, then the whole array from rank 0 to every rank. They
 * carry a few bytes, outside the timed products. Compiled empty in real builds. */
#include <starpu_config.h>
#ifdef STARPU_SIMGRID
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <starpu_mpi.h>
#include "common/comm.h"

/* Tags far above the tiles' (distrib/desc.c numbers tiles from 0); every rank makes the same
 * collectives in the same order, so a counter matches sends with receives. */
static starpu_mpi_tag_t next_tag = (starpu_mpi_tag_t)1 << 60;

static void transfer(void *buf, size_t bytes, int peer, starpu_mpi_tag_t tag, MPI_Comm comm,
                     int send)
{
	starpu_data_handle_t h;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t)buf, bytes);
	/* StarPU-MPI's statistics are the product's traffic (the driver reports them next to the
	 * plan's): these few bytes are not. The send is blocking, so it is counted, or not, by the
	 * time it returns. The driver always has the statistics on. */
	if (send)
		starpu_mpi_comm_stats_disable();
	int ret = send ? starpu_mpi_send(h, peer, tag, comm)
	               : starpu_mpi_recv(h, peer, tag, comm, MPI_STATUS_IGNORE);
	if (send)
		starpu_mpi_comm_stats_enable();
	starpu_data_unregister(h);
	if (ret)
		sg_fatal(__FILE__, __LINE__, send ? "starpu_mpi_send" : "starpu_mpi_recv",
		         "a simulated collective failed", NULL);
}

void sg_sim_allgather(const void *mine, void *all, size_t bytes, MPI_Comm comm)
{
	int rank, size;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	starpu_mpi_tag_t tag = next_tag++;
	memmove((char *)all + (size_t)rank * bytes, mine, bytes);
	if (size == 1)
		return;
	if (rank == 0) {
		for (int r = 1; r < size; r++)
			transfer((char *)all + (size_t)r * bytes, bytes, r, tag, comm, 0);
		for (int r = 1; r < size; r++)
			transfer(all, bytes * (size_t)size, r, tag, comm, 1);
	} else {
		transfer((char *)all + (size_t)rank * bytes, bytes, 0, tag, comm, 1);
		transfer(all, bytes * (size_t)size, 0, tag, comm, 0);
	}
}

#define REDUCE(T)                                                                          \
	do {                                                                                   \
		T *o = out;                                                                        \
		const T *v = (const T *)all;                                                       \
		for (int r = 1; r < size; r++)                                                     \
			for (int i = 0; i < count; i++) {                                              \
				T x = v[(size_t)r * (size_t)count + (size_t)i];                            \
				o[i] = op == MPI_SUM ? o[i] + x : op == MPI_MIN ? (x < o[i] ? x : o[i])    \
				                                : (x > o[i] ? x : o[i]);                   \
			}                                                                              \
	} while (0)

void sg_sim_allreduce(const void *in, void *out, int count, size_t elem, MPI_Datatype type,
                      MPI_Op op, MPI_Comm comm)
{
	int size;
	MPI_Comm_size(comm, &size);
	size_t bytes = (size_t)count * elem;
	char *all = malloc(bytes * (size_t)size);
	if (!all)
		sg_fatal(__FILE__, __LINE__, "malloc", "a simulated collective failed", NULL);
	sg_sim_allgather(in, all, bytes, comm);
	memcpy(out, all, bytes);
	if (op != MPI_SUM && op != MPI_MIN && op != MPI_MAX)
		sg_fatal(__FILE__, __LINE__, "sg_sim_allreduce", "operation not simulated", NULL);
	if (type == MPI_INT)
		REDUCE(int);
	else if (type == MPI_DOUBLE)
		REDUCE(double);
	else if (type == MPI_INT64_T)
		REDUCE(int64_t);
	else if (type == MPI_UNSIGNED_LONG_LONG)
		REDUCE(unsigned long long);
	else
		sg_fatal(__FILE__, __LINE__, "sg_sim_allreduce", "type not simulated", NULL);
	free(all);
}

void sg_sim_bcast(void *buf, size_t bytes, int root, MPI_Comm comm)
{
	int rank, size;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	starpu_mpi_tag_t tag = next_tag++;
	for (int r = 0; r < size; r++)
		if (r != root && (rank == root || rank == r))
			transfer(buf, bytes, rank == root ? r : root, tag, comm, rank == root);
}
#endif
