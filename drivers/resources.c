#define _GNU_SOURCE
#include <sched.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <hwloc.h>
#include "drivers/resources.h"
#include "drivers/collectives.h"
#include <starpu_gemm.h>
#include <starpu.h>
#ifdef STARPU_USE_CUDA
#include <cuda_runtime.h>
#endif

#define SG_DRIVER_GPU_SCHED "dmdas"
/* The scheduler without GPUs: the sweep of bench/cpu.sh --sweep (bench/README.md). */
#define SG_DRIVER_CPU_SCHED "lws"

/* Every distribution the driver offers owns a product set of tiles that repeats every nranks
 * tiles along each dimension: rank owns (i,j) iff it owns (i,j0) and (i0,j), for any tile
 * (i0,j0) it owns. Elements of the dimension of length n that fall on tiles the rank owns,
 * the other coordinate fixed at other. */
static double owned_extent(const struct starpu_gemm_dist *dist, int rank, int along_rows,
                           int other, int64_t n, int tile)
{
	int period = dist->P * dist->Q;
	int64_t ntiles = (n + tile - 1) / tile;
	double extent = 0;
	for (int k = 0; k < period && k < ntiles; k++) {
		int owner = along_rows ? starpu_gemm_dist_owner(dist, k, other) : starpu_gemm_dist_owner(dist, other, k);
		if (owner != rank)
			continue;
		extent += (double)((ntiles - 1 - k) / period + 1) * tile; /* tiles k, k+period, ... */
		if ((ntiles - 1) % period == k) /* the last, possibly short, tile is ours */
			extent -= (double)(ntiles * tile - n);
	}
	return extent;
}

static double owned_matrix_bytes(const struct sg_driver_options *opts, int rank, int64_t rows,
                                 int64_t cols)
{
	struct starpu_gemm_dist dist = { .kind = opts->dist, .P = opts->P, .Q = opts->Q };
	int nranks = opts->P * opts->Q, tile = opts->tile;
	int64_t mt = (rows + tile - 1) / tile, nt = (cols + tile - 1) / tile;
	for (int i = 0; i < mt && i < nranks; i++)
		for (int j = 0; j < nt && j < nranks; j++)
			if (starpu_gemm_dist_owner(&dist, i, j) == rank)
				return owned_extent(&dist, rank, 1, j, rows, tile) *
				       owned_extent(&dist, rank, 0, i, cols, tile) *
				       (double)starpu_gemm_elemsize(opts->prec);
	return 0;
}

double sg_driver_owned_bytes(const struct sg_driver_options *opts, int rank)
{
	int64_t a_rows = opts->transA == 'N' ? opts->M : opts->K;
	int64_t a_cols = opts->transA == 'N' ? opts->K : opts->M;
	int64_t b_rows = opts->transB == 'N' ? opts->K : opts->N;
	int64_t b_cols = opts->transB == 'N' ? opts->N : opts->K;
	return owned_matrix_bytes(opts, rank, a_rows, a_cols) +
	       owned_matrix_bytes(opts, rank, b_rows, b_cols) +
	       owned_matrix_bytes(opts, rank, opts->M, opts->N);
}

const char *sg_driver_sched_source = "StarPU's default";

/* Measured on a 2xH200 node, n=16384 DGEMM (bench/notes-gpu.md): with 30 CPU workers beside
 * each GPU, lws gave 0.29 TFLOP/s; GPUs alone, 65 TFLOP/s: a CPU core holds a 2048 tile task
 * 4300x longer than a GPU (perfmodels/h200). dmdas places tasks by perf model and data. */
#ifdef STARPU_USE_CUDA
/* Ranks of one node that mpirun left unbound (--bind-to none) each see every core, and each
 * StarPU binds its CUDA worker and MPI thread to the first ones: the same cores for every rank.
 * Measured: 2 ranks sharing an H200 node this way ran a 16384 DGEMM at 0.8 TFLOP/s. Give each
 * such rank its own slice of the cores instead; ranks mpirun did bind are left alone. */
static void share_cores(MPI_Comm host)
{
	int local_rank, local_ranks;
	MPI_Comm_rank(host, &local_rank);
	MPI_Comm_size(host, &local_ranks);
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t mine;
	if (local_ranks < 2 || cores < 2L * local_ranks ||
	    sched_getaffinity(0, sizeof(mine), &mine) != 0 || CPU_COUNT(&mine) < cores)
		return;
	long per_rank = cores / local_ranks, first = local_rank * per_rank;
	cpu_set_t slice;
	CPU_ZERO(&slice);
	for (long c = first; c < first + per_rank; c++)
		CPU_SET((int)c, &slice);
	sched_setaffinity(0, sizeof(slice), &slice);
}
#endif

void sg_driver_gpu_defaults(struct starpu_conf *conf, MPI_Comm host)
{
#ifdef STARPU_USE_CUDA
	const char *ncuda = getenv("STARPU_NCUDA");
	int devices = 0;
	if ((ncuda && atoi(ncuda) == 0) || cudaGetDeviceCount(&devices) != cudaSuccess ||
	    devices == 0)
		return;
	if (!getenv("STARPU_NCPU"))
		conf->ncpus = 0;
	share_cores(host);
	const char *sched = getenv("STARPU_SCHED");
	if (!sched || !*sched) {
		conf->sched_policy_name = SG_DRIVER_GPU_SCHED;
		sg_driver_sched_source = "the driver's default with GPUs; STARPU_SCHED overrides";
	}
#else
	(void)conf;
	(void)host;
#endif
}

/* Cores in this process's binding (StarPU starts one CPU worker per core, and honours the
 * binding mpirun gave unless STARPU_WORKERS_GETBIND=0); 0 when hwloc cannot tell. */
static int bound_cores(void)
{
	hwloc_topology_t topology;
	if (hwloc_topology_init(&topology) != 0)
		return 0;
	int cores = 0;
	hwloc_bitmap_t bound = hwloc_bitmap_alloc();
	if (bound && hwloc_topology_load(topology) == 0 &&
	    hwloc_get_cpubind(topology, bound, HWLOC_CPUBIND_PROCESS) == 0)
		cores = hwloc_get_nbobjs_inside_cpuset_by_type(topology, bound, HWLOC_OBJ_CORE);
	hwloc_bitmap_free(bound);
	hwloc_topology_destroy(topology);
	return cores;
}

/* Measured on 2 cores, N=4096 DGEMM (bench/README.md): StarPU-MPI keeps a core for its
 * progress thread when STARPU_NCPU is unset, which halves one rank (40 GFLOP/s with 1 worker,
 * 72 with 2) and leaves a rank bound to one core with no worker at all. That thread sleeps on a
 * condition while no MPI request is pending: with one rank it never wakes, and on a rank's
 * only core it costs little (2 ranks x 1 core: 71 GFLOP/s). The lws/eager/dmda/dmdas x tile
 * sweep put lws first. */
void sg_driver_cpu_defaults(struct starpu_conf *conf, int nranks)
{
	const char *sched = getenv("STARPU_SCHED");
	if (!conf->sched_policy_name && (!sched || !*sched)) {
		conf->sched_policy_name = SG_DRIVER_CPU_SCHED;
		sg_driver_sched_source = "the driver's default on CPUs; STARPU_SCHED overrides";
	}
	/* conf->ncpus is -1 unless STARPU_NCPU or sg_driver_gpu_defaults set it. */
	const char *getbind = getenv("STARPU_WORKERS_GETBIND");
	if (conf->ncpus != -1 || getenv("STARPU_RESERVE_NCPU") ||
	    getenv("STARPU_MPI_THREAD_CPUID") || getenv("STARPU_MPI_THREAD_COREID") ||
	    (getbind && atoi(getbind) == 0))
		return;
	int cores = bound_cores();
	if (cores > 0 && (nranks == 1 || cores == 1))
		conf->ncpus = cores;
}

const char *sg_driver_format_bytes(double bytes, char *buf, size_t len)
{
	static const char *units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	size_t u = 0;
	while (bytes >= 1024.0 && u + 1 < sizeof(units) / sizeof(units[0])) {
		bytes /= 1024.0;
		u++;
	}
	snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", bytes, units[u]);
	return buf;
}

/* Under StarPU+SimGrid every rank is a simulated node of its own (common/comm.h). */
MPI_Comm sg_driver_host_comm(void)
{
#ifdef STARPU_SIMGRID
	return MPI_COMM_SELF;
#else
	MPI_Comm host;
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
	return host;
#endif
}

void sg_driver_host_comm_free(MPI_Comm *host)
{
	if (*host != MPI_COMM_SELF)
		MPI_Comm_free(host);
}

int sg_driver_check_host_memory(const struct sg_driver_options *opts, MPI_Comm host, char *err,
                                size_t errlen)
{
	int rank, host_ranks;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(host, &host_ranks);
	double need = sg_driver_owned_bytes(opts, rank), host_need = 0;
	sg_driver_allreduce(&need, &host_need, 1, sizeof(double), MPI_DOUBLE, MPI_SUM, host);

	/* A per-process limit (STARPU_LIMIT_CPU_MEM) bounds each rank; otherwise the node's ranks
	 * share its available memory, however unevenly they own tiles. */
	const char *source;
	double per_rank = starpu_gemm_host_memory(host_ranks, &source);
	double available = per_rank * host_ranks;
	int per_process = strcmp(source, "STARPU_LIMIT_CPU_MEM") == 0;
	if (per_process ? need <= per_rank : host_need <= available)
		return 0;
	char need_text[32], host_text[32], avail_text[32];
	snprintf(err, errlen, "-M/-N/-K: matrices too large for host memory: rank %d needs %s for "
	         "the A, B and C tiles it owns (%s for the %d rank(s) on its host) but only %s is "
	         "available (%s%s)", rank, sg_driver_format_bytes(need, need_text, sizeof(need_text)),
	         sg_driver_format_bytes(host_need, host_text, sizeof(host_text)), host_ranks,
	         sg_driver_format_bytes(per_process ? per_rank : available, avail_text,
	                                sizeof(avail_text)), source, per_process ? ", per rank" : "");
	return -1;
}
