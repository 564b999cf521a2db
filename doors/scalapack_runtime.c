/* The runtime under the PBLAS drop-in: the application owns MPI, so StarPU and StarPU-MPI
 * start inside the first p?gemm_ that goes through StarPU, stay up for the later ones, and
 * stop at the very start of MPI_Finalize (MPI_COMM_SELF's attributes are deleted first, while
 * MPI still works), before MPI goes away under StarPU-MPI's progress thread. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include <starpu_mpi.h>
#include "doors/scalapack.h"
#include "doors/runtime.h"
#include "common/errors.h"
#include "runtime/env.h"

static int runtime_state = 1; /* 1: not started yet; 0: running; < 0: could not start */

static int stop_runtime(MPI_Comm comm, int keyval, void *value, void *extra)
{
	if (runtime_state == 0) {
		starpu_resume(); /* StarPU asserts that it is not shut down paused */
		sg_scalapack_descs_drop();
		starpu_gemm_runtime_stop();
		runtime_state = -ESHUTDOWN;
	}
	return MPI_SUCCESS;
}

static int start_runtime(int speak)
{
	int provided;
	SG_MPI_FATAL(MPI_Query_thread(&provided));
	if (provided < MPI_THREAD_SERIALIZED) {
		/* StarPU-MPI's progress thread calls MPI beside the application's thread. The
		 * same for every process: one of them says so. */
		if (speak)
			fprintf(stderr, "starpu_gemm_scalapack: warning: MPI was initialised with "
			        "thread level %d, StarPU-MPI needs MPI_THREAD_SERIALIZED or more "
			        "(MPI_Init_thread; Open MPI: OMPI_MPI_THREAD_LEVEL=3): p?gemm_ calls go "
			        "to ScaLAPACK\n", provided);
		return -EPROTONOSUPPORT;
	}
	/* The application initialised MPI and will finalize it; every process of it starts
	 * StarPU-MPI together, or none does. */
	char notice[512], err[512];
	struct starpu_gemm_runtime want = { .mpi = 1, .comm = MPI_COMM_WORLD,
	                                    .together = MPI_COMM_WORLD };
	int ret = starpu_gemm_runtime_start(&want, notice, sizeof(notice), err, sizeof(err));
	if (ret) {
		if (speak)
			fprintf(stderr, "starpu_gemm_scalapack: warning: %s: p?gemm_ calls go to "
			        "ScaLAPACK\n", err);
		return ret;
	}
	if (notice[0] && speak)
		fprintf(stderr, "starpu_gemm_scalapack: notice: %s\n", notice);
	/* Idle workers poll for tasks: paused, they sleep while the application computes
	 * between calls, and while the matrices are redistributed. */
	starpu_pause();
	int keyval;
	SG_MPI_FATAL(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, stop_runtime, &keyval, NULL));
	SG_MPI_FATAL(MPI_Comm_set_attr(MPI_COMM_SELF, keyval, NULL));
	return 0;
}

/* StarPU starts paused: its workers run only inside starpu_gemm_pgemm (doors/scalapack.c). */
int sg_scalapack_runtime(int speak)
{
	if (runtime_state == 1)
		runtime_state = start_runtime(speak);
	return runtime_state;
}

/* Grids seen so far, by their processes (MPI_COMM_WORLD ranks in grid order): a key that
 * every process of a grid computes alike, so all of them find it or all create it. Contexts
 * come and go (the PBLAS testers make several grids); their communicators' handles may be
 * reused, their processes identify them. Never evicted: which entry to drop would depend on
 * each process's own history. */
struct grid {
	int size;
	int *world_ranks;
	MPI_Comm comm;
};
static struct grid *grids;
static int ngrids;

static int *world_ranks_of(MPI_Comm comm, int size)
{
	int *ranks = malloc(2 * (size_t)size * sizeof(int));
	if (!ranks)
		return NULL;
	MPI_Group group, world;
	SG_MPI_FATAL(MPI_Comm_group(comm, &group));
	SG_MPI_FATAL(MPI_Comm_group(MPI_COMM_WORLD, &world));
	for (int r = 0; r < size; r++)
		ranks[size + r] = r;
	SG_MPI_FATAL(MPI_Group_translate_ranks(group, size, ranks + size, world, ranks));
	SG_MPI_FATAL(MPI_Group_free(&group));
	SG_MPI_FATAL(MPI_Group_free(&world));
	return ranks;
}

MPI_Comm sg_scalapack_grid_comm(int ctxt)
{
	int handle = -1;
	Cblacs_get(ctxt, SG_BLACS_GET_GRID_COMM, &handle);
	MPI_Comm blacs = Cblacs2sys_handle(handle);
	int size;
	SG_MPI_FATAL(MPI_Comm_size(blacs, &size));
	int *ranks = world_ranks_of(blacs, size);
	if (!ranks)
		sg_fatal(__FILE__, __LINE__, "malloc", "grid processes", NULL);
	for (int g = 0; g < ngrids; g++) {
		if (grids[g].size == size &&
		    memcmp(grids[g].world_ranks, ranks, (size_t)size * sizeof(int)) == 0) {
			free(ranks);
			return grids[g].comm;
		}
	}
	/* Our own duplicate: StarPU-MPI keeps a receive posted on every communicator it knows,
	 * which must never match a message of the BLACS. */
	MPI_Comm comm;
	SG_MPI_FATAL(MPI_Comm_dup(blacs, &comm));
	struct grid *more = realloc(grids, (size_t)(ngrids + 1) * sizeof(*grids));
	if (!more)
		sg_fatal(__FILE__, __LINE__, "realloc", "grid table", NULL);
	grids = more;
	grids[ngrids++] = (struct grid){ .size = size, .world_ranks = ranks, .comm = comm };
	return comm;
}

/* The default, 2^27 = 512^3 (runtime/env.c): below it the call is cheap enough that starting
 * tasks and moving the matrices costs more than PBLAS's own communication (a guess, not
 * measured). */
int64_t sg_scalapack_threshold(void)
{
	static int64_t threshold = -1;
	if (threshold < 0)
		threshold = sg_env_int(SG_ENV_GEMM_SCALAPACK_THRESHOLD);
	return threshold;
}

int sg_scalapack_keep(void)
{
	static int keep = -1;
	if (keep < 0)
		keep = sg_env_int(SG_ENV_GEMM_SCALAPACK_KEEP) > 0;
	return keep;
}

int sg_scalapack_verbose(void)
{
	static int verbose = -1;
	if (verbose < 0)
		verbose = sg_env_int(SG_ENV_GEMM_VERBOSE) > 0;
	return verbose;
}

int sg_scalapack_tile_setting(void)
{
	static int64_t tile = -1;
	if (tile < 0)
		tile = sg_env_int(SG_ENV_GEMM_SCALAPACK_TILE);
	return tile <= (1 << 20) ? (int)tile : 0;
}

/* The redistribution's copying threads. StarPU's workers are paused while it runs, so it may
 * take every core of this process's binding; 16 copy at the host's memory bandwidth on a
 * 16-core node (55-65 GB/s, against 6 GB/s for one). */
int sg_scalapack_threads(void)
{
	static int threads = -1;
	if (threads < 0) {
		cpu_set_t bound;
		int cores = sched_getaffinity(0, sizeof(bound), &bound) == 0 ? CPU_COUNT(&bound) : 1;
		int64_t setting = sg_env_int(SG_ENV_GEMM_SCALAPACK_THREADS);
		threads = setting > 0 ? (setting < 1024 ? (int)setting : 1024)
		                      : cores < 16 ? cores : 16;
	}
	return threads;
}
