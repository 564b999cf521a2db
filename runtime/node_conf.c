/* StarPU's configuration on this node: scheduler, workers, and the cores their threads run on.
 * One place for the driver, the one call on host arrays and the ScaLAPACK drop-in (and any
 * application that starts StarPU itself): starpu_gemm_conf_defaults in the public header. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <hwloc.h>
#include <starpu_mpi.h>
#include <starpu_gemm.h>
#include <starpu_config.h>
#include "runtime/env.h"
#include "runtime/node_conf.h"
#include "runtime/starpu_threads.h"
#include "runtime/comm.h"
#include "common/errors.h"
#include "common/square_grid.h"
#ifdef STARPU_USE_CUDA
#include <cuda_runtime.h>
#endif

/* With GPUs, dmdas places tasks by perf model and data: lws let CPU workers take tile tasks
 * that a GPU runs thousands of times faster (bench/notes-gpu.md). */
#define SG_GPU_SCHED "dmdas"
/* Without GPUs: first or tied first at every tile size in bench/cpu.sh --sweep (bench/README.md). */
#define SG_CPU_SCHED "lws"

/* The GPUs this process's StarPU will drive: STARPU_NCUDA's, at most the visible ones. */
static int gpus_used(void)
{
#ifdef STARPU_USE_CUDA
	int64_t want = sg_env_is_set(SG_ENV_NCUDA) ? sg_env_int(SG_ENV_NCUDA) : -1;
	int devices = 0;
	if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < 0)
		return 0;
	if (want >= 0 && want < devices)
		return (int)want;
	return devices;
#else
	return 0;
#endif
}

/* Beside GPUs, one CPU worker, which adds the GPUs' products into C when C is kept in host
 * memory (compute/c_home.h), with helper threads on the cores no StarPU thread is bound to; no
 * GEMM task runs on it (compute/pgemm.c). With fewer helpers the adds lagged behind the GPU,
 * more would take memory bandwidth the host link's copies need (bench/notes-gpu.md). */
#define SG_ADD_HELPERS 7

/* This process's share of cores when bind_cores chose StarPU's binding: one PU each, as
 * StarPU numbers them (logical) and as the kernel does (OS). Empty otherwise. */
static unsigned share_pu[CPU_SETSIZE];
static int share_os[CPU_SETSIZE], share_count;

int sg_helper_cpus(int *cpus, int max)
{
	int n = 0;
	for (int c = 0; c < share_count && n < max && n < SG_ADD_HELPERS; c++)
		if (!sg_starpu_thread_on(share_pu[c]))
			cpus[n++] = share_os[c];
	return n;
}

/* The first integer among the launcher's variables named (outside the table), or fallback. */
static int env_int(const char *const *names, int fallback)
{
	for (; *names; names++) {
		const char *value = sg_env_outside(*names);
		if (value && *value)
			return atoi(value);
	}
	return fallback;
}

/* The processes sharing this node and the CPUs each may use. */
struct peers {
	int me, count;
	cpu_set_t *allowed; /* count sets, in node-local rank order */
};

/* Collective over comm: exact, whoever launched us. */
static int peers_from_comm(MPI_Comm comm, const cpu_set_t *mine, struct peers *p)
{
	MPI_Comm node = sg_node_comm(comm);
	MPI_Comm_rank(node, &p->me);
	MPI_Comm_size(node, &p->count);
	p->allowed = malloc((size_t)p->count * sizeof(cpu_set_t));
	int ok = p->allowed && MPI_Allgather(mine, sizeof(*mine), MPI_BYTE, p->allowed,
	                                     sizeof(*mine), MPI_BYTE, node) == MPI_SUCCESS;
	return ok ? 0 : -1;
}

/* Without a communicator to ask (the doors start StarPU inside a call that need not be
 * collective): the launcher's variables say which node-local rank this is, and only a process
 * left unbound, which cannot tell where its peers are bound, takes its share of the node,
 * assuming its peers are unbound too. */
static int peers_from_env(const cpu_set_t *mine, const cpu_set_t *node_cpus, struct peers *p)
{
	static const char *const rank_vars[] = { "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
	                                         "SLURM_LOCALID", NULL };
	static const char *const size_vars[] = { "OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS",
	                                         NULL };
	p->me = env_int(rank_vars, 0);
	p->count = env_int(size_vars, 1);
	if (p->count < 1 || p->me < 0 || p->me >= p->count || !CPU_EQUAL(mine, node_cpus))
		p->me = 0, p->count = 1;
	p->allowed = malloc((size_t)p->count * sizeof(cpu_set_t));
	for (int r = 0; p->allowed && r < p->count; r++)
		p->allowed[r] = *mine;
	return p->allowed ? 0 : -1;
}

/* This process's share of the cores it may use: the peers allowed exactly the same CPUs (all
 * of them under --bind-to none, or a socket each under --bind-to socket) split them into equal
 * consecutive slices in node-local rank order; a process bound alone keeps its binding.
 * Returns the number of slices (1: nothing to split), or 0 when a peer's CPUs overlap ours
 * without being the same (nothing sensible to split: left as it is). */
static int share(const struct peers *p, int *slice)
{
	const cpu_set_t *mine = &p->allowed[p->me];
	int same = 0;
	*slice = 0;
	for (int r = 0; r < p->count; r++) {
		cpu_set_t both;
		CPU_AND(&both, mine, &p->allowed[r]);
		if (CPU_EQUAL(mine, &p->allowed[r])) {
			if (r < p->me)
				(*slice)++;
			same++;
		} else if (CPU_COUNT(&both) > 0) {
			return 0;
		}
	}
	return same;
}

/* Logical indexes (StarPU's numbering) and OS indexes of one PU per core that this process
 * may use, in the topology's order; returns how many, at most max. */
static int usable_cores(hwloc_topology_t topology, const cpu_set_t *mine, unsigned *pu,
                        unsigned *os, int max)
{
	int depth = hwloc_get_type_depth(topology, HWLOC_OBJ_CORE);
	if (depth < 0)
		depth = hwloc_get_type_depth(topology, HWLOC_OBJ_PU);
	int n = 0, ncores = hwloc_get_nbobjs_by_depth(topology, depth);
	for (int c = 0; c < ncores && n < max; c++) {
		hwloc_obj_t core = hwloc_get_obj_by_depth(topology, depth, c);
		hwloc_obj_t first = NULL;
		while ((first = hwloc_get_next_obj_inside_cpuset_by_type(topology, core->cpuset,
		                                                          HWLOC_OBJ_PU, first)))
			if (CPU_ISSET(first->os_index, mine))
				break;
		if (first) {
			os[n] = first->os_index;
			pu[n++] = first->logical_index;
		}
	}
	return n;
}

/* The CPUs of the whole node this process could be allowed (for peers_from_env). */
static void node_cpus(hwloc_topology_t topology, cpu_set_t *all)
{
	CPU_ZERO(all);
	unsigned os;
	hwloc_bitmap_foreach_begin(os, hwloc_topology_get_allowed_cpuset(topology))
		if (os < CPU_SETSIZE)
			CPU_SET(os, all);
	hwloc_bitmap_foreach_end();
}

/* StarPU binds its CPU workers, then its CUDA workers' threads, then StarPU-MPI's thread, to
 * the successive entries of workers_bindid; past the last entry of a list it starts again
 * from the first. A list of this process's cores, repeated, keeps them all on it. Returns
 * the number of cores this process has (its share, or all of its binding where there is
 * nothing to share), or 0 where the user placed the threads or the cores are unknown. */
int sg_caller_cpus(void)
{
	cpu_set_t mine;
	return sched_getaffinity(0, sizeof(mine), &mine) == 0 ? CPU_COUNT(&mine) : 0;
}

static int bind_cores(struct starpu_conf *conf, MPI_Comm comm)
{
	if (sg_env_is_set(SG_ENV_WORKERS_CPUID) || sg_env_is_set(SG_ENV_WORKERS_COREID) ||
	    (sg_env_text(SG_ENV_WORKERS_GETBIND) && sg_env_int(SG_ENV_WORKERS_GETBIND) == 0))
		return 0;
	cpu_set_t mine, all;
	if (sched_getaffinity(0, sizeof(mine), &mine) != 0)
		return 0;
	hwloc_topology_t topology;
	if (hwloc_topology_init(&topology) != 0)
		return 0;
	int ncores = 0;
	struct peers p = { 0, 1, NULL };
	unsigned pu[CPU_SETSIZE], os[CPU_SETSIZE];
	if (hwloc_topology_load(topology) == 0) {
		node_cpus(topology, &all);
		ncores = usable_cores(topology, &mine, pu, os, CPU_SETSIZE);
	}
	int ret = ncores == 0 ? -1 : comm != MPI_COMM_NULL ? peers_from_comm(comm, &mine, &p)
	                                                   : peers_from_env(&mine, &all, &p);
	hwloc_topology_destroy(topology);
	int slice, slices = ret == 0 ? share(&p, &slice) : 0;
	free(p.allowed);
	if (slices == 0)
		return ncores;
	/* Consecutive cores each; more processes than cores share them, evenly. */
	int first = (int)((long)slice * ncores / slices);
	int count = (int)((long)(slice + 1) * ncores / slices) - first;
	if (count < 1)
		count = 1;
	conf->use_explicit_workers_bindid = 1;
	for (int w = 0; w < STARPU_NMAXWORKERS; w++)
		conf->workers_bindid[w] = pu[first + w % count];
	share_count = count;
	for (int c = 0; c < count; c++) {
		share_pu[c] = pu[first + c];
		share_os[c] = (int)os[first + c];
	}
	/* The calling thread too, and the threads it starts later (the library's submission
	 * thread, the driver's own): left floating over the whole node, they took the other
	 * ranks' cores (2 ranks on 2 cores under --bind-to none, N=4096: 28 GFLOP/s against 55
	 * bound by mpirun, on a machine loaded by other jobs). Only with a communicator: the
	 * process is then the caller's to place, not an application's that calls a door. */
	if (comm != MPI_COMM_NULL) {
		cpu_set_t share;
		CPU_ZERO(&share);
		for (int c = first; c < first + count; c++)
			CPU_SET(os[c], &share);
		sched_setaffinity(0, sizeof(share), &share);
	}
	return count;
}

/* Ranks of the job, when StarPU-MPI will run. */
static int job_ranks(MPI_Comm comm)
{
	int ranks = 1, initialized = 0;
	if (comm != MPI_COMM_NULL)
		MPI_Comm_size(comm, &ranks);
	else if (MPI_Initialized(&initialized) == MPI_SUCCESS && initialized)
		MPI_Comm_size(MPI_COMM_WORLD, &ranks);
	return ranks;
}

/* StarPU-MPI keeps at most STARPU_MPI_NDETACHED_SEND sends in flight per rank (default 10),
 * taken in priority order (the walk's): a rank of a 2D grid sends its tiles to the P + Q - 2
 * other nodes of its grid row and column, and a count that is not a multiple of those leaves
 * some links with fewer sends than others. Simulated 16 nodes x 4 H200 at 200 Gb/s, 4 x 4,
 * n = 131072: 2, 4, 6, 8, 10, 12, 24 sends gave 1379, 1662, 1881, 1768, 1772, 1883, 1844
 * TFLOP/s (1600 Gb/s: 6, 10, 12 gave 3132, 3127, 3146); 64 nodes (8 x 8) at 1600 Gb/s: 14
 * gave 9754 against 9163 with 10, where 28 outgrew the simulating machine's memory (more
 * messages in flight); on one 4 x H200 node, 2 ranks each its own node (1 x 2), n = 32768:
 * 1.34-1.39 s with 2 against 1.38-1.50 s with 10 (bench/results/node-h200x4-20261127x.log). So
 * one send per other node of the most square grid over the job's nodes, at least 2, unless
 * the user set it. scripts/simgrid/simulate.sh gives the same (StarPU-MPI under SMPI reads
 * it before this). */
static void mpi_sends_in_flight(MPI_Comm comm)
{
	int nodes = job_ranks(comm);
#ifndef STARPU_SIMGRID /* every simulated rank is a node */
	if (nodes > 1) {
		/* Collective on every rank whatever its settings (a rank that skipped it would
		 * leave the others waiting in it): the machines, and whether every rank shares
		 * its node (else each rank is a node: STARPU_GEMM_SHARE_NODE=0). */
		if (comm == MPI_COMM_NULL)
			comm = MPI_COMM_WORLD;
		int node_rank, mine[2], all[2];
		SG_MPI_FATAL(MPI_Comm_rank(sg_node_comm(comm), &node_rank));
		mine[0] = node_rank == 0;
		mine[1] = sg_env_int(SG_ENV_GEMM_SHARE_NODE) != 0;
		SG_MPI_FATAL(MPI_Allreduce(mine, all, 2, MPI_INT, MPI_SUM, comm));
		if (all[1] == nodes)
			nodes = all[0];
	}
#endif
	if (nodes < 2 || sg_env_is_set(SG_ENV_MPI_NDETACHED_SEND))
		return;
	int rows = sg_square_grid_rows(nodes);
	int others = rows + nodes / rows - 2;
	char value[16];
	snprintf(value, sizeof(value), "%d", others > 2 ? others : 2);
	setenv("STARPU_MPI_NDETACHED_SEND", value, 0);
}

/* Measured on 2 cores, N=4096 DGEMM (bench/README.md): StarPU-MPI keeps a core for its
 * progress thread when STARPU_NCPU is unset, which halves one rank (40 GFLOP/s with 1 worker,
 * 72 with 2) and leaves a rank on one core with no worker at all. That thread sleeps on a
 * condition while no MPI request is pending: alone it never wakes, and on a rank's only core
 * it costs little (2 ranks x 1 core: 71 GFLOP/s). On more cores StarPU's reservation stands. */
int starpu_gemm_conf_defaults(struct starpu_conf *conf, MPI_Comm comm, int mpi)
{
	int gpus = gpus_used(), gpu = gpus > 0;
	share_count = 0; /* a share of an earlier start of StarPU is not this one's */
	if (!sg_env_is_set(SG_ENV_SCHED))
		conf->sched_policy_name = gpu ? SG_GPU_SCHED : SG_CPU_SCHED;
	if (mpi)
		mpi_sends_in_flight(comm);
#ifdef STARPU_SIMGRID
	/* Simulated CPUs: nothing to bind, and the application's collectives are not delivered
	 * under SMPI (runtime/comm.h). */
	(void)bind_cores;
	int cores = 0;
#else
	int cores = bind_cores(conf, comm);
#endif
	if (cores == 0)
		return 0;
	if (sg_env_is_set(SG_ENV_NCPU))
		return 0;
	if (gpu) {
		/* One CPU worker where a core is left once each GPU's thread and StarPU-MPI's have
		 * one; the helpers take the cores no StarPU thread is bound to (sg_helper_cpus). */
		conf->ncpus = cores > gpus + (mpi ? 1 : 0) ? 1 : 0;
		return 0;
	}
	/* STARPU_RESERVE_NCPU, when set, StarPU still takes off what we set. */
	int reserve = mpi && cores > 1 && job_ranks(comm) > 1 &&
	              !sg_env_is_set(SG_ENV_RESERVE_NCPU) &&
	              !sg_env_is_set(SG_ENV_MPI_THREAD_CPUID) &&
	              !sg_env_is_set(SG_ENV_MPI_THREAD_COREID);
	conf->ncpus = cores - reserve;
	/* Quiet defaults (each unless the user set it). With every core a worker, StarPU-MPI
	 * binds its thread to a worker's core and warns so in 3 lines per rank: it floats
	 * instead. On one core StarPU also warns that the binding holds one CPU (3 more lines),
	 * which is what this choice wants: it ignores the binding and binds nothing, and every
	 * thread keeps the core the process was given. */
	if (mpi && !reserve)
		setenv("STARPU_MPI_NOBIND", "1", 0);
	if (cores == 1) {
		setenv("STARPU_WORKERS_GETBIND", "0", 0);
		setenv("STARPU_WORKERS_NOBIND", "1", 0);
	}
	return 0;
}
