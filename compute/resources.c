/* The resources a plan is made for: measured here, agreed once, then handed to the pure
 * planner (compute/plan.c), which reads nothing of the machine itself. */
#include <math.h>
#include <stdlib.h>
#include <starpu.h>
#include <starpu_mpi.h>
#include "compute/resources.h"
#include "compute/problem.h"
#include "runtime/comm.h"
#include "runtime/env.h"

/* Smallest memory over this rank's GPUs (StarPU reports STARPU_LIMIT_CUDA_MEM when set). */
static size_t gpu_memory(int *ngpus)
{
	unsigned ids[STARPU_MAXNODES];
	int n = (int)starpu_memory_node_get_ids_by_type(STARPU_CUDA_RAM, ids, STARPU_MAXNODES);
	size_t smallest = 0;
	for (int g = 0; g < n; g++) {
		starpu_ssize_t total = starpu_memory_get_total(ids[g]);
		if (total > 0 && (smallest == 0 || (size_t)total < smallest))
			smallest = (size_t)total;
	}
	*ngpus = n;
	return smallest;
}

/* Whether the rank's GPUs copy tiles between them at least twice as fast as from host memory,
 * each pair both ways (StarPU's bus calibration, in MB/s; NVLink against PCIe): then a tile
 * several GPUs read crosses the host link once (opts.gpu_peers). */
static int gpu_links_fast(void)
{
	unsigned ids[STARPU_MAXNODES];
	int n = (int)starpu_memory_node_get_ids_by_type(STARPU_CUDA_RAM, ids, STARPU_MAXNODES);
	if (n < 2)
		return 0;
	for (int dst = 0; dst < n; dst++) {
		double host = starpu_transfer_bandwidth(STARPU_MAIN_RAM, ids[dst]);
		for (int src = 0; src < n; src++)
			if (src != dst && !(host > 0 && starpu_transfer_bandwidth(ids[src], ids[dst]) >=
			                                2 * host))
				return 0;
	}
	return 1;
}

/* Where each rank of pb's grid is: node_rank[r] >= 0 for a rank on this node (this one
 * included), -1 elsewhere; NULL where nothing is shared on nodes (no sharing, process-local
 * matrices, owners from a user function) or memory ran out. One lookup for the two counts
 * below. */
static int *grid_node_ranks(const struct sg_problem *pb)
{
	int nranks = pb->P * pb->Q;
	if (!pb->share || pb->local || pb->user_owners || nranks < 2)
		return NULL;
	int *ranks = malloc((size_t)nranks * sizeof(int));
	int *node_rank = malloc((size_t)nranks * sizeof(int));
	if (ranks && node_rank) {
		for (int r = 0; r < nranks; r++)
			ranks[r] = r;
		sg_node_ranks(pb->comm, nranks, ranks, node_rank);
	} else {
		free(node_rank);
		node_rank = NULL;
	}
	free(ranks);
	return node_rank;
}

/* Ranks of this rank's grid row and column (pb's effective P x Q grid: rank p*Q + q) on its
 * node, itself not counted (node_rank: grid_node_ranks). */
static void grid_peers(const struct sg_problem *pb, const int *node_rank, int *row, int *col)
{
	*row = *col = 0;
	if (!node_rank)
		return;
	int p = pb->rank / pb->Q, q = pb->rank % pb->Q;
	for (int x = 0; x < pb->Q + pb->P; x++) {
		int other = x < pb->Q ? p * pb->Q + x : (x - pb->Q) * pb->Q + q;
		if (other != pb->rank && node_rank[other] >= 0)
			++*(x < pb->Q ? row : col);
	}
}

/* The distinct op(A) and op(B) tiles this rank's tasks read that other ranks own, by where
 * those live (another node, or a node peer read in place), counted tile by tile on pb's grid:
 * with a transposed operand the owners of a rank's rows of op(A) are not its grid row, and no
 * fraction of the grid says how many are its own (2 x 2 grid, A transposed: a half on the
 * diagonal ranks, none on the others). Not for owners from a user function (not counted). */
static void count_inputs(const struct sg_problem *pb, const int *node_rank,
                         struct sg_resources *res)
{
	res->inputs_counted = 0;
	if (pb->user_owners || pb->local || pb->P * pb->Q < 2 || (pb->share && !node_rank))
		return;
	int p = pb->rank / pb->Q, q = pb->rank % pb->Q;
	double counts[2][2] = { { 0, 0 }, { 0, 0 } }; /* [A or B][far or near] */
	for (int x = 0; x < 2; x++) {
		char trans = x == 0 ? pb->transA : pb->transB;
		int mine = x == 0 ? pb->Mt : pb->Nt, first = x == 0 ? p : q;
		int step = x == 0 ? pb->P : pb->Q;
		for (int i = first; i < mine; i += step)
			for (int k = 0; k < pb->Kt; k++) {
				int row, col;
				if (x == 0)
					sg_op_tile(trans, i, k, &row, &col);
				else
					sg_op_tile(trans, k, i, &row, &col);
				int owner = (row % pb->P) * pb->Q + col % pb->Q;
				if (owner != pb->rank)
					counts[x][node_rank && node_rank[owner] >= 0]++;
			}
	}
	res->a_far = counts[0][0];
	res->a_near = counts[0][1];
	res->b_far = counts[1][0];
	res->b_near = counts[1][1];
	res->c_rows = p < pb->Mt ? (pb->Mt - p + pb->P - 1) / pb->P : 0;
	res->c_cols = q < pb->Nt ? (pb->Nt - q + pb->Q - 1) / pb->Q : 0;
	res->inputs_counted = 1;
}

void sg_resources_agree(struct sg_resources *res, const struct sg_problem *pb,
                        const struct starpu_gemm_opts *opts)
{
	MPI_Comm comm = pb->comm;
	/* Collective the first time on comm: made here on every rank, before anything that
	 * depends on sharing, which may differ between nodes. */
	if (!pb->local)
		sg_node_comm(comm);
	int ngpus;
	size_t gpu_mem = gpu_memory(&ngpus);
	if (opts && opts->gpu_mem)
		gpu_mem = opts->gpu_mem;
	/* Not starpu_memory_get_total(STARPU_MAIN_RAM): on a 256 GB GPU node it reported 13 GB,
	 * far below what the rank could use. */
	size_t host_mem = opts && opts->host_mem
	                  ? opts->host_mem
	                  : (size_t)starpu_gemm_host_memory(sg_ranks_on_node(comm), NULL);
	unsigned long long cpus = starpu_cpu_worker_get_count();
	int row_peers, col_peers;
	int *node_rank = grid_node_ranks(pb);
	grid_peers(pb, node_rank, &row_peers, &col_peers);
	/* The network rate in kB/s, rounded, any positive rate at least 1 (0 means unknown). */
	double gbps = sg_env_real(SG_ENV_GEMM_MPI_GBPS);
	int64_t kbps = gbps > 0 ? (int64_t)fmax(1, llround(gbps * 1e6)) : 0;
	/* One MPI_MIN for all: the largest worker count is the smallest of its negation. */
	int64_t local[10] = { ngpus, (int64_t)gpu_mem, (int64_t)host_mem, (int64_t)cpus,
	                      -(int64_t)cpus, row_peers, col_peers, gpu_links_fast(),
	                      pb->local || starpu_mpi_cache_is_enabled(),
	                      kbps }, agreed[10];
	sg_allreduce(local, agreed, 10, sizeof(local[0]), MPI_INT64_T, MPI_MIN, comm);
	res->mpi_rate = (double)agreed[9] * 1e3; /* kB/s agreed */
	res->no_mpi_cache = !agreed[8];
	count_inputs(pb, node_rank, res);
	free(node_rank);
	res->row_peers = (int)agreed[5];
	res->col_peers = (int)agreed[6];
	res->gpu_links = (int)agreed[7];
	res->gpus = (int)agreed[0];
	res->gpu_mem = (size_t)agreed[1];
	res->host_mem = (size_t)agreed[2];
	res->cpu_workers = (int)agreed[3];
	res->cpu_workers_max = (int)-agreed[4];
#ifdef STARPU_SIMGRID
	res->simulated = 1;
#else
	res->simulated = 0;
#endif
}
