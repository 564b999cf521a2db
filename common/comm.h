/* Process-local matrices (STARPU_GEMM_COMM_LOCAL) make no MPI call at all, so that the one
 * call on host arrays works in programs that never initialise MPI: the few collectives the
 * library makes go through here, and are plain copies on a local communicator. */
#ifndef SG_COMM_H
#define SG_COMM_H

#include <string.h>
#include <starpu_gemm.h>
#include "common/errors.h"

static inline int sg_comm_is_local(MPI_Comm comm)
{
	return comm == STARPU_GEMM_COMM_LOCAL;
}

/* MPI_Allreduce of count elements of elem bytes each, or a copy on a local communicator. */
static inline void sg_allreduce(const void *in, void *out, int count, size_t elem,
                                MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
	if (sg_comm_is_local(comm))
		memmove(out, in, (size_t)count * elem);
	else
		SG_MPI_FATAL(MPI_Allreduce(in, out, count, type, op, comm));
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
