/* The one call on host arrays: starpu_gemm_gemm, BLAS argument order, this process only.
 * The caller's arrays become process-local descriptors registered in place (nothing is
 * copied), the product runs through the same blocked, chunked order as the distributed one,
 * and large pageable operands are pinned for its duration (doors/pin.h). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "doors/runtime.h"
#include <starpu_gemm.h>
#include "doors/pin.h"
#include "common/precision.h"

/* One product at a time: each already uses every worker, and StarPU's start is not
 * thread-safe. */
static pthread_mutex_t door_lock = PTHREAD_MUTEX_INITIALIZER;

static int verbose(void)
{
	const char *v = getenv("STARPU_GEMM_VERBOSE");
	return v && atoi(v) > 0;
}

/* opts->tile, else STARPU_GEMM_TILE (the tests cut small matrices in many tiles), else the
 * library's default for the workers. */
static int tile_size(const struct starpu_gemm_opts *opts, int64_t m, int64_t n, int64_t k,
                     int ncuda)
{
	if (opts && opts->tile > 0)
		return opts->tile;
	const char *tile = getenv("STARPU_GEMM_TILE");
	if (tile && atoi(tile) > 0)
		return atoi(tile);
	return starpu_gemm_default_tile(m, n, k, ncuda);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* C = beta*C on the host, for the products with no k term (k = 0 or alpha = 0), as BLAS does:
 * with beta = 0, C is set to zero without being read. */
static void scale_c(const struct sg_precision *p, int64_t m, int64_t n, const void *beta,
                    void *C, int64_t ldc)
{
	double complex b = sg_load(p, beta, 0);
	for (int64_t j = 0; j < n; j++)
		for (int64_t i = 0; i < m; i++) {
			int64_t e = i + j * ldc;
			sg_store(p, C, e, b == 0 ? 0 : b * sg_load(p, C, e));
		}
}

struct operands {
	struct starpu_gemm_desc *A, *B, *C;
	struct sg_pin_set pins;
	int pin;
};

static void destroy_operands(struct operands *o)
{
	/* Destroy writes C's latest tiles home, into the caller's array, and waits for every use
	 * of the tiles: only then may their memory be unpinned. */
	starpu_gemm_desc_destroy(o->A);
	starpu_gemm_desc_destroy(o->B);
	starpu_gemm_desc_destroy(o->C);
	sg_pin_set_unpin(&o->pins);
}

/* Whether to pin pageable memory: by default with GPUs from SG_PIN_MIN_BYTES of operands
 * (below, pageable copies cost less than pinning and unpinning). */
static int want_pinning(int ncuda, double bytes)
{
	switch (sg_pin_mode()) {
	case SG_PIN_ALL: return 1; /* without GPUs registration fails, harmlessly (CPU tests) */
	case SG_PIN_NONE: return 0;
	default: return ncuda > 0 && bytes >= SG_PIN_MIN_BYTES;
	}
}

/* Process-local descriptors over the caller's arrays, tiles in place. A and B are only read
 * (the tasks access them STARPU_R). */
static int make_operands(struct operands *o, const struct sg_precision *p, char ta, char tb,
                         int64_t m, int64_t n, int64_t k, const void *A, int64_t lda,
                         const void *B, int64_t ldb, void *C, int64_t ldc, int tile, int ncuda)
{
	int64_t a_rows = ta == 'N' ? m : k, a_cols = ta == 'N' ? k : m;
	int64_t b_rows = tb == 'N' ? k : n, b_cols = tb == 'N' ? n : k;
	memset(o, 0, sizeof(*o));
	int ret = starpu_gemm_desc_create_lapack(&o->A, p->letter, a_rows, a_cols, tile, (void *)A,
	                                         lda, NULL, STARPU_GEMM_COMM_LOCAL);
	if (!ret)
		ret = starpu_gemm_desc_create_lapack(&o->B, p->letter, b_rows, b_cols, tile,
		                                     (void *)B, ldb, NULL, STARPU_GEMM_COMM_LOCAL);
	if (!ret)
		ret = starpu_gemm_desc_create_lapack(&o->C, p->letter, m, n, tile, C, ldc, NULL,
		                                     STARPU_GEMM_COMM_LOCAL);
	o->pin = want_pinning(ncuda, (double)(m * k + k * n + m * n) * (double)p->elemsize);
	if (!ret && o->pin) {
		sg_pin_set_add(&o->pins, A, a_rows, a_cols, lda, p->elemsize);
		sg_pin_set_add(&o->pins, B, b_rows, b_cols, ldb, p->elemsize);
		sg_pin_set_add(&o->pins, C, m, n, ldc, p->elemsize);
		sg_pin_set_pin(&o->pins);
	}
	if (ret)
		destroy_operands(o);
	return ret;
}

static int run_product(const struct sg_precision *p, char ta, char tb, int64_t m, int64_t n,
                       int64_t k, const void *alpha, const void *A, int64_t lda, const void *B,
                       int64_t ldb, const void *beta, void *C, int64_t ldc,
                       const struct starpu_gemm_opts *opts, struct starpu_gemm_stats *stats)
{
	double t0 = now();
	int ncuda = sg_runtime_start();
	if (ncuda < 0)
		return ncuda;
	int tile = tile_size(opts, m, n, k, ncuda);
	struct operands o;
	int ret = make_operands(&o, p, ta, tb, m, n, k, A, lda, B, ldb, C, ldc, tile, ncuda);
	if (ret)
		return ret;
	double t1 = now();
	struct starpu_gemm_request *req;
	ret = starpu_gemm_pgemm_submit(ta, tb, alpha, o.A, o.B, beta, o.C, opts, &req);
	if (!ret)
		ret = starpu_gemm_wait(req, stats);
	double t2 = now();
	stats->pin_seconds = o.pins.seconds;
	destroy_operands(&o);
	if (verbose())
		fprintf(stderr, "starpu_gemm: %cgemm %c%c m=%lld n=%lld k=%lld tile %d, %d CUDA "
		        "worker(s), %s: %.3f s (setup %.3f, of it pinning %.3f; product %.3f; "
		        "unregister+unpin %.3f)\n", p->letter, ta, tb, (long long)m, (long long)n,
		        (long long)k, tile, ncuda, o.pin ? "operands pinned" : "pageable copies",
		        now() - t0, t1 - t0, stats->pin_seconds, t2 - t1, now() - t2);
	return ret;
}

int starpu_gemm_gemm_ex(char prec, char transA, char transB, int64_t m, int64_t n, int64_t k,
                        const void *alpha, const void *A, int64_t lda, const void *B,
                        int64_t ldb, const void *beta, void *C, int64_t ldc,
                        const struct starpu_gemm_opts *opts, struct starpu_gemm_stats *stats_out)
{
	struct starpu_gemm_stats stats = { 0 };
	if (stats_out)
		*stats_out = stats;
	int bad = starpu_gemm_gemm_check(prec, transA, transB, m, n, k, lda, ldb, ldc);
	if (bad) {
		if (bad < 0)
			fprintf(stderr, "starpu_gemm_gemm: unknown precision '%c'\n", prec);
		else
			fprintf(stderr, "starpu_gemm_gemm: parameter %d has an illegal value\n", bad);
		return -EINVAL;
	}
	const struct sg_precision *p = sg_precision(prec);
	if (!alpha || !beta) {
		fprintf(stderr, "starpu_gemm_gemm: NULL alpha or beta\n");
		return -EINVAL;
	}
	char ta = sg_trans(prec, transA), tb = sg_trans(prec, transB);
	/* BLAS's quick returns: nothing to do, or no product term. */
	if (m == 0 || n == 0 || ((k == 0 || sg_load(p, alpha, 0) == 0) && sg_load(p, beta, 0) == 1))
		return 0;
	if (!C || (k > 0 && sg_load(p, alpha, 0) != 0 && (!A || !B))) {
		fprintf(stderr, "starpu_gemm_gemm: NULL matrix\n");
		return -EINVAL;
	}
	if (k == 0 || sg_load(p, alpha, 0) == 0) {
		scale_c(p, m, n, beta, C, ldc);
		return 0;
	}
	pthread_mutex_lock(&door_lock);
	int ret = run_product(p, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, opts,
	                      &stats);
	pthread_mutex_unlock(&door_lock);
	if (stats_out)
		*stats_out = stats;
	return ret;
}

int starpu_gemm_gemm(char prec, char transA, char transB, int64_t m, int64_t n, int64_t k,
                     const void *alpha, const void *A, int64_t lda, const void *B,
                     int64_t ldb, const void *beta, void *C, int64_t ldc)
{
	return starpu_gemm_gemm_ex(prec, transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C,
	                           ldc, NULL, NULL);
}
