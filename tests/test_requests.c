/* Products whose tiles meet StarPU-MPI's cache across requests (the review of 2026-11-27 found
 * each wrong or hanging once sends became a sender's own and handles registered at first use):
 *   test_requests alias   TILE N      C = A A^T with B == A (one descriptor), 1 x nranks grid
 *                                      (without the cache: a task reads one remote tile twice)
 *   test_requests overlap TILE N [D]  r1 = A B -> C and r2 = A B -> D submitted, r1 waited for
 *                                      first (the flush must not race the second walk), then
 *                                      A refilled and one more
 *   test_requests warm    TILE N [D]  a user's StarPU-MPI task reads a remote A tile, then two
 *                                      products with A refilled between them
 *   test_requests b2b     TILE N      two unthrottled products back to back, waited in reverse,
 *                                      then A refilled and one more
 * Every product checked against BLAS on rank 0 (norm-wise relative error < 1e-12). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <starpu_mpi.h>
#include "test_common.h"
#include "common/blas.h"
#include "common/precision.h"

static double residual_of(char ta, char tb, int64_t M, int64_t N, int64_t K, void *Cg,
                          uint64_t sa, int64_t am, int64_t an, uint64_t sb, int64_t bm,
                          int64_t bn, int same_ab)
{
	double one = 1, zero = 0;
	void *Ar = sgt_regenerate('d', sa, am, an);
	void *Br = same_ab ? Ar : sgt_regenerate('d', sb, bm, bn);
	double *Cr = calloc((size_t)(M * N), sizeof(double));
	sg_cblas_gemm('d', ta, tb, (int)M, (int)N, (int)K, &one, Ar, (int)am, Br, (int)bm, &zero,
	              Cr, (int)M);
	double r = sgt_rel_error('d', M * N, Cg, Cr);
	free(Ar);
	if (!same_ab)
		free(Br);
	free(Cr);
	return r;
}

static double gather_check(struct starpu_gemm_desc *C, char ta, char tb, int64_t M, int64_t N,
                           int64_t K, uint64_t sa, int64_t am, int64_t an, uint64_t sb,
                           int64_t bm, int64_t bn, int same_ab)
{
	void *Cg = sgt_rank == 0 ? malloc((size_t)(M * N) * 8) : NULL;
	starpu_gemm_desc_gather(C, Cg, 0);
	double r = 0;
	if (sgt_rank == 0)
		r = residual_of(ta, tb, M, N, K, Cg, sa, am, an, sb, bm, bn, same_ab);
	free(Cg);
	MPI_Bcast(&r, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	return r;
}

static void alias(int tile, int64_t n, int64_t k, int distinct)
{
	struct starpu_gemm_dist dist = { STARPU_GEMM_DIST_2D_BLOCK_CYCLIC, 1, sgt_size, NULL, NULL };
	struct starpu_gemm_desc *A, *C;
	starpu_gemm_desc_create(&A, 'd', n, k, tile, &dist, MPI_COMM_WORLD);
	starpu_gemm_desc_create(&C, 'd', n, n, tile, &dist, MPI_COMM_WORLD);
	starpu_gemm_desc_fill_random(A, 11);
	double one = 1, zero = 0;
	struct starpu_gemm_stats st;
	struct starpu_gemm_desc *B = A;
	if (distinct) {
		starpu_gemm_desc_create(&B, 'd', n, k, tile, &dist, MPI_COMM_WORLD);
		starpu_gemm_desc_fill_random(B, 11);
	}
	int ret = starpu_gemm_pgemm('N', 'T', &one, A, B, &zero, C, NULL, &st);
	if (distinct)
		starpu_gemm_desc_destroy(B);
	double r = gather_check(C, 'N', 'T', n, n, k, 11, n, k, 11, n, k, 1);
	sgt_expect(ret == 0 && r < 1e-12, "alias B == A: A A^T, rel err %.3g (tasks inserted %lld, "
	           "tiles sent %lld)", r, (long long)st.tasks_inserted, (long long)st.tiles_sent);
	starpu_gemm_desc_destroy(A);
	starpu_gemm_desc_destroy(C);
}

/* The options of a forced plan (b = c = d = bcd, lookahead 1), or the planner's (bcd 0). */
static struct starpu_gemm_opts opts_of(int bcd)
{
	struct starpu_gemm_opts opts;
	starpu_gemm_opts_init(&opts);
	if (bcd) {
		opts.b = opts.c = opts.d = bcd;
		opts.lookahead = 1;
	}
	return opts;
}

/* Two products on the same A and B, r1 into C and r2 into D, both submitted before either is
 * waited for: r1 first (its wait must not flush StarPU-MPI's cache under r2's walk), or r2
 * first with both unthrottled (no flush between them: r2's sends meet the runners' caches
 * warm from r1); then A refilled and one more product into C. */
static void two_requests(int tile, int64_t n, int bcd, int r2_first)
{
	struct starpu_gemm_dist dist = { STARPU_GEMM_DIST_2D_BLOCK_CYCLIC, 1, sgt_size, NULL, NULL };
	struct starpu_gemm_desc *A, *B, *C, *D;
	starpu_gemm_desc_create(&A, 'd', n, n, tile, &dist, MPI_COMM_WORLD);
	starpu_gemm_desc_create(&B, 'd', n, n, tile, &dist, MPI_COMM_WORLD);
	starpu_gemm_desc_create(&C, 'd', n, n, tile, &dist, MPI_COMM_WORLD);
	starpu_gemm_desc_create(&D, 'd', n, n, tile, &dist, MPI_COMM_WORLD);
	starpu_gemm_desc_fill_random(A, 61);
	starpu_gemm_desc_fill_random(B, 62);
	double one = 1, zero = 0;
	struct starpu_gemm_opts opts = opts_of(bcd);
	opts.no_throttle = r2_first;
	struct starpu_gemm_request *r1, *r2;
	int ret = starpu_gemm_pgemm_submit('N', 'N', &one, A, B, &zero, C, &opts, &r1);
	ret |= starpu_gemm_pgemm_submit('N', 'N', &one, A, B, &zero, D, &opts, &r2);
	ret |= starpu_gemm_wait(r2_first ? r2 : r1, NULL);
	ret |= starpu_gemm_wait(r2_first ? r1 : r2, NULL);
	double e1 = gather_check(C, 'N', 'N', n, n, n, 61, n, n, 62, n, n, 0);
	double e2 = gather_check(D, 'N', 'N', n, n, n, 61, n, n, 62, n, n, 0);
	starpu_gemm_desc_fill_random(A, 71);
	ret |= starpu_gemm_pgemm('N', 'N', &one, A, B, &zero, C, NULL, NULL);
	double e3 = gather_check(C, 'N', 'N', n, n, n, 71, n, n, 62, n, n, 0);
	sgt_expect(ret == 0 && e1 < 1e-12 && e2 < 1e-12 && e3 < 1e-12, "two requests on the same A "
	           "and B, %s waited for first, then A refilled: %.3g %.3g %.3g",
	           r2_first ? "the second (unthrottled)" : "the first", e1, e2, e3);
	starpu_gemm_desc_destroy(A);
	starpu_gemm_desc_destroy(B);
	starpu_gemm_desc_destroy(C);
	starpu_gemm_desc_destroy(D);
}

static void noop(void *buffers[], void *arg) { (void)buffers; (void)arg; }
static struct starpu_codelet noop_cl = { .cpu_funcs = { noop }, .nbuffers = 2,
	.modes = { STARPU_R, STARPU_RW }, .name = "user_task" };

static void warm(int tile, int64_t n, int bcd)
{
	struct starpu_gemm_dist dist = { STARPU_GEMM_DIST_2D_BLOCK_CYCLIC, 1, sgt_size, NULL, NULL };
	struct starpu_gemm_desc *A, *B, *C;
	starpu_gemm_desc_create(&A, 'd', n, n, tile, &dist, MPI_COMM_WORLD);
	starpu_gemm_desc_create(&B, 'd', n, n, tile, &dist, MPI_COMM_WORLD);
	starpu_gemm_desc_create(&C, 'd', n, n, tile, &dist, MPI_COMM_WORLD);
	starpu_gemm_desc_fill_random(A, 31);
	starpu_gemm_desc_fill_random(B, 32);
	/* The user's own StarPU-MPI task: reads A(0,1) (rank 1's) on C(0,0)'s owner (rank 0),
	 * which leaves it in rank 0's receive cache; nothing is written. */
	starpu_mpi_task_insert(MPI_COMM_WORLD, &noop_cl, STARPU_R, starpu_gemm_desc_handle(A, 0, 1),
	                       STARPU_RW, starpu_gemm_desc_handle(C, 0, 0), 0);
	starpu_task_wait_for_all();
	double one = 1, zero = 0;
	struct starpu_gemm_opts opts = opts_of(bcd);
	int ret = starpu_gemm_pgemm('N', 'N', &one, A, B, &zero, C, &opts, NULL);
	double e1 = gather_check(C, 'N', 'N', n, n, n, 31, n, n, 32, n, n, 0);
	/* A new A; the same product again. */
	starpu_gemm_desc_fill_random(A, 41);
	ret |= starpu_gemm_pgemm('N', 'N', &one, A, B, &zero, C, &opts, NULL);
	double e2 = gather_check(C, 'N', 'N', n, n, n, 41, n, n, 32, n, n, 0);
	sgt_expect(ret == 0 && e1 < 1e-12 && e2 < 1e-12, "warm cache then A refilled: first %.3g, "
	           "second %.3g", e1, e2);
	starpu_gemm_desc_destroy(A);
	starpu_gemm_desc_destroy(B);
	starpu_gemm_desc_destroy(C);
}

int main(int argc, char **argv)
{
	sgt_init(&argc, &argv);
	const char *what = argc > 1 ? argv[1] : "alias";
	int tile = argc > 2 ? atoi(argv[2]) : 16;
	int64_t n = argc > 3 ? atoll(argv[3]) : 64;
	int bcd = argc > 4 ? atoi(argv[4]) : 0;
	if (!strcmp(what, "alias"))
		alias(tile, n, n, bcd);
	else if (!strcmp(what, "overlap"))
		two_requests(tile, n, bcd, 0);
	else if (!strcmp(what, "b2b"))
		two_requests(tile, n, bcd, 1);
	else if (!strcmp(what, "warm"))
		warm(tile, n, bcd);
	return sgt_finish();
}
