/* starpu_gemm_check: is C = alpha op(A) op(B) + beta C0, with A, B, C0 regenerated from their
 * seeds? residual = ||C - Cref||_F / (||A||_F ||B||_F (K eps + 2 input_eps)
 * + 2 eps_C ||(Cref, beta C0)||_F), the usual normwise backward error scaled so that a correct
 * product stays O(1); NaN/Inf anywhere makes it +Inf. eps is the unit roundoff of the
 * accumulation; input_eps what the kernel's own rounding of A and B costs (TF32), each
 * product a*b then off by at most 2 input_eps; eps_C C's, for the final alpha s + beta c0. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include "check/check.h"
#include "common/errors.h"
#include "runtime/comm.h"

/* Why the arguments are unusable, or NULL. They are the same on every rank, so every rank
 * finds the same answer here, before any communication. */
static const char *invalid(struct sg_check *ck, char transA, char transB, int64_t samples,
                           const double *residual, char *msg, size_t len)
{
	const struct starpu_gemm_desc *A = ck->A, *B = ck->B, *C = ck->C;
	if (!A || !B || !C || !ck->alpha || !ck->beta || !residual)
		return "NULL argument";
	if (samples < 0)
		return "negative number of samples";
	if (sg_desc_conform(transA, transB, A, B, C, &ck->transA, &ck->transB, &ck->K, msg, len))
		return msg;
	ck->p = sg_precision(sg_kernel(A->prec, ck->math));
	if (!ck->p)
		return "the math mode does not apply to the precision (TF32 is for s)";
	ck->pc = sg_precision_of_c(ck->p);
	ck->pr = sg_precision(ck->p->ref_letter);
	return NULL;
}

/* One tile of X, regenerated at a time by local_sum_squares. */
static size_t tile_buffer_bytes(const struct starpu_gemm_desc *X)
{
	int64_t rmax = X->tile < X->m ? X->tile : X->m, cmax = X->tile < X->n ? X->tile : X->n;
	return (size_t)(rmax * cmax) * X->p->elemsize;
}

/* Sum of |x|^2 over the tiles of X this rank owns, regenerated from the seed: each rank does
 * its share and one reduction gives ||X||_F^2, without reading the tiles. */
static int local_sum_squares(const struct starpu_gemm_desc *X, uint64_t seed, double *sum)
{
	*sum = 0;
	void *buf = malloc(tile_buffer_bytes(X));
	if (!buf)
		return -ENOMEM;
	SG_DESC_FOR_LOCAL(X, t) {
		int i, j, rows, cols;
		sg_desc_tile_shape(X, t, &i, &j, &rows, &cols);
		sg_random_block(X->p, seed, (int64_t)i * X->tile, (int64_t)j * X->tile, rows, cols,
		                buf, rows);
		for (int64_t e = 0; e < (int64_t)rows * cols; e++) {
			double complex v = sg_load(X->p, buf, e);
			*sum += creal(v) * creal(v) + cimag(v) * cimag(v);
		}
	}
	free(buf);
	return 0;
}

/* Sampled mode must stay O(samples K): regenerating all of A and B would not. Each rank
 * then averages |x|^2 over NORM_SAMPLES random elements of the whole matrix, scaled so that
 * the sum over ranks estimates ||X||_F^2 (relative error about 1/sqrt(NORM_SAMPLES*ranks):
 * irrelevant next to a bound of 10). Small matrices are summed exactly. */
#define NORM_SAMPLES ((int64_t)1 << 16)

static int summed_exactly(const struct starpu_gemm_desc *X)
{
	return (double)X->m * (double)X->n <= (double)(NORM_SAMPLES * X->nranks);
}

static int estimated_sum_squares(const struct starpu_gemm_desc *X, uint64_t seed, double *sum)
{
	if (summed_exactly(X))
		return local_sum_squares(X, seed, sum);
	uint64_t state = seed ^ ((uint64_t)(X->rank + 1) << 40);
	double squares = 0, value[2];
	for (int64_t s = 0; s < NORM_SAMPLES; s++) {
		int64_t row = (int64_t)(sg_splitmix64(&state) % (uint64_t)X->m);
		int64_t col = (int64_t)(sg_splitmix64(&state) % (uint64_t)X->n);
		sg_random_block(X->p, seed, row, col, 1, 1, value, 1);
		double complex v = sg_load(X->p, value, 0);
		squares += creal(v) * creal(v) + cimag(v) * cimag(v);
	}
	*sum = squares * ((double)X->m * (double)X->n / (double)NORM_SAMPLES) / X->nranks;
	return 0;
}

void starpu_gemm_check_describe(FILE *out, char prec, int math)
{
	const struct sg_precision *p = sg_precision(sg_kernel(prec, math));
	if (!p)
		return;
	const struct sg_precision *pr = sg_precision(p->ref_letter);
	int wider = pr != sg_precision_of_c(p);
	/* Not "check: ", which starts the verdict of each run. The terms are check()'s bound's,
	 * from the same eps and input_eps. */
	char input[32] = "", c_term[64] = "";
	if (p->input_eps > 0)
		snprintf(input, sizeof(input), " + 2 2^%d", ilogb(p->input_eps));
	snprintf(c_term, sizeof(c_term), " + 2^%d ||(Cref, beta C0)||_F",
	         ilogb(2 * sg_precision_of_c(p)->eps));
	fprintf(out, "check reference: %s, from the inputs as stored%s; passes when ||C - Cref||_F "
	        "<= %g ((K 2^%d%s) ||A||_F ||B||_F%s) (%s accumulation and C%s)\n", pr->name,
	        wider ? " (exact there)" : "", STARPU_GEMM_CHECK_BOUND, ilogb(p->eps), input, c_term,
	        sg_precision_of_c(p)->name,
	        p->input_eps > 0 ? "; TF32 rounds A and B to 10 mantissa bits" : "");
}

/* What a norm of X allocates: a tile, where it is summed exactly. */
static double norm_bytes(const struct starpu_gemm_desc *X, int64_t samples)
{
	return samples == 0 || summed_exactly(X) ? (double)tile_buffer_bytes(X) : 0;
}

double starpu_gemm_check_host_bytes(int math, char transA, char transB,
                                    const struct starpu_gemm_desc *A,
                                    const struct starpu_gemm_desc *B,
                                    const struct starpu_gemm_desc *C, int64_t samples)
{
	/* alpha and beta: only there, as invalid() wants them; never read. */
	double unused[4] = { 0 }, residual;
	struct sg_check ck = { .alpha = unused, .beta = unused, .A = A, .B = B, .C = C,
	                       .math = math };
	char msg[160];
	if (invalid(&ck, transA, transB, samples, &residual, msg, sizeof(msg)))
		return 0;
	/* The norms' buffers are freed before the comparison's are allocated. */
	double norms = fmax(norm_bytes(A, samples), norm_bytes(B, samples));
	return fmax(norms, samples > 0 ? sg_check_sampled_bytes(&ck, samples)
	                               : sg_check_full_bytes(&ck));
}

int starpu_gemm_check(char transA, char transB, const void *alpha,
                      const struct starpu_gemm_desc *A, uint64_t seedA,
                      const struct starpu_gemm_desc *B, uint64_t seedB,
                      const void *beta, const struct starpu_gemm_desc *C, uint64_t seedC0,
                      int64_t samples, double *residual, int64_t *bad_row, int64_t *bad_col)
{
	return starpu_gemm_check_math(STARPU_GEMM_MATH_DEFAULT, transA, transB, alpha, A, seedA, B,
	                              seedB, beta, C, seedC0, samples, residual, bad_row, bad_col);
}

int starpu_gemm_check_math(int math, char transA, char transB, const void *alpha,
                           const struct starpu_gemm_desc *A, uint64_t seedA,
                           const struct starpu_gemm_desc *B, uint64_t seedB,
                           const void *beta, const struct starpu_gemm_desc *C, uint64_t seedC0,
                           int64_t samples, double *residual, int64_t *bad_row,
                           int64_t *bad_col)
{
	if (bad_row)
		*bad_row = -1;
	if (bad_col)
		*bad_col = -1;
	struct sg_check ck = { .alpha = alpha, .beta = beta, .A = A, .B = B, .C = C,
	                       .seedA = seedA, .seedB = seedB, .seedC0 = seedC0,
	                       .first_nonfinite = INT64_MAX, .math = math };
	char msg[160];
	const char *why = invalid(&ck, transA, transB, samples, residual, msg, sizeof(msg));
	if (why) {
		if (!C || C->rank == 0)
			fprintf(stderr, "starpu_gemm: check: %s\n", why);
		return -EINVAL;
	}

	/* Local work; its errors are agreed on below, so no rank leaves a reduction unmatched. */
	double sums[2] = { 0, 0 }, global_sums[2];
	int (*sum_squares)(const struct starpu_gemm_desc *, uint64_t, double *) =
		samples > 0 ? estimated_sum_squares : local_sum_squares;
	int ret = sum_squares(A, seedA, &sums[0]);
	if (!ret)
		ret = sum_squares(B, seedB, &sums[1]);
	if (!ret)
		ret = samples > 0 ? sg_check_sampled(&ck, samples) : sg_check_full(&ck);
	sg_allreduce(sums, global_sums, 2, sizeof(double), MPI_DOUBLE, MPI_SUM, C->comm);
	/* The first NaN/Inf in column-major order over the whole matrix: every rank names the
	 * same entry. */
	int64_t local_min[2] = { ret, ck.first_nonfinite }, global_min[2];
	sg_allreduce(local_min, global_min, 2, sizeof(int64_t), MPI_INT64_T, MPI_MIN, C->comm);
	if (global_min[0] != 0)
		return (int)global_min[0];
	if (global_min[1] != INT64_MAX) {
		*residual = INFINITY;
		if (bad_row)
			*bad_row = global_min[1] % C->m;
		if (bad_col)
			*bad_col = global_min[1] / C->m;
		return 0;
	}

	/* The final alpha s + beta c0 is rounded to C's precision, at most about 2 eps_C
	 * (|Cref| + |beta c0|) an entry, which K eps ||A|| ||B|| does not cover when beta C0
	 * outweighs the product. A reference wider than C (the mixed precisions', and every
	 * sampled one: double) sees all of it; one as narrow as C rounds too, not always alike.
	 * A float product with K = 1, one sample, |a| small beside |beta c0|: residual 15.8
	 * without this term. */
	double denominator = sqrt(global_sums[0]) * sqrt(global_sums[1]) *
	                     ((double)ck.K * ck.p->eps + 2 * ck.p->input_eps) +
	                     2 * ck.pc->eps * sqrt(ck.ref2);
	double local = denominator > 0 ? sqrt(ck.diff2) / denominator
	                               : (ck.diff2 > 0 ? INFINITY : 0);
	/* A NaN here (a NaN in the reference, or in the norms) must fail, and MPI_MAX may drop
	 * a NaN (every comparison with it is false): make it +Inf before reducing. */
	if (isnan(local) || isnan(denominator))
		local = INFINITY;
	sg_allreduce(&local, residual, 1, sizeof(double), MPI_DOUBLE, MPI_MAX, C->comm);
	return 0;
}
