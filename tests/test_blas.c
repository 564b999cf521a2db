/* The BLAS interposer linked before the BLAS, as an application links it: routing by
 * STARPU_GEMM_BLAS_THRESHOLD, argument errors numbered as the reference BLAS and CBLAS number
 * them, BLAS quick returns, and 4 threads calling dgemm_ and cblas_dgemm at once. Results are
 * compared with a plain triple loop, independent of any BLAS.
 *   test_blas route   with STARPU_GEMM_BLAS_THRESHOLD=1000: prints the counts of calls it
 *                     expects through StarPU and to the next BLAS, for tests/blas_route.sh to
 *                     compare with the interposer's own (STARPU_GEMM_VERBOSE=1)
 *   test_blas unset   without the variable: no call of this size may start StarPU
 *   test_blas fork    a child forked after the parent's products ran through StarPU: its
 *                     dgemm_, cblas_dgemm and starpu_gemm_gemm are correct (on the CPU BLAS),
 *                     and the parent's next product too
 *   test_blas tile    with STARPU_GEMM_TILE=1: starpu_gemm_gemm of n = 8192 is refused up
 *                     front (its tile handles would outgrow host memory), nothing
 *                     allocated; a small product with the same tile is then correct
 *   test_blas exit    exit(3) from the main thread while another is inside starpu_gemm_gemm:
 *                     the process must end with status 3 (tests/blas_route.sh checks)
 * Bound: ||C - Cref||_F <= 10 (k+2) eps (|alpha| ||A||_F ||B||_F + |beta| ||C0||_F). */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <starpu_gemm.h>
#include "test_common.h"
#include "common/precision.h"

/* The standard prototypes, declared here rather than taken from one BLAS's cblas.h. */
enum { ROW_MAJOR = 101, COL_MAJOR = 102, NO_TRANS = 111, TRANS = 112 };
void dgemm_(const char *, const char *, const int *, const int *, const int *, const double *,
            const double *, const int *, const double *, const int *, const double *, double *,
            const int *, size_t, size_t);
void zgemm_(const char *, const char *, const int *, const int *, const int *, const void *,
            const void *, const int *, const void *, const int *, const void *, void *,
            const int *, size_t, size_t);
void cblas_dgemm(int, int, int, int, int, int, double, const double *, int, const double *, int,
                 double, double *, int);

/* Our own error handlers, found by the interposer before the BLAS's (-export-dynamic): they
 * record what they were told instead of printing. */
static char reported_name[16];
static int reported_info, reports;

void xerbla_(const char *name, const int *info, size_t len)
{
	snprintf(reported_name, sizeof(reported_name), "%.*s", (int)len, name);
	reported_info = *info;
	reports++;
}

void cblas_xerbla(int info, const char *rout, const char *form, ...)
{
	snprintf(reported_name, sizeof(reported_name), "%s", rout);
	reported_info = info;
	reports++;
}

/* Calls the interposer should send each way; compared with its own count at exit. */
static atomic_int expect_starpu, expect_next;

static const int threshold = 1000;  /* what tests/blas_route.sh sets */

static void count(int m, int n, int k)
{
	if ((int64_t)m * n * k >= threshold)
		atomic_fetch_add(&expect_starpu, 1);
	else
		atomic_fetch_add(&expect_next, 1);
}

static void *random_matrix(const struct sg_precision *p, int64_t n, unsigned *seed)
{
	char *x = malloc((size_t)(n > 0 ? n : 1) * p->elemsize);
	for (int64_t e = 0; e < n; e++)
		sg_store(p, x, e, rand_r(seed) / (double)RAND_MAX - 0.5 +
		                  I * (rand_r(seed) / (double)RAND_MAX - 0.5));
	return x;
}

static double norm(const struct sg_precision *p, int64_t n, const void *x)
{
	double sum = 0;
	for (int64_t e = 0; e < n; e++)
		sum += creal(sg_load(p, x, e) * conj(sg_load(p, x, e)));
	return sqrt(sum);
}

/* Column-major C (ldc = m) = alpha op(A) op(B) + beta C by the definition; beta = 0 does not
 * read C. trans 'N' or 'T'. */
static void reference(const struct sg_precision *p, char ta, char tb, int m, int n, int k,
                      double complex alpha, const void *A, int lda, const void *B, int ldb,
                      double complex beta, void *C)
{
	for (int j = 0; j < n; j++)
		for (int i = 0; i < m; i++) {
			double complex sum = 0;
			for (int l = 0; l < k; l++)
				sum += sg_load(p, A, ta == 'N' ? i + (int64_t)l * lda : l + (int64_t)i * lda) *
				       sg_load(p, B, tb == 'N' ? l + (int64_t)j * ldb : j + (int64_t)l * ldb);
			double complex c = beta == 0 ? 0 : beta * sg_load(p, C, i + (int64_t)j * m);
			sg_store(p, C, i + (int64_t)j * m, alpha * sum + c);
		}
}

/* One random product m x n x k through dgemm_ or cblas_dgemm (row-major, so the interposer's
 * swap is exercised), compared with the reference. Returns 1 when within the bound. Safe to
 * run from several threads: all state is local. */
static int one_dgemm(int m, int n, int k, char ta, char tb, int through_cblas, int beta_zero,
                     unsigned seed)
{
	const struct sg_precision *p = sg_precision('d');
	int lda = ta == 'N' ? m : k, ldb = tb == 'N' ? k : n;
	double *A = random_matrix(p, (int64_t)lda * (ta == 'N' ? k : m), &seed);
	double *B = random_matrix(p, (int64_t)ldb * (tb == 'N' ? n : k), &seed);
	double *C = random_matrix(p, (int64_t)m * n, &seed), *Cref = malloc(sizeof(double) * m * n);
	double alpha = 0.75, beta = beta_zero ? 0 : -0.5;
	if (beta_zero)
		for (int64_t e = 0; e < (int64_t)m * n; e++)
			C[e] = NAN;
	double c0 = beta_zero ? 0 : norm(p, (int64_t)m * n, C);
	memcpy(Cref, C, sizeof(double) * m * n);
	reference(p, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, Cref);
	count(m, n, k);
	if (through_cblas == 2) {
		starpu_gemm_gemm('d', ta, tb, m, n, k, &alpha, A, lda, B, ldb, &beta, C, m);
	} else if (through_cblas) {
		/* Row-major C^T = op(B)^T op(A)^T: the same column-major arrays, roles swapped. */
		cblas_dgemm(ROW_MAJOR, tb == 'N' ? NO_TRANS : TRANS, ta == 'N' ? NO_TRANS : TRANS, n,
		            m, k, alpha, B, ldb, A, lda, beta, C, m);
	} else {
		dgemm_(&ta, &tb, &m, &n, &k, &alpha, A, &lda, B, &ldb, &beta, C, &m, 1, 1);
	}
	double bound = 10.0 * (k + 2) * p->eps *
	               (fabs(alpha) * norm(p, (int64_t)lda * (ta == 'N' ? k : m), A) *
	                norm(p, (int64_t)ldb * (tb == 'N' ? n : k), B) + fabs(beta) * c0);
	double err = sgt_norm('d', (int64_t)m * n, C, Cref);
	free(A); free(B); free(C); free(Cref);
	return err <= bound;
}

/* 1: position of the bad argument as xerbla_ and cblas_xerbla receive it. */
static void expect_report(const char *name, int info, const char *what)
{
	sgt_expect(reports == 1 && reported_info == info && strcmp(reported_name, name) == 0,
	           "%s: %s reported as parameter %d (got %d report(s), \"%s\" %d)", what, name, info,
	           reports, reported_name, reported_info);
	reports = 0;
	reported_info = 0;
	reported_name[0] = 0;
}

static void test_fortran_errors(void)
{
	double A[4] = { 0 }, B[4] = { 0 }, C[4] = { 7, 7, 7, 7 }, one = 1;
	struct { char ta, tb; int m, n, k, lda, ldb, ldc, info; const char *what; } cases[] = {
		{ '/', 'N', 0, 0, 0, 1, 1, 1, 1, "transa '/'" },
		{ 'N', '/', 0, 0, 0, 1, 1, 1, 2, "transb '/'" },
		{ 'N', 'N', -1, 0, 0, 1, 1, 1, 3, "m = -1" },
		{ 'N', 'N', 0, -1, 0, 1, 1, 1, 4, "n = -1" },
		{ 'N', 'N', 0, 0, -1, 1, 1, 1, 5, "k = -1" },
		{ 'N', 'N', 2, 0, 0, 1, 1, 2, 8, "lda = 1 < m = 2" },
		{ 'T', 'N', 0, 0, 2, 1, 2, 1, 8, "lda = 1 < k = 2 (A transposed)" },
		{ 'N', 'N', 0, 0, 2, 1, 1, 1, 10, "ldb = 1 < k = 2" },
		{ 'N', 'T', 0, 2, 0, 1, 1, 1, 10, "ldb = 1 < n = 2 (B transposed)" },
		{ 'N', 'N', 2, 0, 0, 2, 1, 1, 13, "ldc = 1 < m = 2" },
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		dgemm_(&cases[c].ta, &cases[c].tb, &cases[c].m, &cases[c].n, &cases[c].k, &one, A,
		       &cases[c].lda, B, &cases[c].ldb, &one, C, &cases[c].ldc, 1, 1);
		expect_report("DGEMM ", cases[c].info, cases[c].what);
	}
	double complex Z[4] = { 0 }, zone = 1;
	int m = -1, zero = 0, ld = 1;
	zgemm_("N", "N", &m, &zero, &zero, &zone, Z, &ld, Z, &ld, &zone, Z, &ld, 1, 1);
	expect_report("ZGEMM ", 3, "zgemm_ m = -1");
	sgt_expect(C[0] == 7 && C[3] == 7, "C untouched by the calls with a bad argument");
}

/* Each bad argument in both layouts, the others valid for a 2x3x4 product (leading dimension
 * 4 fits every operand in either layout). Row-major positions are those of the reference
 * CBLAS, whose Fortran call sees (N, M) and (B, A) swapped: its tester expects exactly these. */
static void test_cblas_errors(void)
{
	double A[16] = { 0 }, B[16] = { 0 }, C[16];
	for (int e = 0; e < 16; e++)
		C[e] = 7;
	struct { int ta, tb, m, n, k, lda, ldb, ldc, col_info, row_info; const char *what; } cases[] = {
		{ 0, NO_TRANS, 2, 3, 4, 4, 4, 4, 2, 2, "transA 0" },
		{ NO_TRANS, 0, 2, 3, 4, 4, 4, 4, 3, 3, "transB 0" },
		{ NO_TRANS, NO_TRANS, -1, 3, 4, 4, 4, 4, 4, 5, "M = -1" },
		{ NO_TRANS, NO_TRANS, 2, -1, 4, 4, 4, 4, 5, 4, "N = -1" },
		{ NO_TRANS, NO_TRANS, 2, 3, -1, 4, 4, 4, 6, 6, "K = -1" },
		/* lda = 1: below M = 2 column-major, below K = 4 row-major; likewise ldb, ldc. */
		{ NO_TRANS, NO_TRANS, 2, 3, 4, 1, 4, 4, 9, 11, "lda = 1" },
		{ NO_TRANS, NO_TRANS, 2, 3, 4, 4, 1, 4, 11, 9, "ldb = 1" },
		{ NO_TRANS, NO_TRANS, 2, 3, 4, 4, 4, 1, 14, 14, "ldc = 1" },
	};
	cblas_dgemm(0, NO_TRANS, NO_TRANS, 2, 3, 4, 1, A, 4, B, 4, 1, C, 4);
	expect_report("cblas_dgemm", 1, "layout 0");
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
		for (int row_major = 0; row_major <= 1; row_major++) {
			char what[64];
			snprintf(what, sizeof(what), "%s-major %s", row_major ? "row" : "column",
			         cases[c].what);
			cblas_dgemm(row_major ? ROW_MAJOR : COL_MAJOR, cases[c].ta, cases[c].tb,
			            cases[c].m, cases[c].n, cases[c].k, 1, A, cases[c].lda, B,
			            cases[c].ldb, 1, C, cases[c].ldc);
			expect_report("cblas_dgemm", row_major ? cases[c].row_info : cases[c].col_info,
			              what);
		}
	int untouched = 1;
	for (int e = 0; e < 16; e++)
		untouched &= C[e] == 7;
	sgt_expect(untouched, "C untouched by the CBLAS calls with a bad argument");
}

/* m = 0, or no product term with beta = 1: C, full of NaN here, is not touched (the bits
 * compared, so even a NaN rewritten as another NaN would show). */
static void test_quick_returns(void)
{
	double A[64], B[64], C[64], C0[64], zero = 0, one = 1;
	for (int e = 0; e < 64; e++)
		A[e] = B[e] = 1, C[e] = NAN;
	memcpy(C0, C, sizeof(C));
	int eight = 8, nil = 0;
	dgemm_("N", "N", &nil, &eight, &eight, &one, A, &eight, B, &eight, &zero, C, &eight, 1, 1);
	dgemm_("N", "N", &eight, &eight, &eight, &zero, A, &eight, B, &eight, &one, C, &eight, 1, 1);
	dgemm_("N", "N", &eight, &eight, &nil, &one, A, &eight, B, &eight, &one, C, &eight, 1, 1);
	cblas_dgemm(ROW_MAJOR, NO_TRANS, NO_TRANS, 8, 8, 8, 0, A, 8, B, 8, 1, C, 8);
	sgt_expect(memcmp(C, C0, sizeof(C)) == 0 && reports == 0,
	           "quick returns (m = 0; alpha = 0 or k = 0 with beta = 1) leave C untouched");
}

static void test_route(void)
{
	test_fortran_errors();
	test_cblas_errors();
	test_quick_returns();
	sgt_expect(!starpu_is_initialized(), "no call so far started StarPU");
	sgt_expect(one_dgemm(10, 10, 9, 'N', 'N', 0, 0, 1), "dgemm_ 10x10x9 = 900 < 1000: correct");
	sgt_expect(!starpu_is_initialized(), "m*n*k = 900 < threshold 1000 went to the next BLAS");
	sgt_expect(one_dgemm(10, 10, 10, 'N', 'T', 0, 0, 2), "dgemm_ 10x10x10 (NT): correct");
	sgt_expect(starpu_is_initialized(), "m*n*k = 1000 >= threshold went through StarPU");
	sgt_expect(one_dgemm(17, 13, 11, 'T', 'N', 1, 1, 3),
	           "cblas_dgemm row-major 17x13x11, beta = 0 with C full of NaN: correct");
	sgt_expect(one_dgemm(7, 5, 3, 'N', 'N', 1, 1, 4),
	           "cblas_dgemm row-major 7x5x3 (next BLAS), beta = 0, C NaN: correct");
	/* zgemm_ with complex alpha, through StarPU. */
	const struct sg_precision *z = sg_precision('z');
	unsigned seed = 5;
	int m = 12, n = 9, k = 10;
	void *A = random_matrix(z, m * k, &seed), *B = random_matrix(z, k * n, &seed);
	void *C = random_matrix(z, m * n, &seed), *Cref = malloc(z->elemsize * m * n);
	memcpy(Cref, C, z->elemsize * m * n);
	double complex alpha = 0.5 - 0.25 * I, beta = 0.25 + I;
	reference(z, 'N', 'N', m, n, k, alpha, A, m, B, k, beta, Cref);
	count(m, n, k);
	zgemm_("N", "N", &m, &n, &k, &alpha, A, &m, B, &k, &beta, C, &m, 1, 1);
	double err = sgt_rel_error('z', m * n, C, Cref);
	sgt_expect(err < 1e-13, "zgemm_ 12x9x10, complex alpha and beta: relative error %.1e", err);
	free(A); free(B); free(C); free(Cref);
}

/* 4 threads, each a series of products on both sides of the threshold, through both entry
 * points, all at once: each must be correct, and the counts must add up. */
#define THREADS 4
#define CALLS_PER_THREAD 6
struct job { int m[CALLS_PER_THREAD], n[CALLS_PER_THREAD], k[CALLS_PER_THREAD]; int failures; };

static void *thread_main(void *arg)
{
	struct job *job = arg;
	for (int c = 0; c < CALLS_PER_THREAD; c++)
		job->failures += !one_dgemm(job->m[c], job->n[c], job->k[c], c % 3 ? 'N' : 'T',
		                            c % 2 ? 'N' : 'T', c % 2, c == 4, 100u * c + 7);
	return NULL;
}

static void test_threads(void)
{
	struct job jobs[THREADS] = { 0 };
	pthread_t threads[THREADS];
	for (int t = 0; t < THREADS; t++)
		for (int c = 0; c < CALLS_PER_THREAD; c++) {
			jobs[t].m[c] = sgt_rand_int(1, 24);
			jobs[t].n[c] = sgt_rand_int(1, 24);
			jobs[t].k[c] = sgt_rand_int(1, 24);
		}
	for (int t = 0; t < THREADS; t++)
		pthread_create(&threads[t], NULL, thread_main, &jobs[t]);
	int failures = 0;
	for (int t = 0; t < THREADS; t++) {
		pthread_join(threads[t], NULL);
		failures += jobs[t].failures;
	}
	sgt_expect(failures == 0, "%d threads x %d calls of dgemm_/cblas_dgemm at once: %d wrong",
	           THREADS, CALLS_PER_THREAD, failures);
}

static void test_unset(void)
{
	sgt_expect(one_dgemm(64, 64, 64, 'N', 'N', 0, 0, 9), "dgemm_ 64x64x64: correct");
	sgt_expect(one_dgemm(64, 48, 32, 'T', 'T', 1, 1, 10), "cblas_dgemm 64x48x32: correct");
	sgt_expect(!starpu_is_initialized(),
	           "threshold unset: calls under 2^30 multiply-adds did not start StarPU");
}

static void test_fork(void)
{
	sgt_expect(one_dgemm(64, 64, 64, 'N', 'N', 0, 0, 21) && starpu_is_initialized(),
	           "parent: dgemm_ 64x64x64 through StarPU, correct");
	fflush(stdout);
	fflush(stderr);
	pid_t child = fork();
	if (child == 0) {
		int ok = one_dgemm(64, 48, 32, 'N', 'T', 0, 0, 22);
		ok &= one_dgemm(48, 64, 32, 'T', 'N', 1, 1, 23);
		ok &= one_dgemm(40, 56, 72, 'N', 'N', 2, 0, 24);
		_exit(ok ? 0 : 1);
	}
	int status = -1;
	int waited = child > 0 && waitpid(child, &status, 0) == child;
	sgt_expect(waited && WIFEXITED(status) && WEXITSTATUS(status) == 0, "forked child: "
	           "dgemm_, cblas_dgemm and "
	           "starpu_gemm_gemm correct (status %d)", status);
	sgt_expect(one_dgemm(64, 64, 64, 'T', 'N', 0, 1, 25) && one_dgemm(32, 64, 48, 'N', 'N', 2,
	           0, 26), "parent after the child: dgemm_ and starpu_gemm_gemm correct");
}

static void test_tile_limit(void)
{
	int64_t n = 8192;
	double *A = calloc((size_t)(n * n), sizeof(double)), one = 1, zero = 0;
	double *C = calloc((size_t)(n * n), sizeof(double));
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int ret = starpu_gemm_gemm('d', 'N', 'N', n, n, n, &one, A, n, A, n, &zero, C, n);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double seconds = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	sgt_expect(ret == -ENOMEM && seconds < 10, "n = 8192 in tiles of 1: refused (%d) in "
	           "%.2f s", ret, seconds);
	free(A);
	free(C);
	sgt_expect(one_dgemm(12, 10, 8, 'N', 'T', 2, 0, 29), "then 12x10x8 in tiles of 1: correct");
}

static atomic_int multiplying;

/* A product of a few seconds on one CPU worker, nothing computed around it. */
static void *long_product(void *arg)
{
	(void)arg;
	int64_t n = 1600;
	double *A = calloc((size_t)(n * n), sizeof(double)), one = 1, zero = 0;
	double *C = calloc((size_t)(n * n), sizeof(double));
	atomic_store(&multiplying, 1);
	starpu_gemm_gemm('d', 'N', 'N', n, n, n, &one, A, n, A, n, &zero, C, n);
	return NULL;
}

/* exit() while another thread is inside starpu_gemm_gemm: the status, not SIGSEGV. */
static void test_exit(void)
{
	sgt_expect(one_dgemm(64, 64, 64, 'N', 'N', 2, 0, 28), "starpu_gemm_gemm 64x64x64: correct");
	pthread_t thread;
	pthread_create(&thread, NULL, long_product, NULL);
	while (!atomic_load(&multiplying))
		usleep(1000);
	usleep(300 * 1000);
	printf("exit(3) while another thread multiplies\n");
	fflush(stdout);
	exit(3);
}

int main(int argc, char **argv)
{
	const char *modes[] = { "route", "unset", "fork", "exit", "tile" };
	int mode = -1;
	for (int m = 0; argc == 2 && m < 5; m++)
		if (strcmp(argv[1], modes[m]) == 0)
			mode = m;
	if (mode < 0)
		return fprintf(stderr, "usage: test_blas route|unset|fork|exit|tile\n"), 2;
	sgt_init_local();
	if (mode == 2) {
		test_fork();
	} else if (mode == 4) {
		test_tile_limit();
	} else if (mode == 3) {
		test_exit();
	} else if (mode == 0) {
		test_route();
		test_threads();
		printf("expect: %d calls through starpu_gemm_gemm, %d to the next BLAS\n",
		       atomic_load(&expect_starpu), atomic_load(&expect_next));
		/* Before exit: a sanitizer's report at exit ends the process without flushing. */
		fflush(stdout);
	} else {
		test_unset();
	}
	return sgt_finish_local();
}
