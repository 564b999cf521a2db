/* The planner: chooses b, c, d and the lookahead as the paper's section 3.2.3 says, and
 * predicts memory and traffic with its Equation (1), so runs can compare measured with
 * predicted. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "compute/plan.h"
#include "compute/lower_bound.h"
#include "common/precision.h"
#include "compute/walk.h"
#include "common/square_grid.h"
#include "compute/layers.h"

/* Memory and traffic are counted in tiles of A and B; a C tile weighs c_weight of them (2
 * when A and B are bfloat16 or half and C float, else 1). */

/* Equation (1): tiles loaded into one GPU over the whole product, and its regime; c_read of
 * the rank's C tiles are loaded (all of them, none with beta = 0, the last shell's with C at
 * home). The rank's G GPUs share its C tiles as a gpu_rows x gpu_cols grid (the paper's
 * columns dealt cyclically: 1 x G), so a GPU reads 1/gpu_rows of the rank's rows of A and
 * 1/gpu_cols of its columns of B: *a and *b of its loads, the rest being C's. */
static double gpu_loads(const struct starpu_gemm_plan *pl, double mem_tiles, double c_weight,
                        double c_read, char *regime, double *a, double *b_out)
{
	double G = pl->G, Mtl = (double)pl->Mt / pl->P, Ntl = (double)pl->Nt / pl->Q;
	double Kt = pl->Kt, b = pl->b, c = pl->c * c_weight, d = pl->d;
	double rows = pl->gpu_rows, cols = pl->gpu_cols;
	double C_loads = c_read * c_weight / G;
	if (Mtl * Kt / rows + Kt * Ntl / cols + b * c / G <= mem_tiles) {
		strcpy(regime, "a");
		*a = Mtl * Kt / rows;
		*b_out = Kt * Ntl / cols;
	} else if (b * d / rows + pl->c * Kt / cols + b * c / G <= mem_tiles) {
		strcpy(regime, "b");
		*a = pl->Y * Mtl * Kt / rows;
		*b_out = Kt * Ntl / cols;
	} else {
		strcpy(regime, pl->X * pl->Y == 1 ? "c1" : "c2");
		*a = pl->Y * Mtl * Kt / rows;
		*b_out = pl->X * Kt * Ntl / cols;
	}
	return *a + *b_out + C_loads;
}

/* Whether the kernel runs on tensor cores: b, h, t, whose C is wider than A and B. */
static int tensor_kernel(char prec)
{
	const struct sg_precision *p = sg_precision(prec);
	return p && p->c_letter != p->letter;
}

/* Whether the rank's GPUs relay the A and B tiles several of them read (opts.gpu_peers): as
 * asked (1 on, 2 off), else where their links are fast (NVLink) and the kernel runs on tensor
 * cores (b, h, t: C wider than A and B), whose GPUs outrun their host links. On 4 x H200 the
 * relays made BF16 faster but DGEMM slower: there the links have room, and a GPU waiting on a
 * peer's load instead of its own costs more than the host bytes saved (docs/node-sharing.md,
 * "A rank's GPUs").
 * Only where each GPU owns its C tiles (static_gpu: the GPUs that read a tile are known),
 * several share a row or column of the grid, and a block spans the grid (every GPU of a grid
 * row reads the row's A tiles). */
static int gpu_peers_decide(const struct starpu_gemm_plan *plan, const struct sg_problem *pb,
                            int asked, int fast)
{
	if (!plan->static_gpu || plan->G < 2 || plan->b < plan->gpu_rows ||
	    plan->c < plan->gpu_cols)
		return 0;
	/* Only tiles in the rank's reach are relayed (its own and its node peers'): counted for a
	 * 2D block-cyclic grid of untransposed operands (relayed_share), not otherwise. */
	if (pb->P * pb->Q > 1 && (pb->user_owners || pb->transA != 'N' || pb->transB != 'N'))
		return 0;
	return asked == 1 || (asked == 0 && fast && tensor_kernel(plan->prec));
}

/* The rank's GPUs as a grid over its C tiles: the most square, rows <= columns, when each
 * GPU owns its tiles (static_gpu, the default with several GPUs: each then reads a share of
 * A's rows and of B's columns, and its tasks' tiles are prefetched to it at submission);
 * 1 x G when dmdas chooses each task's GPU (every GPU may need all of A). */
static void gpu_grid(struct starpu_gemm_plan *plan, int static_gpu)
{
	int G = plan->G > 0 ? plan->G : 1;
	plan->static_gpu = static_gpu == 1 || (static_gpu == 0 && G > 1);
	plan->gpu_rows = plan->static_gpu ? sg_square_grid_rows(G) : 1;
	plan->gpu_cols = G / plan->gpu_rows;
}

/* Largest chunk depth whose tiles fit: c_blocks C blocks + (lookahead+1) chunks of A and B. */
static int largest_d(double mem_tiles, double b, double c_per_gpu, double c_weight,
                     double c_blocks, double window, int Kt)
{
	double room = mem_tiles - c_blocks * b * c_per_gpu * c_weight;
	double per_d = window * (b + c_per_gpu);
	if (room < per_d)
		return 0;
	double d = room / per_d;
	return d >= Kt ? Kt : (int)d;
}

/* b x c, the C block in tiles of this rank: the largest whose tiles cover area (GPU tiles
 * over all GPUs), square if possible and cut into even blocks; with no GPU (area 0) all of the
 * rank's C, which sits in host memory anyway. Values the caller forced are kept.
 *
 * No smaller blocks for their own sake: the walk keeps each C tile's updates together
 * (compute/walk.h), so a tile goes home when done whatever the block, and one block was
 * faster than quarter-width ones (bench/notes-gpu.md). */
static void choose_block(const struct starpu_gemm_opts *opts, double area, int Mtl, int Ntl,
                         int *bp, int *cp)
{
	int b = opts->b, c = opts->c;
	if (!b || !c) {
		if (area > 0) {
			int side = 1;
			while ((double)(side + 1) * (side + 1) <= area)
				side++;
			if (!b && !c) {
				b = sg_min(side, Mtl);
				c = sg_max(sg_min((int)(area / b), Ntl), 1);
				b = sg_min((int)(area / c), Mtl);
			} else if (!b) {
				b = sg_min((int)(area / c), Mtl);
			} else {
				c = sg_min((int)(area / b), Ntl);
			}
			b = sg_max(b, 1);
			c = sg_max(c, 1);
			/* Even blocks: X blocks of equal height beat X-1 full ones and a sliver. */
			if (!opts->b)
				b = sg_ceil_div(Mtl, sg_ceil_div(Mtl, b));
			if (!opts->c)
				c = sg_ceil_div(Ntl, sg_ceil_div(Ntl, c));
		} else {
			if (!b)
				b = Mtl;
			if (!c)
				c = Ntl;
		}
	}
	*bp = sg_min(b, Mtl);
	*cp = sg_min(c, Ntl);
}

/* What a rank's first tasks allocate whatever the size: per CPU worker, OpenBLAS's packing
 * buffers and StarPU's per-worker state, and with several ranks, Open MPI's shared-memory
 * buffers (measured by bench/rss.sh: bench/README.md), which its collectives allocate even
 * where node sharing leaves no tile to cross. */
#define SG_WORKER_HOST_BYTES (2.0 * 1048576)
#define SG_MPI_HOST_BYTES (4.0 * 1048576)
/* OpenBLAS packs a panel of B as wide as the tile: 2 MiB per worker held up to tiles of 512,
 * which bench/rss.sh measured, and the CPU tiles of 1024 and 2048 (the tile rule's since it
 * follows the workers) peaked above it, 4096^3 on 1 and 2 workers: per worker 2.1 and 5.1 MB
 * more in d, 1.7 in s and 3.0 in z at 2048. Per column of the tile beyond 512: */
#define SG_WORKER_COLUMN_HOST_BYTES 5120.0

/* Host memory of one CPU worker beside the tiles. Where the rank has GPUs they run every GEMM
 * task (compute/pgemm.c), so no CPU worker's panel grows with the tile. */
static double worker_host_bytes(int tile, int gpus)
{
	return SG_WORKER_HOST_BYTES +
	       (gpus == 0 && tile > 512 ? (tile - 512) * SG_WORKER_COLUMN_HOST_BYTES : 0);
}
/* Where a task's memory is 1% of its tile's or more (tiles under 260 kB: t < 180 in double),
 * the throttle keeps at most this many tasks in flight per rank, by the chunk depth d and for
 * tiny tiles by the C block: 21 MB of StarPU's, few enough that the bound stays tight where
 * the workers keep up with the submission and fewer are in flight (bench/rss.sh). Larger
 * tiles (the GPUs', the CPU default of 512) keep their chunks: their tasks weigh nothing
 * beside them. */
#define SG_MAX_TASKS_IN_FLIGHT 8192.0
/* A remote tile in flight: its copy, and an allowance for StarPU-MPI's receive request and
 * StarPU's record of the copy (bench/rss.sh on 2 ranks stays within the bound with it). */
#define SG_REMOTE_TILE_HOST_BYTES 2048.0

/* d: the deepest chunk whose remote A and B tiles fit in host memory, (l+1)(b+c)d, with the
 * (l+1)bcd tasks in flight counted in tiles (task_tiles each), and beside the C block in each
 * GPU, b*c/G + (l+1)(b + c/G)d, C's tiles weighing c_weight A or B tiles, in GPU_WINDOW_SHARE
 * of the GPU's memory. 0 when not even d=1 fits.
 *
 * The share: the walk prefetches every task's tiles when it is submitted (compute/pgemm.c),
 * so the whole window is resident at once, and a window that filled the GPU to the last tile
 * left StarPU's allocator and cuBLAS's workspace no room: evicted tiles were loaded again
 * (bench/notes-gpu.md). */
#define GPU_WINDOW_SHARE 0.9
static int chunk_depth(double host_tiles, double gpu_tiles, int b, int c,
                       const struct starpu_gemm_plan *plan, double c_weight, double c_blocks,
                       double window, int Kt, double task_tiles)
{
	int d = largest_d(host_tiles, 0, (double)(b + c) + (double)b * c * task_tiles, 1, 1,
	                  window, Kt);
	if (gpu_tiles > 0)
		d = sg_min(d, largest_d(GPU_WINDOW_SHARE * gpu_tiles, (double)b / plan->gpu_rows,
		                        (double)c / plan->gpu_cols, c_weight, c_blocks, window, Kt));
	return d;
}

/* C blocks a GPU holds at once: with several blocks and a lookahead, the window's last
 * chunks belong to the next block while the current one finishes, and their tasks touch
 * (with d = 1: all of) the next block's C tiles, which arrive before the current block's
 * leave. Sized for one block, a capped GPU loaded more than predicted and ran slower
 * (bench/results/diagnostics-h100-20261124b.log, exp6). */
static double c_blocks_held(int X, int Y, int lookahead)
{
	return X * Y > 1 && lookahead > 0 ? 2 : 1;
}

/* StarPU's host memory per registered tile, and what the
 * allocation of a tile of tile_bytes adds to it: glibc maps a tile of 128 KiB or more on its
 * own, a page more (bench/rss.sh). */
static double handle_host_bytes(const struct sg_problem *pb, double tile_bytes)
{
	return SG_HANDLE_HOST_BYTES + (pb->local ? 0 : SG_MPI_ENTRY_HOST_BYTES) +
	       (tile_bytes >= 128 * 1024 ? 4096 : 0);
}

/* Handles a rank registers for one product at tile t (distrib/desc.c registers another rank's
 * tile at first use, and a descriptor keeps what it registered for its later products and
 * gathers). On the grid, operands as stored: the A tiles of its C rows, the B tiles of its C
 * columns and its C tiles, its own among them; with node sharing, its own tiles, a reach
 * handle for each tile of its node peers, and the tiles of other nodes its tasks read (on the
 * grid, (1 + row peers) / Q of a row's A tiles are in reach, (1 + column peers) / P of a
 * column's B tiles). Transposed operands or the user's owners (which can spread a rank's C
 * over every row and column): every tile, at most. One rank: every tile once. */
static double handles_at(const struct sg_problem *pb, const struct sg_resources *res, int64_t t)
{
	double mt = (double)((pb->M + t - 1) / t), nt = (double)((pb->N + t - 1) / t);
	double kt = (double)((pb->K + t - 1) / t);
	double mtl = ceil(mt / pb->P), ntl = ceil(nt / pb->Q);
	double every = mt * kt + kt * nt + mt * nt;
	if ((double)pb->P * pb->Q <= 1)
		return every;
	double own = mtl * ceil(kt / pb->Q) + ceil(kt / pb->P) * ntl + mtl * ntl; /* the most */
	double peers = pb->share ? (1.0 + res->row_peers) * (1.0 + res->col_peers) - 1 : 0;
	int aligned = pb->transA == 'N' && pb->transB == 'N' && !pb->user_owners;
	if (!aligned)
		return every + peers * own;
	if (!pb->share)
		return mtl * kt + kt * ntl + mtl * ntl;
	double a_reach = (1.0 + res->row_peers) / pb->Q, b_reach = (1.0 + res->col_peers) / pb->P;
	return own * (1 + peers) + mtl * kt * (1 - a_reach) + kt * ntl * (1 - b_reach);
}

/* The handles alone would take more than half of host memory: one line with the numbers and
 * the smallest tile whose handles take at most that half (none if no tile does). */
static void refuse_handles(const struct sg_problem *pb, const struct sg_resources *res,
                           double handles, double handle_bytes, double tile_bytes,
                           size_t host_mem, char *why, size_t whylen)
{
	double half = host_mem / 2.0, per_handle = handle_host_bytes(pb, tile_bytes);
	int64_t hi = pb->M > pb->N ? pb->M : pb->N; /* one tile per matrix there */
	hi = hi > pb->K ? hi : pb->K;
	int64_t lo = pb->tile;
	while (lo + 1 < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		if (handles_at(pb, res, mid) * per_handle <= half)
			hi = mid;
		else
			lo = mid;
	}
	char advice[96] = "no tile does";
	if (handles_at(pb, res, hi) * per_handle <= half)
		snprintf(advice, sizeof(advice), "use a tile of at least %lld (-t)", (long long)hi);
	snprintf(why, whylen, "%.0f tiles of %d x %d (%.0f tasks) are %.1f GB of StarPU "
	        "handles per rank (%.1f kB each), more than half of the %.1f GB of host memory per "
	        "rank: %s", handles, pb->tile, pb->tile, (double)pb->Mt * pb->Nt * pb->Kt,
	        handle_bytes / 1e9, per_handle / 1e3, host_mem / 1e9, advice);
}

/* Distinct remote A and B tiles a rank reads for a block of b x c of its C tiles over d steps
 * of k: op(A)(i, k) is on the rank's grid row, remote unless k falls in its grid column (and
 * B's the other way round); transposed operands and owners from a user function counted as
 * all remote. */
static double remote_tiles(const struct sg_problem *pb, const struct sg_resources *res,
                           double b, double c, int d)
{
	if (pb->P * pb->Q == 1)
		return 0;
	int grid = !pb->user_owners;
	/* Node peers' tiles are read in place: no copy of them is held. */
	double a_k = grid && pb->transA == 'N' ? d - d / pb->Q - d * res->row_peers / pb->Q : d;
	double b_k = grid && pb->transB == 'N' ? d - d / pb->P - d * res->col_peers / pb->P : d;
	return b * a_k + c * b_k;
}

/* Chunks when tiles come from other nodes. StarPU-MPI posts a chunk's receives as its tasks
 * are inserted and they share the network, so with the whole of K in one chunk no task starts
 * before most of its rows of A and columns of B have arrived (the bytes do not depend on d).
 * A chunk's A tiles come from the owners of k mod Q in the rank's grid row, its B tiles from
 * those of k mod P in its column: chunks of max(P, Q) k steps draw evenly from the longer
 * side's owners (both sides' on a square grid), so their links work through every chunk.
 * Simulated nodes of 4 H200 at 200 Gb/s, n = 131072, TFLOP/s by d
 * (bench/results/sim-chunks-20261127b.txt): 3 x 3 d = 3 1459, 2 1180, 4 1262, 6 1199;
 * 4 x 4 d = 4 1881, 3 1530, 6 1559, 8 1523; 2 x 4 d = 4 1235, 2 1163, 8 999; 8 x 8 d = 8
 * 3123, 4 2422; 2 x 3 d = 3 1097, 2 1095, 4 1071, 6 1017; 4 x 6 d = 6 1730, 4 1718, 12 1570
 * (lcm(P, Q) leaves too few chunks there). Where max(P, Q) exceeds K or what memory allows
 * (d), at least SG_NET_CHUNKS chunks, the rule before (fewer ran slower on 16 nodes). */
#define SG_NET_CHUNKS 8
#define SG_NET_CHUNK_DEPTH(Kt) sg_max(((Kt) + SG_NET_CHUNKS - 1) / SG_NET_CHUNKS, 1)

static int net_chunk_depth(int d, int Kt, int P, int Q)
{
	int side = sg_max(P, Q);
	if (side > Kt || side > d)
		return sg_min(d, SG_NET_CHUNK_DEPTH(Kt));
	return side;
}

/* Chunks when a GPU's share of a C block is smaller than a square of side Kt and several GPUs
 * or ranks share the product: at most max(2, ceil(Kt / SG_GPU_CHUNKS)) deep. Inside a chunk
 * each C tile takes its k steps back to back (compute/walk.h), so a GPU's first C tile waits
 * for its whole panel of 2d A and B tiles and the GPU runs below its rate until its link is
 * ahead; a GPU with few C tiles spends a large part of the product there. A model of each
 * GPU's link and GEMMs in the walk's order, checked on a 4-GPU node, chose this depth
 * (bench/notes-gpu.md, "Chunks on a whole node"). Not for: tiles from other nodes (the
 * network's depth, net_chunk_depth, instead), one GPU alone (the model gains
 * little there and loses where the link is the bound; not measured), no lookahead (the next
 * chunk's loads would wait for this one's end), and tensor-core kernels (C twice as wide, A and
 * B relayed between GPUs: measured slower). The one call's staged arrays take it too, although
 * its copiers then stage all of a block's C in the first chunk and send it back only in the
 * last: on 2 x H200, n = 49152 (Kt = 12), the preloaded dgemm_, which planned with d = 12,
 * took 2.69-2.83 s a call and the same call under the driver's plan (d = 3) 2.34-2.41 s, its
 * copiers staying ahead (0.25-0.38 s waiting for staged tiles against 0.59-0.75, 142-143 of
 * the 144 C tiles back during the product against 70-98; bench/results/
 * arrays-h200x2-20261127-d4.log and -d5.log). */
#define SG_GPU_CHUNKS 4
#define SG_GPU_CHUNK_DEPTH(Kt) sg_max(((Kt) + SG_GPU_CHUNKS - 1) / SG_GPU_CHUNKS, 2)

/* Whether some of this rank's A or B tiles come from another node: a grid of several ranks
 * whose row or column is not all on this node (owners from a user function: assumed so). */
static int tiles_from_other_nodes(const struct sg_problem *pb, const struct sg_resources *res)
{
	if (pb->local || pb->P * pb->Q == 1)
		return 0;
	return pb->user_owners || pb->Q - 1 > res->row_peers || pb->P - 1 > res->col_peers;
}

/* Whether C stays in host memory (compute/c_home.h), as asked: it needs a beta that reads C,
 * some k to accumulate, and a CPU worker on every rank to add. Not under simulation: no model
 * of the adds there. */
static int c_home_decide(const struct starpu_gemm_opts *opts, const struct sg_resources *res,
                         int Kt)
{
	return opts->c_home > 0 && !opts->beta_zero && res->cpu_workers > 0 && Kt > 0 &&
	       !res->simulated;
}

/* Whether C's loads are spread over each block's chunks (opts.c_spread; compute/walk.h,
 * sg_walk_c_chunk): where C's tiles are loaded (beta reads C, C not at home) and a block has
 * several chunks. Otherwise a GPU loads all of its block's C in the block's first chunk,
 * beside that chunk's A and B. Automatic on the GPUs of a node of several (as the chunk rule,
 * SG_GPU_CHUNK_DEPTH) whose shares stay on them (regime a: a scratch tile is never evicted):
 * 4 x H100, DGEMM n = 32768, medians: 1 rank x 4 GPUs 0.339-0.348 s against 0.357-0.373 off,
 * 4 ranks x 1 GPU 0.336 against 0.356; n = 65536 and BF16 alike either way (calls E1-E3,
 * bench/results/node-h100x4-20261128-e*.log). Not on one GPU whose memory caps the block
 * (regime b): simulated n = 65536 in 16 GiB, 11.26 s against 10.83 off. */
static int c_spread_decide(const struct starpu_gemm_plan *plan, int asked)
{
	if (plan->beta_zero || plan->c_home || plan->Z < 2)
		return 0;
	return asked == 1 || (asked == 0 && plan->G > 0 && plan->G * plan->P * plan->Q > 1 &&
	                      strcmp(plan->regime, "a") == 0);
}

/* Rows or columns of the largest tile along a dimension of n elements. */
static double real_extent(int tile, int64_t n)
{
	return n < tile ? (double)n : (double)tile;
}

int sg_plan_compute(struct starpu_gemm_plan *plan, const struct sg_problem *problem,
                    const struct sg_resources *res, const struct starpu_gemm_opts *opts_in,
                    char *why, size_t whylen)
{
	const struct sg_problem pb = *problem;
	struct starpu_gemm_opts opts;
	if (opts_in)
		opts = *opts_in;
	else
		starpu_gemm_opts_init(&opts);
	if (opts.b < 0 || opts.c < 0 || opts.d < 0 || opts.lookahead < -1) {
		snprintf(why, whylen, "b, c, d and lookahead must not be negative");
		return -EINVAL;
	}

	memset(plan, 0, sizeof(*plan));
	plan->Mt = pb.Mt;
	plan->Nt = pb.Nt;
	plan->Kt = pb.Kt;
	plan->P = pb.P;
	plan->Q = pb.Q;
	plan->layer_rows = plan->layer_cols = 1;
	plan->tile = pb.tile;
	plan->throttled = !opts.no_throttle;

	plan->beta_zero = opts.beta_zero != 0;
	/* The resources every rank agreed on (compute/resources.h): every rank walks the same
	 * blocks. */
	plan->G = res->gpus;
	gpu_grid(plan, opts.static_gpu);
	plan->gpu_mem = res->gpu_mem;
	plan->host_mem = res->host_mem;
	plan->c_home = c_home_decide(&opts, res, pb.Kt);

	/* Real tile shapes: a tile larger than the matrix (-t 16384 on 100 x 100) holds only the
	 * matrix, and edge tiles are short. Memory is sized by the largest tile that exists,
	 * traffic by the mean tile of each matrix (the sum over its tiles is then exact). A and B
	 * tiles are the unit; C's weigh c_weight of them (2 for bfloat16 and half A and B: C is
	 * float). */
	const struct sg_precision *prec = sg_precision(pb.prec);
	double elem = (double)prec->elemsize;
	double c_weight = (double)sg_precision_of_c(prec)->elemsize / elem;
	double tm = real_extent(pb.tile, pb.M), tn = real_extent(pb.tile, pb.N);
	double tk = real_extent(pb.tile, pb.K);
	double tile_bytes = elem * fmax(tm * tk, fmax(tk * tn, tm * tn));
	double mean_m = (double)pb.M / pb.Mt, mean_n = (double)pb.N / pb.Nt;
	double mean_k = pb.Kt ? (double)pb.K / pb.Kt : 0;
	double a_bytes = elem * mean_m * mean_k, b_bytes = elem * mean_k * mean_n;
	double c_bytes = c_weight * elem * mean_m * mean_n;
	plan->prec = pb.prec;
	plan->ab_tile_bytes = (size_t)((double)pb.tile * pb.tile * elem);
	plan->c_tile_bytes = (size_t)((double)plan->ab_tile_bytes * c_weight);
	plan->flops = starpu_gemm_tile_flops(pb.prec, pb.M, pb.N, pb.K);
	int Mtl = sg_ceil_div(pb.Mt, pb.P), Ntl = sg_ceil_div(pb.Nt, pb.Q);
	int G = plan->G > 0 ? plan->G : 1;
	/* The memory the C block and the chunks must fit in: one GPU's, or for CPU workers the
	 * half of host memory we allow in-flight remote tiles (C is resident there anyway). */
	double gpu_tiles = plan->G > 0 && plan->gpu_mem ? plan->gpu_mem / tile_bytes : 0;
	double host_tiles = plan->host_mem / tile_bytes / 2;
	/* The tiles a rank registers: their handles come first. */
	plan->handles = handles_at(&pb, res, pb.tile);
	double handle_bytes = plan->handles * handle_host_bytes(&pb, tile_bytes);
	if (handle_bytes > plan->host_mem / 2.0) {
		refuse_handles(&pb, res, plan->handles, handle_bytes, tile_bytes, plan->host_mem, why,
		               whylen);
		return -ENOMEM;
	}
	host_tiles -= handle_bytes / tile_bytes;

	/* The C block fills about 3/4 of the GPUs; when not even one chunk then fits beside it
	 * (large tiles, small GPU memory), the block shrinks by half until one does. */
	int b, c, d;
	double c_blocks = 1;
	int cap_tasks = plan->throttled && SG_TASK_HOST_BYTES * 100 > tile_bytes;
	for (double fill = 0.75;; fill /= 2) {
		choose_block(&opts, gpu_tiles > 0 ? fill * gpu_tiles * G / c_weight : 0, Mtl, Ntl,
		             &b, &c);
		/* Tiny tiles: a chunk of d = 1 over the whole block would hold more tasks than
		 * the throttle allows; a smaller block (at most lookahead 2: 3 chunks) does not. */
		if (cap_tasks && !(opts.b && opts.c) && (double)b * c * 3 > SG_MAX_TASKS_IN_FLIGHT)
			choose_block(&opts, SG_MAX_TASKS_IN_FLIGHT / 3, Mtl, Ntl, &b, &c);
		plan->X = sg_ceil_div(pb.Mt, b * pb.P);
		plan->Y = sg_ceil_div(pb.Nt, c * pb.Q);
		/* A forced lookahead beyond the Kt - 1 chunks that can follow the first one
		 * only shrinks d: clamped (the caller sees plan->lookahead < its own). */
		plan->lookahead = opts.lookahead >= 0 ? sg_min(opts.lookahead, sg_max(pb.Kt - 1, 0))
		                                      : (plan->X * plan->Y == 1 ? 1 : 2);
		c_blocks = c_blocks_held(plan->X, plan->Y, plan->lookahead);
		d = opts.d ? opts.d : chunk_depth(host_tiles, gpu_tiles, b, c, plan, c_weight,
		                                  c_blocks, plan->lookahead + 1.0, pb.Kt,
		                                  SG_TASK_HOST_BYTES / tile_bytes);
		/* The throttle's cap on tasks in flight: (lookahead + 1) chunks of b*c*d. */
		if (!opts.d && cap_tasks && d > 1)
			d = sg_min(d, sg_max((int)(SG_MAX_TASKS_IN_FLIGHT /
			                           ((plan->lookahead + 1.0) * b * c)), 1));
		/* Across nodes the network's depth, not the GPUs': simulated 8 x 8 nodes of 4
		 * H200 at n = 65536 (Kt = 16), d = 8 1469 TFLOP/s against the GPU rule's 4, 1216. */
		int from_other_nodes = tiles_from_other_nodes(&pb, res);
		if (!opts.d && plan->throttled && d >= 1 && from_other_nodes)
			d = net_chunk_depth(d, pb.Kt, pb.P, pb.Q);
		if (!opts.d && plan->throttled && !from_other_nodes && plan->lookahead > 0 &&
		    plan->G > 0 && plan->G * pb.P * pb.Q > 1 && !tensor_kernel(pb.prec) &&
		    d > SG_GPU_CHUNK_DEPTH(pb.Kt) && (double)b * c / G < (double)pb.Kt * pb.Kt)
			d = SG_GPU_CHUNK_DEPTH(pb.Kt);
		int forced = opts.b && opts.c;
		if (d >= 1 || forced || (b == 1 && c == 1))
			break;
	}
	if (d < 1) {
		char gpu_text[48] = ""; /* CPU workers alone: no word of GPUs */
		if (gpu_tiles > 0)
			snprintf(gpu_text, sizeof(gpu_text), "%.0f MB per GPU / ", plan->gpu_mem / 1e6);
		snprintf(why, whylen, "one chunk does not fit: a %dx%d block of C with lookahead %d "
		         "needs more than %s%.0f MB of host memory (tile %d); use a smaller tile or "
		         "force -b/-c", b, c, plan->lookahead, gpu_text, plan->host_mem / 1e6, pb.tile);
		return -ENOMEM;
	}
	plan->b = b;
	plan->c = c;
	double window = plan->lookahead + 1;
	plan->d = sg_min(d, pb.Kt);
	plan->Z = sg_ceil_div(pb.Kt, plan->d);

	/* Predictions. */
	plan->tiles_per_gpu = c_blocks * b * c / G + window * ((double)b / plan->gpu_rows +
	                                                       (double)c / plan->gpu_cols) * plan->d;
	plan->remote_tiles_per_rank = window * (double)(b + c) * plan->d;
	/* Host memory beside the rank's own tiles: the handles, and what is in flight: the
	 * current chunk and the lookahead's, of the Z there are, or with the throttle off every
	 * task and every remote tile at once. One rank has no remote tile. */
	double chunks_in_flight = fmin(window, plan->Z);
	plan->tasks_in_flight = fmin(chunks_in_flight * (double)b * c * plan->d,
	                             (double)Mtl * Ntl * pb.Kt);
	double remote_in_flight = chunks_in_flight * remote_tiles(&pb, res, b, c, plan->d);
	if (!plan->throttled) {
		plan->tasks_in_flight = (double)Mtl * Ntl * pb.Kt;
		remote_in_flight = remote_tiles(&pb, res, Mtl, Ntl, pb.Kt);
	}
	plan->host_bytes = handle_bytes + plan->tasks_in_flight * SG_TASK_HOST_BYTES +
	                   remote_in_flight * (tile_bytes + SG_REMOTE_TILE_HOST_BYTES) +
	                   res->cpu_workers_max * worker_host_bytes(pb.tile, res->gpus) +
	                   (!pb.local && pb.P * pb.Q > 1 ? SG_MPI_HOST_BYTES : 0);
	/* C at home: a scratch tile's handle for each of the rank's C tiles (unregistered after
	 * the product), and a host copy of every scratch tile of the blocks in flight: on CPU
	 * workers they live there, and beside GPUs dmdas fetches one for each add it queues. */
	if (plan->c_home)
		plan->host_bytes += (double)Mtl * Ntl * SG_HANDLE_HOST_BYTES +
		                    c_blocks * b * c * tile_bytes * c_weight;
	/* A's tiles come from the other Q - 1 ranks of the grid row, B's from the other P - 1 of
	 * the column: through MPI from other nodes, read in place from node peers. Throttled,
	 * every block reads its own; unthrottled, StarPU-MPI's cache holds each once. */
	/* The distinct op(A) tiles this rank's C rows read from other nodes and from node peers
	 * (B's: its C columns): counted on the grid where resources did (transposed operands,
	 * ragged grids), else the grid's fractions. */
	double Ktd = pb.Kt;
	double a_far = res->inputs_counted ? res->a_far
	                                   : Mtl * Ktd / pb.Q * (pb.Q - 1 - res->row_peers);
	double b_far = res->inputs_counted ? res->b_far
	                                   : Ntl * Ktd / pb.P * (pb.P - 1 - res->col_peers);
	double a_near = res->inputs_counted ? res->a_near : Mtl * Ktd / pb.Q * res->row_peers;
	double b_near = res->inputs_counted ? res->b_near : Ntl * Ktd / pb.P * res->col_peers;
	/* Each is read once per block it serves (the cache is flushed after each chunk) or,
	 * unthrottled, once; and received, without StarPU-MPI's cache, once per task that reads
	 * it: each of the rank's C columns (B's: rows). */
	double a_blocks = plan->throttled ? b * plan->X * plan->Y / Mtl : 1;
	double b_blocks = plan->throttled ? c * plan->X * plan->Y / Ntl : 1;
	double my_cols = res->inputs_counted ? res->c_cols : Ntl;
	double my_rows = res->inputs_counted ? res->c_rows : Mtl;
	plan->mpi_recv_bytes = a_far * a_bytes * (res->no_mpi_cache ? my_cols : a_blocks) +
	                       b_far * b_bytes * (res->no_mpi_cache ? my_rows : b_blocks);
	plan->node_read_bytes = a_near * a_bytes * a_blocks + b_near * b_bytes * b_blocks;
	/* Any schedule's least, per rank: the node's bound shared by its ranks (a node's ranks
	 * hold a sub-grid of row_peers + 1 by col_peers + 1). */
	double node_ranks = (1.0 + res->row_peers) * (1.0 + res->col_peers);
	plan->mpi_lower_bytes = pb.local ? 0 : elem * sg_io_lower_bound_words(pb.M, pb.N, pb.K,
	                        pb.P * pb.Q / node_ranks) / node_ranks;
	plan->node_mapped_bytes = a_near * a_bytes + b_near * b_bytes;
	plan->mpi_rate = res->mpi_rate;
	if (plan->G > 0) {
		/* Equation (1) counts A and B tiles and C's (weighing c_weight) together: A's
		 * and B's mean size. */
		double ab_mean = (a_bytes + b_bytes) / 2;
		/* C tiles loaded: all of the rank's, none with beta = 0, the last shell's at home. */
		double c_read = (double)pb.Mt / pb.P * ((double)pb.Nt / pb.Q);
		if (opts.beta_zero)
			c_read = 0;
		else if (plan->c_home)
			c_read = (double)sg_walk_last_shell_tiles(plan) / (pb.P * pb.Q);
		double a_loads = 0, b_loads = 0;
		double loads = ab_mean > 0 ? gpu_loads(plan, gpu_tiles, c_bytes / ab_mean, c_read,
		                                       plan->regime, &a_loads, &b_loads) : 0;
		/* In regime a no A or B tile leaves a GPU: each ends up holding its whole share,
		 * whatever the chunks. */
		if (strcmp(plan->regime, "a") == 0)
			plan->tiles_per_gpu = c_blocks * b * c / G + a_loads + b_loads;
		/* Relayed: of the GPUs of a grid row that read a tile of A, one loads it from host
		 * memory and the others copy it (B's: of a grid column). */
		plan->gpu_peers = gpu_peers_decide(plan, &pb, opts.gpu_peers, res->gpu_links);
		/* Of a rank's A tiles (row p of the grid, column k mod Q), those of its own column
		 * and its node peers' are in reach; a tile received from another node is not
		 * relayed. B's likewise along the grid's column. */
		double a_reach = (1.0 + res->row_peers) / pb.Q, b_reach = (1.0 + res->col_peers) / pb.P;
		double relayed = plan->gpu_peers
		                 ? a_loads * a_reach * (1 - 1.0 / plan->gpu_cols) +
		                   b_loads * b_reach * (1 - 1.0 / plan->gpu_rows) : 0;
		plan->host_to_gpu_bytes = (loads - relayed) * G * ab_mean;
		plan->gpu_to_gpu_bytes = relayed * G * ab_mean;
		plan->gpu_to_host_bytes = (double)Mtl * Ntl * c_bytes;
	} else {
		strcpy(plan->regime, plan->X * plan->Y == 1 ? "c1" : "c2");
	}
	/* Spread: a scratch tile's handle for each of the rank's C tiles loaded after the first
	 * chunk (unregistered after the product). Its memory is a GPU's, in C's place; forced on
	 * CPU workers alone, host memory beside C, as C at home's: up to the blocks in flight. */
	plan->c_spread = c_spread_decide(plan, opts.c_spread);
	if (plan->c_spread)
		plan->host_bytes += (double)Mtl * Ntl * SG_HANDLE_HOST_BYTES +
		                    (plan->G > 0 ? 0 : c_blocks * b * c * tile_bytes * c_weight);
	/* The 2D plan, or the layers' where they move enough less (or are asked for). */
	return sg_plan_layers(plan, &pb, res, &opts, why, whylen);
}

void sg_plan_choices(const struct starpu_gemm_plan *plan, struct starpu_gemm_opts *opts)
{
	opts->b = plan->b;
	opts->c = plan->c;
	opts->d = plan->d;
	opts->lookahead = plan->lookahead;
	opts->host_mem = plan->host_mem;
	opts->gpu_mem = plan->gpu_mem;
	opts->c_home = plan->c_home;
	opts->c_spread = plan->c_spread ? 1 : 2;
	opts->no_throttle = !plan->throttled;
	opts->static_gpu = plan->static_gpu ? 1 : 2;
	opts->gpu_peers = plan->gpu_peers ? 1 : 2;
	opts->layers = sg_layers(plan);
}

int sg_plan_conforms(const struct starpu_gemm_plan *plan, const struct sg_problem *pb,
                     int beta_zero, char *why, size_t whylen)
{
	if (plan->Mt != pb->Mt || plan->Nt != pb->Nt || plan->Kt != pb->Kt ||
	    plan->tile != pb->tile || plan->P != pb->P || plan->Q != pb->Q ||
	    plan->prec != pb->prec) {
		snprintf(why, whylen, "the plan given (opts.plan: %cgemm, %dx%dx%d tiles of %d on a "
		         "%dx%d grid) was made for another problem (%cgemm, %dx%dx%d tiles of %d on a "
		         "%dx%d grid)", plan->prec, plan->Mt, plan->Nt, plan->Kt, plan->tile, plan->P,
		         plan->Q, pb->prec, pb->Mt, pb->Nt, pb->Kt, pb->tile, pb->P, pb->Q);
		return -EINVAL;
	}
	if (plan->beta_zero != (beta_zero != 0)) {
		snprintf(why, whylen, "the plan given (opts.plan) was made for beta %s 0 and the "
		         "product's is%s 0: plan with opts.beta_zero = %d", plan->beta_zero ? "=" : "!=",
		         beta_zero ? "" : " not", beta_zero != 0);
		return -EINVAL;
	}
	/* Blocks span b x c tiles of each rank of a layer's grid (one layer: the 2D grid). */
	int layers = sg_layers(plan);
	/* Layers: C's owner one of each tile's runners (the 2D grid's owners), no C at home,
	 * no tile staged as the walk goes (compute/plan_layers.c, layers_refused). */
	int layered = plan->layer_rows >= 1 && plan->layer_cols >= 1 &&
	              pb->P % plan->layer_rows == 0 && pb->Q % plan->layer_cols == 0 &&
	              (layers == 1 || (!plan->c_home && !pb->user_owners && !pb->staged)) &&
	              (layers == 1 || (2 * layers <= pb->Kt &&
	                                   (plan->d % layers == 0 || plan->d == pb->Kt)));
	int P1 = layered ? pb->P / plan->layer_rows : pb->P;
	int Q1 = layered ? pb->Q / plan->layer_cols : pb->Q;
	int Mtl = sg_ceil_div(pb->Mt, P1), Ntl = sg_ceil_div(pb->Nt, Q1);
	int walkable = layered && plan->b >= 1 && plan->c >= 1 && plan->lookahead >= 0 &&
	               (pb->Kt == 0 || (plan->d >= 1 && plan->d <= pb->Kt &&
	                                plan->Z == sg_ceil_div(pb->Kt, plan->d))) &&
	               plan->b <= Mtl && plan->c <= Ntl &&
	               plan->X == sg_ceil_div(pb->Mt, plan->b * P1) &&
	               plan->Y == sg_ceil_div(pb->Nt, plan->c * Q1) && plan->G >= 0 &&
	               /* the walk indexes its GPUs by the plan's grid */
	               plan->gpu_rows >= 1 && plan->gpu_cols >= 1 &&
	               plan->gpu_rows * plan->gpu_cols == sg_max(plan->G, 1) &&
	               (!plan->gpu_peers || plan->static_gpu) &&
	               /* a spread C's scratch tiles are C at home's, and not the layers' */
	               (!plan->c_spread || (!plan->c_home && layers == 1));
	if (!walkable) {
		snprintf(why, whylen, "the plan given (opts.plan) cannot be walked: b=%d c=%d d=%d "
		         "lookahead=%d X=%d Y=%d Z=%d, GPUs %d as %dx%d%s, layers %dx%d%s, for "
		         "%dx%dx%d tiles on a %dx%d grid", plan->b, plan->c, plan->d, plan->lookahead,
		         plan->X, plan->Y, plan->Z, plan->G, plan->gpu_rows, plan->gpu_cols,
		         plan->gpu_peers && !plan->static_gpu ? " relaying without owning" : "",
		         plan->layer_rows, plan->layer_cols, plan->c_spread ? ", C spread" : "", pb->Mt,
		         pb->Nt, pb->Kt, pb->P, pb->Q);
		return -EINVAL;
	}
	return 0;
}
