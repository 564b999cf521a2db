/* The one call on host arrays: starpu_gemm_gemm, BLAS argument order, this process only.
 * The caller's arrays become process-local descriptors registered in place (nothing is
 * copied), the product runs through the same blocked, chunked order as the distributed one,
 * and pageable memory is pinned as the order reaches it (doors/pin.h). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "doors/runtime.h"
#include "doors/pin.h"
#include "common/precision.h"
#include "common/comm.h"

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
	struct sg_pinner pinner;
	enum sg_pin_mode mode;
};

static void destroy_operands(struct operands *o)
{
	/* Destroy writes C's latest tiles home (into the caller's array, or the staged copies)
	 * and waits for every use of the tiles: only then may their memory be unpinned. */
	starpu_gemm_desc_destroy(o->A);
	starpu_gemm_desc_destroy(o->B);
	starpu_gemm_desc_destroy(o->C);
	sg_pin_stage_out(&o->pinner);
	sg_pin_release(&o->pinner);
}

/* How pageable memory is handled: by default none without GPUs and for small products
 * (pageable copies cost less than pinning there); none for operands that share a page. */
static enum sg_pin_mode choose_pinning(int ncuda, double bytes)
{
	enum sg_pin_mode mode = sg_pin_mode();
	if (mode == SG_PIN_AUTO)
		return ncuda > 0 && bytes >= SG_PIN_MIN_BYTES ? SG_PIN_PANELS : SG_PIN_NONE;
	/* Asked for explicitly, also without GPUs (registration then fails and the tiles stay
	 * where they are, but the staging runs: the CPU tests exercise it). */
	return mode;
}

static int init_arrays(struct operands *o, const struct sg_precision *p, char ta, char tb,
                       int64_t m, int64_t n, int64_t k, const void *A, int64_t lda,
                       const void *B, int64_t ldb, void *C, int64_t ldc, int tile)
{
	int64_t a_rows = ta == 'N' ? m : k, a_cols = ta == 'N' ? k : m;
	int64_t b_rows = tb == 'N' ? k : n, b_cols = tb == 'N' ? n : k;
	int panels = o->mode == SG_PIN_NONE ? 0 : 1;
	int ret = sg_pin_array_init(&o->pinner.A, (void *)A, a_rows, a_cols, lda, p->elemsize, tile,
	                            panels * (o->mode == SG_PIN_ALL ? (int)a_cols : tile));
	if (!ret)
		ret = sg_pin_array_init(&o->pinner.B, (void *)B, b_rows, b_cols, ldb, p->elemsize,
		                        tile, panels * (o->mode == SG_PIN_ALL ? (int)b_cols : tile));
	if (!ret)
		ret = sg_pin_array_init(&o->pinner.C, C, m, n, ldc, p->elemsize, tile,
		                        panels * (o->mode == SG_PIN_ALL ? (int)n : tile));
	return ret;
}

static int make_operands(struct operands *o, const struct sg_precision *p, char ta, char tb,
                         int64_t m, int64_t n, int64_t k, const void *A, int64_t lda,
                         const void *B, int64_t ldb, void *C, int64_t ldc, int tile,
                         int ncuda, int read_c)
{
	memset(o, 0, sizeof(*o));
	const char *threads = getenv("STARPU_GEMM_PIN_THREADS");
	o->pinner.threads = threads && atoi(threads) > 0 ? atoi(threads) : 8;
	o->mode = choose_pinning(ncuda, (double)(m * k + k * n + m * n) * (double)p->elemsize);
	int ret = init_arrays(o, p, ta, tb, m, n, k, A, lda, B, ldb, C, ldc, tile);
	struct sg_pinner *pn = &o->pinner;
	if (!ret && (sg_pin_arrays_meet(&pn->A, &pn->B) || sg_pin_arrays_meet(&pn->A, &pn->C) ||
	             sg_pin_arrays_meet(&pn->B, &pn->C))) {
		sg_pin_release(pn);
		o->mode = SG_PIN_NONE;
		ret = init_arrays(o, p, ta, tb, m, n, k, A, lda, B, ldb, C, ldc, tile);
	}
	/* Tiles over the caller's arrays, in place except the staged ones. A and B are only read
	 * (the tasks access them STARPU_R). */
	if (!ret)
		ret = starpu_gemm_desc_create_user(&o->A, p->letter, pn->A.rows, pn->A.cols, tile,
		                                   sg_pin_tile_address, &pn->A, NULL,
		                                   STARPU_GEMM_COMM_LOCAL);
	if (!ret)
		ret = starpu_gemm_desc_create_user(&o->B, p->letter, pn->B.rows, pn->B.cols, tile,
		                                   sg_pin_tile_address, &pn->B, NULL,
		                                   STARPU_GEMM_COMM_LOCAL);
	if (!ret)
		ret = starpu_gemm_desc_create_user(&o->C, p->letter, m, n, tile, sg_pin_tile_address,
		                                   &pn->C, NULL, STARPU_GEMM_COMM_LOCAL);
	if (!ret)
		ret = sg_pin_stage_in(pn, read_c);
	if (ret)
		destroy_operands(o);
	return ret;
}

static int run_product(const struct sg_precision *p, char ta, char tb, int64_t m, int64_t n,
                       int64_t k, const void *alpha, const void *A, int64_t lda, const void *B,
                       int64_t ldb, const void *beta, void *C, int64_t ldc,
                       const struct starpu_gemm_opts *opts_in, struct starpu_gemm_stats *stats)
{
	double t0 = now();
	int ncuda = sg_runtime_start();
	if (ncuda < 0)
		return ncuda;
	struct starpu_gemm_opts opts;
	if (opts_in)
		opts = *opts_in;
	else
		starpu_gemm_opts_init(&opts);
	int tile = tile_size(&opts, m, n, k, ncuda);
	struct operands o;
	int ret = make_operands(&o, p, ta, tb, m, n, k, A, lda, B, ldb, C, ldc, tile, ncuda,
	                        sg_load(p, beta, 0) != 0);
	if (ret)
		return ret;
	double t1 = now();
	if (o.mode == SG_PIN_ALL)
		sg_pin_all(&o.pinner);
	/* Panels are pinned as the chunks need them: a C block of a quarter of C's columns keeps
	 * what the first chunk waits for to about (d + 2n/4) column panels instead of all of B and
	 * C, and the rest is pinned while the GPU computes. */
	int nt = (int)((n + tile - 1) / tile);
	if (o.mode == SG_PIN_PANELS && !opts.b && !opts.c)
		opts.c = (nt + 3) / 4;
	struct sg_chunk_hook hook = { sg_pin_before_chunk, &o.pinner };
	struct starpu_gemm_plan plan;
	if (o.mode == SG_PIN_PANELS &&
	    !starpu_gemm_plan_make(&plan, ta, tb, o.A, o.B, o.C, &opts))
		sg_pin_start(&o.pinner, &plan, ta, tb);
	struct starpu_gemm_request *req;
	ret = sg_pgemm_submit(ta, tb, alpha, o.A, o.B, beta, o.C, &opts,
	                      o.mode == SG_PIN_PANELS ? &hook : NULL, &req);
	if (!ret)
		ret = starpu_gemm_wait(req, stats);
	double t2 = now();
	double pinning = o.pinner.seconds, waited = o.pinner.waited;
	int staged = o.pinner.A.nstaged + o.pinner.B.nstaged + o.pinner.C.nstaged;
	destroy_operands(&o);
	stats->pin_seconds = pinning;
	if (verbose())
		fprintf(stderr, "starpu_gemm: %cgemm %c%c m=%lld n=%lld k=%lld tile %d, %d CUDA "
		        "worker(s), pinning %s (%d tiles staged): %.3f s (setup %.3f, product %.3f, "
		        "pinning %.3f of which the walk waited %.3f; unregister+unpin %.3f)\n", p->letter, ta, tb,
		        (long long)m, (long long)n, (long long)k, tile, ncuda,
		        o.mode == SG_PIN_PANELS ? "panels" : o.mode == SG_PIN_ALL ? "all" : "none",
		        staged, now() - t0, t1 - t0, t2 - t1, pinning, waited, now() - t2);
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
