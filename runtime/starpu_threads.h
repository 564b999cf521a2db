/* The cores StarPU's own threads hold (its workers', StarPU-MPI's), and those it leaves: one
 * place for the library (runtime/node_conf.c: the helpers of C's adds at home) and for the
 * doors' copying threads (doors/stage.c, doors/redistribute_flow.c), which the ScaLAPACK
 * drop-in compiles in. */
#ifndef SG_STARPU_THREADS_H
#define SG_STARPU_THREADS_H

#include <pthread.h>
#include <sched.h>

/* Whether StarPU bound one of its threads to PU pu (logical, as StarPU numbers them). */
int sg_starpu_thread_on(unsigned pu);

/* The CPUs of the calling thread's affinity that no StarPU thread is bound to, into *set:
 * where the doors' copying threads run while the product does, so that none shares its CPU
 * with a thread that feeds a GPU (with 64 copiers over all 64 cores of a 4 x H200 node, each
 * GPU's worker shared its core with a copier busy for the whole product: the one call ran at
 * 0.860 x the driver, 0.908 with the copiers off those cores; bench/notes-arrays.md). Where
 * that leaves less than half of the caller's CPUs, under simulation, or when StarPU is not
 * running: the caller's whole affinity. Returns how many (0, *set empty, when the affinity is
 * unknown). Its callers define _GNU_SOURCE (cpu_set_t). */
int sg_copier_cpus(cpu_set_t *set);

/* Starts a copying thread running fn(arg) into *id, bound to cpus (NULL: where the caller's
 * threads are), or unbound where the binding is refused. 0, or pthread_create's error. */
int sg_copier_start(pthread_t *id, const cpu_set_t *cpus, void *(*fn)(void *), void *arg);

#endif
