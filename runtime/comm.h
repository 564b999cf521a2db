/* Process-local matrices (STARPU_GEMM_COMM_LOCAL) make no MPI call at all, so that the one
 * call on host arrays works in programs that never initialise MPI: the few collectives the
 * library makes go through here, and are plain copies on a local
 * communicator. Under StarPU+SimGrid they go through StarPU-MPI instead (runtime/comm_sim.c). */
#ifndef SG_COMM_H
#define SG_COMM_H

#include <stdlib.h>
#include <string.h>
#include <starpu_gemm.h>
#include "common/errors.h"

static inline int sg_comm_is_local(MPI_Comm comm)
{
	return comm == STARPU_GEMM_COMM_LOCAL;
}

#ifdef STARPU_SIMGRID
void sg_sim_allgather(const void *mine, void *all, size_t bytes, MPI_Comm comm);
void sg_sim_allreduce(const void *in, void *out, int count, size_t elem, MPI_Datatype type,
                      MPI_Op op, MPI_Comm comm);
void sg_sim_bcast(void *buf, size_t bytes, int root, MPI_Comm comm);
/* Host allocations of StarPU made lazily folded (runtime/sim_fold.c). */
void sg_sim_fold_memory(void);
#endif

/* MPI_Allreduce of count elements of elem bytes each, or a copy on a local communicator. */
static inline void sg_allreduce(const void *in, void *out, int count, size_t elem,
                                MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
	if (sg_comm_is_local(comm))
		memmove(out, in, (size_t)count * elem);
	else
#ifdef STARPU_SIMGRID
		sg_sim_allreduce(in, out, count, elem, type, op, comm);
#else
		SG_MPI_FATAL(MPI_Allreduce(in, out, count, type, op, comm));
#endif
}

/* The ranks of comm that share this rank's node (MPI_Comm_split_type), made on first use and
 * kept with comm (never free it): collective the first time only. Under simulation every
 * rank is a node of its own (starpu_smpirun gives each its own copy of the node's platform):
 * MPI_COMM_SELF. */
MPI_Comm sg_node_comm(MPI_Comm comm);
/* The same ranks in a communicator of their own for the submission thread (compute/pgemm.c):
 * two threads' collectives on one communicator could pair up differently on each rank. */
MPI_Comm sg_node_comm_walk(MPI_Comm comm);

/* The rank in sg_node_comm(comm) of each of comm's ranks ranks[0..n), -1 for one on another
 * node: the one translation from a communicator's ranks to the node's. Not collective once
 * the node communicator exists. */
void sg_node_ranks(MPI_Comm comm, int n, const int *ranks, int *node_rank);

/* How many ranks of comm share this rank's node; 1 for a local communicator. */
static inline int sg_ranks_on_node(MPI_Comm comm)
{
	if (sg_comm_is_local(comm))
		return 1;
	int ranks_on_node = 1;
	MPI_Comm_size(sg_node_comm(comm), &ranks_on_node);
	return ranks_on_node;
}

/* The library's error policy for collective calls: every rank returns the same code (the
 * most negative one), so none returns early while the others wait in a collective. The
 * failing rank has printed its one line already. */
static inline int sg_agree(int ret, MPI_Comm comm)
{
	int all = ret;
	sg_allreduce(&ret, &all, 1, sizeof(int), MPI_INT, MPI_MIN, comm);
	return all;
}

#endif
