/* How much host memory a rank may use: the one place that reads it, for the driver's
 * up-front check and for the plan. */
#ifndef SG_HOSTMEM_H
#define SG_HOSTMEM_H

/* Bytes this process may use for tiles, shared by ranks_on_node ranks of one node:
 * STARPU_LIMIT_CPU_MEM (MiB, per process, StarPU's own limit) when set, else the node's
 * MemAvailable divided by ranks_on_node. *source (may be NULL) names which. Set
 * STARPU_LIMIT_CPU_MEM where MemAvailable does not tell the truth, e.g. on a VM whose memory
 * grows as it is touched (MemTotal starts far below the machine's memory). */
double sg_host_memory(int ranks_on_node, const char **source);

#endif
