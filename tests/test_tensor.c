/* The tensor-core precisions (issue 17): 'b' (bfloat16 A and B, float C), 'h' (half A and B,
 * float C) and TF32 ('s' with STARPU_GEMM_MATH_TF32, codelet 't').
 *   test_tensor conversions   float <-> bfloat16 and half against the compiler's _Float16 and
 *                             an exact reference: every half, every rounding boundary, NaN,
 *                             infinities, subnormals, overflow (no StarPU)
 *   test_tensor codelets      each kernel x every (transA, transB) x ragged padded shapes,
 *                             against a double reference from the stored inputs; padding never
 *                             touched (with STARPU_NCUDA=1 STARPU_NCPU=0: cuBLAS's GemmEx)
 *   test_tensor pgemm P Q     starpu_gemm_pgemm on a P x Q grid, each mode x every transpose
 *                             pair, checked by starpu_gemm_check_math (full and sampled) and,
 *                             on rank 0, by gathering C against the test's own reference;
 *                             a wrong alpha fails the check; mismatched precisions are refused
 *   test_tensor door          starpu_gemm_gemm('b'/'h') on uint16 arrays and float C, and
 *                             starpu_gemm_gemm_ex('s') in TF32 (no MPI)
 * Every comparison: ||C - Cref||_F / (||A||_F ||B||_F (K 2^-24 + 2 input_eps)) <= 10, the
 * library's own bound, computed here independently (SEED replays a run). */
#include <complex.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "test_common.h"
#include "common/half.h"
#include "common/precision.h"

/* ---- conversions ------------------------------------------------------------------------- */

/* The exact reference: the nearest bfloat16 of x, ties to even, computed in double. */
static uint16_t bf16_reference(float x)
{
	if (isnan(x))
		return 0x7fc0;
	uint32_t bits = sg_float_bits(x);
	uint16_t lo = (uint16_t)(bits >> 16), hi = (uint16_t)(lo + 1);
	double dlo = sg_bf16_to_float(lo), dhi = (lo & 0x7fff) == 0x7f7f
	                                         ? copysign(0x1p128, x) /* next past the largest */
	                                         : sg_bf16_to_float(hi);
	double dist_lo = fabs((double)x - dlo), dist_hi = fabs(dhi - (double)x);
	if (isinf(x) || dist_lo < dist_hi || (dist_lo == dist_hi && !(lo & 1)))
		return lo;
	return hi; /* past the largest finite: lo + 1 is the infinity */
}

static int same_half(uint16_t a, uint16_t b)
{
	int nan_a = (a & 0x7c00) == 0x7c00 && (a & 0x3ff), nan_b = (b & 0x7c00) == 0x7c00 && (b & 0x3ff);
	return nan_a || nan_b ? nan_a && nan_b && (a & 0x8000) == (b & 0x8000) : a == b;
}

static void check_half(float x, long *bad)
{
#ifdef __FLT16_MAX__
	_Float16 ref = (_Float16)x;
	uint16_t want;
	memcpy(&want, &ref, sizeof(want));
	if (!same_half(sg_float_to_half(x), want) && (*bad)++ < 5)
		sgt_expect(0, "float %a -> half: 0x%04x, want 0x%04x", (double)x, sg_float_to_half(x),
		           want);
#else
	(void)x;
	(void)bad;
#endif
}

static void check_bf16(float x, long *bad)
{
	uint16_t got = sg_float_to_bf16(x), want = bf16_reference(x);
	int ok = isnan(x) ? (got & 0x7f80) == 0x7f80 && (got & 0x7f) && (got & 0x8000) ==
	                    (sg_float_bits(x) >> 16 & 0x8000) : got == want;
	if (!ok && (*bad)++ < 5)
		sgt_expect(0, "float %a -> bfloat16: 0x%04x, want 0x%04x", (double)x, got, want);
}

/* x, its neighbours, and the float midpoints around the 16-bit value v widened. */
static void check_around(float x, long *bad_h, long *bad_b)
{
	float probes[5] = { x, nextafterf(x, INFINITY), nextafterf(x, -INFINITY), 0, 0 };
	for (int p = 0; p < 3; p++) {
		check_half(probes[p], bad_h);
		check_bf16(probes[p], bad_b);
	}
}

static void test_conversions(void)
{
	long bad_h = 0, bad_b = 0, roundtrip = 0;
	/* Every 16-bit pattern: widening then narrowing gives it back (NaN stays NaN), and the
	 * rounding boundaries halfway to the next value, and one float either side. */
	for (uint32_t v = 0; v < 0x10000; v++) {
		float h = sg_half_to_float((uint16_t)v), b = sg_bf16_to_float((uint16_t)v);
		roundtrip += !same_half(sg_float_to_half(h), (uint16_t)v);
		roundtrip += !isnan(b) && sg_float_to_bf16(b) != v;
		roundtrip += isnan(b) != isnan(sg_bf16_to_float(sg_float_to_bf16(b)));
		check_around(h, &bad_h, &bad_b);
		check_around(b, &bad_h, &bad_b);
		if ((v & 0x7fff) < 0x7bff) { /* halfway to the next half up in magnitude */
			float next = sg_half_to_float((uint16_t)(v + 1));
			check_around((float)(((double)h + next) / 2), &bad_h, &bad_b);
		}
		if ((v & 0x7fff) < 0x7f7f) {
			float next = sg_bf16_to_float((uint16_t)(v + 1));
			check_around((float)(((double)b + next) / 2), &bad_h, &bad_b);
		}
	}
	/* A sweep of the floats (every 251st pattern: all exponents, many mantissas). */
	for (uint64_t x = 0; x <= 0xffffffffu; x += 251) {
		check_half(sg_bits_float((uint32_t)x), &bad_h);
		check_bf16(sg_bits_float((uint32_t)x), &bad_b);
	}
	const float specials[] = { 0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, FLT_MAX, -FLT_MAX,
	                           FLT_MIN, FLT_TRUE_MIN, 65504.0f, 65519.99f, 65520.0f, 0x1p-24f,
	                           0x1p-25f, 0x1.000002p-25f, 0x1p-14f, 0x1.ff8p-15f };
	for (size_t s = 0; s < sizeof(specials) / sizeof(specials[0]); s++)
		check_around(specials[s], &bad_h, &bad_b);
	sgt_expect(roundtrip == 0, "every half and bfloat16 survives widening and narrowing "
	           "(%ld differ)", roundtrip);
#ifdef __FLT16_MAX__
	sgt_expect(bad_h == 0, "float -> half rounds as the compiler's _Float16 (boundaries of every "
	           "half, a sweep of 17M floats, specials): %ld differ", bad_h);
#else
	printf("SKIP float -> half against _Float16: the compiler has no _Float16\n");
#endif
	sgt_expect(bad_b == 0, "float -> bfloat16 rounds to nearest even (exact reference): %ld "
	           "differ", bad_b);
	sgt_expect(sg_half_to_float(0x0001) == 0x1p-24f && sg_half_to_float(0x7bff) == 65504.0f &&
	           sg_half_to_float(0x8400) == -0x1p-14f && isinf(sg_half_to_float(0xfc00)) &&
	           sg_bf16_to_float(0x0001) == 0x1p-133f,
	           "subnormals, the largest half and infinities widen exactly");
}

/* ---- a reference in double from the stored inputs ------------------------------------------ */

/* op(X)(i, j) of a stored column-major X of precision p. */
static double op_entry(const struct sg_precision *p, char trans, const void *X, int64_t ld,
                       int64_t i, int64_t j)
{
	return creal(trans == 'N' ? sg_load(p, X, i + j * ld) : sg_load(p, X, j + i * ld));
}

/* Cref = alpha op(A) op(B) + beta C0, every operand widened to double; C0 float; beta C0 in
 * beta_c0 (if not NULL), for the bound. */
static void reference(const struct sg_precision *p, char ta, char tb, int m, int n, int k,
                      float alpha, const void *A, int64_t lda, const void *B, int64_t ldb,
                      float beta, const float *C0, int64_t ldc, double *ref, double *beta_c0)
{
	for (int j = 0; j < n; j++)
		for (int i = 0; i < m; i++) {
			double sum = 0;
			for (int l = 0; l < k; l++)
				sum += op_entry(p, ta, A, lda, i, l) * op_entry(p, tb, B, ldb, l, j);
			double bc0 = beta == 0 ? 0 : (double)beta * C0[i + (int64_t)j * ldc];
			ref[i + (int64_t)j * m] = (double)alpha * sum + bc0;
			if (beta_c0)
				beta_c0[i + (int64_t)j * m] = bc0;
		}
}

/* The bound's scaled residual of C (float, leading dimension ldc) against ref: the library's
 * bound, ||C - Cref||_F / (||A||_F ||B||_F (K eps + 2 input_eps)
 *                          + 2 eps sqrt(||Cref||_F^2 + ||beta C0||_F^2)). */
static double residual(const struct sg_precision *p, int m, int n, int k, const void *A,
                       int64_t a_elems, const void *B, int64_t b_elems, const float *C,
                       int64_t ldc, const double *ref, const double *beta_c0)
{
	double diff = 0, na = 0, nb = 0, nref = 0;
	for (int64_t e = 0; e < a_elems; e++)
		na += pow(creal(sg_load(p, A, e)), 2);
	for (int64_t e = 0; e < b_elems; e++)
		nb += pow(creal(sg_load(p, B, e)), 2);
	for (int j = 0; j < n; j++)
		for (int i = 0; i < m; i++) {
			double c = C[i + (int64_t)j * ldc];
			if (!isfinite(c))
				return INFINITY;
			diff += pow(c - ref[i + (int64_t)j * m], 2);
			nref += pow(ref[i + (int64_t)j * m], 2) + pow(beta_c0[i + (int64_t)j * m], 2);
		}
	double scale = sqrt(na) * sqrt(nb) * (k * p->eps + 2 * p->input_eps) +
	               2 * p->eps * sqrt(nref);
	return scale > 0 ? sqrt(diff) / scale : (diff > 0 ? INFINITY : 0);
}

/* A rows x cols matrix of precision p (ld = rows + pad) of random elements, NaN in the
 * padding; malloc'ed. */
static void *random_matrix(const struct sg_precision *p, uint64_t seed, int rows, int cols,
                           int pad)
{
	int64_t ld = rows + pad;
	char *x = malloc((size_t)(ld * cols) * p->elemsize + 1);
	for (int c = 0; c < cols; c++)
		for (int64_t r = 0; r < ld; r++) {
			char *at = x + (size_t)(r + c * ld) * p->elemsize;
			if (r < rows)
				starpu_gemm_random_element(p->stored, seed, r, c, at);
			else
				sg_store(p, x, r + c * ld, NAN);
		}
	return x;
}

/* ---- codelets ------------------------------------------------------------------------------ */

struct shape {
	int m, n, k, pad;
};
static const struct shape shapes[] = {
	{ 1, 1, 1, 0 }, { 37, 5, 61, 3 }, { 5, 61, 37, 0 }, { 61, 37, 5, 1 }, { 64, 64, 64, 0 },
	{ 2, 3, 1, 2 },
};
#define NSHAPES ((int)(sizeof(shapes) / sizeof(shapes[0])))
static const char kernels[] = "bht";

struct tile_case {
	const struct sg_precision *p;
	char ta, tb;
	struct shape s;
	void *A, *B;
	float *C, *C0;
	int lda, ldb, ldc;
	float alpha, beta;
	starpu_data_handle_t hA, hB, hC;
};

static void tile_case_submit(struct tile_case *tc, int index)
{
	const struct sg_precision *p = tc->p;
	struct shape s = tc->s;
	uint64_t seed = sgt_seed() + 7 * (uint64_t)index;
	int a_rows = tc->ta == 'N' ? s.m : s.k, a_cols = tc->ta == 'N' ? s.k : s.m;
	int b_rows = tc->tb == 'N' ? s.k : s.n, b_cols = tc->tb == 'N' ? s.n : s.k;
	tc->lda = a_rows + s.pad;
	tc->ldb = b_rows + s.pad;
	tc->ldc = s.m + s.pad;
	tc->A = random_matrix(p, seed, a_rows, a_cols, s.pad);
	tc->B = random_matrix(p, seed + 1, b_rows, b_cols, s.pad);
	tc->C = random_matrix(sg_precision('s'), seed + 2, s.m, s.n, s.pad);
	tc->C0 = malloc((size_t)tc->ldc * s.n * sizeof(float));
	memcpy(tc->C0, tc->C, (size_t)tc->ldc * s.n * sizeof(float));
	tc->alpha = 1.5f - 0.25f * (float)(index % 3);
	tc->beta = index % 4 == 3 ? 0.0f : -0.5f + 0.125f * (float)(index % 5);
	starpu_matrix_data_register(&tc->hA, STARPU_MAIN_RAM, (uintptr_t)tc->A, tc->lda, a_rows,
	                            a_cols, p->elemsize);
	starpu_matrix_data_register(&tc->hB, STARPU_MAIN_RAM, (uintptr_t)tc->B, tc->ldb, b_rows,
	                            b_cols, p->elemsize);
	starpu_matrix_data_register(&tc->hC, STARPU_MAIN_RAM, (uintptr_t)tc->C, tc->ldc, s.m, s.n,
	                            sizeof(float));
	int ret;
	if (index % 9 == 4) /* the header's packing, through the codelet itself */
		ret = starpu_task_insert(starpu_gemm_codelet(p->letter),
			STARPU_VALUE, &tc->ta, sizeof(char), STARPU_VALUE, &tc->tb, sizeof(char),
			STARPU_VALUE, &tc->alpha, sizeof(float), STARPU_VALUE, &tc->beta, sizeof(float),
			STARPU_R, tc->hA, STARPU_R, tc->hB, STARPU_RW, tc->hC,
			STARPU_FLOPS, starpu_gemm_tile_flops(p->letter, s.m, s.n, s.k), 0);
	else
		ret = starpu_gemm_tile_insert(p->letter, tc->ta, tc->tb, &tc->alpha, tc->hA, tc->hB,
		                              &tc->beta, tc->hC);
	if (ret)
		sgt_expect(0, "%cgemm %c%c submit: %d", p->letter, tc->ta, tc->tb, ret);
}

static int tile_case_check(struct tile_case *tc)
{
	const struct sg_precision *p = tc->p;
	struct shape s = tc->s;
	starpu_data_unregister(tc->hA);
	starpu_data_unregister(tc->hB);
	starpu_data_unregister(tc->hC);
	/* Cref, then beta C0. */
	double *ref = malloc(2 * (size_t)s.m * s.n * sizeof(double) + 1);
	reference(p, tc->ta, tc->tb, s.m, s.n, s.k, tc->alpha, tc->A, tc->lda, tc->B, tc->ldb,
	          tc->beta, tc->C0, tc->ldc, ref, ref + (size_t)s.m * s.n);
	/* The norms over the stored blocks, padding excluded: compact copies. */
	int a_rows = tc->ta == 'N' ? s.m : s.k, a_cols = tc->ta == 'N' ? s.k : s.m;
	int b_rows = tc->tb == 'N' ? s.k : s.n, b_cols = tc->tb == 'N' ? s.n : s.k;
	char *a = malloc((size_t)a_rows * a_cols * p->elemsize + 1);
	char *b = malloc((size_t)b_rows * b_cols * p->elemsize + 1);
	for (int c = 0; c < a_cols; c++)
		memcpy(a + (size_t)c * a_rows * p->elemsize,
		       (char *)tc->A + (size_t)c * tc->lda * p->elemsize, (size_t)a_rows * p->elemsize);
	for (int c = 0; c < b_cols; c++)
		memcpy(b + (size_t)c * b_rows * p->elemsize,
		       (char *)tc->B + (size_t)c * tc->ldb * p->elemsize, (size_t)b_rows * p->elemsize);
	double r = residual(p, s.m, s.n, s.k, a, (int64_t)a_rows * a_cols, b,
	                    (int64_t)b_rows * b_cols, tc->C, tc->ldc, ref, ref + (size_t)s.m * s.n);
	int padding = 1;
	for (int c = 0; c < s.n; c++)
		padding &= !memcmp(tc->C + (size_t)c * tc->ldc + s.m, tc->C0 + (size_t)c * tc->ldc + s.m,
		                   (size_t)s.pad * sizeof(float));
	int ok = r <= STARPU_GEMM_CHECK_BOUND && padding;
	if (!ok)
		sgt_expect(0, "%cgemm %c%c m=%d n=%d k=%d pad=%d alpha %g beta %g: residual %.3g, "
		           "padding %s; C(0,0) %a, reference %a (A(0,0) %a, B(0,0) %a, C0(0,0) %a)",
		           p->letter, tc->ta, tc->tb, s.m, s.n, s.k, s.pad, tc->alpha, tc->beta, r,
		           padding ? "intact" : "CHANGED", (double)tc->C[0], ref[0],
		           creal(sg_load(p, tc->A, 0)), creal(sg_load(p, tc->B, 0)), (double)tc->C0[0]);
	free(ref);
	free(a);
	free(b);
	free(tc->A);
	free(tc->B);
	free(tc->C);
	free(tc->C0);
	return ok;
}

static void test_codelets(void)
{
	static const char trans[] = "NTC";
	for (const char *k = kernels; *k; k++) {
		const struct sg_precision *p = sg_precision(*k);
		int ncases = 9 * NSHAPES, passed = 0;
		struct tile_case *cases = calloc((size_t)ncases, sizeof(*cases));
		for (int i = 0; i < ncases; i++) {
			cases[i] = (struct tile_case){ .p = p, .ta = trans[i % 3], .tb = trans[i / 3 % 3],
			                               .s = shapes[i / 9] };
			tile_case_submit(&cases[i], i);
		}
		starpu_task_wait_for_all();
		for (int i = 0; i < ncases; i++)
			passed += tile_case_check(&cases[i]);
		sgt_expect(passed == ncases, "%cgemm codelet (%s): %d/%d cases (%d shapes x 9 trans "
		           "pairs, padded ld, beta 0 too) within the bound of a double reference",
		           p->letter, p->name, passed, ncases, NSHAPES);
		free(cases);
	}
	/* Tiles of the wrong element size are refused before anything is submitted. */
	float f[4] = { 0 };
	uint16_t h[4] = { 0 };
	starpu_data_handle_t F, H;
	starpu_matrix_data_register(&F, STARPU_MAIN_RAM, (uintptr_t)f, 2, 2, 2, sizeof(float));
	starpu_matrix_data_register(&H, STARPU_MAIN_RAM, (uintptr_t)h, 2, 2, 2, sizeof(uint16_t));
	float one = 1;
	sgt_expect(starpu_gemm_tile_insert('b', 'N', 'N', &one, F, F, &one, F) == -EINVAL &&
	           starpu_gemm_tile_insert('h', 'N', 'N', &one, H, H, &one, H) == -EINVAL &&
	           starpu_gemm_tile_insert('t', 'N', 'N', &one, H, H, &one, F) == -EINVAL,
	           "tile_insert refuses float A/B for b, uint16 C for h, uint16 A/B for t");
	starpu_data_unregister(F);
	starpu_data_unregister(H);
}

/* ---- pgemm ------------------------------------------------------------------------------- */

struct mode {
	char prec;  /* A's and B's */
	int math;
};
static const struct mode modes[] = {
	{ 'b', STARPU_GEMM_MATH_DEFAULT }, { 'h', STARPU_GEMM_MATH_DEFAULT },
	{ 's', STARPU_GEMM_MATH_TF32 },
};

static void pgemm_case(const struct mode *md, char ta, char tb, int P, int Q, int index)
{
	const struct sg_precision *p = sg_precision(sg_kernel(md->prec, md->math));
	int M = sgt_rand_int(1, 90), N = sgt_rand_int(1, 90), K = sgt_rand_int(1, 120);
	int tile = sgt_rand_int(8, 40);
	uint64_t seed = sgt_seed() + 100 * (uint64_t)index;
	struct starpu_gemm_dist dist = { STARPU_GEMM_DIST_2D_BLOCK_CYCLIC, P, Q, NULL, NULL };
	int am = ta == 'N' ? M : K, an = ta == 'N' ? K : M, bm = tb == 'N' ? K : N,
	    bn = tb == 'N' ? N : K;
	struct starpu_gemm_desc *A, *B, *C;
	if (starpu_gemm_desc_create(&A, md->prec, am, an, tile, &dist, MPI_COMM_WORLD) ||
	    starpu_gemm_desc_create(&B, md->prec, bm, bn, tile, &dist, MPI_COMM_WORLD) ||
	    starpu_gemm_desc_create(&C, 's', M, N, tile, &dist, MPI_COMM_WORLD)) {
		sgt_expect(0, "descriptors of %c", md->prec);
		return;
	}
	starpu_gemm_desc_fill_random(A, seed + 1);
	starpu_gemm_desc_fill_random(B, seed + 2);
	starpu_gemm_desc_fill_random(C, seed + 3);
	float alpha = index % 2 ? 1.0f : -0.75f, beta = index % 3 == 0 ? 0.0f : 1.25f;
	struct starpu_gemm_opts opts;
	starpu_gemm_opts_init(&opts);
	opts.math = md->math;
	if (index % 4 == 1) { /* a forced plan: many chunks */
		opts.b = opts.c = opts.d = 1;
		opts.lookahead = 1;
	}
	int ret = starpu_gemm_pgemm(ta, tb, &alpha, A, B, &beta, C, &opts, NULL);
	double full = INFINITY, sampled = INFINITY, wrong = 0, own = INFINITY;
	if (!ret)
		ret = starpu_gemm_check_math(md->math, ta, tb, &alpha, A, seed + 1, B, seed + 2, &beta,
		                             C, seed + 3, 0, &full, NULL, NULL);
	if (!ret)
		ret = starpu_gemm_check_math(md->math, ta, tb, &alpha, A, seed + 1, B, seed + 2, &beta,
		                             C, seed + 3, 50, &sampled, NULL, NULL);
	/* 1% off is far above float's rounding; TF32's bound (2 2^-10 of ||A|| ||B||, against
	 * ||alpha A B||) is looser by nature: alpha twice too large must fail it. */
	float off = p->input_eps > 0 ? 2.0f : 1.01f, other = alpha * off;
	if (!ret)
		ret = starpu_gemm_check_math(md->math, ta, tb, &other, A, seed + 1, B, seed + 2, &beta,
		                             C, seed + 3, 0, &wrong, NULL, NULL);
	/* The test's own reference, on rank 0. */
	float *Cg = sgt_rank == 0 ? malloc((size_t)M * N * sizeof(float)) : NULL;
	starpu_gemm_desc_gather(C, Cg, 0);
	if (sgt_rank == 0) {
		void *Ar = sgt_regenerate(md->prec, seed + 1, am, an);
		void *Br = sgt_regenerate(md->prec, seed + 2, bm, bn);
		float *C0 = sgt_regenerate('s', seed + 3, M, N);
		double *ref = malloc(2 * (size_t)M * N * sizeof(double));
		reference(p, ta, tb, M, N, K, alpha, Ar, am, Br, bm, beta, C0, M, ref,
		          ref + (size_t)M * N);
		own = residual(p, M, N, K, Ar, (int64_t)am * an, Br, (int64_t)bm * bn, Cg, M, ref,
		               ref + (size_t)M * N);
		free(Ar);
		free(Br);
		free(C0);
		free(ref);
		free(Cg);
	} else {
		own = 0;
	}
	sgt_expect(ret == 0 && full <= STARPU_GEMM_CHECK_BOUND && sampled <= STARPU_GEMM_CHECK_BOUND
	           && own <= STARPU_GEMM_CHECK_BOUND && wrong > STARPU_GEMM_CHECK_BOUND,
	           "pgemm %c%s %c%c M=%d N=%d K=%d t=%d grid %dx%d alpha %g beta %g%s: check %.3g, "
	           "sampled %.3g, own reference %.3g; alpha x %g fails it: %.3g", md->prec,
	           md->math ? " tf32" : "", ta, tb, M, N, K, tile, P, Q, alpha, beta,
	           index % 4 == 1 ? " b=c=d=1" : "", full, sampled, own, off, wrong);
	starpu_gemm_desc_destroy(A);
	starpu_gemm_desc_destroy(B);
	starpu_gemm_desc_destroy(C);
}

/* Precisions that do not go together are refused, on every rank alike. */
static void pgemm_refusals(int P, int Q)
{
	struct starpu_gemm_dist dist = { STARPU_GEMM_DIST_2D_BLOCK_CYCLIC, P, Q, NULL, NULL };
	struct starpu_gemm_desc *Ab, *Bh, *Cs, *Cb, *Ad, *Cd;
	float one = 1;
	double done = 1;
	starpu_gemm_desc_create(&Ab, 'b', 20, 20, 8, &dist, MPI_COMM_WORLD);
	starpu_gemm_desc_create(&Bh, 'h', 20, 20, 8, &dist, MPI_COMM_WORLD);
	starpu_gemm_desc_create(&Cs, 's', 20, 20, 8, &dist, MPI_COMM_WORLD);
	starpu_gemm_desc_create(&Cb, 'b', 20, 20, 8, &dist, MPI_COMM_WORLD);
	starpu_gemm_desc_create(&Ad, 'd', 20, 20, 8, &dist, MPI_COMM_WORLD);
	starpu_gemm_desc_create(&Cd, 'd', 20, 20, 8, &dist, MPI_COMM_WORLD);
	struct starpu_gemm_desc *bad = NULL;
	struct starpu_gemm_opts tf32;
	starpu_gemm_opts_init(&tf32);
	tf32.math = STARPU_GEMM_MATH_TF32;
	sgt_expect(starpu_gemm_pgemm('N', 'N', &one, Ab, Bh, &one, Cs, NULL, NULL) == -EINVAL &&
	           starpu_gemm_pgemm('N', 'N', &one, Ab, Ab, &one, Cb, NULL, NULL) == -EINVAL &&
	           starpu_gemm_pgemm('N', 'N', &done, Ad, Ad, &done, Cd, &tf32, NULL) == -EINVAL &&
	           starpu_gemm_pgemm('N', 'N', &one, Ab, Ab, &one, Cs, &tf32, NULL) == -EINVAL &&
	           starpu_gemm_desc_create(&bad, 't', 20, 20, 8, &dist, MPI_COMM_WORLD) == -EINVAL,
	           "refused: A b with B h, C b, TF32 for d and for b, a matrix of 't'");
	starpu_gemm_desc_destroy(Ab);
	starpu_gemm_desc_destroy(Bh);
	starpu_gemm_desc_destroy(Cs);
	starpu_gemm_desc_destroy(Cb);
	starpu_gemm_desc_destroy(Ad);
	starpu_gemm_desc_destroy(Cd);
}

static void test_pgemm(int P, int Q)
{
	static const char trans[] = "NTC";
	int index = 0;
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++)
		for (int t = 0; t < 9; t++)
			pgemm_case(&modes[m], trans[t % 3], trans[t / 3], P, Q, index++);
	pgemm_refusals(P, Q);
}

/* ---- the one call on host arrays ------------------------------------------------------------ */

static void test_door(void)
{
	static const char trans[] = "NTC";
	int index = 0;
	for (size_t md = 0; md < sizeof(modes) / sizeof(modes[0]); md++) {
		const struct sg_precision *p = sg_precision(sg_kernel(modes[md].prec, modes[md].math));
		int passed = 0;
		for (int t = 0; t < 9; t++, index++) {
			char ta = trans[t % 3], tb = trans[t / 3];
			int m = sgt_rand_int(1, 70), n = sgt_rand_int(1, 70), k = sgt_rand_int(1, 70);
			int pad = t % 2 ? 3 : 0;
			uint64_t seed = sgt_seed() + 10 * (uint64_t)index;
			int a_rows = ta == 'N' ? m : k, a_cols = ta == 'N' ? k : m;
			int b_rows = tb == 'N' ? k : n, b_cols = tb == 'N' ? n : k;
			void *A = random_matrix(p, seed, a_rows, a_cols, pad);
			void *B = random_matrix(p, seed + 1, b_rows, b_cols, pad);
			float *C = random_matrix(sg_precision('s'), seed + 2, m, n, pad);
			float *C0 = malloc((size_t)(m + pad) * n * sizeof(float));
			memcpy(C0, C, (size_t)(m + pad) * n * sizeof(float));
			float alpha = 0.5f + (float)t, beta = t % 3 == 2 ? 0.0f : -1.0f;
			if (beta == 0) /* beta = 0: C is not read, NaN and all */
				for (int e = 0; e < m; e++)
					C[e] = NAN;
			struct starpu_gemm_opts opts;
			starpu_gemm_opts_init(&opts);
			opts.math = modes[md].math;
			int ret = starpu_gemm_gemm_ex(modes[md].prec, ta, tb, m, n, k, &alpha, A,
			                              a_rows + pad, B, b_rows + pad, &beta, C, m + pad,
			                              &opts, NULL);
			double *ref = malloc(2 * (size_t)m * n * sizeof(double));
			reference(p, ta, tb, m, n, k, alpha, A, a_rows + pad, B, b_rows + pad, beta, C0,
			          m + pad, ref, ref + (size_t)m * n);
			/* Norms over the padded arrays would read NaN: the padding rows are left out by
			 * compacting first. */
			char *a = malloc((size_t)a_rows * a_cols * p->elemsize + 1);
			char *b = malloc((size_t)b_rows * b_cols * p->elemsize + 1);
			for (int c = 0; c < a_cols; c++)
				memcpy(a + (size_t)c * a_rows * p->elemsize,
				       (char *)A + (size_t)c * (a_rows + pad) * p->elemsize,
				       (size_t)a_rows * p->elemsize);
			for (int c = 0; c < b_cols; c++)
				memcpy(b + (size_t)c * b_rows * p->elemsize,
				       (char *)B + (size_t)c * (b_rows + pad) * p->elemsize,
				       (size_t)b_rows * p->elemsize);
			double r = residual(p, m, n, k, a, (int64_t)a_rows * a_cols, b,
			                    (int64_t)b_rows * b_cols, C, m + pad, ref, ref + (size_t)m * n);
			int ok = ret == 0 && r <= STARPU_GEMM_CHECK_BOUND;
			if (!ok)
				sgt_expect(0, "starpu_gemm_gemm %c%s %c%c m=%d n=%d k=%d: %d, residual %.3g",
				           modes[md].prec, modes[md].math ? " tf32" : "", ta, tb, m, n, k, ret,
				           r);
			passed += ok;
			free(A);
			free(B);
			free(C);
			free(C0);
			free(ref);
			free(a);
			free(b);
		}
		sgt_expect(passed == 9, "starpu_gemm_gemm%s('%c'): %d/9 transpose pairs on %s within "
		           "the bound", modes[md].math ? "_ex in TF32" : "", modes[md].prec, passed,
		           p->name);
	}
	float one = 1, x[4] = { 1, 1, 1, 1 };
	sgt_expect(starpu_gemm_gemm('t', 'N', 'N', 2, 2, 2, &one, x, 2, x, 2, &one, x, 2) == -EINVAL,
	           "starpu_gemm_gemm('t') is refused with a message (TF32 is opts->math)");
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "conversions")) {
		sgt_init_local();
		test_conversions();
		return sgt_finish_local();
	}
	if (argc == 2 && !strcmp(argv[1], "door")) {
		sgt_init_local();
		test_door();
		return sgt_finish_local();
	}
	sgt_init(&argc, &argv);
	if (argc == 2 && !strcmp(argv[1], "codelets"))
		test_codelets();
	else if (argc == 4 && !strcmp(argv[1], "pgemm"))
		test_pgemm(atoi(argv[2]), atoi(argv[3]));
	else
		return sgt_usage("test_tensor conversions | codelets | pgemm P Q | door");
	return sgt_finish();
}
