/* What the machine offers the driver: workers per rank, and whether the matrices fit in the
 * ranks' host memory, found before anything is allocated. */
#ifndef SG_DRIVER_RESOURCES_H
#define SG_DRIVER_RESOURCES_H

#include <stddef.h>
#include <mpi.h>
#include "drivers/options.h"

/* Bytes of the A, B and C tiles rank owns under opts' distribution and tile size
 * (op(A) is M x K, op(B) is K x N, so A and B are stored transposed when trans != N). */
double sg_driver_owned_bytes(const struct sg_driver_options *opts, int rank);

/* Collective over MPI_COMM_WORLD: the ranks that share this rank's host (its memory and
 * cores), in MPI_COMM_WORLD's order. The caller frees it with sg_driver_host_comm_free. */
MPI_Comm sg_driver_host_comm(void);
void sg_driver_host_comm_free(MPI_Comm *host);

/* Collective over host (sg_driver_host_comm): ranks of one host share its memory, so each host
 * compares what all its ranks will own with what it has. Returns 0, or -1 with one sentence in
 * err on the ranks of a host that is short. */
int sg_driver_check_host_memory(const struct sg_driver_options *opts, MPI_Comm host, char *err,
                                size_t errlen);

/* Defaults where this rank sees a GPU (and STARPU_NCUDA is not 0), each overridden by its
 * environment variable: no CPU workers (STARPU_NCPU) and the dmdas scheduler (STARPU_SCHED);
 * ranks of one host (host, from sg_driver_host_comm) left unbound get a slice of its cores.
 * Sets sg_driver_sched_source to say where the scheduler came from. Not collective. */
struct starpu_conf;
void sg_driver_gpu_defaults(struct starpu_conf *conf, MPI_Comm host);
extern const char *sg_driver_sched_source;

/* Defaults without GPUs, each overridden by its environment variable: the lws scheduler
 * (STARPU_SCHED, unless sg_driver_gpu_defaults chose one), and where the rank is alone or bound
 * to one core, every core of its binding a CPU worker, none kept for StarPU-MPI's progress
 * thread (STARPU_NCPU, STARPU_RESERVE_NCPU, STARPU_MPI_THREAD_CPUID/COREID). Call it after
 * sg_driver_gpu_defaults. */
void sg_driver_cpu_defaults(struct starpu_conf *conf, int nranks);

/* "1.5 GiB" */
const char *sg_driver_format_bytes(double bytes, char *buf, size_t len);

#endif
