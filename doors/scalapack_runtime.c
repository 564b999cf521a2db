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
	int agrees;  /* -1: not yet asked; 1: its processes' settings match; 0: they differ */
	int warned;  /* this process said the grid cannot start StarPU-MPI */
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

static struct grid *grid_of(int ctxt)
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
			return &grids[g];
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
	grids[ngrids++] = (struct grid){ .size = size, .world_ranks = ranks, .comm = comm,
	                                 .agrees = -1 };
	return &grids[ngrids - 1];
}

MPI_Comm sg_scalapack_grid_comm(int ctxt)
{
	return grid_of(ctxt)->comm;
}

/* The settings every process of a grid must share (the routing and the tiles depend on
 * them): 0 when they match, else one line from the grid's first process naming the variable
 * and each process's value (MPI_COMM_WORLD ranks). Collective over the grid. */
static int settings_match(const struct grid *grid, int speak)
{
	struct { const char *name; int64_t value; } settings[] = {
		{ "STARPU_GEMM_SCALAPACK_THRESHOLD", sg_scalapack_threshold() },
		{ "STARPU_GEMM_SCALAPACK_TILE", sg_scalapack_tile_setting() },
	};
	int mismatches = 0;
	int64_t *values = malloc((size_t)grid->size * sizeof(int64_t));
	if (!values)
		sg_fatal(__FILE__, __LINE__, "malloc", "settings of the grid", NULL);
	for (size_t v = 0; v < sizeof(settings) / sizeof(settings[0]); v++) {
		SG_MPI_FATAL(MPI_Allgather(&settings[v].value, 1, MPI_INT64_T, values, 1, MPI_INT64_T,
		                           grid->comm));
		int differ = 0;
		for (int r = 1; r < grid->size; r++)
			differ |= values[r] != values[0];
		mismatches += differ;
		if (!differ || !speak)
			continue;
		char list[1024];
		size_t used = 0;
		for (int r = 0; r < grid->size && used < sizeof(list); r++)
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%d: %lld",
			                         r ? ", " : "", grid->world_ranks[r],
			                         (long long)values[r]);
		fprintf(stderr, "starpu_gemm_scalapack: error: %s differs across the processes of "
		        "the grid (MPI_COMM_WORLD rank: value as read, %s); it must be the same on "
		        "every process: this grid's p?gemm_ calls go to ScaLAPACK\n",
		        settings[v].name, list);
	}
	free(values);
	return mismatches;
}

/* Collective over the grid the first time it comes; then its verdict, kept. */
int sg_scalapack_grid_agrees(int ctxt, int speak)
{
	struct grid *grid = grid_of(ctxt);
	if (grid->agrees < 0)
		grid->agrees = settings_match(grid, speak) == 0;
	return grid->agrees;
}

/* StarPU-MPI starts on MPI_COMM_WORLD, every process together (runtime/lifecycle.c), so the
 * first routed call must come on a grid of all of them: on a grid that leaves some out, they
 * would never join the start and the grid's processes would wait for ever. Once a grid of all
 * has started it, a smaller grid's calls run on it (point to point, and collectives over the
 * grid's own communicator only). runtime_state is the same on every process. */
int sg_scalapack_grid_can_start(int ctxt, int speak)
{
	struct grid *grid = grid_of(ctxt);
	int world;
	SG_MPI_FATAL(MPI_Comm_size(MPI_COMM_WORLD, &world));
	if (grid->size == world || runtime_state == 0)
		return 1;
	if (speak && !grid->warned && runtime_state == 1)
		fprintf(stderr, "starpu_gemm_scalapack: warning: the first p?gemm_ call for StarPU "
		        "came on a BLACS grid of %d of the %d processes of MPI_COMM_WORLD; StarPU-MPI "
		        "starts on all of them together: this grid's calls go to ScaLAPACK until a "
		        "call on a grid of all of them has started it\n", grid->size, world);
	grid->warned = 1;
	return 0;
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
