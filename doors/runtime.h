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

/* Nonzero in a fork()ed child of a process where StarPU ran (or was running): StarPU cannot
 * run there, the doors compute on the CPU BLAS. */
int sg_runtime_forked(void);

/* The doors' one lock around a product (and sg_runtime_start): one product at a time, and
 * none torn down by the exit handler while it runs. */
void sg_door_enter(void);
void sg_door_leave(void);

#endif
