/* Tile codelets (codelets/): for every precision, every (transA, transB) in {N,T,C}^2 and
 * ragged shapes (1x1x1, m != n != k, leading dimensions larger than the rows), a task
 * submitted with starpu_gemm_tile_insert (and one per precision through starpu_gemm_codelet
 * with the header's packing) matches sg_cblas_gemm on copies; padding is never read nor
 * written. Bad arguments and mismatched shapes give -EINVAL and submit nothing.
 * Runs on whatever workers exist: with STARPU_NCUDA=1 STARPU_NCPU=0 it checks the cuBLAS
 * implementation.   test_codelets [RANDOM_SHAPES]   (SEED replays a run)
 * test_codelets bad-packing: a task whose alpha is packed with the wrong size must abort the
 * job with a message, not run (the script expects the failure). */
#include <complex.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "test_common.h"
#include "check/check.h"
#include "common/blas.h"
#include "common/precision.h"

struct shape {
	int m, n, k, pad; /* pad: extra leading-dimension rows of every tile */
};

static const struct shape fixed_shapes[] = {
	{ 1, 1, 1, 0 }, { 37, 5, 61, 3 }, { 5, 61, 37, 0 }, { 61, 37, 5, 1 },
	{ 16, 16, 16, 7 }, { 2, 3, 1, 2 }, { 1, 9, 4, 5 },
};
#define NFIXED ((int)(sizeof(fixed_shapes) / sizeof(fixed_shapes[0])))
#define MAX_SHAPES (NFIXED + 16)

/* One tile: an ld x cols column-major array, its copy for the reference, its handle. */
struct tile {
	int rows, cols, ld;
	char *data, *ref;
	starpu_data_handle_t handle;
};

struct gemm_case {
	char transA, transB;
	struct shape s;
	struct tile A, B, C;
	char alpha[16], beta[16];
	int direct; /* submitted through starpu_gemm_codelet + starpu_task_insert */
};

/* Random entries, and NaN in the padding rows: a kernel reading them spoils the result. */
static void tile_init(struct tile *t, const struct sg_precision *p, uint64_t seed, int rows,
                      int cols, int pad)
{
	size_t es = p->elemsize, bytes = (size_t)(rows + pad) * cols * es;
	t->rows = rows;
	t->cols = cols;
	t->ld = rows + pad;
	t->data = malloc(bytes);
	t->ref = malloc(bytes);
	for (int c = 0; c < cols; c++) {
		for (int r = 0; r < rows; r++)
			starpu_gemm_random_element(p->letter, seed, r, c,
			                           t->data + ((size_t)c * t->ld + r) * es);
		for (int r = rows; r < t->ld; r++)
			sgt_store(p->letter, NAN + NAN * I, t->data, (int64_t)c * t->ld + r);
	}
	memcpy(t->ref, t->data, bytes);
	starpu_matrix_data_register(&t->handle, STARPU_MAIN_RAM, (uintptr_t)t->data, t->ld, rows,
	                            cols, es);
}

static void tile_free(struct tile *t)
{
	free(t->data);
	free(t->ref);
}

static void case_init(struct gemm_case *gc, const struct sg_precision *p, char ta, char tb,
                      struct shape s, int index)
{
	uint64_t seed = sgt_seed() + 3 * (uint64_t)index;
	gc->transA = ta;
	gc->transB = tb;
	gc->s = s;
	tile_init(&gc->A, p, seed, ta == 'N' ? s.m : s.k, ta == 'N' ? s.k : s.m, s.pad);
	tile_init(&gc->B, p, seed + 1, tb == 'N' ? s.k : s.n, tb == 'N' ? s.n : s.k, s.pad);
	tile_init(&gc->C, p, seed + 2, s.m, s.n, s.pad);
	/* Vary alpha and beta; complex ones have both parts. */
	sgt_store(p->letter, 1.5 - 0.25 * (index % 3) + (p->is_complex ? -0.75 * I : 0), gc->alpha,
	          0);
	sgt_store(p->letter, -0.5 + 0.125 * (index % 5) + (p->is_complex ? 0.625 * I : 0), gc->beta,
	          0);
}

static int case_submit(struct gemm_case *gc, const struct sg_precision *p)
{
	if (!gc->direct)
		return starpu_gemm_tile_insert(p->letter, gc->transA, gc->transB, gc->alpha,
		                               gc->A.handle, gc->B.handle, gc->beta, gc->C.handle);
	/* The header's packing, with lower-case letters as a user might write them. */
	char ta = (char)(gc->transA - 'A' + 'a'), tb = (char)(gc->transB - 'A' + 'a');
	return starpu_task_insert(starpu_gemm_codelet(p->letter),
		STARPU_VALUE, &ta, sizeof(char), STARPU_VALUE, &tb, sizeof(char),
		STARPU_VALUE, gc->alpha, p->elemsize, STARPU_VALUE, gc->beta, p->elemsize,
		STARPU_R, gc->A.handle, STARPU_R, gc->B.handle, STARPU_RW, gc->C.handle,
		STARPU_FLOPS, starpu_gemm_tile_flops(p->letter, gc->s.m, gc->s.n, gc->s.k), 0);
}

/* Unregistering brings C back to main memory (from a GPU too); then compare the m x n part
 * with the reference, and the padding bit for bit. */
static int case_check(struct gemm_case *gc, const struct sg_precision *p, double tol)
{
	starpu_data_unregister(gc->A.handle);
	starpu_data_unregister(gc->B.handle);
	starpu_data_unregister(gc->C.handle);
	struct tile *C = &gc->C;
	int ret = sg_cblas_gemm(p->letter, gc->transA, gc->transB, gc->s.m, gc->s.n, gc->s.k,
	                        gc->alpha, gc->A.ref, gc->A.ld, gc->B.ref, gc->B.ld, gc->beta,
	                        C->ref, C->ld);
	size_t es = p->elemsize, col_bytes = (size_t)C->rows * es;
	char *got = malloc(col_bytes * C->cols), *want = malloc(col_bytes * C->cols);
	int padding_ok = 1;
	for (int c = 0; c < C->cols; c++) {
		size_t at = (size_t)c * C->ld * es;
		memcpy(got + c * col_bytes, C->data + at, col_bytes);
		memcpy(want + c * col_bytes, C->ref + at, col_bytes);
		padding_ok &= !memcmp(C->data + at + col_bytes, C->ref + at + col_bytes,
		                      (size_t)(C->ld - C->rows) * es);
	}
	double err = sgt_rel_error(p->letter, (int64_t)C->rows * C->cols, got, want);
	int ok = ret == 0 && err <= tol && padding_ok;
	if (!ok)
		sgt_expect(0, "%cgemm %c%c m=%d n=%d k=%d pad=%d%s: error %.3g (tol %.0e), "
		           "padding %s, reference %d", p->letter, gc->transA, gc->transB, gc->s.m,
		           gc->s.n, gc->s.k, gc->s.pad, gc->direct ? " (direct codelet)" : "", err,
		           tol, padding_ok ? "intact" : "CHANGED", ret);
	free(got);
	free(want);
	tile_free(&gc->A);
	tile_free(&gc->B);
	tile_free(&gc->C);
	return ok;
}

/* Every trans pair x every shape, all submitted before any is waited for, so several run at
 * once on several workers. */
static void test_precision(const struct sg_precision *p, const struct shape *shapes,
                           int nshapes)
{
	static const char trans[] = "NTC";
	int ncases = 9 * nshapes, passed = 0, submitted = 0;
	struct gemm_case *cases = calloc((size_t)ncases, sizeof(*cases));
	for (int i = 0; i < ncases; i++) {
		struct gemm_case *gc = &cases[i];
		case_init(gc, p, trans[i % 3], trans[i / 3 % 3], shapes[i / 9], i);
		gc->direct = i % 9 == 4 + (i / 9) % 5; /* a few pairs, across the shapes */
		int ret = case_submit(gc, p);
		if (ret != 0)
			sgt_expect(0, "%cgemm submit %c%c m=%d n=%d k=%d: %d", p->letter,
			           gc->transA, gc->transB, gc->s.m, gc->s.n, gc->s.k, ret);
		submitted += ret == 0;
	}
	int ret = starpu_task_wait_for_all();
	if (ret != 0)
		sgt_expect(0, "starpu_task_wait_for_all: %d", ret);
	for (int i = 0; i < ncases; i++)
		passed += case_check(&cases[i], p, p->eps > 1e-10 ? 1e-4 : 1e-12);
	sgt_expect(passed == ncases && submitted == ncases,
	           "%cgemm: %d/%d cases (%d shapes x 9 trans pairs, ragged, padded ld) match "
	           "sg_cblas_gemm", p->letter, passed, ncases, nshapes);
	free(cases);
}

/* op(X)(i, j) of a stored column-major X, by definition. */
static double complex op_entry(const struct sg_precision *p, char trans, const struct tile *X,
                               int i, int j)
{
	if (trans == 'N')
		return sg_load(p, X->ref, (size_t)j * X->ld + i);
	double complex x = sg_load(p, X->ref, (size_t)i * X->ld + j);
	return trans == 'C' ? conj(x) : x;
}

/* sg_cblas_gemm on the case's copies against a triple loop; C's data holds C0. */
static int reference_ok(const struct sg_precision *p, struct gemm_case *gc)
{
	const struct shape s = gc->s;
	double complex alpha = sg_load(p, gc->alpha, 0), beta = sg_load(p, gc->beta, 0);
	double tol = p->eps > 1e-10 ? 1e-5 : 1e-13;
	int ok = sg_cblas_gemm(p->letter, gc->transA, gc->transB, s.m, s.n, s.k, gc->alpha,
	                       gc->A.ref, gc->A.ld, gc->B.ref, gc->B.ld, gc->beta, gc->C.ref,
	                       gc->C.ld) == 0;
	for (int j = 0; j < s.n; j++)
		for (int i = 0; i < s.m; i++) {
			double complex sum = 0;
			for (int l = 0; l < s.k; l++)
				sum += op_entry(p, gc->transA, &gc->A, i, l) *
				       op_entry(p, gc->transB, &gc->B, l, j);
			size_t at = (size_t)j * gc->C.ld + i;
			double complex want = alpha * sum + beta * sg_load(p, gc->C.data, at);
			ok &= cabs(sg_load(p, gc->C.ref, at) - want) <= tol * (1 + cabs(want));
		}
	return ok;
}

static void case_free(struct gemm_case *gc)
{
	struct tile *tiles[] = { &gc->A, &gc->B, &gc->C };
	for (int t = 0; t < 3; t++) {
		starpu_data_unregister(tiles[t]->handle);
		tile_free(tiles[t]);
	}
}

/* The reference itself, sg_cblas_gemm, against the definition of op(): the codelet checks
 * would not see it conjugate wrongly, since both of their sides go through it. */
static void test_reference(void)
{
	static const char trans[] = "NTC";
	int ok = 1;
	for (const char *prec = "sdcz"; *prec; prec++) {
		const struct sg_precision *p = sg_precision(*prec);
		for (int pair = 0; pair < 9; pair++) {
			struct gemm_case gc;
			struct shape small = { 3, 4, 5, 1 };
			case_init(&gc, p, trans[pair % 3], trans[pair / 3], small, pair);
			ok &= reference_ok(p, &gc);
			case_free(&gc);
		}
	}
	sgt_expect(ok, "sg_cblas_gemm matches the definition of op() for every precision and "
	           "trans pair (3x4x5)");
}

/* Nothing is submitted and C is untouched when tile_insert rejects its arguments. */
static void test_rejections(void)
{
	const struct sg_precision *d = sg_precision('d'), *s = sg_precision('s');
	struct tile A, B, C, Cs, Ck;
	tile_init(&A, d, 1, 4, 3, 1);  /* 4 x 3 */
	tile_init(&B, d, 2, 3, 5, 0);  /* 3 x 5 */
	tile_init(&C, d, 3, 4, 5, 2);  /* 4 x 5 */
	tile_init(&Cs, s, 4, 4, 5, 0); /* right shape, wrong precision */
	tile_init(&Ck, d, 5, 5, 5, 0); /* wrong rows */
	starpu_data_handle_t a = A.handle, b = B.handle, c = C.handle;
	starpu_data_handle_t ck = Ck.handle, cs = Cs.handle;
	double one = 1.0;
	struct {
		const char *what;
		int ret;
	} cases[] = {
		{ "k mismatch (A 4x3, B^T 5x3)",
		  starpu_gemm_tile_insert('d', 'N', 'T', &one, a, b, &one, c) },
		{ "op(A) = A^T 3x4 for C 4x5",
		  starpu_gemm_tile_insert('d', 'T', 'N', &one, a, b, &one, c) },
		{ "C 5x5 for A*B 4x5",
		  starpu_gemm_tile_insert('d', 'N', 'N', &one, a, b, &one, ck) },
		{ "C of precision s",
		  starpu_gemm_tile_insert('d', 'N', 'N', &one, a, b, &one, cs) },
		{ "unknown precision 'x'",
		  starpu_gemm_tile_insert('x', 'N', 'N', &one, a, b, &one, c) },
		{ "bad transA 'Q'", starpu_gemm_tile_insert('d', 'Q', 'N', &one, a, b, &one, c) },
		{ "NULL alpha", starpu_gemm_tile_insert('d', 'N', 'N', NULL, a, b, &one, c) },
		{ "NULL B", starpu_gemm_tile_insert('d', 'N', 'N', &one, a, NULL, &one, c) },
	};
	int nsubmitted = starpu_task_nsubmitted();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		sgt_expect(cases[i].ret == -EINVAL, "tile_insert %s: %d (want -EINVAL)",
		           cases[i].what, cases[i].ret);
	sgt_expect(nsubmitted == 0, "rejected calls submitted nothing (%d task(s))", nsubmitted);
	struct tile *all[] = { &A, &B, &C, &Cs, &Ck };
	for (int t = 0; t < 5; t++)
		starpu_data_unregister(all[t]->handle);
	size_t bytes = (size_t)C.ld * C.cols * d->elemsize;
	sgt_expect(!memcmp(C.data, C.ref, bytes), "C unchanged after rejected calls");
	for (int t = 0; t < 5; t++)
		tile_free(all[t]);
}

/* The accessors agree with the header. */
static void test_accessors(void)
{
	static const char *names[] = { "starpu_gemm_sgemm", "starpu_gemm_dgemm",
	                               "starpu_gemm_cgemm", "starpu_gemm_zgemm" };
	static const size_t sizes[] = { 4, 8, 8, 16 };
	int ok = 1;
	for (int i = 0; i < 4; i++) {
		char prec = "sdcz"[i];
		struct starpu_codelet *cl = starpu_gemm_codelet(prec);
		ok &= cl && !strcmp(cl->name, names[i]) && cl->nbuffers == 3 &&
		      cl->modes[0] == STARPU_R && cl->modes[1] == STARPU_R &&
		      cl->modes[2] == STARPU_RW && cl->model &&
		      cl->model->type == STARPU_HISTORY_BASED &&
		      !strcmp(cl->model->symbol, names[i]) && cl->model->footprint;
		ok &= starpu_gemm_elemsize(prec) == sizes[i];
		ok &= starpu_gemm_tile_flops(prec, 3, 5, 7) == (i < 2 ? 2.0 : 8.0) * 105;
	}
	ok &= !starpu_gemm_codelet('x') && !starpu_gemm_elemsize('x') &&
	      starpu_gemm_tile_flops('x', 1, 1, 1) == 0;
	sgt_expect(ok, "codelet names, modes, perfmodel symbols, elemsize and flops per precision");
}

/* A 'd' task whose alpha and beta are packed as floats: the codelet must refuse it. */
static void submit_bad_packing(void)
{
	const struct sg_precision *d = sg_precision('d');
	struct gemm_case gc;
	case_init(&gc, d, 'N', 'N', (struct shape){ 2, 2, 2, 0 }, 0);
	char trans = 'N';
	float alpha = 1, beta = 1;
	int ret = starpu_task_insert(starpu_gemm_codelet('d'),
		STARPU_VALUE, &trans, sizeof(char), STARPU_VALUE, &trans, sizeof(char),
		STARPU_VALUE, &alpha, sizeof(float), STARPU_VALUE, &beta, sizeof(float),
		STARPU_R, gc.A.handle, STARPU_R, gc.B.handle, STARPU_RW, gc.C.handle, 0);
	starpu_task_wait_for_all();
	sgt_expect(0, "a task with alpha packed as float ran (insert returned %d)", ret);
	case_free(&gc);
}

int main(int argc, char **argv)
{
	sgt_init(&argc, &argv);
	if (argc > 1 && !strcmp(argv[1], "bad-packing")) {
		submit_bad_packing();
		return sgt_finish();
	}
	int nrandom = argc > 1 ? atoi(argv[1]) : 2;
	if (nrandom < 0 || nrandom > MAX_SHAPES - NFIXED)
		nrandom = MAX_SHAPES - NFIXED;
	struct shape shapes[MAX_SHAPES];
	memcpy(shapes, fixed_shapes, sizeof(fixed_shapes));
	for (int i = 0; i < nrandom; i++)
		shapes[NFIXED + i] = (struct shape){ sgt_rand_int(1, 70), sgt_rand_int(1, 70),
		                                     sgt_rand_int(1, 70), sgt_rand_int(0, 5) };
	test_accessors();
	test_reference();
	test_rejections();
	for (const char *prec = "sdcz"; *prec; prec++)
		test_precision(sg_precision(*prec), shapes, NFIXED + nrandom);
	return sgt_finish();
}
