/* What the node's configuration (common/node_conf.c, starpu_gemm_conf_defaults) leaves to the
 * library beyond StarPU's own threads. */
#ifndef SG_NODE_CONF_H
#define SG_NODE_CONF_H

/* The cores (OS numbers) of this process that no StarPU thread is bound to, for the helper
 * threads of C's adds at home (codelets/add_codelets.c); sets *cpus and returns how many (0
 * where the defaults did not bind StarPU's threads, or left no core). */
int sg_helper_cpus(const int **cpus);

#endif
