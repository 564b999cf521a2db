/* The throttle bounds memory: with a forced small plan (b=c=d=1, lookahead 1) the peak number
 * of remote A/B tiles a rank holds never exceeds the plan's bound, while the same product
 * submitted all at once holds several times more. Also checks that the forced plan and the
 * automatic one give the same result (both verified against the reference).
 *   test_pgemm_memory TILES_PER_DIM TILE */
#include <stdlib.h>
#include <string.h>
#include "test_common.h"

static int64_t run(struct starpu_gemm_desc *A, struct starpu_gemm_desc *B,
                   struct starpu_gemm_desc *C, const struct starpu_gemm_opts *opts,
                   double *bound, double *residual)
{
	const double alpha = 1.5, beta = -0.5;
	struct starpu_gemm_plan plan;
	starpu_gemm_plan_make(&plan, 'N', 'N', A, B, C, opts);
	*bound = plan.remote_tiles_per_rank;
	starpu_gemm_desc_fill_random(C, 3);
	struct starpu_gemm_stats stats;
	int ret = starpu_gemm_pgemm('N', 'N', &alpha, A, B, &beta, C, opts, &stats);
	if (ret)
		sgt_expect(0, "pgemm returned %d", ret);
	starpu_gemm_check('N', 'N', &alpha, A, 1, B, 2, &beta, C, 3, 0, residual, NULL, NULL);
	return stats.peak_remote_tiles;
}

int main(int argc, char **argv)
{
	sgt_init(&argc, &argv);
	int tiles = argc > 1 ? atoi(argv[1]) : 12, tile = argc > 2 ? atoi(argv[2]) : 16;
	int P = 1;
	while ((P + 1) * (P + 1) <= sgt_size)
		P++;
	while (sgt_size % P)
		P--;
	struct starpu_gemm_dist dist = { STARPU_GEMM_DIST_2D_BLOCK_CYCLIC, P, sgt_size / P, NULL, NULL };
	int64_t n = (int64_t)tiles * tile;
	struct starpu_gemm_desc *A, *B, *C;
	starpu_gemm_desc_create(&A, 'd', n, n, tile, &dist, MPI_COMM_WORLD);
	starpu_gemm_desc_create(&B, 'd', n, n, tile, &dist, MPI_COMM_WORLD);
	starpu_gemm_desc_create(&C, 'd', n, n, tile, &dist, MPI_COMM_WORLD);
	starpu_gemm_desc_fill_random(A, 1);
	starpu_gemm_desc_fill_random(B, 2);

	/* The plan from sizes alone is the plan of the descriptors (memory fixed: the available
	 * memory moves between two reads). */
	struct starpu_gemm_opts opts;
	starpu_gemm_opts_init(&opts);
	opts.host_mem = (size_t)1 << 30;
	struct starpu_gemm_plan of_desc, of_sizes;
	int ret_desc = starpu_gemm_plan_make(&of_desc, 'T', 'N', A, B, C, &opts);
	int ret_sizes = starpu_gemm_plan_sizes(&of_sizes, 'd', 'T', 'N', n, n, n, tile, &dist,
	                                       MPI_COMM_WORLD, &opts);
	if (sgt_rank == 0)
		sgt_expect(ret_desc == 0 && ret_sizes == 0 &&
		           memcmp(&of_desc, &of_sizes, sizeof(of_desc)) == 0,
		           "plan from sizes == plan from descriptors (b=%d c=%d d=%d, %.0f handles, "
		           "host bound %.0f bytes)", of_sizes.b, of_sizes.c, of_sizes.d,
		           of_sizes.handles, of_sizes.host_bytes);

	double bound, unused, res_forced, res_free, res_auto;
	starpu_gemm_opts_init(&opts);
	opts.b = opts.c = opts.d = 1;
	opts.lookahead = 1;
	int64_t forced = run(A, B, C, &opts, &bound, &res_forced);
	starpu_gemm_opts_init(&opts);
	opts.no_throttle = 1;
	int64_t unthrottled = run(A, B, C, &opts, &unused, &res_free);
	starpu_gemm_opts_init(&opts);
	double auto_bound;
	int64_t automatic = run(A, B, C, &opts, &auto_bound, &res_auto);

	int64_t peak_forced, peak_free;
	MPI_Allreduce(&forced, &peak_forced, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
	MPI_Allreduce(&unthrottled, &peak_free, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
	if (sgt_rank == 0) {
		printf("# %dx%d tiles of %d on a %dx%d grid: peak remote tiles per rank\n", tiles,
		       tiles, tile, P, sgt_size / P);
		printf("#   b=c=d=1 l=1: %lld (plan bound %.0f)   no throttle: %lld   automatic: %lld\n",
		       (long long)peak_forced, bound, (long long)peak_free, (long long)automatic);
		sgt_expect(peak_forced <= bound, "forced plan holds %lld remote tiles <= bound %.0f",
		           (long long)peak_forced, bound);
		sgt_expect(peak_free >= 3 * peak_forced,
		           "unthrottled holds %lld remote tiles >= 3x the throttled %lld",
		           (long long)peak_free, (long long)peak_forced);
		sgt_expect(res_forced <= STARPU_GEMM_CHECK_BOUND && res_free <= STARPU_GEMM_CHECK_BOUND &&
		           res_auto <= STARPU_GEMM_CHECK_BOUND,
		           "forced, unthrottled and automatic plans all correct: residuals %.3g %.3g %.3g",
		           res_forced, res_free, res_auto);
	}
	starpu_gemm_desc_destroy(A);
	starpu_gemm_desc_destroy(B);
	starpu_gemm_desc_destroy(C);
	return sgt_finish();
}
