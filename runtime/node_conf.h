/* What the node's configuration (runtime/node_conf.c, starpu_gemm_conf_defaults) leaves to the
 * library beyond StarPU's own threads. */
#ifndef SG_NODE_CONF_H
#define SG_NODE_CONF_H

/* While StarPU runs: up to max cores (OS numbers) of this process's share that no StarPU
 * thread is bound to, for the helper threads of C's adds at home (codelets/add_codelets.c),
 * into cpus; returns how many (0 where the defaults did not choose StarPU's binding). */
int sg_helper_cpus(int *cpus, int max);

/* CPUs the calling thread may run on (its affinity: what mpirun's binding left it), 0 when
 * unknown. */
int sg_caller_cpus(void);

#endif
