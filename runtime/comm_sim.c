/* The library's and the driver's own collectives under StarPU+SimGrid (SMPI). There, each
 * rank's MPI process is StarPU-MPI's progress thread, and the application's main runs as
 * another simulated actor whose messages SMPI never delivers (StarPU: "the application can
 * make calls to StarPU-MPI functions, but not call directly MPI communication functions").
 * So the few collectives we make (runtime/comm.h) go through StarPU-MPI's point-to-point
 * calls: every rank's block to rank 0, then the whole array from rank 0 to every rank. They
 * carry a few bytes, outside the timed products. Compiled empty in real builds. */
#include <starpu_config.h>
#ifdef STARPU_SIMGRID
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <starpu_mpi.h>
#include "runtime/comm.h"

/* Tiles travel as bytes, from no memory of their own. StarPU-MPI sends a tile as one element
 * of MPI_Type_vector(cols, rows * elemsize, ld * elemsize, MPI_BYTE), contiguous here (ld =
 * rows). SimGrid 3.32 flags even a contiguous vector as derived (DT_FLAG_CONTIGUOUS |
 * DT_FLAG_DERIVED, smpi_datatype.cpp) and then passes every such message through buffers of
 * its size that it allocates, fills and frees (Request::init_buffer: xbt_malloc, serialize;
 * unserialize at the receiver): for tiles of 4096 doubles, 128 MiB of real memory per message
 * in flight and three copies of it: most of the simulation's memory and time
 * (bench/results/sim-notes.md). So
 * a tile goes as MPI_BYTE (SMPI times a message by its size alone), and is sent from an SMPI
 * shared buffer, which SMPI never copies from (smpi_comm_copy_buffer_callback): the receiver's
 * tile is left as it was, which is all a simulation needs (no result is computed). These
 * definitions take the place of SMPI's for StarPU-MPI, which is linked into the same program.
 * Anything else (the collectives below, StarPU-MPI's envelopes) goes through unchanged. */
static int contiguous_bytes(int count, MPI_Datatype type, int *bytes)
{
	int nints, naddrs, ntypes, combiner;
	if (MPI_Type_get_envelope(type, &nints, &naddrs, &ntypes, &combiner) != MPI_SUCCESS ||
	    combiner != MPI_COMBINER_VECTOR || nints != 3 || naddrs != 0 || ntypes != 1)
		return 0;
	int ints[3];
	MPI_Aint none[1];
	MPI_Datatype old;
	if (MPI_Type_get_contents(type, 3, 0, 1, ints, none, &old) != MPI_SUCCESS ||
	    old != MPI_BYTE || ints[1] != ints[2])
		return 0;
	long long n = (long long)count * ints[0] * ints[1];
	if (n <= 0 || n > INT_MAX)
		return 0;
	*bytes = (int)n;
	return 1;
}

/* The SMPI shared buffer tiles are sent from, as large as the largest so far (a smaller one
 * is kept: a send in flight may still name it). One per simulated rank. */
static const void *shared_source(int bytes)
{
	static void *buf;
	static int size;
	if (bytes > size) {
		buf = SMPI_SHARED_MALLOC((size_t)bytes);
		size = bytes;
	}
	return buf;
}

typedef int (*send_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);

static int send_tile_as_bytes(send_fn send, const void *buf, int count, MPI_Datatype type,
                              int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
	int bytes;
	return contiguous_bytes(count, type, &bytes)
	       ? send(shared_source(bytes), bytes, MPI_BYTE, dest, tag, comm, request)
	       : send(buf, count, type, dest, tag, comm, request);
}

int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request *request)
{
	return send_tile_as_bytes(PMPI_Isend, buf, count, type, dest, tag, comm, request);
}

int MPI_Issend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request *request)
{
	return send_tile_as_bytes(PMPI_Issend, buf, count, type, dest, tag, comm, request);
}

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request *request)
{
	int bytes;
	return contiguous_bytes(count, type, &bytes)
	       ? PMPI_Irecv(buf, bytes, MPI_BYTE, source, tag, comm, request)
	       : PMPI_Irecv(buf, count, type, source, tag, comm, request);
}

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
