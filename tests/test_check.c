/* starpu_gemm_check (check/): C is written with the exact product computed here by CBLAS on
 * whole regenerated matrices (an independent path from check's tile panels), then:
 *   - the full and the sampled check pass (residual <= STARPU_GEMM_CHECK_BOUND);
 *   - one entry off by 1 fails the full check; every entry off fails the sampled one;
 *   - a NaN (and a later Inf) makes the residual +Inf and names the NaN's row and column;
 *   - a NaN in the reference alone (alpha = NaN) makes the residual +Inf, never NaN;
 *   - non-conforming arguments give -EINVAL on every rank.
 * Every precision, transposes N/T/C, complex alpha/beta, random grids, distributions and
 * ragged shapes; one case with a deep k cuts the reference in several panels.
 *   test_check NCASES   (SEED replays a run) */
#include <complex.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "test_common.h"
#include "check/check.h"
#include "common/blas.h"
#include "common/precision.h"

struct check_case {
	char prec, transA, transB;
	int64_t M, N, K;
	int tile;
	struct starpu_gemm_dist dist;
	double complex alpha, beta;
	uint64_t seedA, seedB, seedC0;
};

/* The whole C = alpha op(A) op(B) + beta C0, on every rank (the matrices are small). */
static void *reference(const struct check_case *cs, const struct starpu_gemm_desc *A,
                       const struct starpu_gemm_desc *B)
{
	int64_t ar = starpu_gemm_desc_rows(A), br = starpu_gemm_desc_rows(B);
	void *Ar = sgt_regenerate(cs->prec, cs->seedA, ar, starpu_gemm_desc_cols(A));
	void *Br = sgt_regenerate(cs->prec, cs->seedB, br, starpu_gemm_desc_cols(B));
	void *C = sgt_regenerate(cs->prec, cs->seedC0, cs->M, cs->N);
	char alpha[16], beta[16];
	sgt_store(cs->prec, cs->alpha, alpha, 0);
	sgt_store(cs->prec, cs->beta, beta, 0);
	int ret = sg_cblas_gemm(cs->prec, cs->transA, cs->transB, (int)cs->M, (int)cs->N,
	                        (int)cs->K, alpha, Ar, (int)ar, Br, (int)br, beta, C, (int)cs->M);
	sgt_expect(ret == 0, "reference gemm (%d)", ret);
	free(Ar);
	free(Br);
	return C;
}

/* Tile (i,j) of C acquired in mode on its owner (release it with starpu_data_release); NULL
 * on the other ranks, and with a FAIL "acquire C(i,j) to <why>" when it cannot be acquired. */
static char *acquire_owned(struct starpu_gemm_desc *C, int i, int j,
                           enum starpu_data_access_mode mode, const char *why, int *rows,
                           int *cols)
{
	if (starpu_gemm_desc_owner(C, i, j) != sgt_rank)
		return NULL;
	starpu_gemm_desc_tile_shape(C, i, j, rows, cols);
	starpu_data_handle_t h = starpu_gemm_desc_handle(C, i, j);
	if (starpu_data_acquire(h, mode) != 0) {
		sgt_expect(0, "acquire C(%d,%d) to %s", i, j, why);
		return NULL;
	}
	return starpu_data_get_local_ptr(h);
}

/* Copies the owned tiles of C from the whole column-major matrix full. */
static void write_tiles(struct starpu_gemm_desc *C, const char *full)
{
	size_t es = starpu_gemm_elemsize(starpu_gemm_desc_prec(C));
	int64_t M = starpu_gemm_desc_rows(C);
	int tile = starpu_gemm_desc_tile_size(C);
	for (int j = 0; j < starpu_gemm_desc_tile_cols(C); j++) {
		for (int i = 0; i < starpu_gemm_desc_tile_rows(C); i++) {
			int rows, cols;
			char *tile_ptr = acquire_owned(C, i, j, STARPU_W, "write it", &rows, &cols);
			if (!tile_ptr)
				continue;
			for (int c = 0; c < cols; c++)
				memcpy(tile_ptr + (size_t)c * rows * es,
				       full + ((size_t)i * tile + ((size_t)j * tile + c) * M) * es,
				       (size_t)rows * es);
			starpu_data_release(starpu_gemm_desc_handle(C, i, j));
		}
	}
}

/* Sets entry (row, col) of C to value on its owner. */
static void poke(struct starpu_gemm_desc *C, int64_t row, int64_t col, double complex value)
{
	int tile = starpu_gemm_desc_tile_size(C), i = (int)(row / tile), j = (int)(col / tile);
	int rows, cols;
	char *tile_ptr = acquire_owned(C, i, j, STARPU_RW, "change an entry", &rows, &cols);
	if (!tile_ptr)
		return;
	sgt_store(starpu_gemm_desc_prec(C), value, tile_ptr, row % tile + (col % tile) * rows);
	starpu_data_release(starpu_gemm_desc_handle(C, i, j));
}

static double run_check(const struct check_case *cs, struct starpu_gemm_desc *A,
                        struct starpu_gemm_desc *B, struct starpu_gemm_desc *C, int64_t samples,
                        int64_t *bad_row, int64_t *bad_col)
{
	char alpha[16], beta[16];
	sgt_store(cs->prec, cs->alpha, alpha, 0);
	sgt_store(cs->prec, cs->beta, beta, 0);
	double residual = -1;
	int ret = starpu_gemm_check(cs->transA, cs->transB, alpha, A, cs->seedA, B, cs->seedB, beta,
	                            C, cs->seedC0, samples, &residual, bad_row, bad_col);
	sgt_expect(ret == 0, "starpu_gemm_check returns 0 (%d)", ret);
	return residual;
}

static void run_case(const struct check_case *cs)
{
	const struct sg_precision *p = sg_precision(cs->prec);
	int64_t ar = cs->transA == 'N' ? cs->M : cs->K, ac = cs->transA == 'N' ? cs->K : cs->M;
	int64_t br = cs->transB == 'N' ? cs->K : cs->N, bc = cs->transB == 'N' ? cs->N : cs->K;
	struct starpu_gemm_desc *A, *B, *C;
	if (starpu_gemm_desc_create(&A, cs->prec, ar, ac, cs->tile, &cs->dist, MPI_COMM_WORLD) ||
	    starpu_gemm_desc_create(&B, cs->prec, br, bc, cs->tile, &cs->dist, MPI_COMM_WORLD) ||
	    starpu_gemm_desc_create(&C, cs->prec, cs->M, cs->N, cs->tile, &cs->dist, MPI_COMM_WORLD)) {
		sgt_expect(0, "create descriptors");
		return;
	}
	starpu_gemm_desc_fill_random(A, cs->seedA);
	starpu_gemm_desc_fill_random(B, cs->seedB);
	char *full = reference(cs, A, B);
	char what[200];
	snprintf(what, sizeof(what), "%c %c%c M=%lld N=%lld K=%lld tile %d grid %dx%d dist %d "
	         "alpha=%g%+gi beta=%g%+gi", cs->prec, cs->transA, cs->transB, (long long)cs->M,
	         (long long)cs->N, (long long)cs->K, cs->tile, cs->dist.P, cs->dist.Q,
	         (int)cs->dist.kind, creal(cs->alpha), cimag(cs->alpha), creal(cs->beta),
	         cimag(cs->beta));
	int64_t row = -2, col = -2, samples = 1 + sgt_rand_int(0, 40);
	const double bound = STARPU_GEMM_CHECK_BOUND;

	write_tiles(C, full);
	double r = run_check(cs, A, B, C, 0, &row, &col);
	sgt_expect(r >= 0 && r <= bound && row == -1 && col == -1, "full check of the exact product "
	           "passes: residual %.3g, %s", r, what);
	r = run_check(cs, A, B, C, samples, &row, &col);
	sgt_expect(r >= 0 && r <= bound && row == -1, "sampled check (%lld) of the exact product "
	           "passes: residual %.3g", (long long)samples, r);

	/* A NaN in the reference only (alpha = NaN against the finite C): a NaN residual would
	 * pass any test written as "residual > bound", and MPI_MAX may drop it; it must come
	 * back as +Inf on every rank. */
	struct check_case nan_alpha = *cs;
	nan_alpha.alpha = NAN;
	for (int mode = 0; mode < 2; mode++) {
		r = run_check(&nan_alpha, A, B, C, mode ? samples : 0, &row, &col);
		sgt_expect(isinf(r) && r > 0, "%s check against a NaN reference (alpha = NaN) fails: "
		           "residual %g", mode ? "sampled" : "full", r);
	}

	/* Entries are O(sqrt(K)): 1 is far beyond rounding for every precision at these sizes. */
	int64_t pr = sgt_rand_int(0, (int)cs->M - 1), pc = sgt_rand_int(0, (int)cs->N - 1);
	double complex v = sg_load(p, full, pr + pc * cs->M);
	poke(C, pr, pc, v + 1.0);
	r = run_check(cs, A, B, C, 0, &row, &col);
	sgt_expect(r > bound && isfinite(r), "full check fails with C(%lld,%lld) off by 1: residual "
	           "%.3g", (long long)pr, (long long)pc, r);
	for (int64_t c = 0; c < cs->N; c++)
		for (int64_t q = 0; q < cs->M; q++)
			sgt_store(cs->prec, sg_load(p, full, q + c * cs->M) - 0.5, full, q + c * cs->M);
	write_tiles(C, full);
	r = run_check(cs, A, B, C, samples, &row, &col);
	sgt_expect(r > bound && isfinite(r), "sampled check fails with every entry off by 0.5: "
	           "residual %.3g", r);

	/* A NaN, and an Inf after it in column-major order (maybe on another rank). */
	poke(C, pr, pc, NAN);
	if (pr + 1 < cs->M || pc + 1 < cs->N)
		poke(C, pr + 1 < cs->M ? pr + 1 : 0, pr + 1 < cs->M ? pc : pc + 1, INFINITY);
	for (int mode = 0; mode < 2; mode++) {
		r = run_check(cs, A, B, C, mode ? samples : 0, &row, &col);
		sgt_expect(isinf(r) && r > 0 && row == pr && col == pc, "%s check with NaN at (%lld,%lld)"
		           ": residual %g, names (%lld,%lld)", mode ? "sampled" : "full", (long long)pr,
		           (long long)pc, r, (long long)row, (long long)col);
	}
	free(full);
	starpu_gemm_desc_destroy(A);
	starpu_gemm_desc_destroy(B);
	starpu_gemm_desc_destroy(C);
}

static void random_case(struct check_case *cs)
{
	const char precs[] = "sdcz", trans[] = "NTC";
	cs->prec = precs[sgt_rand_int(0, 3)];
	cs->transA = trans[sgt_rand_int(0, 2)];
	cs->transB = trans[sgt_rand_int(0, 2)];
	cs->tile = sgt_rand_int(1, 12);
	int64_t small = sgt_rand_int(0, 3) == 0; /* dimensions of 1 or below the tile */
	cs->M = small ? sgt_rand_int(1, cs->tile) : sgt_rand_int(1, 50);
	cs->N = sgt_rand_int(1, 50);
	cs->K = small ? sgt_rand_int(1, 3) : sgt_rand_int(1, 60);
	int P = sgt_rand_divisor(sgt_size);
	cs->dist = (struct starpu_gemm_dist){ (enum starpu_gemm_dist_kind)sgt_rand_int(0, 3), P,
	                                      sgt_size / P, sgt_user_owner, &sgt_size };
	cs->alpha = sgt_rand_int(-4, 4) * 0.5 + I * sgt_rand_int(-2, 2) * 0.25;
	cs->beta = sgt_rand_int(0, 3) == 0 ? 0 : sgt_rand_int(-4, 4) * 0.5 + I * 0.75;
	if (!sg_precision(cs->prec)->is_complex) {
		cs->alpha = creal(cs->alpha);
		cs->beta = creal(cs->beta);
	}
	cs->seedA = (uint64_t)sgt_rand_int(0, 1 << 30);
	cs->seedB = cs->seedA + 1;
	cs->seedC0 = cs->seedA + 2;
}

static void bad_inputs(void)
{
	struct starpu_gemm_dist dist = { STARPU_GEMM_DIST_2D_BLOCK_CYCLIC, 1, sgt_size, NULL, NULL };
	struct starpu_gemm_desc *A, *B, *C, *S;
	starpu_gemm_desc_create(&A, 'd', 6, 5, 2, &dist, MPI_COMM_WORLD);
	starpu_gemm_desc_create(&B, 'd', 5, 4, 2, &dist, MPI_COMM_WORLD);
	starpu_gemm_desc_create(&C, 'd', 6, 4, 2, &dist, MPI_COMM_WORLD);
	starpu_gemm_desc_create(&S, 's', 6, 4, 2, &dist, MPI_COMM_WORLD);
	double one = 1, residual;
	int64_t row, col;
	sgt_expect(starpu_gemm_check('T', 'N', &one, A, 1, B, 2, &one, C, 3, 0, &residual, &row,
	                             &col) == -EINVAL, "check with op(A) not conforming: -EINVAL");
	sgt_expect(starpu_gemm_check('N', 'N', &one, A, 1, B, 2, &one, S, 3, 0, &residual, &row,
	                             &col) == -EINVAL, "check with mixed precisions: -EINVAL");
	sgt_expect(starpu_gemm_check('N', 'X', &one, A, 1, B, 2, &one, C, 3, 0, &residual, &row,
	                             &col) == -EINVAL, "check with transB 'X': -EINVAL");
	sgt_expect(starpu_gemm_check('N', 'N', &one, A, 1, B, 2, &one, C, 3, -1, &residual, &row,
	                             &col) == -EINVAL, "check with -1 samples: -EINVAL");
	sgt_expect(starpu_gemm_check('N', 'N', &one, A, 1, B, 2, &one, C, 3, 0, NULL, &row,
	                             &col) == -EINVAL, "check without residual: -EINVAL");
	/* What the check allocates (the driver's memory bound counts it): nothing for arguments
	 * it refuses; the full check's panels outweigh a few samples (rank 0 owns C(0,0), more
	 * than 2 entries; a rank that owns no more checks them all); as many samples as the
	 * rank's entries of C is the full check, and costs as much. */
	double full = starpu_gemm_check_host_bytes(0, 'N', 'N', A, B, C, 0);
	double few = starpu_gemm_check_host_bytes(0, 'N', 'N', A, B, C, 2);
	double all = starpu_gemm_check_host_bytes(0, 'N', 'N', A, B, C, 6 * 4);
	sgt_expect(starpu_gemm_check_host_bytes(0, 'T', 'N', A, B, C, 0) == 0 &&
	           starpu_gemm_check_host_bytes(0, 'N', 'N', A, B, S, 0) == 0,
	           "check bytes of refused arguments: 0");
	sgt_expect((sgt_rank == 0 ? full > few : full >= few) && few > 0 && all == full,
	           "check bytes: full %.0f, 2 samples %.0f, %.0f for as many samples as entries",
	           full, few, all);
	starpu_gemm_desc_destroy(A);
	starpu_gemm_desc_destroy(B);
	starpu_gemm_desc_destroy(C);
	starpu_gemm_desc_destroy(S);
}

int main(int argc, char **argv)
{
	sgt_init(&argc, &argv);
	int ncases = argc > 1 ? atoi(argv[1]) : 4;
	struct check_case cs;
	for (int c = 0; c < ncases; c++) {
		random_case(&cs);
		run_case(&cs);
	}
	/* Deep k: the full check's reference takes several k panels (2^20 elements each), the
	 * sampled one several dot-product chunks. */
	random_case(&cs);
	cs.prec = 'd';
	cs.tile = 256;
	cs.M = 260;
	cs.N = 200;
	cs.K = 9000;
	run_case(&cs);
	bad_inputs();
	return sgt_finish();
}
