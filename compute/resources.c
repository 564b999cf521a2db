/* The resources a plan is made for: measured here, agreed once, then handed to the pure
 * planner (compute/plan.c), which reads nothing of the machine itself. */
#include <starpu.h>
#include "compute/resources.h"
#include "common/comm.h"

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

void sg_resources_agree(struct sg_resources *res, const struct starpu_gemm_opts *opts,
                        MPI_Comm comm)
{
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
	/* One MPI_MIN for all: the largest worker count is the smallest of its negation. */
	int64_t local[5] = { ngpus, (int64_t)gpu_mem, (int64_t)host_mem, (int64_t)cpus,
	                     -(int64_t)cpus }, agreed[5];
	sg_allreduce(local, agreed, 5, sizeof(local[0]), MPI_INT64_T, MPI_MIN, comm);
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
