/* The distributed GEMM: the paper's Algorithm 3 (chunked, blocked outer product) with a
 * lookahead, on StarPU-MPI. Every rank walks the same global order and calls
 * starpu_mpi_task_insert for every task: StarPU-MPI runs a task on the owner of its C tile
 * and turns the other ranks' calls into the sends of the A and B tiles it needs. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <complex.h>
#include "compute/problem.h"
#include "compute/walk.h"
#include "compute/window.h"
#include "compute/submitter.h"
#include "compute/c_home.h"
#include "common/comm.h"
#include "distrib/desc.h"
#include "common/errors.h"
#include "common/precision.h"
#include "codelets/gemm_codelets.h"

struct starpu_gemm_request {
	struct sg_problem pb;
	struct starpu_gemm_plan plan;
	struct starpu_gemm_desc *A, *B, *C;
	double complex alpha, beta;        /* copies, in C's type (the widest fits) */
	const struct sg_precision *prec;
	struct sg_window *window;
	int static_gpu;
	int beta_zero;                     /* C's first update writes it without reading it */
	struct sg_c_home *home;            /* plan.c_home: the scratch tiles of this rank's C */
	int gemm_where;                    /* STARPU_CUDA where GPUs run every GEMM task, or -1 */
	int gpu_node;                      /* the memory node of the rank's one GPU, or -1 */
	int64_t *asked_a, *asked_b;        /* gpu_node: per A tile and per B tile (as stored),
	                                    * 1 + the last chunk that prefetched it (one array) */
	int cuda_workers[STARPU_MAXNODES]; /* first CUDA worker of each GPU, for static_gpu */
	int64_t peak_remote_tiles;
	struct sg_task_hook hook;          /* doors/: wait until a task's tiles are staged */
	struct sg_job job;                 /* the walk, on the submission thread */
};
#define pgemm starpu_gemm_request

/* Remote A and B tiles that have a valid copy (or one on its way) in this rank's memory. */
static int64_t remote_tiles_held(const struct starpu_gemm_desc *X, int rank)
{
	int64_t held = 0;
	for (int i = 0; i < starpu_gemm_desc_tile_rows(X); i++)
		for (int j = 0; j < starpu_gemm_desc_tile_cols(X); j++)
			if (starpu_gemm_desc_owner(X, i, j) != rank &&
			    starpu_data_is_on_node(starpu_gemm_desc_handle(X, i, j), STARPU_MAIN_RAM))
				held++;
	return held;
}

static void sample_remote_tiles(void *arg)
{
	struct pgemm *g = arg;
	int64_t held = remote_tiles_held(g->A, g->pb.rank) + remote_tiles_held(g->B, g->pb.rank);
	if (held > g->peak_remote_tiles)
		g->peak_remote_tiles = held;
}

/* Static GPU ownership (paper section 2, last paragraph): columns of C go to this rank's GPUs
 * cyclically, so each chain of updates of a C tile stays on one GPU. */
static int gpu_worker_of_column(const struct pgemm *g, int j)
{
	int local_col = j / g->pb.Q;
	return g->cuda_workers[local_col % g->plan.G];
}

/* The priority that keeps a GPU on the walk's order: the walk's task number, negated. A
 * C tile's update k+1 becomes ready only when update k ends, and with equal priorities
 * dmdas would queue it behind every ready update of the chunk: the GPU then ran a chunk
 * k-layer by k-layer, needing all of its C block before the first layer ends and sending
 * all of it home after the last (BF16, n = 65536: 1.33 s against a 0.69 s bound; 0.94 s
 * with these priorities and the prefetches below, bench/notes-tensor.md). dmdas also orders
 * the prefetches by priority, so the loads follow the walk too. CPUs read host memory in
 * place, and dmdas's sorted queue costs a walk of the queue per push: none there. */
static int walk_priority(const struct pgemm *g, int64_t seq)
{
	if (g->plan.G == 0)
		return 0;
	return seq < INT_MAX ? -(int)seq : INT_MIN;
}

/* A GPU's copy of this rank's A and B tiles of a task, asked for at submission in the walk's
 * priority. dmdas prefetches a task's tiles only once it is ready, and update k+1 of a C tile
 * is ready only when update k ends: the GPU would then pop it (it comes first) and wait for
 * its tiles. One GPU per rank only (with several, dmdas picks the GPU at that point), and
 * the rank's own tiles only (a remote tile is not here before StarPU-MPI receives it). */
static void prefetch_input(const struct pgemm *g, const struct starpu_gemm_desc *X,
                           int64_t *asked, int r, int c, int64_t chunk, int prio)
{
	/* Once per tile and chunk: its first task in the walk has the highest priority, the
	 * chunk's others would ask again for a tile on its way. */
	int64_t *mark = &asked[(int64_t)c * starpu_gemm_desc_tile_rows(X) + r];
	if (*mark == chunk + 1 || starpu_gemm_desc_owner(X, r, c) != g->pb.rank)
		return;
	*mark = chunk + 1;
	starpu_data_prefetch_on_node_prio(starpu_gemm_desc_handle(X, r, c), (unsigned)g->gpu_node,
	                                  1, prio);
}

/* Task GEMM(i, j, k): C(i,j) = alpha op(A)(i,k) op(B)(k,j) + (k == 0 ? beta : 1) C(i,j).
 * With beta = 0 the update k = 0 writes C without reading it (BLAS reads no C then), so no C
 * tile crosses to a GPU: H2D is A and B alone. With C kept home (compute/c_home.h) the owner
 * updates its scratch tile T instead, T = alpha op(A) op(B) (+ T), and after the last update
 * CPU workers add T to beta C. */
static void submit_gemm(struct pgemm *g, int i, int j, int k, void *chunk_ref, int64_t chunk,
                        int64_t seq)
{
	static const double complex zero = 0; /* 0 in every precision's bits */
	int ar, ac, br, bc, m, n, kk, unused;
	sg_op_tile(g->pb.transA, i, k, &ar, &ac);
	sg_op_tile(g->pb.transB, k, j, &br, &bc);
	starpu_gemm_desc_tile_shape(g->C, i, j, &m, &n);
	starpu_gemm_desc_tile_shape(g->A, ar, ac, g->pb.transA == 'N' ? &unused : &kk,
	                            g->pb.transA == 'N' ? &kk : &unused);
	int local = starpu_gemm_desc_owner(g->C, i, j) == g->pb.rank;
	size_t size = sg_precision_of_c(g->prec)->elemsize; /* alpha's, beta's */
	if (local)
		sg_window_add_task(g->window);
	/* Only the executing rank uses the callback and the worker; the others only send. */
	int worker = g->static_gpu && local ? gpu_worker_of_column(g, j) : -1; /* -1: any */
	/* The last shell's C tiles go through the GPU as before: the link has room for them by
	 * then (A and B are in), and adds at home would be what the product waits for at its end
	 * (n = 8192 on an H200: last task at 25.0 ms, C home at 31-33 with every tile added at
	 * home, bench/notes-gpu.md). */
	int home = g->home && local && !sg_walk_in_last_shell(&g->plan, i, j);
	int overwrite = k == 0 && (g->beta_zero || home);
	const void *beta_k = k > 0 ? g->prec->one : home ? (const void *)&zero : (const void *)&g->beta;
	starpu_data_handle_t c_tile = starpu_gemm_desc_handle(g->C, i, j);
	starpu_data_handle_t target = home ? sg_c_home_scratch(g->home, i, j, m, n, size) : c_tile;
	int prio = walk_priority(g, seq);
	struct sg_gemm_task task = {
		.p = g->prec, .transA = g->pb.transA, .transB = g->pb.transB, .alpha = &g->alpha,
		.beta = beta_k, .A = starpu_gemm_desc_handle(g->A, ar, ac),
		.B = starpu_gemm_desc_handle(g->B, br, bc), .C = target, .overwrite = overwrite,
		.m = m, .n = n, .k = kk, .callback = local ? sg_window_task_done : NULL,
		.callback_arg = chunk_ref, .priority = prio, .worker = worker,
		.where = (unsigned long long)g->gemm_where };
	int ret = sg_insert_gemm_task(&task, g->pb.local, g->pb.comm);
	if (ret >= 0 && local && g->asked_a) {
		prefetch_input(g, g->A, g->asked_a, ar, ac, chunk, prio);
		prefetch_input(g, g->B, g->asked_b, br, bc, chunk, prio);
	}
	if (ret >= 0 && home && k == g->pb.Kt - 1)
		ret = sg_c_home_add(g->home, c_tile, i, j, g->pb.prec, &g->beta, size, prio);
	if (ret < 0) {
		char where[96];
		snprintf(where, sizeof(where), "task GEMM(%d,%d,%d)", i, j, k);
		/* Other ranks are waiting on this one's sends: end the whole job, not the rank. */
		sg_fatal(__FILE__, __LINE__, "starpu_mpi_task_insert", strerror(-ret), where);
	}
}

/* A chunk's remote A and B tiles are dropped from StarPU-MPI's cache once its tasks end, so
 * a rank never holds more than the window's tiles; every rank flushes at the same point. */
static void flush_chunk_inputs(struct pgemm *g, int i0, int i1, int j0, int j1, int k0, int k1)
{
	int r, c;
	for (int k = k0; k < k1; k++) {
		for (int i = i0; i < i1; i++) {
			sg_op_tile(g->pb.transA, i, k, &r, &c);
			starpu_mpi_cache_flush(g->pb.comm, starpu_gemm_desc_handle(g->A, r, c));
		}
		for (int j = j0; j < j1; j++) {
			sg_op_tile(g->pb.transB, k, j, &r, &c);
			starpu_mpi_cache_flush(g->pb.comm, starpu_gemm_desc_handle(g->B, r, c));
		}
	}
}

/* Once a block of C is complete its tiles may leave the GPUs: write them back when idle. */
static void release_block(struct pgemm *g, int i0, int i1, int j0, int j1)
{
	for (int i = i0; i < i1; i++)
		for (int j = j0; j < j1; j++)
			if (starpu_gemm_desc_owner(g->C, i, j) == g->pb.rank)
				starpu_data_wont_use(starpu_gemm_desc_handle(g->C, i, j));
}

/* Algorithm 3 in compute/walk.h's order; the window keeps at most lookahead+1 chunks in
 * flight. */
static void walk_algorithm3(struct pgemm *g)
{
	const struct starpu_gemm_plan *pl = &g->plan;
	struct sg_walk w;
	sg_walk_start(&w, pl);
	while (sg_walk_next_chunk(&w)) {
		void *ref = sg_window_begin_chunk(g->window, pl->throttled ? w.chunk : 0);
		int i, j, k;
		while (sg_walk_next_task(&w, &i, &j, &k)) {
			if (g->hook.before_task)
				g->hook.before_task(g->hook.arg, &g->pb, i, j, k);
			submit_gemm(g, i, j, k, ref, w.chunk, w.seq);
		}
		if (pl->throttled && !g->pb.local)
			flush_chunk_inputs(g, w.i0, w.i1, w.j0, w.j1, w.k0, w.k1);
		if (sg_walk_block_ends(&w))
			release_block(g, w.i0, w.i1, w.j0, w.j1);
	}
}

/* The clock stops when C is back in host memory on its owners. */
static void bring_c_home(struct pgemm *g)
{
	for (int i = 0; i < g->pb.Mt; i++)
		for (int j = 0; j < g->pb.Nt; j++)
			if (starpu_gemm_desc_owner(g->C, i, j) == g->pb.rank) {
				starpu_data_handle_t h = starpu_gemm_desc_handle(g->C, i, j);
				SG_STARPU_FATAL(starpu_data_acquire(h, STARPU_R), "C tile back to host");
				starpu_data_release(h);
			}
}

/* Whether this rank takes part in the walk: a rank that owns no tile of A, B or C neither
 * computes nor sends, so it skips the insertions (StarPU-MPI would only discard them). */
static int rank_takes_part(const struct pgemm *g)
{
	return starpu_gemm_desc_local_tiles(g->A) || starpu_gemm_desc_local_tiles(g->B) ||
	       starpu_gemm_desc_local_tiles(g->C);
}

static void walk(void *arg)
{
	struct pgemm *g = arg;
	if (rank_takes_part(g))
		walk_algorithm3(g);
}

static void find_cuda_workers(struct pgemm *g)
{
	unsigned nodes[STARPU_MAXNODES];
	int ngpus = (int)starpu_memory_node_get_ids_by_type(STARPU_CUDA_RAM, nodes, STARPU_MAXNODES);
	for (int gpu = 0; gpu < ngpus; gpu++)
		g->cuda_workers[gpu] = -1;
	for (unsigned w = 0; w < starpu_worker_get_count(); w++)
		for (int gpu = 0; gpu < ngpus; gpu++)
			if (starpu_worker_get_type((int)w) == STARPU_CUDA_WORKER &&
			    starpu_worker_get_memory_node(w) == nodes[gpu] && g->cuda_workers[gpu] < 0)
				g->cuda_workers[gpu] = (int)w;
}

int sg_pgemm_submit(char transA, char transB, const void *alpha, struct starpu_gemm_desc *A,
                    struct starpu_gemm_desc *B, const void *beta, struct starpu_gemm_desc *C,
                    const struct starpu_gemm_opts *opts_in, const struct sg_task_hook *hook,
                    struct starpu_gemm_request **req)
{
	struct starpu_gemm_opts opts;
	if (opts_in)
		opts = *opts_in;
	else
		starpu_gemm_opts_init(&opts);
	if (!alpha || !beta || !req) {
		fprintf(stderr, "starpu_gemm: NULL alpha, beta or request\n");
		return -EINVAL;
	}
	*req = NULL;
	struct pgemm *g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->A = A;
	g->B = B;
	g->C = C;
	int ret = sg_problem_make(&g->pb, transA, transB, A, B, C, opts.math);
	if (!ret) {
		const struct sg_precision *pc = sg_precision_of_c(sg_precision(g->pb.prec));
		g->beta_zero = opts.beta_zero = sg_load(pc, beta, 0) == 0;
		ret = sg_plan_make(&g->plan, &g->pb, &opts);
	}
	if (ret) {
		free(g);
		return ret;
	}
	g->prec = sg_precision(g->pb.prec);
	memcpy(&g->alpha, alpha, sg_precision_of_c(g->prec)->elemsize);
	memcpy(&g->beta, beta, sg_precision_of_c(g->prec)->elemsize);
	if (hook)
		g->hook = *hook;
	g->static_gpu = opts.static_gpu && g->plan.G > 0;
	g->gpu_node = -1;
	unsigned gpu_nodes[STARPU_MAXNODES];
	if (starpu_memory_node_get_ids_by_type(STARPU_CUDA_RAM, gpu_nodes, STARPU_MAXNODES) == 1) {
		g->gpu_node = (int)gpu_nodes[0];
		size_t a_tiles = (size_t)starpu_gemm_desc_tile_rows(A) * starpu_gemm_desc_tile_cols(A);
		size_t tiles = a_tiles +
		               (size_t)starpu_gemm_desc_tile_rows(B) * starpu_gemm_desc_tile_cols(B);
		if (!(g->asked_a = calloc(tiles, sizeof(*g->asked_a)))) {
			free(g);
			return -ENOMEM;
		}
		g->asked_b = g->asked_a + a_tiles;
	}
	if (g->static_gpu)
		find_cuda_workers(g);
	/* Where the rank has GPUs, they run every GEMM task: the CPU worker beside them adds C
	 * at home, and a CPU worker that took a GEMM task (dmdas tries each kind of worker of an
	 * uncalibrated model) would hold it thousands of times longer than a GPU (BF16 n = 65536:
	 * no task done in 200 s, bench/notes-gpu.md). */
	g->gemm_where = g->plan.G > 0 ? (int)STARPU_CUDA : -1;
	if (g->plan.c_home)
		g->home = sg_c_home_create(g->pb.Mt, g->pb.Nt, g->pb.local ? MPI_COMM_NULL : g->pb.comm,
		                           g->pb.rank);
	int lookahead = g->plan.throttled ? g->plan.lookahead : 0;
	int64_t local_tasks = starpu_gemm_desc_local_tiles(C) * g->pb.Kt;
	/* The sampler scans every A and B tile each millisecond the walk waits: only where
	 * remote tiles can exist, on several ranks. */
	g->window = sg_window_create(lookahead, opts.progress && g->pb.rank == 0, local_tasks,
	                             C->nranks > 1 ? sample_remote_tiles : NULL, g);
	g->job.run = walk;
	g->job.arg = g;
	/* Collective: a rank that cannot walk must not leave the others waiting for its sends. */
	int failed = !g->window || (g->plan.c_home && !g->home), any_failed;
	sg_allreduce(&failed, &any_failed, 1, sizeof(failed), MPI_INT, MPI_MAX, g->pb.comm);
	if (any_failed || sg_submitter_post(&g->job)) {
		sg_window_destroy(g->window);
		sg_c_home_destroy(g->home);
		free(g->asked_a);
		free(g);
		return -ENOMEM;
	}
	*req = g;
	return 0;
}

int starpu_gemm_pgemm_submit(char transA, char transB, const void *alpha,
                             struct starpu_gemm_desc *A, struct starpu_gemm_desc *B,
                             const void *beta, struct starpu_gemm_desc *C,
                             const struct starpu_gemm_opts *opts,
                             struct starpu_gemm_request **req)
{
	return sg_pgemm_submit(transA, transB, alpha, A, B, beta, C, opts, NULL, req);
}

/* Sends of this rank's A and B tiles to slower ranks may still be in flight: a read-write
 * acquire on no node waits for every earlier access, those sends included, and moves nothing.
 * Then only this product's tiles leave StarPU-MPI's cache (every rank at the same point). */
static void settle_inputs(struct pgemm *g, struct starpu_gemm_desc *X)
{
	for (int j = 0; j < starpu_gemm_desc_tile_cols(X); j++)
		for (int i = 0; i < starpu_gemm_desc_tile_rows(X); i++) {
			starpu_data_handle_t h = starpu_gemm_desc_handle(X, i, j);
			if (starpu_gemm_desc_owner(X, i, j) == g->pb.rank) {
				SG_STARPU_FATAL(starpu_data_acquire_on_node(h, STARPU_ACQUIRE_NO_NODE,
				                                            STARPU_RW), "tile sends");
				starpu_data_release_on_node(h, STARPU_ACQUIRE_NO_NODE);
			}
			starpu_mpi_cache_flush(g->pb.comm, h);
		}
}

int starpu_gemm_wait(struct starpu_gemm_request *g, struct starpu_gemm_stats *stats)
{
	if (!g)
		return -EINVAL;
	sg_submitter_wait(&g->job);
	sg_window_drain(g->window);
	bring_c_home(g);
	double first, half, last, home;
	sg_window_timeline(g->window, &first, &half, &last, &home);
	if (!g->pb.local) {
		settle_inputs(g, g->A);
		if (g->B != g->A)
			settle_inputs(g, g->B);
	}
	if (stats) {
		sample_remote_tiles(g);
		stats->tasks = sg_window_tasks(g->window);
		stats->peak_remote_tiles = g->peak_remote_tiles;
		stats->chunks = (int64_t)g->plan.X * g->plan.Y * g->plan.Z;
		stats->plan = g->plan;
		stats->first_task_s = first;
		stats->half_tasks_s = half;
		stats->last_task_s = last;
		stats->c_home_s = home;
	}
	sg_window_destroy(g->window);
	sg_c_home_destroy(g->home);
	free(g->asked_a);
	free(g);
	return 0;
}

int starpu_gemm_pgemm(char transA, char transB, const void *alpha,
                      struct starpu_gemm_desc *A, struct starpu_gemm_desc *B,
                      const void *beta, struct starpu_gemm_desc *C,
                      const struct starpu_gemm_opts *opts, struct starpu_gemm_stats *stats)
{
	struct starpu_gemm_request *req;
	int ret = starpu_gemm_pgemm_submit(transA, transB, alpha, A, B, beta, C, opts, &req);
	return ret ? ret : starpu_gemm_wait(req, stats);
}
