/* The planner's layers (compute/layers.h): whether the communication-avoiding schedule
 * replaces the 2D one, and its plan. A layered product is, for each rank, the 2D product of
 * its layer: a P' x Q' grid over C's tiles and 1/c of the k steps, into C itself where the
 * rank owns the tile, else into partial tiles written at their first update and sent to C's
 * owners. So the 2D planner plans it on that problem (b, c, d', the GPUs' and host's tiles),
 * and this file adds what the layers change: the chunk holds d' k steps of each layer
 * (d = c d'), the MPI bytes are counted on the real owners, with the partials, the GPUs load
 * the rank's own C tiles and the partials added into them, and the host holds partials. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "compute/plan.h"
#include "compute/layers.h"
#include "common/precision.h"

/* Automatic layers cut the MPI bytes per rank by at least this share, or the 2D plan stays:
 * the layers add c - 1 partial tiles per C tile to receive, hold and add. */
#define SG_LAYERS_LEAST_SAVING (1.0 / 6)

/* Automatic layers only where the network bounds the 2D plan by far: its network term (MPI
 * bytes at the given rate, STARPU_GEMM_MPI_GBPS) at least SG_LAYERS_NETWORK_BOUND times the
 * rank's GPU time at a nominal rate erring low. The layers move less, but add the partials
 * at the product's end (their tiles complete in the last chunk): simulated 64 nodes of 4 H200,
 * n = 131072, 4 layers against 2D, 3378 against 3125 TFLOP/s at 200 Gb/s (2D's network term
 * 3.4 x its GPU time), 8231 against 10110 at 1600 (0.45 x); measured on 4 x H200 with 4 ranks
 * as nodes (where 2 layers move 25% more), 2.17 s against 1.36 (bench/results/
 * layers-h200x4-20261127.log). Without a rate or a GPU, never. */
#define SG_LAYERS_NETWORK_BOUND 2.0
#define SG_NOMINAL_GPU_FLOPS 50e12         /* DGEMM on an H100 or H200: 51-53 measured */
#define SG_NOMINAL_TENSOR_GPU_FLOPS 400e12 /* BF16, FP16, TF32: more, and erring low */

static int network_bound(const struct starpu_gemm_plan *flat, const struct sg_problem *pb)
{
	if (flat->mpi_rate <= 0 || flat->G < 1)
		return 0;
	const struct sg_precision *p = sg_precision(pb->prec);
	double rate = p->c_letter != p->letter ? SG_NOMINAL_TENSOR_GPU_FLOPS : SG_NOMINAL_GPU_FLOPS;
	double gpu_s = flat->flops / ((double)pb->P * pb->Q * flat->G * rate);
	return flat->mpi_recv_bytes / flat->mpi_rate >= SG_LAYERS_NETWORK_BOUND * gpu_s;
}

/* Why the layers cannot apply to pb, or NULL. They need StarPU-MPI's 2D grid of C (owners
 * from a user function could be anywhere), every input tile through MPI (node peers read
 * theirs in place, which the layers would not), StarPU-MPI's cache and the throttle (the
 * bytes counted below), and no tile filled as the walk goes (before_task, the doors: a C
 * tile is written by adds the hook does not see). */
static const char *layers_refused(const struct sg_problem *pb, const struct sg_resources *res,
                                  const struct starpu_gemm_opts *opts)
{
	if (pb->local || pb->P * pb->Q < 2)
		return "one rank";
	if (pb->user_owners)
		return "owners from a user function";
	if (res->row_peers || res->col_peers)
		return "node peers read each other's tiles in place (one rank per node, or "
		       "STARPU_GEMM_SHARE_NODE=0)";
	if (res->no_mpi_cache)
		return "StarPU-MPI's cache is off (STARPU_MPI_CACHE=0)";
	if (opts->no_throttle)
		return "the throttle is off";
	if (opts->before_task || pb->staged)
		return "the doors fill tiles as the product walks";
	return NULL;
}

/* How many of a layer's Q' places (P') the runners of the tiles [lo, hi) take, and whether
 * place p is among them (a block narrower than the layer's grid leaves some out). */
static int places_taken(int lo, int hi, int places, int p, int *taken)
{
	int width = hi - lo;
	if (width >= places) {
		*taken = 1;
		return places;
	}
	*taken = (p - lo % places + places) % places < width;
	return width;
}

/* Input tiles all ranks receive, and partials, in the layered plan pl: op(A)(i,k) goes, in
 * each block column, to the ranks of its layer's row that hold C columns of that block, less
 * its owner where that is one (throttled, a rank receives a tile once per block it serves);
 * op(B)(k,j) alike along the block rows. */
static void count_layered(const struct starpu_gemm_plan *pl, const struct sg_problem *pb,
                          double *a_tiles, double *b_tiles)
{
	int P1 = sg_layer_P(pl), Q1 = sg_layer_Q(pl);
	int rows_per_block = pl->b * P1, cols_per_block = pl->c * Q1;
	const struct starpu_gemm_dist grid = { .kind = STARPU_GEMM_DIST_2D_BLOCK_CYCLIC,
	                                       .P = pb->P, .Q = pb->Q };
	double a = 0, b = 0;
	for (int k = 0; k < pb->Kt; k++) {
		for (int i = 0; i < pb->Mt; i++) {
			int r, c, runner = sg_layer_runner(pl, i, 0, k);
			int row = runner / pb->Q, col0 = runner % pb->Q; /* the layer's first column */
			sg_op_tile(pb->transA, i, k, &r, &c);
			int owner = starpu_gemm_dist_owner(&grid, r, c), ocol = owner % pb->Q - col0;
			for (int j0 = 0; j0 < pb->Nt; j0 += cols_per_block) {
				int taken, n = places_taken(j0, sg_min(j0 + cols_per_block, pb->Nt), Q1,
				                            ocol, &taken);
				a += n - (owner / pb->Q == row && ocol >= 0 && ocol < Q1 && taken);
			}
		}
		for (int j = 0; j < pb->Nt; j++) {
			int r, c, runner = sg_layer_runner(pl, 0, j, k);
			int col = runner % pb->Q, row0 = runner / pb->Q; /* the layer's first row */
			sg_op_tile(pb->transB, k, j, &r, &c);
			int owner = starpu_gemm_dist_owner(&grid, r, c), orow = owner / pb->Q - row0;
			for (int i0 = 0; i0 < pb->Mt; i0 += rows_per_block) {
				int taken, n = places_taken(i0, sg_min(i0 + rows_per_block, pb->Mt), P1,
				                            orow, &taken);
				b += n - (owner % pb->Q == col && orow >= 0 && orow < P1 && taken);
			}
		}
	}
	*a_tiles = a;
	*b_tiles = b;
}

/* The layered plan with pr x qc layers, from the 2D planner on one layer's problem: 0, or
 * its refusal (a chunk does not fit). */
static int plan_layered(struct starpu_gemm_plan *pl, const struct sg_problem *pb,
                        const struct sg_resources *res, const struct starpu_gemm_opts *opts,
                        int pr, int qc, char *why, size_t whylen)
{
	int layers = pr * qc;
	struct sg_problem one = *pb;
	one.P = pb->P / pr;
	one.Q = pb->Q / qc;
	one.Kt = sg_ceil_div(pb->Kt, layers);
	one.K = (int64_t)ceil((double)pb->K * one.Kt / pb->Kt);
	struct starpu_gemm_opts o = *opts;
	o.layers = 1;
	o.beta_zero = 1; /* C's loads are counted below; a partial's first update writes it */
	o.c_home = 0;
	o.c_spread = 2; /* a partial's first update writes it; C's owner loads C at k = 0 */
	o.d = opts->d ? sg_max(opts->d / layers, 1) : 0;
	struct sg_resources r = *res;
	r.inputs_counted = 0;
	int ret = sg_plan_compute(pl, &one, &r, &o, why, whylen);
	/* A layer's k steps are those of k mod c: its A tiles come from the owners of k mod Q,
	 * its B tiles from those of k mod P, of those k. Chunks of max(P, Q) steps (as in 2D)
	 * draw from all of them, where the layer's own rule (max(P', Q') of its steps, c times
	 * more) held whole panels per chunk: 64 simulated nodes at 200 Gb/s, 4 layers (their adds
	 * made instant), d = 8 1.295 s, d = 16 (2 chunks) 1.315, d = 4 1.347
	 * (bench/results/sim-layers-20261127.txt). Planned again with that depth, so that memory
	 * and tasks are counted for it. */
	int net_d = sg_ceil_div(sg_max(pb->P, pb->Q), layers);
	if (!ret && !opts->d && pl->d > net_d) {
		o.d = net_d;
		ret = sg_plan_compute(pl, &one, &r, &o, why, whylen);
	}
	if (ret)
		return ret;
	pl->P = pb->P;
	pl->Q = pb->Q;
	pl->Kt = pb->Kt;
	pl->layer_rows = pr;
	pl->layer_cols = qc;
	pl->d = sg_min(pl->d * layers, pb->Kt);
	pl->Z = sg_ceil_div(pb->Kt, pl->d);
	pl->beta_zero = opts->beta_zero != 0;
	pl->flops = starpu_gemm_tile_flops(pb->prec, pb->M, pb->N, pb->K);
	/* Bytes on the real owners, per rank (the mean). */
	const struct sg_precision *prec = sg_precision(pb->prec);
	double elem = (double)prec->elemsize;
	double c_elem = (double)sg_precision_of_c(prec)->elemsize;
	double mean_m = (double)pb->M / pb->Mt, mean_n = (double)pb->N / pb->Nt;
	double mean_k = (double)pb->K / pb->Kt, ranks = (double)pb->P * pb->Q;
	double a_tiles, b_tiles;
	count_layered(pl, pb, &a_tiles, &b_tiles);
	double c_tiles = (double)pb->Mt * pb->Nt;
	pl->partial_bytes = c_tiles * (sg_min(layers, pb->Kt) - 1) * c_elem * mean_m * mean_n / ranks;
	pl->mpi_recv_bytes = (a_tiles * mean_m + b_tiles * mean_n) * mean_k * elem / ranks +
	                     pl->partial_bytes;
	pl->node_read_bytes = 0;
	pl->node_mapped_bytes = 0;
	/* The GPUs load, beside A and B, the rank's C tiles (where beta reads them) and the
	 * partials received for them, added there. */
	if (pl->G > 0)
		pl->host_to_gpu_bytes += pl->partial_bytes +
		                         (opts->beta_zero ? 0 : pb->M * (double)pb->N / ranks * c_elem);
	/* The host holds, beside the 2D plan of the layer: a handle for each of its own C tiles
	 * and for each partial it computes or receives; the partials of the blocks in flight
	 * back from the GPUs, and those received for its C tiles until added. */
	double own_c = ceil((double)pb->Mt / pb->P) * ceil((double)pb->Nt / pb->Q);
	double handles = own_c * layers;
	pl->handles += handles;
	pl->host_bytes += handles * SG_HANDLE_HOST_BYTES +
	                  2.0 * (pl->X * pl->Y > 1 ? 2 : 1) * pl->b * pl->c * pl->c_tile_bytes;
	return 0;
}

int sg_plan_layers(struct starpu_gemm_plan *plan, const struct sg_problem *pb,
                   const struct sg_resources *res, const struct starpu_gemm_opts *opts,
                   char *why, size_t whylen)
{
	if (opts->layers == 1)
		return 0;
	const char *refused = layers_refused(pb, res, opts);
	if (refused && opts->layers > 1) {
		snprintf(why, whylen, "%d layers (the communication-avoiding schedule) do not apply "
		         "here: %s", opts->layers, refused);
		return -EINVAL;
	}
	if (refused || (opts->layers == 0 && pb->Kt < 2))
		return 0;
	/* Automatic: only where the 2D plan is network bound, which every rank must find alike:
	 * from its bytes by the grid's fractions, not from this rank's own counts (resources'
	 * inputs_counted, which differ between ranks: A transposed on 2 x 2, ranks then walked
	 * different schedules and waited). Decided before any layered plan is made. */
	struct starpu_gemm_plan flat = *plan;
	char ignored[256];
	if (opts->layers == 0) {
		struct sg_resources r = *res;
		struct starpu_gemm_opts o = *opts;
		r.inputs_counted = 0;
		o.layers = 1;
		if ((res->inputs_counted && sg_plan_compute(&flat, pb, &r, &o, ignored,
		                                            sizeof(ignored))) ||
		    !network_bound(&flat, pb))
			return 0;
	}
	/* Every split of the grid into layers of two ranks or more, and k steps for each: the
	 * one that moves the least (forced: of that count). */
	struct starpu_gemm_plan best = *plan, pl;
	int found = 0;
	for (int pr = 1; pr <= pb->P; pr++)
		for (int qc = 1; qc <= pb->Q; qc++) {
			int layers = pr * qc;
			if (pb->P % pr || pb->Q % qc || layers < 2 || 2 * layers > pb->Kt ||
			    (pb->P / pr) * (pb->Q / qc) < 2)
				continue;
			if ((opts->layers > 1 && layers != opts->layers) ||
			    (opts->d && opts->d % layers)) /* a forced d holds each layer's share */
				continue;
			if (plan_layered(&pl, pb, res, opts, pr, qc, ignored, sizeof(ignored)))
				continue;
			if (!found || pl.mpi_recv_bytes < best.mpi_recv_bytes) {
				best = pl;
				found = 1;
			}
		}
	if (opts->layers > 1 && !found) {
		snprintf(why, whylen, "%d layers (the communication-avoiding schedule): no split of "
		         "the %d x %d grid into %d layers of two ranks or more (pr dividing P, qc "
		         "Q) with at least two k steps each (%d)%s fits", opts->layers, pb->P, pb->Q,
		         opts->layers, pb->Kt, opts->d ? " and d a multiple of the layers" : "");
		return -EINVAL;
	}
	if (found && (opts->layers > 1 ||
	              best.mpi_recv_bytes < (1 - SG_LAYERS_LEAST_SAVING) * flat.mpi_recv_bytes)) {
		best.mpi_lower_bytes = plan->mpi_lower_bytes;
		*plan = best;
	}
	return 0;
}
