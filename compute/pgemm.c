/* The distributed GEMM: the paper's Algorithm 3 (chunked, blocked outer product) with a
 * lookahead, on StarPU-MPI. Every rank walks the same global order and calls
 * starpu_mpi_task_insert for every task: StarPU-MPI runs a task on the owner of its C tile
 * and turns the other ranks' calls into the sends of the A and B tiles it needs. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <complex.h>
#include "compute/plan.h"
#include "compute/walk.h"
#include "compute/window.h"
#include "compute/submitter.h"
#include "compute/c_home.h"
#include "compute/layers.h"
#include "compute/partials.h"
#include "runtime/comm.h"
#include "distrib/desc.h"
#include "common/errors.h"
#include "common/threads.h"
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
	struct sg_partials *partials;      /* plan's layers (more than one): the partial tiles */
	int gemm_where;                    /* STARPU_CUDA where GPUs run every GEMM task, or -1 */
	int ngpus;                         /* this rank's GPUs: memory nodes gpu_nodes[] */
	unsigned gpu_nodes[STARPU_MAXNODES];
	int gpu_rows, gpu_cols;            /* static_gpu: the GPUs as a grid over C's tiles */
	int block_full_rows, block_full_cols; /* the current block has at least gpu_rows local
	                                    * rows of C tiles (gpu_cols columns): each GPU row
	                                    * (column) of the grid reads its tiles */
	int64_t *sent_a, *sent_b;          /* with StarPU-MPI's cache: per A tile (B tile) and
	                                    * rank, 1 + the last epoch this rank's insertions sent
	                                    * it there (compute/pgemm.c, inserts) */
	int64_t *runner_seq;               /* layers: per rank, its tasks the walk has handed out
	                                    * so far; sends to a rank go in its own order (below) */
	int64_t *asked_a, *asked_b;        /* where each task's GPU is known (one GPU, or
	                                    * static_gpu): per A tile and per B tile (as stored)
	                                    * and GPU, 1 + the last chunk that prefetched it */
	int cuda_workers[STARPU_MAXNODES]; /* first CUDA worker of each GPU, for static_gpu */
	int64_t peak_remote_tiles;
	int64_t inserted;                  /* tasks this rank inserted (it runs them), tiles it
	                                    * sent, and the seconds both took */
	int64_t sends;
	double insert_seconds;
	int share;                         /* A's and B's node peers' tiles are read in place
	                                    * (distrib/node_share.c): both descriptors shared */
	void (*before_task)(void *arg, int i, int j, int k); /* opts.before_task: the doors */
	void *before_task_arg;
	struct sg_job job;                 /* the walk, on the submission thread */
};
#define pgemm starpu_gemm_request

/* Remote A and B tiles that have a valid copy (or one on its way) in this rank's memory. */
static int64_t remote_tiles_held(const struct starpu_gemm_desc *X, int rank)
{
	int64_t held = 0;
	for (int64_t t = 0; t < (int64_t)X->mt * X->nt; t++) {
		starpu_data_handle_t h = sg_desc_handle_if_used(X, t);
		held += X->owners[t] != rank && h && starpu_data_is_on_node(h, STARPU_MAIN_RAM);
	}
	return held;
}

static void sample_remote_tiles(void *arg)
{
	struct pgemm *g = arg;
	int64_t held = remote_tiles_held(g->A, g->pb.rank) + remote_tiles_held(g->B, g->pb.rank);
	if (held > g->peak_remote_tiles)
		g->peak_remote_tiles = held;
}

/* Node sharing, at a product's start (collective over the node): this rank's A and B tiles'
 * latest values in host memory before any node peer reads them there, then no stale copy of
 * a peer's tile left on this rank's GPUs from an earlier product (a write access on host
 * memory drops the other copies, and moves nothing). */
static void share_begin(struct pgemm *g)
{
	struct starpu_gemm_desc *inputs[2] = { g->A, g->B };
	for (int x = 0; x < (g->B == g->A ? 1 : 2); x++)
		SG_DESC_FOR_LOCAL(inputs[x], t) {
			SG_STARPU_FATAL(starpu_data_acquire(inputs[x]->handles[t], STARPU_R),
			                "tile home for node peers");
			starpu_data_release(inputs[x]->handles[t]);
		}
	SG_MPI_FATAL(MPI_Barrier(sg_node_comm_walk(g->A->comm)));
	for (int x = 0; x < (g->B == g->A ? 1 : 2); x++)
		for (int64_t t = 0; t < (int64_t)inputs[x]->mt * inputs[x]->nt; t++) {
			starpu_data_handle_t h = inputs[x]->reach[t];
			if (!h)
				continue;
			SG_STARPU_FATAL(starpu_data_acquire_on_node(h, STARPU_MAIN_RAM, STARPU_W),
			                "a node peer's tile");
			starpu_data_release_on_node(h, STARPU_MAIN_RAM);
		}
}

/* The GPU (index into gpu_nodes) that runs C(i,j)'s updates, where it is known: the one GPU,
 * or under static ownership (paper section 2, last paragraph) the rank's GPUs as a
 * gpu_rows x gpu_cols grid dealt cyclically over its C tiles, so each chain of updates of a
 * C tile stays on one GPU and each GPU needs a share of A's rows and of B's columns (4 GPUs as
 * 2 x 2: half of each, where columns dealt alone need all of A on every GPU). -1: dmdas
 * chooses. */
static int gpu_of_tile(const struct pgemm *g, int i, int j)
{
	if (g->ngpus == 1)
		return 0;
	if (!g->static_gpu)
		return -1;
	int li = i / sg_layer_P(&g->plan), lj = j / sg_layer_Q(&g->plan);
	return (li % g->gpu_rows) * g->gpu_cols + lj % g->gpu_cols;
}

/* The GPU (index into gpu_nodes) whose worker runs C(i,j)'s tasks, -1 where the rank runs none
 * or dmdas chooses; and that worker (-1: any). */
static int worker_of_tile(const struct pgemm *g, int i, int j, int *gpu)
{
	*gpu = g->ngpus > 0 && g->plan.G > 0 ? gpu_of_tile(g, i, j) : -1;
	return g->static_gpu && *gpu >= 0 ? g->cuda_workers[*gpu] : -1;
}

/* The priority that keeps a GPU on the walk's order: the walk's task number, negated. A
 * C tile's update k+1 becomes ready only when update k ends, and with equal priorities
 * dmdas would queue it behind every ready update of the chunk: the GPU then ran a chunk
 * k-layer by k-layer, needing all of its C block before the first layer ends and sending
 * all of it home after the last (bench/notes-tensor.md). dmdas also orders
 * the prefetches by priority, so the loads follow the walk too. CPUs read host memory in
 * place, and dmdas's sorted queue costs a walk of the queue per push: none there. */
static int walk_priority(const struct pgemm *g, int64_t seq)
{
	if (g->plan.G == 0)
		return 0;
	return seq < INT_MAX ? -(int)seq : INT_MIN;
}

/* The handle this rank's task reads input tile t of X through: in place where it is this
 * rank's or (node sharing) a node peer's, else the regular one, which StarPU-MPI fills. */
static starpu_data_handle_t input_handle(const struct pgemm *g, const struct starpu_gemm_desc *X,
                                         int64_t t)
{
	starpu_data_handle_t in_reach = g->share ? sg_desc_reach_handle(X, t) : NULL;
	return in_reach ? in_reach : sg_desc_handle(X, t);
}

/* Marks of "done in this epoch" (a chunk): whether mark is new in epoch, now set. The walk
 * marks the first send of a tile to a runner (StarPU-MPI's cache sends it then; later tasks of
 * the epoch on that runner would find it sent) and the first prefetch of a tile to a GPU (the
 * first task in the walk has the highest priority). */
static int first_in_epoch(int64_t *mark, int64_t epoch)
{
	if (*mark == epoch + 1)
		return 0;
	*mark = epoch + 1;
	return 1;
}

/* Tile t of X, this rank's, to runner, whose task reads it: StarPU-MPI's receive there,
 * posted when the runner inserts that task, takes it by the tile's tag. Only the runner
 * inserts the task: a rank that only sends a tile needs neither the task nor the handles of
 * the task's other tiles (every rank inserted every task, then every task it sent a tile for:
 * at 64 simulated nodes 32768 and 1408 insertions, and every tile of A, B and C registered).
 * Node peers of the runner read the tile in place. With StarPU-MPI's cache on, once per
 * tile, runner and epoch (a chunk, the cache being flushed after each; the product
 * unthrottled): the runner's later tasks of the epoch find it received. */
static int send_input(struct pgemm *g, const struct starpu_gemm_desc *X, int64_t *sent,
                      int64_t t, int runner, int64_t epoch, int prio)
{
	int me = g->pb.rank;
	if (X->owners[t] != me || (g->share && sg_desc_same_node(X, me, runner)))
		return 0;
	starpu_data_handle_t h = X->handles[t];
	/* And StarPU-MPI's own send cache, which its flushes and the runner's receive cache
	 * agree with (the test _starpu_mpi_exchange_data_before_execution makes): a runner whose
	 * cache still holds the tile from an earlier product posts no receive, and a send nobody
	 * receives would be taken by a later receive on that tag, stale. Both: the marks alone
	 * sent to a warm cache (two products in flight on the same A), the cache alone misses a C
	 * that is A (the owner's writes clear its send cache, not the runner's receive cache). */
	if (sent && !first_in_epoch(&sent[t * X->nranks + runner], epoch))
		return 0;
	if (starpu_mpi_cached_send_set(h, runner))
		return 0;
	g->sends++;
	return starpu_mpi_isend_detached_prio(h, runner, starpu_mpi_data_get_tag(h), prio,
	                                      g->pb.comm, NULL, NULL);
}

/* A GPU's copy of the A and B tiles of a task, asked for at submission in the walk's
 * priority. dmdas prefetches a task's tiles only once it is ready, and update k+1 of a C tile
 * is ready only when update k ends: the GPU would then pop it (it comes first) and wait for
 * its tiles. Only where the task's GPU is known (one GPU, or each GPU owning its C tiles).
 * Tiles in reach (the rank's own, and its node peers' under node sharing) are asked for at
 * once; a tile of another node once StarPU-MPI has received it (an acquire on the GPU node,
 * ordered after the receive).
 *
 * With plan.gpu_peers, the tile crosses the host link to its loader, one of the GPUs that
 * read it, and the others copy it from there once it is there: StarPU copies from the valid
 * copy it predicts fastest, the loader's over NVLink, but only a copy already valid counts,
 * so the request waits for the loader's (an acquire on the loader's node). */
struct relay {
	starpu_data_handle_t tile;
	unsigned from, to;
	int prio;
};

/* The acquire's callback: the prefetch it waited for (none when the acquire itself brought
 * the tile where it is wanted), then the release. */
static void relay_to_peer(void *arg)
{
	struct relay *r = arg;
	if (r->to != r->from)
		starpu_data_prefetch_on_node_prio(r->tile, r->to, 1, r->prio);
	starpu_data_release_on_node(r->tile, (int)r->from);
	free(r);
}

/* Tile t's mark for GPU gpu (asked[]: per tile and GPU). */
static int64_t *ask_mark(const struct pgemm *g, int64_t *asked, int64_t t, int gpu)
{
	return &asked[t * g->ngpus + gpu];
}

/* Once tile h has a valid copy on memory node from, a prefetch to node to (none where to is
 * from: the acquire there brings it). ordered: the acquire comes after every access submitted
 * before it (a tile from another node: after StarPU-MPI's receive), else not (a relay: the
 * loader's prefetch was asked just before). 0, or -1 when it could not be set up.
 *
 * A tile from another node is acquired on its GPU itself, not prefetched from the receive's
 * end (an acquire in host memory): the chunk's cache flush, submitted by then, has marked the
 * handle uninitialized, which a prefetch refuses. */
static int prefetch_once_there(starpu_data_handle_t h, unsigned from, unsigned to, int prio,
                               int ordered)
{
	struct relay *rel = malloc(sizeof(*rel));
	if (!rel)
		return -1;
	*rel = (struct relay){ .tile = h, .from = from, .to = to, .prio = prio };
	if (!starpu_data_acquire_on_node_cb_sequential_consistency_sync_jobids(
	        h, (int)from, STARPU_R, NULL, relay_to_peer, rel, ordered, 1, NULL, NULL, prio))
		return 0;
	free(rel);
	return -1;
}

static void prefetch_input(const struct pgemm *g, const struct starpu_gemm_desc *X,
                           int64_t *asked, int r, int c, int64_t chunk, int prio, int gpu,
                           int loader)
{
	int64_t t = (int64_t)c * X->mt + r;
	int in_reach = X->owners[t] == g->pb.rank || (g->share && sg_desc_reach_handle(X, t));
	if (!first_in_epoch(ask_mark(g, asked, t, gpu), chunk))
		return;
	starpu_data_handle_t h = input_handle(g, X, t);
	/* A tile from another node: to the GPU as soon as StarPU-MPI has received it, where dmdas
	 * would fetch it only once its task is ready, on the GPU's critical path (update k+1 of a
	 * C tile is ready only when update k ends). */
	if (!in_reach) {
		/* Without StarPU-MPI's cache the runner's insertion has already submitted the
		 * invalidation of its copy (the handle then reads as uninitialized: an R acquire
		 * asserts), and the copy goes after the task anyway. */
		if (!g->pb.local && starpu_mpi_cache_is_enabled())
			prefetch_once_there(h, g->gpu_nodes[gpu], g->gpu_nodes[gpu], prio, 1);
		return;
	}
	if (loader != gpu) {
		if (first_in_epoch(ask_mark(g, asked, t, loader), chunk))
			starpu_data_prefetch_on_node_prio(h, g->gpu_nodes[loader], 1, prio);
		if (!prefetch_once_there(h, g->gpu_nodes[loader], g->gpu_nodes[gpu], prio, 0))
			return;
	}
	/* The tile's own loader, or the relay could not be set up: from wherever StarPU picks. */
	starpu_data_prefetch_on_node_prio(h, g->gpu_nodes[gpu], 1, prio);
}

/* The GPU that loads op(A)(i, k) (along = 0) or op(B)(k, j) (along = 1) from host memory for
 * the rank's GPUs that read it (plan.gpu_peers): of the GPU grid's row of gpu (the GPUs that
 * read that row of A; for B its column), the one in column k mod gpu_cols, so the row's GPUs
 * take turns along k and each host link carries its share. gpu itself where GPUs do not
 * relay, or where the current block has fewer local C columns (rows) than the grid, whose
 * GPU in that column may read none of the block's tiles. */
static int loader_of(const struct pgemm *g, int gpu, int k, int along)
{
	if (!g->plan.gpu_peers || gpu < 0)
		return gpu;
	int row = gpu / g->gpu_cols, col = gpu % g->gpu_cols;
	k /= sg_layers(&g->plan); /* a layer's k steps, one in c: its own count takes turns */
	if (along == 0)
		return g->block_full_cols ? row * g->gpu_cols + k % g->gpu_cols : gpu;
	return g->block_full_rows ? (k % g->gpu_rows) * g->gpu_cols + col : gpu;
}

/* Whether C(i,j) stays in host memory (compute/c_home.h), its GPU updates going to a scratch
 * tile. The last shell's C tiles go through the GPU as before: the link has room for them by
 * then (A and B are in), and adds at home would be what the product waits for at its end
 * (bench/notes-gpu.md). */
static int tile_at_home(const struct pgemm *g, int i, int j)
{
	return g->plan.c_home && !sg_walk_in_last_shell(&g->plan, i, j);
}

/* Layers: C(i,j), this rank's, gets the partial of layer that rank from completed, added
 * where the GEMMs run (the GPUs, where the rank has some: C is there), on the GPU that
 * updates C(i,j) where it is known. Ends the job where it cannot be
 * submitted. */
static void add_partial(struct pgemm *g, int i, int j, int layer, int from, int m, int n,
                        int prio)
{
	size_t size = sg_precision_of_c(g->prec)->elemsize;
	int gpu, worker = worker_of_tile(g, i, j, &gpu);
	sg_window_add_side(g->window);
	int ret = sg_partials_add(g->partials, starpu_gemm_desc_handle(g->C, i, j), i, j, layer,
	                          from, m, n, size, g->gemm_where, worker, prio,
	                          sg_window_side_done, g->window);
	if (ret < 0) {
		char where[96];
		snprintf(where, sizeof(where), "the partial of C(%d,%d) from rank %d", i, j, from);
		sg_fatal(__FILE__, __LINE__, "starpu_mpi_irecv_detached_prio", strerror(-ret), where);
	}
}

/* Task GEMM(i, j, k): C(i,j) = alpha op(A)(i,k) op(B)(k,j) + (k == 0 ? beta : 1) C(i,j).
 * With beta = 0 the update k = 0 writes C without reading it (BLAS reads no C then), so no C
 * tile crosses to a GPU: H2D is A and B alone. With C kept home (compute/c_home.h) the owner
 * updates its scratch tile T instead, T = alpha op(A) op(B) (+ T), and after the last update
 * CPU workers add T to beta C. */
static void submit_gemm(struct pgemm *g, const struct sg_walk *w, int i, int j, int k,
                        void *chunk_ref)
{
	int64_t chunk = w->chunk, seq = w->seq;
	int ar, ac, br, bc, m, n, kk, unused;
	sg_op_tile(g->pb.transA, i, k, &ar, &ac);
	sg_op_tile(g->pb.transB, k, j, &br, &bc);
	starpu_gemm_desc_tile_shape(g->C, i, j, &m, &n);
	starpu_gemm_desc_tile_shape(g->A, ar, ac, g->pb.transA == 'N' ? &unused : &kk,
	                            g->pb.transA == 'N' ? &kk : &unused);
	int owner = starpu_gemm_desc_owner(g->C, i, j);
	int runner = g->partials ? sg_layer_runner(&g->plan, i, j, k) : owner;
	int64_t a_tile = (int64_t)ac * g->A->mt + ar, b_tile = (int64_t)bc * g->B->mt + br;
	int prio = walk_priority(g, seq), layer = k % sg_layers(&g->plan);
	/* With layers a rank's tiles go to ranks of other layers, each reading a few of its
	 * tiles: sends to a runner (and partials to an owner) go in that rank's own task order,
	 * so each is fed alike, where the walk's order would feed the ranks of its first C tiles
	 * first. Simulated 64 nodes of 4 H200 at 200 Gb/s, 4 layers: 1.264 s against 1.333; in
	 * 2D the walk's order stays (at 1600 Gb/s 0.446 s against 0.460 in the ranks' order;
	 * bench/results/sim-send-order-20261127.txt). This rank's own tasks, receives and adds
	 * keep the walk's order (prio). */
	int64_t runner_seq = g->runner_seq ? g->runner_seq[runner]++ : seq;
	if (runner != g->pb.rank) { /* this rank's part: the tiles of its own that the task reads */
		int send_prio = walk_priority(g, runner_seq);
		int64_t epoch = g->plan.throttled ? chunk : 0;
		double t0 = sg_now();
		int64_t *sent_b = g->B == g->A ? g->sent_a : g->sent_b;
		int ret = send_input(g, g->A, g->sent_a, a_tile, runner, epoch, send_prio);
		if (ret >= 0)
			ret = send_input(g, g->B, sent_b, b_tile, runner, epoch, send_prio);
		g->insert_seconds += sg_now() - t0;
		if (ret < 0) {
			char where[96];
			snprintf(where, sizeof(where), "an input of task GEMM(%d,%d,%d) to rank %d", i, j,
			         k, runner);
			sg_fatal(__FILE__, __LINE__, "starpu_mpi_isend_detached_prio", strerror(-ret),
			         where);
		}
		if (g->partials && owner == g->pb.rank && sg_layer_last_k(&g->plan, k))
			add_partial(g, i, j, layer, runner, m, n, prio);
		return;
	}
	/* The runner reads what is in reach in place, the rest through StarPU-MPI's receives. */
	starpu_data_handle_t a_in = input_handle(g, g->A, a_tile);
	starpu_data_handle_t b_in = input_handle(g, g->B, b_tile);
	size_t size = sg_precision_of_c(g->prec)->elemsize; /* alpha's, beta's */
	sg_window_add_task(g->window);
	int gpu, worker = worker_of_tile(g, i, j, &gpu);
	int home = tile_at_home(g, i, j);
	/* C's loads spread (plan.c_spread): C(i,j) is loaded in chunk c_chunk of its block, the
	 * updates of the chunks before it going to the tile's scratch tile. */
	int c_chunk = g->plan.c_spread ? sg_walk_c_chunk(w, i, j) : 0;
	int early = w->z < c_chunk;
	/* C(i,j)'s first update (with layers, its owner's layer's first; spread, the first of
	 * the chunk that loads it) applies beta. */
	int first = g->partials ? sg_layer_first_k(&g->plan, k)
	                        : k == (early ? 0 : c_chunk * g->plan.d);
	int overwrite = first && (g->beta_zero || home);
	const void *beta_k = !first ? g->prec->one : home ? g->prec->zero : (const void *)&g->beta;
	starpu_data_handle_t c_tile = starpu_gemm_desc_handle(g->C, i, j);
	starpu_data_handle_t target = home ? sg_c_home_scratch(g->home, i, j, m, n, size) : c_tile;
	/* Layers, another rank's C tile: the layer's partial tile; spread, before C's load: the
	 * scratch tile. Either is written by its first update. */
	if ((g->partials && owner != g->pb.rank) || early) {
		overwrite = first;
		beta_k = first ? g->prec->zero : g->prec->one;
		target = early ? sg_c_home_scratch(g->home, i, j, m, n, size)
		               : sg_partials_tile(g->partials, i, j, layer, m, n, size);
	}
	struct sg_gemm_task task = {
		.p = g->prec, .transA = g->pb.transA, .transB = g->pb.transB, .alpha = &g->alpha,
		.beta = beta_k, .A = a_in, .B = b_in, .C = target, .overwrite = overwrite,
		.m = m, .n = n, .k = kk, .callback = sg_window_task_done,
		.callback_arg = chunk_ref, .priority = prio, .worker = worker,
		.where = (unsigned long long)g->gemm_where };
	double t0 = sg_now();
	int ret = sg_insert_gemm_task(&task, g->pb.local, g->pb.comm);
	g->insert_seconds += sg_now() - t0;
	g->inserted++;
	if (ret >= 0 && gpu >= 0 && g->asked_a) {
		prefetch_input(g, g->A, g->asked_a, ar, ac, chunk, prio, gpu, loader_of(g, gpu, k, 0));
		prefetch_input(g, g->B, g->asked_b, br, bc, chunk, prio, gpu, loader_of(g, gpu, k, 1));
	}
	if (ret >= 0 && home && k == g->pb.Kt - 1)
		ret = sg_c_home_add(g->home, c_tile, i, j, g->pb.prec, &g->beta, size, prio);
	/* Spread: C is on the GPU now, beta applied; the earlier chunks' updates join it there.
	 * The merge is outside the window's chunks and timeline, a side task the drain waits for
	 * (a tile loaded in the last chunk of one k step ends with it, and its end grants that
	 * block's wont_use of C); where dmdas picks the GPUs (worker -1) T may cross between
	 * them. */
	int merged = 0;
	if (ret >= 0 && c_chunk > 0 && first && !early) {
		sg_window_add_side(g->window);
		ret = sg_c_home_merge(g->home, c_tile, i, j, g->pb.prec, g->gemm_where, worker, prio,
		                      sg_window_side_done, g->window);
		merged = 1;
	}
	if (ret >= 0 && g->partials && owner != g->pb.rank && sg_layer_last_k(&g->plan, k)) {
		ret = sg_partials_send(g->partials, i, j, layer, owner,
		                       walk_priority(g, g->runner_seq[owner]));
		g->sends++;
	}
	if (ret < 0) {
		char where[96];
		snprintf(where, sizeof(where), "task GEMM(%d,%d,%d)", i, j, k);
		/* Other ranks are waiting on this one's sends: end the whole job, not the rank. */
		sg_fatal(__FILE__, __LINE__, merged ? "starpu_task_insert (C += its scratch tile)"
		                                    : "starpu_mpi_task_insert", strerror(-ret), where);
	}
}

/* StarPU-MPI's cache of tile t, where this rank registered it (a flush is collective over the
 * ranks that did). */
static void flush_if_used(const struct pgemm *g, const struct starpu_gemm_desc *X, int64_t t)
{
	starpu_data_handle_t h = sg_desc_handle_if_used(X, t);
	if (h)
		starpu_mpi_cache_flush(g->pb.comm, h);
}

/* A chunk's remote A and B tiles are dropped from StarPU-MPI's cache once its tasks end, so
 * a rank never holds more than the window's tiles; every rank flushes at the same point. */
static void flush_chunk_inputs(struct pgemm *g, int i0, int i1, int j0, int j1, int k0, int k1)
{
	int r, c;
	for (int k = k0; k < k1; k++) {
		for (int i = i0; i < i1; i++) {
			sg_op_tile(g->pb.transA, i, k, &r, &c);
			flush_if_used(g, g->A, sg_desc_index(g->A, r, c));
		}
		for (int j = j0; j < j1; j++) {
			sg_op_tile(g->pb.transB, k, j, &r, &c);
			flush_if_used(g, g->B, sg_desc_index(g->B, r, c));
		}
	}
}

/* Once a block of C is complete its tiles may leave the GPUs: write them back when idle. Not
 * the tiles kept at home, which never went there: StarPU's wont_use reads the handle after
 * releasing it, and a tile's add on a CPU worker starts it just as the product's end lets the
 * caller unregister the tile (products of 16 x 16 tiles with C at home: SIGSEGV in
 * _starpu_data_wont_use). */
static void release_block(struct pgemm *g, int i0, int i1, int j0, int j1)
{
	for (int i = i0; i < i1; i++)
		for (int j = j0; j < j1; j++)
			if (starpu_gemm_desc_owner(g->C, i, j) == g->pb.rank && !tile_at_home(g, i, j))
				starpu_data_wont_use(starpu_gemm_desc_handle(g->C, i, j));
}

/* How many of the tiles [lo, hi) the 2D block-cyclic grid's row (column) p of n deals to it. */
static int local_extent(int lo, int hi, int n, int p)
{
	int count = 0;
	for (int x = lo; x < hi; x++)
		count += x % n == p;
	return count;
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
		int p, q; /* the rank's C rows: i mod P' = p; columns: j mod Q' = q */
		sg_layer_place(pl, g->pb.rank, &p, &q);
		g->block_full_rows = local_extent(w.i0, w.i1, sg_layer_P(pl), p) >= g->gpu_rows;
		g->block_full_cols = local_extent(w.j0, w.j1, sg_layer_Q(pl), q) >= g->gpu_cols;
		int i, j, k;
		while (sg_walk_next_task(&w, &i, &j, &k)) {
			if (g->before_task)
				g->before_task(g->before_task_arg, i, j, k);
			submit_gemm(g, &w, i, j, k, ref);
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
	/* With layers a rank may run tasks (and send partials) for C tiles it does not own,
	 * reading tiles it does not own either (4 x 1 ranks, 2 x 2 tiles: the second layer's
	 * two ranks own nothing): it walks if it runs any task. */
	if (g->partials && sg_layer_tasks(&g->plan, g->pb.rank) > 0)
		return 1;
	return starpu_gemm_desc_local_tiles(g->A) || starpu_gemm_desc_local_tiles(g->B) ||
	       starpu_gemm_desc_local_tiles(g->C);
}

static void walk(void *arg)
{
	struct pgemm *g = arg;
	/* Here, on the submission thread, after the earlier requests' tasks are inserted: an
	 * earlier product may write this one's A or B (its C), and the owners' acquires then
	 * wait for it. */
	if (g->share)
		share_begin(g);
	if (rank_takes_part(g))
		walk_algorithm3(g);
	/* This product's A and B tiles leave StarPU-MPI's cache here, at the same point of every
	 * rank's submission order, not from the caller's thread in starpu_gemm_wait while a later
	 * request's walk inserts tasks on the same tiles (which then found a tile received and
	 * invalidated between its insertion's two looks). */
	if (!g->pb.local) {
		struct starpu_gemm_desc *inputs[2] = { g->A, g->B };
		for (int x = 0; x < (g->B == g->A ? 1 : 2); x++)
			for (int64_t t = 0; t < (int64_t)inputs[x]->mt * inputs[x]->nt; t++)
				flush_if_used(g, inputs[x], t);
	}
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

/* opts.plan for this product: copied when it was made for this problem and this rank can
 * run it (its GPUs), else 1 with one line on stderr (the whole job's misfit from rank 0). */
static int plan_misfit(struct pgemm *g, const struct starpu_gemm_plan *plan)
{
	char why[384];
	if (sg_plan_conforms(plan, &g->pb, g->beta_zero, why, sizeof(why))) {
		if (g->pb.rank == 0)
			fprintf(stderr, "starpu_gemm: %s\n", why);
		return 1;
	}
	unsigned gpu_nodes[STARPU_MAXNODES];
	int gpus = (int)starpu_memory_node_get_ids_by_type(STARPU_CUDA_RAM, gpu_nodes,
	                                                   STARPU_MAXNODES);
	if (plan->G > gpus || (plan->c_home && starpu_cpu_worker_get_count() == 0)) {
		fprintf(stderr, "starpu_gemm: rank %d cannot follow the plan given (opts.plan): it was "
		        "made for %d GPU(s)%s per rank and this rank has %d GPU(s), %u CPU worker(s)\n",
		        g->pb.rank, plan->G, plan->c_home ? " and a CPU worker" : "", gpus,
		        starpu_cpu_worker_get_count());
		return 1;
	}
	g->plan = *plan;
	return 0;
}

int starpu_gemm_pgemm_submit(char transA, char transB, const void *alpha,
                             struct starpu_gemm_desc *A, struct starpu_gemm_desc *B,
                             const void *beta, struct starpu_gemm_desc *C,
                             const struct starpu_gemm_opts *opts_in,
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
	/* A plan given is followed as it is, once it is known to be this problem's: then no
	 * collective plans (its verdict is agreed with the allocations' below). */
	int misfit = 0;
	if (!ret) {
		const struct sg_precision *pc = sg_precision_of_c(sg_precision(g->pb.prec));
		g->beta_zero = opts.beta_zero = sg_load(pc, beta, 0) == 0;
		if (opts.plan)
			misfit = plan_misfit(g, opts.plan);
		else
			ret = sg_plan_make(&g->plan, &g->pb, &opts);
	}
	if (ret) {
		free(g);
		return ret;
	}
	g->prec = sg_precision(g->pb.prec);
	memcpy(&g->alpha, alpha, sg_precision_of_c(g->prec)->elemsize);
	memcpy(&g->beta, beta, sg_precision_of_c(g->prec)->elemsize);
	g->before_task = opts.before_task;
	g->before_task_arg = opts.before_task_arg;
	/* A C that is also A or B is written by its owner while node peers would read it in
	 * place with no order between them: StarPU-MPI's copies keep that order. */
	g->share = !g->pb.local && A->shared && B->shared && C != A && C != B;
	g->static_gpu = g->plan.static_gpu && g->plan.G > 0;
	g->ngpus = (int)starpu_memory_node_get_ids_by_type(STARPU_CUDA_RAM, g->gpu_nodes,
	                                                   STARPU_MAXNODES);
	g->gpu_rows = g->plan.gpu_rows;
	g->gpu_cols = g->plan.gpu_cols;
	/* Each task's GPU is known: its tiles are prefetched there at submission. */
	if (g->plan.G > 0 && (g->ngpus == 1 || (g->static_gpu && g->ngpus > 1))) {
		size_t a_tiles = (size_t)A->mt * A->nt * g->ngpus;
		size_t tiles = a_tiles + (size_t)B->mt * B->nt * g->ngpus;
		if (!(g->asked_a = calloc(tiles, sizeof(*g->asked_a)))) {
			free(g);
			return -ENOMEM;
		}
		g->asked_b = g->asked_a + a_tiles;
	}
	/* Where sends of this rank's tiles are pruned to one insertion per runner and epoch. */
	int alloc_failed = 0;
	if (!g->pb.local && C->nranks > 1 && starpu_mpi_cache_is_enabled()) {
		size_t a_marks = (size_t)A->mt * A->nt * C->nranks;
		size_t marks = a_marks + (B == A ? 0 : (size_t)B->mt * B->nt * C->nranks);
		g->sent_a = calloc(marks, sizeof(*g->sent_a));
		g->sent_b = g->sent_a ? g->sent_a + a_marks : NULL;
		alloc_failed = !g->sent_a;
	}
	if (g->static_gpu)
		find_cuda_workers(g);
	/* Where the rank has GPUs, they run every GEMM task: the CPU worker beside them adds C
	 * at home, and a CPU worker that took a GEMM task (dmdas tries each kind of worker of an
	 * uncalibrated model) would hold it thousands of times longer than a GPU
	 * (bench/notes-gpu.md). */
	g->gemm_where = g->plan.G > 0 ? (int)STARPU_CUDA : -1;
	int scratch = g->plan.c_home || g->plan.c_spread; /* C's scratch tiles (compute/c_home.h) */
	if (scratch)
		g->home = sg_c_home_create(g->pb.Mt, g->pb.Nt, g->pb.local ? MPI_COMM_NULL : g->pb.comm,
		                           g->pb.rank);
	int layered = sg_layers(&g->plan) > 1;
	if (layered) {
		g->partials = sg_partials_create(&g->plan, g->pb.comm, g->pb.rank);
		g->runner_seq = calloc((size_t)C->nranks, sizeof(*g->runner_seq));
	}
	int lookahead = g->plan.throttled ? g->plan.lookahead : 0;
	int64_t local_tasks = layered ? sg_layer_tasks(&g->plan, g->pb.rank)
	                              : starpu_gemm_desc_local_tiles(C) * g->pb.Kt;
	/* The sampler scans every A and B tile each millisecond the walk waits: only where
	 * remote tiles can exist, on several ranks. */
	g->window = sg_window_create(lookahead, opts.progress && g->pb.rank == 0, local_tasks,
	                             C->nranks > 1 ? sample_remote_tiles : NULL, g);
	g->job.run = walk;
	g->job.arg = g;
	/* Collective: a rank that cannot walk must not leave the others waiting for its sends. */
	ret = misfit ? -EINVAL
	      : !g->window || (scratch && !g->home) ||
	        (layered && (!g->partials || !g->runner_seq)) || alloc_failed ? -ENOMEM : 0;
	if (!ret)
		ret = sg_submitter_start();
	ret = sg_agree(ret, g->pb.comm);
	if (ret) {
		sg_window_destroy(g->window);
		sg_c_home_destroy(g->home);
		sg_partials_destroy(g->partials);
		free(g->asked_a);
		free(g->sent_a);
		free(g->runner_seq);
		free(g);
		return ret;
	}
	sg_submitter_post(&g->job);
	*req = g;
	return 0;
}

/* Sends of this rank's A and B tiles to slower ranks may still be in flight: a read-write
 * acquire on no node waits for every earlier access, those sends included, and moves nothing
 * (the walk flushed StarPU-MPI's cache of the product's tiles at its end). */
static void settle_inputs(struct pgemm *g, struct starpu_gemm_desc *X)
{
	for (int64_t t = 0; t < (int64_t)X->mt * X->nt; t++) {
		if (X->owners[t] == g->pb.rank) {
			starpu_data_handle_t h = X->handles[t];
			SG_STARPU_FATAL(starpu_data_acquire_on_node(h, STARPU_ACQUIRE_NO_NODE, STARPU_RW),
			                "tile sends");
			starpu_data_release_on_node(h, STARPU_ACQUIRE_NO_NODE);
		}
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
	/* No owner writes its A or B tiles again (the caller may, once this returns) while a
	 * node peer's task still reads them in place. */
	if (g->share)
		SG_MPI_FATAL(MPI_Barrier(sg_node_comm(g->A->comm)));
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
		stats->tasks_inserted = g->inserted;
		stats->insert_seconds = g->insert_seconds;
		stats->tiles_sent = g->sends;
		stats->handles = sg_desc_handles_used(g->A) +
		                 (g->B != g->A ? sg_desc_handles_used(g->B) : 0) +
		                 (g->C != g->A && g->C != g->B ? sg_desc_handles_used(g->C) : 0);
	}
	sg_window_destroy(g->window);
	sg_c_home_destroy(g->home);
	sg_partials_destroy(g->partials);
	free(g->asked_a);
	free(g->sent_a);
	free(g->runner_seq);
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
