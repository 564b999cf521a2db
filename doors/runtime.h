/* What the doors share: StarPU started on first use and kept, and the pinning of caller memory
 * as the product reaches it. */
#ifndef SG_DOORS_RUNTIME_H
#define SG_DOORS_RUNTIME_H

#include <stddef.h>

/* Start StarPU (not StarPU-MPI) once per process unless the application already did; it is
 * shut down at exit by us only if we started it. Returns the number of CUDA workers (>= 0), or
 * -ENODEV with one line on stderr when StarPU cannot start. Not thread-safe: the doors call it
 * under their own lock. */
int sg_runtime_start(void);

/* The driver's defaults, measured on GPU nodes, where this process sees a GPU (and
 * STARPU_NCUDA is not 0): no CPU workers (a CPU tile is 100 times slower than a GPU tile and
 * ends the product late) and the dmdas scheduler, each unless its STARPU_* variable is set.
 * Returns 1 when a GPU was seen. Used by the one call and the ScaLAPACK drop-in. */
struct starpu_conf;
int sg_runtime_gpu_defaults(struct starpu_conf *conf);

#endif
