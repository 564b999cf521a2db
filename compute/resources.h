/* What a product may use, measured on each rank and agreed by all of them in one collective,
 * so that every rank plans (compute/plan.h) and walks the same blocks and chunks. */
#ifndef SG_RESOURCES_H
#define SG_RESOURCES_H

#include <stddef.h>
#include <starpu_gemm.h>

struct sg_resources {
	int gpus;            /* GPUs (CUDA memory nodes) per rank: the fewest of any rank */
	size_t gpu_mem;      /* bytes one GPU may hold: opts->gpu_mem, else the smallest GPU */
	size_t host_mem;     /* bytes of host memory per rank: opts->host_mem, else the smallest
	                      * share (STARPU_LIMIT_CPU_MEM, or MemAvailable over the node's ranks) */
	int cpu_workers;     /* CPU workers per rank: the fewest (C at home needs one everywhere) */
	int cpu_workers_max; /* the most: what the host memory bound counts per rank */
	int simulated;       /* StarPU+SimGrid: tasks are charged their model's time */
	int row_peers;       /* node sharing: other ranks of this rank's grid row (col_peers: its
	                      * column) whose tiles it reads in place, the fewest of any rank */
	int col_peers;
	int inputs_counted;  /* 1: the four counts below are this rank's, counted on the grid */
	double a_far, a_near; /* distinct op(A) tiles this rank's C rows read, owned by ranks of
	                       * other nodes, and by node peers whose tiles it reads in place */
	double b_far, b_near; /* op(B)'s, for its C columns */
	int c_rows, c_cols;   /* this rank's C tile rows and columns */
	int no_mpi_cache;    /* StarPU-MPI's cache is off on some rank (STARPU_MPI_CACHE=0): a
	                      * task receives each input of another node itself */
	double mpi_rate;     /* bytes/s a rank receives from other nodes at (STARPU_GEMM_MPI_GBPS),
	                      * the smallest of any rank; 0: unknown (unset on some rank) */
	int gpu_links;       /* every ordered pair of the rank's (two or more) GPUs copies at least
	                      * twice as fast as the host link, by StarPU's bus calibration
	                      * (NVLink): 1 on every rank, else 0 */
};

/* Collective over pb->comm (STARPU_GEMM_COMM_LOCAL: this process alone, no MPI): this rank's
 * resources, as StarPU reports them unless opts (may be NULL) gives the memory sizes, and its
 * node peers on pb's grid where pb->share, agreed in one MPI_Allreduce. StarPU must be
 * running. */
struct sg_problem;
void sg_resources_agree(struct sg_resources *res, const struct sg_problem *pb,
                        const struct starpu_gemm_opts *opts);

#endif
