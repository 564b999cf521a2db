/* starpu_gemm_gemm, the one call on host arrays, against CBLAS: every precision and transpose
 * pair, leading dimensions larger than the rows, sub-matrix views of larger arrays, ragged
 * sizes cut in many tiles (STARPU_GEMM_TILE), alpha and beta random complex, 0 and 1, beta = 0
 * with C full of NaN, k = 0, m = 0, invalid arguments. No MPI: the program never initialises
 * it. Every case also checks that nothing outside C's view changed, nor A and B.
 *   test_gemm [cases per precision]
 * Bound: ||C - Cref||_F <= 10 (k+2) eps (|alpha| ||A||_F ||B||_F + |beta| ||C0||_F). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "test_common.h"
#include "common/blas.h"
#include "common/precision.h"
#include "doors/pin.h"

/* An array of rows x cols (ld >= rows) inside a larger allocation of (ld * (cols + 2)) elements
 * starting one column in: a view with something on every side, filled with random values. */
struct view {
	char *alloc, *base;
	int64_t rows, cols, ld, total;
};

static void random_fill(const struct sg_precision *p, char *x, int64_t n)
{
	for (int64_t e = 0; e < n; e++)
		sg_store(p, x, e, (sgt_rand_int(0, 1 << 20) - (1 << 19)) / (double)(1 << 20) +
		                  I * ((sgt_rand_int(0, 1 << 20) - (1 << 19)) / (double)(1 << 20)));
}

static void view_make(const struct sg_precision *p, struct view *v, int64_t rows, int64_t cols)
{
	int64_t row0 = sgt_rand_int(0, 3);
	v->rows = rows;
	v->cols = cols;
	v->ld = rows + row0 + sgt_rand_int(0, 5);
	if (v->ld < 1)
		v->ld = 1;
	v->total = v->ld * (cols + 2);
	/* Small arrays side by side on the heap share pages: pinning merges their ranges. */
	v->alloc = malloc((size_t)v->total * p->elemsize);
	random_fill(p, v->alloc, v->total);
	v->base = v->alloc + (size_t)(v->ld + row0) * p->elemsize;
}

static char *copy_of(const struct sg_precision *p, const struct view *v)
{
	char *c = malloc((size_t)v->total * p->elemsize);
	memcpy(c, v->alloc, (size_t)v->total * p->elemsize);
	return c;
}

static double view_norm(const struct sg_precision *p, const struct view *v, const char *alloc)
{
	const char *base = alloc + (v->base - v->alloc);
	double sum = 0;
	for (int64_t j = 0; j < v->cols; j++)
		for (int64_t i = 0; i < v->rows; i++) {
			double complex x = sg_load(p, base, i + j * v->ld);
			sum += creal(x) * creal(x) + cimag(x) * cimag(x);
		}
	return sqrt(sum);
}

/* ||C - Cref||_F over the view, and whether everything outside it is identical. */
static double view_diff(const struct sg_precision *p, const struct view *v, const char *ref,
                        int *outside_same)
{
	int64_t start = (v->base - v->alloc) / (int64_t)p->elemsize;
	double sum = 0;
	*outside_same = 1;
	for (int64_t e = 0; e < v->total; e++) {
		int64_t rel = e - start, i = rel >= 0 ? rel % v->ld : -1, j = rel >= 0 ? rel / v->ld : -1;
		int inside = rel >= 0 && i < v->rows && j < v->cols;
		double complex d = sg_load(p, v->alloc, e) - sg_load(p, ref, e);
		if (inside)
			sum += isnan(creal(d)) || isnan(cimag(d)) ? INFINITY
			                                         : creal(d) * creal(d) + cimag(d) * cimag(d);
		else if (memcmp(v->alloc + e * p->elemsize, ref + e * p->elemsize, p->elemsize))
			*outside_same = 0;
	}
	return sqrt(sum);
}

static void scalar(const struct sg_precision *p, int kind, void *value)
{
	/* 0: zero, 1: one, else random (complex for complex precisions) */
	double complex v = kind == 0 ? 0 : kind == 1 ? 1
	                 : (sgt_rand_int(1, 1000) / 500.0 - 1.0) + I * (sgt_rand_int(1, 1000) / 500.0 - 1.0);
	sg_store(p, value, 0, v);
}

static void one_case(const struct sg_precision *p, char ta, char tb, int64_t m, int64_t n,
                     int64_t k, int alpha_kind, int beta_kind)
{
	double complex alpha = 0, beta = 0;
	scalar(p, alpha_kind, &alpha);
	scalar(p, beta_kind, &beta);
	struct view A, B, C;
	view_make(p, &A, ta == 'N' ? m : k, ta == 'N' ? k : m);
	view_make(p, &B, tb == 'N' ? k : n, tb == 'N' ? n : k);
	view_make(p, &C, m, n);
	if (beta_kind == 0) /* BLAS: C is not read when beta = 0 */
		for (int64_t j = 0; j < n; j++)
			for (int64_t i = 0; i < m; i++)
				sg_store(p, C.base, i + j * C.ld, NAN);
	char *A0 = copy_of(p, &A), *B0 = copy_of(p, &B), *Cref = copy_of(p, &C);
	char *Cref_base = Cref + (C.base - C.alloc);
	if (beta_kind == 0)
		for (int64_t j = 0; j < n; j++)
			for (int64_t i = 0; i < m; i++)
				sg_store(p, Cref_base, i + j * C.ld, 0);
	double c0_norm = view_norm(p, &C, Cref);
	if (m > 0 && n > 0)
		sg_cblas_gemm(p->letter, ta, tb, (int)m, (int)n, (int)k, &alpha, A.base, (int)A.ld,
		              B.base, (int)B.ld, &beta, Cref_base, (int)C.ld);
	/* C blocks of all columns, or of 1 or 2 tile columns: several blocks send C's staged
	 * tiles back while later blocks compute, as the planner's quarters do on GPUs. */
	struct starpu_gemm_opts opts;
	starpu_gemm_opts_init(&opts);
	opts.c = sgt_rand_int(0, 2);
	int ret = starpu_gemm_gemm_ex(p->letter, ta, tb, m, n, k, &alpha, A.base, A.ld, B.base,
	                              B.ld, &beta, C.base, C.ld, &opts, NULL);
	int outside_same, a_same = !memcmp(A0, A.alloc, (size_t)A.total * p->elemsize);
	int b_same = !memcmp(B0, B.alloc, (size_t)B.total * p->elemsize);
	double diff = view_diff(p, &C, Cref, &outside_same);
	double bound = 10.0 * (double)(k + 2) * p->eps *
	               (cabs(sg_load(p, &alpha, 0)) * view_norm(p, &A, A0) * view_norm(p, &B, B0) +
	                cabs(sg_load(p, &beta, 0)) * c0_norm);
	sgt_expect(ret == 0 && diff <= bound && outside_same && a_same && b_same,
	           "%cgemm %c%c m=%lld n=%lld k=%lld lda=%lld ldb=%lld ldc=%lld alpha=%s beta=%s: "
	           "||C-Cref|| %.2e <= %.2e, outside C %s, A/B %s", p->letter, ta, tb, (long long)m,
	           (long long)n, (long long)k, (long long)A.ld, (long long)B.ld, (long long)C.ld,
	           alpha_kind == 0 ? "0" : alpha_kind == 1 ? "1" : "rand",
	           beta_kind == 0 ? "0 (C=NaN)" : beta_kind == 1 ? "1" : "rand", diff, bound,
	           outside_same ? "untouched" : "CHANGED", a_same && b_same ? "untouched" : "CHANGED");
	free(A.alloc); free(B.alloc); free(C.alloc); free(A0); free(B0); free(Cref);
}

static void invalid_arguments(void)
{
	double one = 1, x[16] = { 0 };
	struct { char ta, tb; int64_t m, n, k, lda, ldb, ldc; int info; } bad[] = {
		{ 'X', 'N', 2, 2, 2, 2, 2, 2, 1 }, { 'N', 'Y', 2, 2, 2, 2, 2, 2, 2 },
		{ 'N', 'N', -1, 2, 2, 2, 2, 2, 3 }, { 'N', 'N', 2, -1, 2, 2, 2, 2, 4 },
		{ 'N', 'N', 2, 2, -1, 2, 2, 2, 5 }, { 'N', 'N', 2, 2, 2, 1, 2, 2, 8 },
		{ 'T', 'N', 3, 2, 2, 1, 2, 3, 8 }, { 'N', 'N', 2, 2, 3, 2, 2, 2, 10 },
		{ 'N', 'T', 2, 3, 2, 2, 2, 2, 10 }, { 'N', 'N', 3, 2, 2, 3, 2, 2, 13 },
	};
	for (size_t c = 0; c < sizeof(bad) / sizeof(bad[0]); c++) {
		int info = starpu_gemm_gemm_check('d', bad[c].ta, bad[c].tb, bad[c].m, bad[c].n,
		                                  bad[c].k, bad[c].lda, bad[c].ldb, bad[c].ldc);
		int ret = starpu_gemm_gemm('d', bad[c].ta, bad[c].tb, bad[c].m, bad[c].n, bad[c].k,
		                           &one, x, bad[c].lda, x, bad[c].ldb, &one, x, bad[c].ldc);
		sgt_expect(info == bad[c].info && ret == -EINVAL, "invalid argument %d reported as %d, "
		           "starpu_gemm_gemm returns %d", bad[c].info, info, ret);
	}
	sgt_expect(starpu_gemm_gemm_check('q', 'N', 'N', 1, 1, 1, 1, 1, 1) == -1,
	           "unknown precision reported as -1");
}

/* The ranges pinning registers: each operand's pages, ranges that meet merged into one (CUDA
 * registers a page once and refuses a copy across two registrations). */
static void pin_ranges(void)
{
	static char arena[64 * 4096] __attribute__((aligned(4096)));
	struct sg_pin_set set = { .n = 0 };
	sg_pin_set_add(&set, arena + 100, 10, 10, 10, 8);             /* page 0 */
	sg_pin_set_add(&set, arena + 20 * 4096 + 8, 100, 3, 512, 8);  /* pages 20-22 */
	sg_pin_set_add(&set, arena + 900, 10, 10, 10, 8);             /* page 0: merged */
	int ok = set.n == 2;
	sg_pin_set_add(&set, arena + 4000, 512, 10, 512, 8);           /* pages 0-10: merged */
	sgt_expect(ok && set.n == 2, "pinning: operands sharing a page are one range (%d ranges)",
	           set.n);
	sg_pin_set_add(&set, arena + 10 * 4096, 512, 11, 512, 8);      /* 10-21: joins both */
	sgt_expect(set.n == 1 && set.lo[0] == (uintptr_t)arena &&
	           set.hi[0] == (uintptr_t)arena + 23 * 4096,
	           "pinning: a range meeting two others merges all three (%d range)", set.n);
}

/* Leading dimensions above INT_MAX are valid BLAS: such an operand cannot be registered in
 * place (StarPU's ld has 32 bits, the kernels' an int) and is staged whatever the mode; it
 * used to abort the process. One column each, so only the first column is ever touched. */
/* C = beta*C with no k term (alpha = 0, then k = 0) on a complex C of Inf + Inf i, beta = 2:
 * the same NaNs and infinities as the reference BLAS, whose product is written out (C's own
 * complex multiplication turned them back into Inf + Inf i). */
static void nonfinite_scaling(void)
{
	for (const char *pr = "cz"; *pr; pr++) {
		const struct sg_precision *p = sg_precision(*pr);
		double complex c_in = CMPLX(INFINITY, INFINITY);
		for (int k = 0; k <= 1; k++) {
			char alpha[16], beta[16], a[16], b[16], c[16], ref[16];
			p->scalar(alpha, 0, 0);
			p->scalar(beta, 2, 0);
			p->scalar(a, 1, 1);
			p->scalar(b, 1, -1);
			sg_store(p, c, 0, c_in);
			sg_store(p, ref, 0, c_in);
			int ret = starpu_gemm_gemm(*pr, 'N', 'N', 1, 1, k, alpha, a, 1, b, 1, beta, c, 1);
			sg_cblas_gemm(*pr, 'N', 'N', 1, 1, k, alpha, a, 1, b, 1, beta, ref, 1);
			double complex got = sg_load(p, c, 0), want = sg_load(p, ref, 0);
			sgt_expect(ret == 0 && isnan(creal(got)) == isnan(creal(want)) &&
			           isnan(cimag(got)) == isnan(cimag(want)) &&
			           isinf(creal(got)) == isinf(creal(want)) &&
			           isinf(cimag(got)) == isinf(cimag(want)),
			           "%cgemm alpha = 0, k = %d, beta = 2, C = Inf + Inf i: %g%+gi, the "
			           "reference BLAS %g%+gi", *pr, k, creal(got), cimag(got), creal(want),
			           cimag(want));
		}
	}
}

static void huge_leading_dimensions(void)
{
	int64_t lds[] = { ((int64_t)1 << 31) + 20, ((int64_t)1 << 32) + 1 };
	for (int l = 0; l < 2; l++)
		for (int which = 0; which < 2; which++) {
			double A[20], B[1] = { 2 }, C[20], alpha = 1, beta = 0;
			for (int i = 0; i < 20; i++) {
				A[i] = i + 1;
				C[i] = NAN;
			}
			int64_t lda = which == 0 ? lds[l] : 20, ldc = which == 1 ? lds[l] : 20;
			int ret = starpu_gemm_gemm('d', 'N', 'N', 20, 1, 1, &alpha, A, lda, B, 1, &beta,
			                           C, ldc);
			/* With no staging pool (STARPU_GEMM_STAGE_MB=0) it cannot run: -ENOMEM, C as
			 * it was. */
			const char *pool = getenv("STARPU_GEMM_STAGE_MB");
			int no_pool = pool && *pool && strtod(pool, NULL) == 0;
			int ok = ret == (no_pool ? -ENOMEM : 0);
			for (int i = 0; i < 20; i++)
				ok &= no_pool ? isnan(C[i]) : C[i] == 2 * (i + 1);
			sgt_expect(ok, "ld%c = %lld (above INT_MAX): returns %d, C %s", "AC"[which],
			           (long long)lds[l], ret, ok ? "right" : "WRONG");
		}
}

/* StarPU's life around the door: the application's StarPU is used while it runs and the door
 * starts its own once the application has shut it down; a call from an exit handler run after
 * the door's shutdown gets -ENODEV. Both used to submit to a stopped StarPU, which aborts. */
static int identity_product(void)
{
	double a[4] = { 1, 2, 3, 4 }, b[4] = { 1, 0, 0, 1 }, c[4] = { NAN, NAN, NAN, NAN };
	double one = 1, zero = 0;
	int ret = starpu_gemm_gemm('d', 'N', 'N', 2, 2, 2, &one, a, 2, b, 2, &zero, c, 2);
	return ret ? ret : !memcmp(a, c, sizeof(a)) ? 0 : -EIO;
}

static void after_door_shutdown(void)
{
	int ret = identity_product();
	printf("%s [rank 0] a call after the door's shutdown at exit returns %d (-ENODEV)\n",
	       ret == -ENODEV ? "PASS" : "FAIL", ret);
	fflush(stdout);
	if (ret != -ENODEV)
		_exit(1);
}

static int runtime_lifetime(void)
{
	atexit(after_door_shutdown); /* runs after the door's own handler, registered later */
	if (starpu_init(NULL) != 0)
		return 77;
	int in_app = identity_product();
	starpu_shutdown();
	int after_app = identity_product();
	sgt_expect(in_app == 0 && after_app == 0, "the application's StarPU, then the door's own "
	           "once it is shut down (%d, %d)", in_app, after_app);
	return sgt_finish_local();
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "runtime"))
		return runtime_lifetime();
	int cases = argc > 1 ? atoi(argv[1]) : 12;
	sgt_init_local();
	const char *precs = "sdcz", *trans = "NTC";
	invalid_arguments();
	pin_ranges();
	huge_leading_dimensions();
	nonfinite_scaling();
	for (const char *pr = precs; *pr; pr++) {
		const struct sg_precision *p = sg_precision(*pr);
		for (int a = 0; a < 3; a++)
			for (int b = 0; b < 3; b++)
				one_case(p, trans[a], trans[b], sgt_rand_int(1, 70), sgt_rand_int(1, 70),
				         sgt_rand_int(1, 70), 2, 2);
		/* The special scalars and shapes, then random ones. */
		one_case(p, 'N', 'N', 33, 41, 29, 2, 0);
		one_case(p, 'T', 'C', 50, 17, 65, 2, 0);
		one_case(p, 'N', 'T', 40, 30, 20, 0, 2);
		one_case(p, 'N', 'N', 40, 30, 20, 0, 0);
		one_case(p, 'N', 'N', 40, 30, 20, 1, 1);
		one_case(p, 'N', 'N', 40, 30, 0, 2, 2);
		one_case(p, 'N', 'N', 40, 30, 0, 2, 0);
		one_case(p, 'N', 'N', 0, 30, 10, 2, 2);
		one_case(p, 'T', 'N', 1, 1, 1, 2, 2);
		for (int c = 0; c < cases; c++)
			one_case(p, trans[sgt_rand_int(0, 2)], trans[sgt_rand_int(0, 2)],
			         sgt_rand_int(1, 90), sgt_rand_int(1, 90), sgt_rand_int(1, 90),
			         sgt_rand_int(0, 2), sgt_rand_int(0, 2));
	}
	return sgt_finish_local();
}
