/* The one call on host arrays: starpu_gemm_gemm, BLAS argument order, this process only.
 * The caller's arrays become process-local descriptors registered in place (nothing is
 * copied) or staged through pinned tiles (doors/stage.h), and the product runs through the
 * same blocked, chunked order as the distributed one. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "common/threads.h"
#include "doors/runtime.h"
#include <starpu_gemm.h>
#ifdef STARPU_USE_CUDA
#include <cuda_runtime.h>
#endif
#include "doors/pin.h"
#include "doors/stage.h"
#include "compute/problem.h"
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
	enum sg_pin_mode mode;   /* what was done: SG_PIN_STAGE, SG_PIN_ALL or SG_PIN_NONE */
	struct sg_pin_set pins;
	struct sg_stager stager;
};

static void destroy_operands(struct operands *o, int copy_back)
{
	/* Destroy writes C's latest tiles home (the caller's array, or its staged tiles) and waits
	 * for every use of the tiles: only then may they be copied back, or unpinned. */
	starpu_gemm_desc_destroy(o->A);
	starpu_gemm_desc_destroy(o->B);
	starpu_gemm_desc_destroy(o->C);
	sg_stage_finish(&o->stager, copy_back);
	sg_pin_set_unpin(&o->pins);
}

/* Memory the caller pinned (cudaHostAlloc, cudaHostRegister) is used as it is. */
static int caller_pinned(const void *ptr)
{
#ifdef STARPU_USE_CUDA
	struct cudaPointerAttributes attr;
	if (cudaPointerGetAttributes(&attr, ptr) != cudaSuccess) {
		(void)cudaGetLastError();
		return 0;
	}
	return attr.type == cudaMemoryTypeHost;
#else
	(void)ptr;
	return 0;
#endif
}

/* What to do with pageable operands: by default, with GPUs and from SG_PIN_MIN_BYTES of
 * operands, stage them (below, pageable copies cost less); explicit modes apply also without
 * GPUs (pinning then fails harmlessly, staging runs: the CPU tests exercise both). */
static enum sg_pin_mode choose_mode(int ncuda, double bytes)
{
	enum sg_pin_mode mode = sg_pin_mode();
	if (mode != SG_PIN_AUTO)
		return mode;
	return ncuda > 0 && bytes >= SG_PIN_MIN_BYTES ? SG_PIN_STAGE : SG_PIN_NONE;
}

/* A and B of the precision, C of its C's ('s' for 'b' and 'h'). */
static int make_descriptors(struct operands *o, const struct sg_precision *p, int tile)
{
	struct sg_stager *st = &o->stager;
	int ret = starpu_gemm_desc_create_user(&o->A, p->letter, st->A.rows, st->A.cols, tile,
	                                       sg_stage_tile_address, &st->A, NULL,
	                                       STARPU_GEMM_COMM_LOCAL);
	if (!ret)
		ret = starpu_gemm_desc_create_user(&o->B, p->letter, st->B.rows, st->B.cols, tile,
		                                   sg_stage_tile_address, &st->B, NULL,
		                                   STARPU_GEMM_COMM_LOCAL);
	if (!ret)
		ret = starpu_gemm_desc_create_user(&o->C, p->c_letter, st->C.rows, st->C.cols, tile,
		                                   sg_stage_tile_address, &st->C, NULL,
		                                   STARPU_GEMM_COMM_LOCAL);
	return ret;
}

/* Process-local descriptors over the caller's arrays: tiles in place, or staged copies. A and
 * B are only read (the tasks access them STARPU_R). */
static int make_operands(struct operands *o, const struct sg_precision *p, char ta, char tb,
                         int64_t m, int64_t n, int64_t k, const void *A, int64_t lda,
                         const void *B, int64_t ldb, void *C, int64_t ldc, int tile, int ncuda,
                         int read_c)
{
	int64_t a_rows = ta == 'N' ? m : k, a_cols = ta == 'N' ? k : m;
	int64_t b_rows = tb == 'N' ? k : n, b_cols = tb == 'N' ? n : k;
	memset(o, 0, sizeof(*o));
	const char *threads = getenv("STARPU_GEMM_STAGE_THREADS");
	struct sg_stager *st = &o->stager;
	/* 16 copiers ran the n = 32768 DGEMM 5% faster than 8 on a 16-core H100 node (the GPU's
	 * copies share the host's memory bandwidth with them). */
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	st->threads = threads && atoi(threads) > 0 ? atoi(threads) : cores < 16 ? (int)cores : 16;
	st->copy_c = read_c;
	size_t c_size = sg_precision_of_c(p)->elemsize;
	o->mode = choose_mode(ncuda, (double)(m * k + k * n) * (double)p->elemsize +
	                             (double)(m * n) * (double)c_size);
	int stage = o->mode == SG_PIN_STAGE;
	/* A leading dimension above INT_MAX cannot be registered in place (StarPU's is 32 bits,
	 * the kernels' an int): such an operand is staged in every mode. */
	sg_stage_array_init(&st->A, (char *)A, a_rows, a_cols, lda, p->elemsize, tile,
	                    (stage && !caller_pinned(A)) || lda > INT_MAX);
	sg_stage_array_init(&st->B, (char *)B, b_rows, b_cols, ldb, p->elemsize, tile,
	                    (stage && !caller_pinned(B)) || ldb > INT_MAX);
	sg_stage_array_init(&st->C, C, m, n, ldc, c_size, tile,
	                    (stage && !caller_pinned(C)) || ldc > INT_MAX);
	int ret = sg_stage_take(st);
	if (ret == -ENOSPC) {
		/* Past the staging pool's cap: pin the operands instead. */
		st->A.staged = lda > INT_MAX;
		st->B.staged = ldb > INT_MAX;
		st->C.staged = ldc > INT_MAX;
		o->mode = SG_PIN_ALL;
		ret = sg_stage_take(st);
		if (ret == -ENOSPC) {
			fprintf(stderr, "starpu_gemm_gemm: an operand with a leading dimension above "
			        "INT_MAX does not fit the staging pool (STARPU_GEMM_STAGE_MB)\n");
			ret = -ENOMEM;
		}
	}
	if (!ret)
		ret = make_descriptors(o, p, tile);
	st->C_desc = o->C;
	if (!ret && o->mode == SG_PIN_ALL) {
		if (!st->A.staged)
			sg_pin_set_add(&o->pins, A, a_rows, a_cols, lda, p->elemsize);
		if (!st->B.staged)
			sg_pin_set_add(&o->pins, B, b_rows, b_cols, ldb, p->elemsize);
		if (!st->C.staged)
			sg_pin_set_add(&o->pins, C, m, n, ldc, c_size);
		sg_pin_set_pin(&o->pins);
	}
	if (ret)
		destroy_operands(o, 0);
	return ret;
}

static const char *mode_name(const struct operands *o)
{
	const struct sg_stager *st = &o->stager;
	if (st->A.staged || st->B.staged || st->C.staged)
		return "staged through pinned tiles";
	return o->mode == SG_PIN_ALL ? "operands pinned" : o->mode == SG_PIN_STAGE
	       ? "in place (pinned by the caller)" : "pageable copies";
}

static int run_product(const struct sg_precision *p, char ta, char tb, int64_t m, int64_t n,
                       int64_t k, const void *alpha, const void *A, int64_t lda, const void *B,
                       int64_t ldb, const void *beta, void *C, int64_t ldc,
                       const struct starpu_gemm_opts *opts_in, struct starpu_gemm_stats *stats)
{
	double t0 = sg_now();
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
	                        sg_load(sg_precision_of_c(p), beta, 0) != 0);
	if (ret)
		return ret;
	double t1 = sg_now();
	/* C blocks of a quarter of C's columns on GPUs: staged, the first chunk then waits for
	 * fewer tiles, and C's blocks go back while later ones compute; in place, C's blocks go
	 * home early too (pinned arrays, n = 32768 on an H100: 1.415-1.434 s against 1.453-1.469
	 * with the whole of C in one block, bench/notes-arrays.md). The copiers run ahead in the
	 * walk's order. */
	struct sg_chunk_hook hook = { sg_stage_before_chunk, &o.stager };
	int staging = o.stager.A.staged || o.stager.B.staged || o.stager.C.staged;
	if ((staging || ncuda > 0) && !opts.b && !opts.c)
		opts.c = (int)((n + tile - 1) / tile + 3) / 4;
	struct starpu_gemm_plan plan;
	if (staging) {
		ret = starpu_gemm_plan_make(&plan, ta, tb, o.A, o.B, o.C, &opts);
		if (!ret)
			ret = sg_stage_start(&o.stager, &plan, ta, tb);
		/* The walk must follow the order the copiers follow: the planner reads the free
		 * memory each time, so it is given this plan's choices rather than asked again. */
		opts.b = plan.b;
		opts.c = plan.c;
		opts.d = plan.d;
		opts.lookahead = plan.lookahead;
	}
	struct starpu_gemm_request *req;
	if (!ret)
		ret = sg_pgemm_submit(ta, tb, alpha, o.A, o.B, beta, o.C, &opts,
		                      staging ? &hook : NULL, &req);
	if (!ret)
		ret = starpu_gemm_wait(req, stats);
	double t2 = sg_now(), waited = o.stager.waited;
	int sent_back = o.stager.back_next;
	stats->pin_seconds = o.pins.seconds;
	destroy_operands(&o, ret == 0);
	if (verbose())
		fprintf(stderr, "starpu_gemm: %cgemm %c%c m=%lld n=%lld k=%lld tile %d, %d CUDA "
		        "worker(s), %s: %.3f s (setup %.3f, of it pinning %.3f; product %.3f, of it "
		        "waiting for staged tiles %.3f, %d C tiles sent back; after it, the rest back, "
		        "unregister, unpin %.3f)\n",
		        p->letter, ta, tb, (long long)m, (long long)n, (long long)k, tile, ncuda,
		        mode_name(&o), sg_now() - t0, t1 - t0, stats->pin_seconds, t2 - t1, waited,
		        sent_back, sg_now() - t2);
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
	const struct sg_precision *p = sg_precision(prec), *pc = sg_precision_of_c(p);
	if (p->stored != p->letter) {
		fprintf(stderr, "starpu_gemm_gemm: '%c' is a tile codelet's letter; multiply 's' "
		        "arrays with opts->math = STARPU_GEMM_MATH_TF32 instead\n", prec);
		return -EINVAL;
	}
	if (!alpha || !beta) {
		fprintf(stderr, "starpu_gemm_gemm: NULL alpha or beta\n");
		return -EINVAL;
	}
	char ta = sg_trans(prec, transA), tb = sg_trans(prec, transB);
	/* BLAS's quick returns: nothing to do, or no product term. */
	if (m == 0 || n == 0 || ((k == 0 || sg_load(pc, alpha, 0) == 0) && sg_load(pc, beta, 0) == 1))
		return 0;
	if (!C || (k > 0 && sg_load(pc, alpha, 0) != 0 && (!A || !B))) {
		fprintf(stderr, "starpu_gemm_gemm: NULL matrix\n");
		return -EINVAL;
	}
	if (k == 0 || sg_load(pc, alpha, 0) == 0) {
		scale_c(pc, m, n, beta, C, ldc);
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
