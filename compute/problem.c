/* The problem: what one C = alpha*op(A)*op(B) + beta*C is, in tiles, checked once, and the one
 * tile rule every caller (the driver, the one call, the ScaLAPACK drop-in) cuts it by. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "compute/problem.h"
#include "common/precision.h"
#include "runtime/comm.h"
#include "common/errors.h"
#include "distrib/desc.h"

/* The default tile, in one place. GPU tiles grow once every dimension holds several of them:
 * a larger tile runs closer to the device's rate, a smaller one starts the pipeline sooner
 * (the measurements behind each threshold: bench/notes-gpu.md, bench/notes-tensor.md).
 * Double precision waits for 8 tiles of 4096, the others for 4; bfloat16 and half A and B
 * (2 bytes, C float) take 8192 once every dimension holds 8 of them. */
int starpu_gemm_default_tile_prec(char prec, int64_t m, int64_t n, int64_t k, int ncuda)
{
	enum { TILE_CPU = 512, TILE_CUDA = 2048, TILE_CUDA_LARGE = 4096, TILE_TENSOR = 8192 };
	if (ncuda <= 0)
		return TILE_CPU;
	const struct sg_precision *p = sg_precision(prec);
	int64_t smallest = m < n ? m : n;
	smallest = smallest < k ? smallest : k;
	if (p && p->elemsize == 2 && smallest >= 8LL * TILE_TENSOR)
		return TILE_TENSOR;
	int64_t tiles_large = p && (p->letter == 'd' || p->letter == 'z') ? 8 : 4;
	return smallest >= tiles_large * TILE_CUDA_LARGE ? TILE_CUDA_LARGE : TILE_CUDA;
}

int starpu_gemm_default_tile(int64_t m, int64_t n, int64_t k, int ncuda)
{
	return starpu_gemm_default_tile_prec('d', m, n, k, ncuda);
}

/* CPU workers only: the largest of 2048, 1024 and 512 that leaves every CPU worker of the job
 * two C tiles or more, evenly dealt (the C tiles a multiple of the workers, or eight per
 * worker or more), and K two tiles or more. A tile task on one core runs nearer the BLAS's
 * rate the larger it is, and an uneven deal leaves workers idle at the end
 * (docs/performance.md, "CPU performance": the runs behind this rule). 512 when even that
 * leaves some worker idle (many cores, small C). */
static int cpu_tile(int64_t m, int64_t n, int64_t k, int workers)
{
	static const int tiles[] = { 2048, 1024 };
	for (size_t x = 0; workers > 0 && x < sizeof(tiles) / sizeof(tiles[0]); x++) {
		int64_t t = tiles[x], c_tiles = ((m + t - 1) / t) * ((n + t - 1) / t);
		if (k >= 2 * t && c_tiles >= 2LL * workers &&
		    (c_tiles % workers == 0 || c_tiles >= 8LL * workers))
			return tiles[x];
	}
	return 512;
}

int starpu_gemm_tile_rule(char prec, int64_t m, int64_t n, int64_t k, int ncuda,
                          int cpu_workers, int setting)
{
	int tile = setting > 0 ? setting
	           : ncuda <= 0 && cpu_workers > 0 ? cpu_tile(m, n, k, cpu_workers)
	           : starpu_gemm_default_tile_prec(prec, m, n, k, ncuda);
	/* A tile larger than every dimension holds the whole matrix: the same run as a tile of
	 * its size, reported as such. */
	int64_t largest = m > n ? m : n;
	largest = largest > k ? largest : k;
	return largest > 0 && tile > largest ? (int)largest : tile;
}

void starpu_gemm_opts_init(struct starpu_gemm_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->lookahead = -1;
}

/* What a problem needs of its operands beyond the checked, normalised letters and K: C's
 * sizes, tile, distribution and communicator. */
static void problem_fill(struct sg_problem *pb, int64_t M, int64_t N, int tile,
                         const struct starpu_gemm_dist *dist, MPI_Comm comm, int rank)
{
	pb->M = M;
	pb->N = N;
	pb->tile = tile;
	pb->Mt = (int)((M + tile - 1) / tile);
	pb->Nt = (int)((N + tile - 1) / tile);
	pb->Kt = (int)((pb->K + tile - 1) / tile);
	pb->comm = comm;
	pb->local = sg_comm_is_local(comm);
	pb->rank = rank;
	pb->staged = 0; /* the one call's door says otherwise */

	/* Blocks span b*P x c*Q tiles of C so each rank gets about b x c of them: 1D
	 * distributions are a P*Q x 1 or 1 x P*Q grid for that purpose. */
	pb->P = dist->P;
	pb->Q = dist->Q;
	pb->user_owners = dist->kind == STARPU_GEMM_DIST_USER;
	if (dist->kind == STARPU_GEMM_DIST_1D_ROW_CYCLIC) {
		pb->P = dist->P * dist->Q;
		pb->Q = 1;
	} else if (dist->kind == STARPU_GEMM_DIST_1D_COL_CYCLIC) {
		pb->P = 1;
		pb->Q = dist->P * dist->Q;
	}
}

/* The kernel of A's precision under math, or 0 and one line on stderr (if verbose). */
static char kernel_of(char prec, int math, int verbose)
{
	char kernel = sg_kernel(prec, math);
	if (!kernel && verbose)
		fprintf(stderr, "starpu_gemm: math mode %d does not apply to precision %c (TF32 is "
		        "for s)\n", math, prec);
	return kernel;
}

int sg_problem_make(struct sg_problem *pb, char transA, char transB,
                    const struct starpu_gemm_desc *A, const struct starpu_gemm_desc *B,
                    const struct starpu_gemm_desc *C, int math)
{
	char msg[256];
	if (sg_desc_conform(transA, transB, A, B, C, &pb->transA, &pb->transB, &pb->K, msg,
	                    sizeof(msg))) {
		fprintf(stderr, "starpu_gemm: %s\n", msg);
		return -EINVAL;
	}
	pb->prec = kernel_of(A->prec, math, 1);
	if (!pb->prec)
		return -EINVAL;
	problem_fill(pb, C->m, C->n, C->tile, starpu_gemm_desc_dist(C), C->comm, C->rank);
	pb->share = A->shared && B->shared;
	return 0;
}

int sg_problem_of_sizes(struct sg_problem *pb, char prec, char transA, char transB,
                        int64_t M, int64_t N, int64_t K, int tile,
                        const struct starpu_gemm_dist *dist, MPI_Comm comm, int math)
{
	int rank = 0, nranks = 1;
	if (!sg_comm_is_local(comm)) {
		SG_MPI_FATAL(MPI_Comm_rank(comm, &rank));
		SG_MPI_FATAL(MPI_Comm_size(comm, &nranks));
	}
	dist = sg_desc_dist_of(dist, comm);
	const struct sg_precision *p = sg_precision(prec);
	char c_prec = p ? sg_precision_of_c(p)->letter : prec;
	pb->transA = sg_trans(prec, transA);
	pb->transB = sg_trans(prec, transB);
	if (p && (!pb->transA || !pb->transB)) {
		if (rank == 0)
			fprintf(stderr, "starpu_gemm: transA/transB must be N, T or C (got %c, %c)\n",
			        transA, transB);
		return -EINVAL;
	}
	/* A (M x K as op(A)), B (K x N) and C, as their descriptors would check them. */
	int ret = sg_desc_validate(prec, M, K, tile, dist, nranks, rank == 0);
	if (!ret)
		ret = sg_desc_validate(prec, K, N, tile, dist, nranks, rank == 0);
	if (!ret)
		ret = sg_desc_validate(c_prec, M, N, tile, dist, nranks, rank == 0);
	if (ret)
		return ret;
	pb->prec = kernel_of(p->letter, math, rank == 0);
	if (!pb->prec)
		return -EINVAL;
	pb->K = K;
	problem_fill(pb, M, N, tile, dist, comm, rank);
	pb->share = !pb->local && sg_node_share_wanted(); /* what the library's tiles would do */
	return 0;
}
