/* The node communicator of a communicator, made once (MPI_Comm_split_type is collective and
 * costs a round of messages) and kept as an attribute of it: freed with it, or, for the
 * communicators that live until MPI_Finalize (MPI_COMM_WORLD), when MPI_COMM_SELF's
 * attributes are deleted at the start of MPI_Finalize, while MPI still works. */
#include <stdlib.h>
#include "runtime/comm.h"

#ifndef STARPU_SIMGRID
static int node_keyval = MPI_KEYVAL_INVALID, finalize_keyval = MPI_KEYVAL_INVALID;

/* The communicators holding a node communicator, for the cleanup at MPI_Finalize. */
static MPI_Comm *holders;
static int nholders;

static int free_node(MPI_Comm comm, int keyval, void *value, void *extra)
{
	MPI_Comm *node = value;
	MPI_Comm_free(&node[0]);
	MPI_Comm_free(&node[1]);
	free(node);
	for (int h = 0; h < nholders; h++)
		if (holders[h] == comm)
			holders[h] = holders[--nholders];
	return MPI_SUCCESS;
}

static int free_all_at_finalize(MPI_Comm self, int keyval, void *value, void *extra)
{
	while (nholders > 0)
		MPI_Comm_delete_attr(holders[nholders - 1], node_keyval); /* calls free_node */
	free(holders);
	holders = NULL;
	MPI_Comm_free_keyval(&node_keyval);
	MPI_Comm_free_keyval(&finalize_keyval);
	return MPI_SUCCESS;
}
#endif

#ifndef STARPU_SIMGRID
/* Two communicators of the node's ranks: [0] for the calling threads, [1] for the submission
 * thread, so that their collectives never interleave on one communicator. */
static MPI_Comm *node_comms(MPI_Comm comm);
#endif

MPI_Comm sg_node_comm(MPI_Comm comm)
{
#ifdef STARPU_SIMGRID
	(void)comm;
	return MPI_COMM_SELF; /* every simulated rank is a node of its own */
#else
	return node_comms(comm)[0];
#endif
}

MPI_Comm sg_node_comm_walk(MPI_Comm comm)
{
#ifdef STARPU_SIMGRID
	(void)comm;
	return MPI_COMM_SELF;
#else
	return node_comms(comm)[1];
#endif
}

#ifndef STARPU_SIMGRID
static MPI_Comm *node_comms(MPI_Comm comm)
{
	if (node_keyval == MPI_KEYVAL_INVALID) {
		SG_MPI_FATAL(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_node, &node_keyval,
		                                    NULL));
		SG_MPI_FATAL(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_all_at_finalize,
		                                    &finalize_keyval, NULL));
		SG_MPI_FATAL(MPI_Comm_set_attr(MPI_COMM_SELF, finalize_keyval, NULL));
	}
	MPI_Comm *node;
	int found = 0;
	SG_MPI_FATAL(MPI_Comm_get_attr(comm, node_keyval, &node, &found));
	if (found)
		return node;
	MPI_Comm *more = realloc(holders, (size_t)(nholders + 1) * sizeof(*holders));
	node = malloc(2 * sizeof(*node));
	if (!more || !node)
		sg_fatal(__FILE__, __LINE__, "malloc", "node communicator", NULL);
	holders = more;
	SG_MPI_FATAL(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, node));
	SG_MPI_FATAL(MPI_Comm_dup(node[0], &node[1]));
	SG_MPI_FATAL(MPI_Comm_set_attr(comm, node_keyval, node));
	holders[nholders++] = comm;
	return node;
}
#endif

void sg_node_ranks(MPI_Comm comm, int n, const int *ranks, int *node_rank)
{
	MPI_Group node_group, comm_group;
	SG_MPI_FATAL(MPI_Comm_group(sg_node_comm(comm), &node_group));
	SG_MPI_FATAL(MPI_Comm_group(comm, &comm_group));
	SG_MPI_FATAL(MPI_Group_translate_ranks(comm_group, n, ranks, node_group, node_rank));
	SG_MPI_FATAL(MPI_Group_free(&node_group));
	SG_MPI_FATAL(MPI_Group_free(&comm_group));
	for (int r = 0; r < n; r++)
		if (node_rank[r] == MPI_UNDEFINED)
			node_rank[r] = -1;
}

MPI_Comm starpu_gemm_node_comm(MPI_Comm comm)
{
	return sg_node_comm(comm);
}
