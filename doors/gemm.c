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
#include "runtime/env.h"
#include "common/threads.h"
#include "doors/runtime.h"
#include <starpu_gemm.h>
#ifdef STARPU_USE_CUDA
#include <cuda_runtime.h>
#endif
#include "doors/pin.h"
#include "doors/stage.h"
#include "compute/plan.h"
#include "common/precision.h"
#include "common/blas.h"

static int verbose(void)
{
	return sg_env_int(SG_ENV_GEMM_VERBOSE) > 0;
}

/* The plan's tile when the caller gave one, else the one tile rule with opts->tile, else
 * STARPU_GEMM_TILE (the tests cut small matrices in many tiles), as the setting. */
static int tile_size(const struct starpu_gemm_opts *opts, char prec, int64_t m, int64_t n,
                     int64_t k, int ncuda)
{
	if (opts && opts->plan)
		return opts->plan->tile;
	int setting = opts && opts->tile > 0 ? opts->tile : 0;
	int64_t tile = sg_env_int(SG_ENV_GEMM_TILE);
	if (!setting && tile > 0)
		setting = (int)tile;
	return starpu_gemm_tile_rule(prec, m, n, k, ncuda, (int)starpu_cpu_worker_get_count(),
	                             setting);
}

/* C = beta*C on the host, for the products with no k term (k = 0 or alpha = 0), as BLAS does
 * (with beta = 0, C is set to zero without being read). */
static void scale_c(const struct sg_precision *p, int64_t m, int64_t n, const void *beta,
                    void *C, int64_t ldc)
{
	for (int64_t j = 0; j < n; j++)
		p->scale((char *)C + j * ldc * (int64_t)p->elemsize, m, beta);
}

struct operands {
	struct starpu_gemm_desc *A, *B, *C;
	int shared_A;            /* A's descriptor belongs to the whole call (C in panels) */
	enum sg_pin_mode mode;   /* what was done: SG_PIN_STAGE, SG_PIN_ALL or SG_PIN_NONE */
	struct sg_pin_set pins;
	struct sg_stager stager;
	double unregister_s;     /* destroy_operands: the descriptors' unregistration (it waits
	                          * for the copiers' C tiles sent back: their acquires) */
};

static void destroy_operands(struct operands *o, int copy_back)
{
	/* Destroy writes C's latest tiles home (the caller's array, or its staged tiles) and waits
	 * for every use of the tiles: only then may they be copied back, or unpinned. */
	double t0 = sg_now();
	if (!o->shared_A)
		starpu_gemm_desc_destroy(o->A);
	starpu_gemm_desc_destroy(o->B);
	starpu_gemm_desc_destroy(o->C);
	o->unregister_s = sg_now() - t0;
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
/* Bytes of op(A) (m x k), op(B) (k x n) and C (m x n, of the precision's C). */
static double operand_bytes(const struct sg_precision *p, int64_t m, int64_t n, int64_t k)
{
	return (double)(m * k + k * n) * (double)p->elemsize +
	       (double)(m * n) * (double)sg_precision_of_c(p)->elemsize;
}

static enum sg_pin_mode choose_mode(int ncuda, double bytes)
{
	enum sg_pin_mode mode = sg_pin_mode();
	if (mode != SG_PIN_AUTO)
		return mode;
	return ncuda > 0 && bytes >= SG_PIN_MIN_BYTES ? SG_PIN_STAGE : SG_PIN_NONE;
}

/* A: the call's (a later panel of C), else a new one over a (which must outlive it). */
static int make_descriptors(struct operands *o, const struct sg_precision *p, int tile,
                            struct starpu_gemm_desc *shared_A, struct sg_stage_array *a)
{
	struct sg_stager *st = &o->stager;
	o->shared_A = shared_A != NULL;
	o->A = shared_A;
	/* A and B of the precision, C of its C's ('s' for 'b' and 'h'). */
	int ret = shared_A ? 0 : starpu_gemm_desc_create_user(&o->A, p->letter, a->rows, a->cols,
	                                                      tile,
	                                                      sg_stage_tile_address, a, NULL,
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

/* One product of the call, C = alpha op(A) op(B) + beta C for C's columns [j0, j0 + n) of
 * the whole call's: the panel's B and C pointers and n are the panel's. */
struct panel {
	int64_t m, n, k;
	const void *A, *B;
	void *C;
	int64_t lda, ldb, ldc;
};

static void stager_init(struct sg_stager *st, const struct sg_precision *p, char ta, char tb,
                        const struct panel *pn, int tile, int stage, int shared_A)
{
	int64_t m = pn->m, n = pn->n, k = pn->k;
	st->threads = sg_stage_threads();
	/* A leading dimension above INT_MAX cannot be registered in place (StarPU's is 32 bits,
	 * the kernels' an int): such an operand is staged in every mode. A shared by later
	 * panels is the first panel's: in place for them, and staged already. */
	sg_stage_array_init(&st->A, (char *)pn->A, ta == 'N' ? m : k, ta == 'N' ? k : m, pn->lda,
	                    p->elemsize, tile,
	                    !shared_A && ((stage && !caller_pinned(pn->A)) || pn->lda > INT_MAX));
	sg_stage_array_init(&st->B, (char *)pn->B, tb == 'N' ? k : n, tb == 'N' ? n : k, pn->ldb,
	                    p->elemsize, tile,
	                    (stage && !caller_pinned(pn->B)) || pn->ldb > INT_MAX);
	sg_stage_array_init(&st->C, pn->C, m, n, pn->ldc, sg_precision_of_c(p)->elemsize, tile,
	                    (stage && !caller_pinned(pn->C)) || pn->ldc > INT_MAX);
}

/* Whether a staged C goes back as C = (the GPUs' alpha*op(A)*op(B)) + beta*C, the copiers
 * adding beta*C as they copy each tile back, instead of being copied in for the GPUs to
 * update: beta reads C, and pageable operands are staged. C is then neither copied in (a third
 * of the bytes the walk waits for) nor loaded onto the GPUs; on 4 GPUs the staging copies are
 * bound by the node's memory (bench/notes-arrays.md, "Four GPUs"). STARPU_GEMM_STAGE_C=1
 * copies it in as before. */
static int beta_on_the_way_back(enum sg_pin_mode mode, const struct sg_precision *pc,
                                const void *beta)
{
	return mode == SG_PIN_STAGE && sg_load(pc, beta, 0) != 0 &&
	       sg_env_int(SG_ENV_GEMM_STAGE_C) == 0;
}

int starpu_gemm_gemm_adds_beta_back(char prec, int64_t m, int64_t n, int64_t k,
                                    const void *beta)
{
	const struct sg_precision *p = sg_precision(prec);
	if (!p || !beta || p->stored != p->letter)
		return 0;
	return beta_on_the_way_back(choose_mode((int)starpu_cuda_worker_get_count(),
	                                        operand_bytes(p, m, n, k)),
	                            sg_precision_of_c(p), beta);
}

/* The width of C's panels, in tiles: all of C when its staged tiles fit the pool at once (or
 * nothing does), else the widest that leaves room for A's tiles and two panels' B and C tiles
 * (the next panel is staged while one computes). */
static int64_t panel_tiles(const struct sg_stager *whole, int64_t nt)
{
	size_t a = sg_stage_array_bytes(&whole->A), cap = sg_stage_pool_cap();
	size_t bc = sg_stage_array_bytes(&whole->B) + sg_stage_array_bytes(&whole->C);
	if (a + bc <= cap || a >= cap)
		return nt;
	/* A panel of w tile columns takes at most ceil(bc * w / nt) bytes of B and C tiles. */
	for (int64_t w = nt / 2; w >= 1; w--)
		if (a + 2 * ((bc * (size_t)w + (size_t)nt - 1) / (size_t)nt) <= cap)
			return w;
	return nt;
}

/* How the whole call stages, decided once before its first panel: its choice for pageable
 * operands, its operands' staged tiles, and the width of C's panels in columns. */
struct staging {
	enum sg_pin_mode mode;
	struct sg_stager whole;  /* the whole call's operands: their sizes and staged flags only */
	int64_t width, panels;
};

static void staging_of_call(struct staging *s, const struct sg_precision *p, char ta, char tb,
                            const struct panel *whole, int tile, int ncuda)
{
	s->mode = choose_mode(ncuda, operand_bytes(p, whole->m, whole->n, whole->k));
	memset(&s->whole, 0, sizeof(s->whole));
	stager_init(&s->whole, p, ta, tb, whole, tile, s->mode == SG_PIN_STAGE, 0);
	s->width = panel_tiles(&s->whole, (whole->n + tile - 1) / tile) * tile;
	s->panels = (whole->n + s->width - 1) / s->width;
}

/* The most bytes of pool buffers the call holds at once: all its staged tiles in one panel;
 * in panels, A's and two panels' B and C tiles (run_product keeps two in flight). Past the
 * pool's cap the operands are pinned in place instead (make_operands), but for those of a
 * leading dimension above INT_MAX, staged in every mode. */
static size_t staging_bytes(const struct staging *s, const struct sg_precision *p, char ta,
                            char tb, const struct panel *whole, int tile)
{
	size_t a = sg_stage_array_bytes(&s->whole.A);
	size_t bc = sg_stage_array_bytes(&s->whole.B) + sg_stage_array_bytes(&s->whole.C);
	if (s->panels > 1) {
		struct sg_stager one = { 0 };
		struct panel pn = *whole;
		pn.n = s->width;
		stager_init(&one, p, ta, tb, &pn, tile, s->mode == SG_PIN_STAGE, 1);
		bc = 2 * (sg_stage_array_bytes(&one.B) + sg_stage_array_bytes(&one.C));
	}
	if (a + bc <= sg_stage_pool_cap())
		return a + bc;
	struct sg_stager pinned = { 0 };
	stager_init(&pinned, p, ta, tb, whole, tile, 0, 0);
	return sg_stage_array_bytes(&pinned.A) + sg_stage_array_bytes(&pinned.B) +
	       sg_stage_array_bytes(&pinned.C);
}

/* Process-local descriptors over the caller's arrays: tiles in place, or staged copies. A and
 * B are only read (the tasks access them STARPU_R). A later panel of C takes the call's A
 * (shared_A); the first of several keeps its staged A in *keep_A for the later ones. */
static int make_operands(struct operands *o, const struct sg_precision *p, char ta, char tb,
                         const struct panel *pn, int tile, enum sg_pin_mode mode, int read_c,
                         struct starpu_gemm_desc *shared_A, struct sg_stage_array *keep_A)
{
	const void *A = pn->A, *B = pn->B;
	void *C = pn->C;
	int64_t lda = pn->lda, ldb = pn->ldb, ldc = pn->ldc, m = pn->m, n = pn->n, k = pn->k;
	int64_t a_rows = ta == 'N' ? m : k, a_cols = ta == 'N' ? k : m;
	int64_t b_rows = tb == 'N' ? k : n, b_cols = tb == 'N' ? n : k;
	memset(o, 0, sizeof(*o));
	struct sg_stager *st = &o->stager;
	st->copy_c = read_c;
	o->mode = mode;
	stager_init(st, p, ta, tb, pn, tile, o->mode == SG_PIN_STAGE, shared_A != NULL);
	int ret = sg_stage_take(st);
	if (ret == -ENOSPC && !shared_A && !keep_A) {
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
	if (!ret && keep_A) {
		st->A.keep = 1;
		*keep_A = st->A;
		keep_A->ready = NULL; /* the first panel's, freed with it */
	}
	if (!ret)
		ret = make_descriptors(o, p, tile, shared_A, keep_A ? keep_A : &st->A);
	st->C_desc = o->C;
	if (!ret && o->mode == SG_PIN_ALL) {
		if (!st->A.staged)
			sg_pin_set_add(&o->pins, A, a_rows, a_cols, lda, p->elemsize);
		if (!st->B.staged)
			sg_pin_set_add(&o->pins, B, b_rows, b_cols, ldb, p->elemsize);
		if (!st->C.staged)
			sg_pin_set_add(&o->pins, C, m, n, ldc, sg_precision_of_c(p)->elemsize);
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

/* A panel of C in flight: its operands (the copier threads use them: never moved) and its
 * request. */
struct flight {
	struct operands o;
	struct starpu_gemm_request *req;
	int active;
};

/* What the verbose line reports, summed over the panels. */
struct report {
	double waited, pinning, product_end, unregister;
	int sent_back, copiers;   /* copiers: the most copier threads a panel started */
	int added_back;           /* beta*C added as C went back (beta_on_the_way_back) */
	int numa_nodes;           /* NUMA nodes they were dealt over (0: one) */
	const char *mode;
};

static int start_panel(struct flight *f, const struct sg_precision *p, char ta, char tb,
                       const struct panel *pn, const void *alpha, const void *beta,
                       struct starpu_gemm_opts opts, int tile, enum sg_pin_mode mode,
                       struct starpu_gemm_desc *shared_A, struct sg_stage_array *keep_A)
{
	const struct sg_precision *pc = sg_precision_of_c(p);
	/* A plan the caller made for the product with beta read (opts.beta_zero = 0) is followed
	 * as it is: C copied in. */
	int add_back = beta_on_the_way_back(mode, pc, beta) && (!opts.plan || opts.plan->beta_zero);
	int ret = make_operands(&f->o, p, ta, tb, pn, tile, mode,
	                        sg_load(pc, beta, 0) != 0 && !add_back, shared_A, keep_A);
	if (ret)
		return ret;
	struct operands *o = &f->o;
	/* Where C ended up staged (not pinned in place past the pool's cap), the GPUs compute
	 * alpha*op(A)*op(B) alone and the copiers add beta*C on the way back. */
	if (add_back && o->stager.C.staged) {
		sg_add_back_set(&o->stager.C.add_back, pc, beta);
		beta = pc->zero;
	}
	int staging = o->stager.A.staged || o->stager.B.staged || o->stager.C.staged;
	/* One plan per panel, which the copiers and the walk both follow: the caller's when it
	 * was made for this panel (the whole call in one panel), else made here once, with the
	 * caller's plan's choices when it gave one. */
	struct starpu_gemm_plan plan;
	opts.beta_zero = sg_load(sg_precision_of_c(p), beta, 0) == 0;
	const struct starpu_gemm_plan *given = opts.plan;
	opts.plan = NULL;
	struct sg_problem pb;
	ret = sg_problem_make(&pb, ta, tb, o->A, o->B, o->C, opts.math);
	pb.staged = staging;
	if (!ret && given && !sg_plan_conforms(given, &pb, opts.beta_zero, NULL, 0)) {
		plan = *given;
	} else if (!ret) {
		if (given)
			sg_plan_choices(given, &opts);
		ret = sg_plan_make(&plan, &pb, &opts);
	}
	opts.plan = &plan;
	if (!ret && staging)
		ret = sg_stage_start(&o->stager, &plan, ta, tb);
	opts.before_task = staging ? sg_stage_before_task : NULL;
	opts.before_task_arg = staging ? &o->stager : NULL;
	if (!ret)
		ret = starpu_gemm_pgemm_submit(ta, tb, alpha, o->A, o->B, beta, o->C, &opts, &f->req);
	if (ret) {
		destroy_operands(o, 0);
		return ret;
	}
	f->active = 1;
	return 0;
}

/* at_end: after the last panel's product (the verbose line's "after it" part). */
static int finish_panel(struct flight *f, struct starpu_gemm_stats *stats, int first,
                        int at_end, struct report *r)
{
	struct starpu_gemm_stats s = { 0 };
	int ret = starpu_gemm_wait(f->req, &s);
	r->product_end = sg_now();
	if (first)
		stats->plan = s.plan;
	stats->tasks += s.tasks;
	stats->chunks += s.chunks;
	stats->peak_remote_tiles = s.peak_remote_tiles > stats->peak_remote_tiles
	                           ? s.peak_remote_tiles : stats->peak_remote_tiles;
	r->waited += f->o.stager.waited;
	r->sent_back += f->o.stager.back_next;
	if (f->o.stager.nthreads > r->copiers) {
		r->copiers = f->o.stager.nthreads;
		r->numa_nodes = f->o.stager.numa_nodes;
	}
	r->pinning += f->o.pins.seconds;
	destroy_operands(&f->o, ret == 0);
	if (at_end)
		r->unregister += f->o.unregister_s;
	f->active = 0;
	return ret;
}

/* The product, in panels of C's columns when its staged tiles do not fit the pool at once
 * (panel_count): A is staged once, by the first panel, and the next panel's B and C are staged
 * while one computes; two panels in flight at most. The copiers run ahead in the walk's order,
 * which keeps each C tile's updates of a chunk together (compute/walk.h), so in a block's last
 * chunk C's tiles go back while later ones compute (bench/notes-arrays.md). */
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
	int tile = tile_size(&opts, p->letter, m, n, k, ncuda);
	/* The driver's limits (the planner's: tile handles within host memory...), before
	 * anything is allocated or registered: the plan of the whole call from its sizes. */
	struct starpu_gemm_opts sized = opts;
	sized.plan = NULL;
	struct starpu_gemm_plan plan_of_sizes;
	int refused = starpu_gemm_plan_sizes(&plan_of_sizes, p->letter, ta, tb, m, n, k, tile,
	                                     NULL, STARPU_GEMM_COMM_LOCAL, &sized);
	if (refused)
		return refused;
	/* How pageable operands are handled is the whole call's choice, made once. */
	struct panel whole = { m, n, k, A, B, C, lda, ldb, ldc };
	struct staging staging;
	staging_of_call(&staging, p, ta, tb, &whole, tile, ncuda);
	enum sg_pin_mode mode = staging.mode;
	int64_t width = staging.width, panels = staging.panels;

	struct flight flights[2] = { { .active = 0 } };
	struct sg_stage_array kept_A = { 0 };
	struct starpu_gemm_desc *shared_A = NULL;
	struct report r = { 0 };
	double t1 = t0;
	int ret = 0;
	for (int64_t q = 0; q < panels && !ret; q++) {
		struct flight *f = &flights[q % 2];
		if (f->active) /* the panel before the last: its buffers serve this one */
			ret = finish_panel(f, stats, q == 2, 0, &r);
		if (ret)
			break;
		int64_t j0 = q * width;
		int64_t es = (int64_t)p->elemsize, c_es = (int64_t)sg_precision_of_c(p)->elemsize;
		struct panel pn = whole;
		pn.n = n - j0 < width ? n - j0 : width;
		pn.B = (const char *)B + (tb == 'N' ? j0 * ldb : j0) * es;
		pn.C = (char *)C + j0 * ldc * c_es;
		ret = start_panel(f, p, ta, tb, &pn, alpha, beta, opts, tile, mode, shared_A,
		                  panels > 1 && q == 0 ? &kept_A : NULL);
		if (!ret && q == 0) {
			if (panels > 1) { /* A's descriptor is the call's from now on */
				shared_A = f->o.A;
				f->o.shared_A = 1;
			}
			r.mode = mode_name(&f->o);
			r.added_back = f->o.stager.C.add_back.p != NULL;
			t1 = sg_now();
		}
	}
	for (int64_t q = panels - 2; q < panels; q++) {
		struct flight *f = &flights[(q + 2) % 2];
		if (q >= 0 && f->active) {
			int done = finish_panel(f, stats, q == 0, 1, &r);
			ret = ret ? ret : done;
		}
	}
	starpu_gemm_desc_destroy(shared_A);
	sg_stage_array_release(&kept_A);
	char copiers[64] = "", nodes[32] = "";
	if (r.numa_nodes > 1)
		snprintf(nodes, sizeof(nodes), " over %d NUMA nodes", r.numa_nodes);
	if (r.copiers > 0)
		snprintf(copiers, sizeof(copiers), " (%d copier thread%s%s)", r.copiers,
		         r.copiers > 1 ? "s" : "", nodes);
	if (verbose())
		fprintf(stderr, "starpu_gemm: %cgemm %c%c m=%lld n=%lld k=%lld tile %d, %d CUDA "
		        "worker(s), %s%s%s%s%s%s: %.3f s (setup %.3f, of it pinning %.3f; product %.3f, "
		        "of it waiting for staged tiles %.3f, %d C tiles sent back; after it, the rest "
		        "back, unregister, unpin %.3f, of it unregistering, which waits for the tiles "
		        "sent back %.3f)\n",
		        p->letter, ta, tb, (long long)m, (long long)n, (long long)k, tile, ncuda,
		        r.mode ? r.mode : "failed", copiers,
		        r.added_back ? ", beta*C added on the way back" : "",
		        panels > 1 ? ", C in panels" : "",
		        stats->plan.gpu_peers ? ", A and B relayed between the GPUs" : "",
		        stats->plan.c_spread ? ", C's loads spread over the chunks" : "",
		        sg_now() - t0, t1 - t0, r.pinning, r.product_end > t1 ? r.product_end - t1 : 0,
		        r.waited, r.sent_back,
		        sg_now() - r.product_end, r.unregister);
	stats->pin_seconds = r.pinning;
	return ret;
}

double starpu_gemm_gemm_staged_bytes(char prec, char transA, char transB, int64_t m,
                                     int64_t n, int64_t k, const void *A, int64_t lda,
                                     const void *B, int64_t ldb, const void *C, int64_t ldc,
                                     const struct starpu_gemm_opts *opts)
{
	const struct sg_precision *p = sg_precision(prec);
	if (!p || p->stored != p->letter || m == 0 || n == 0 || k == 0 ||
	    starpu_gemm_gemm_check(prec, transA, transB, m, n, k, lda, ldb, ldc))
		return 0;
	char ta = sg_trans(prec, transA), tb = sg_trans(prec, transB);
	int ncuda = (int)starpu_cuda_worker_get_count();
	int tile = tile_size(opts, p->letter, m, n, k, ncuda);
	struct panel whole = { m, n, k, A, B, (void *)C, lda, ldb, ldc };
	struct staging staging;
	staging_of_call(&staging, p, ta, tb, &whole, tile, ncuda);
	return (double)staging_bytes(&staging, p, ta, tb, &whole, tile);
}

/* A fork()ed child's call (sg_runtime_forked): on the CPU BLAS, in this thread. */
static int forked_product(char prec, char ta, char tb, int64_t m, int64_t n, int64_t k,
                          const void *alpha, const void *A, int64_t lda, const void *B,
                          int64_t ldb, const void *beta, void *C, int64_t ldc)
{
	static int said;
	if (!said++ && verbose())
		fprintf(stderr, "starpu_gemm: a fork()ed child of a process that ran StarPU: its "
		        "products run on the CPU BLAS\n");
	if (m > INT_MAX || n > INT_MAX || k > INT_MAX || lda > INT_MAX || ldb > INT_MAX ||
	    ldc > INT_MAX) {
		fprintf(stderr, "starpu_gemm_gemm: in a fork()ed child the product runs on the CPU "
		        "BLAS, whose sizes and leading dimensions stop at INT_MAX\n");
		return -EOVERFLOW;
	}
	return sg_cblas_gemm(prec, ta, tb, (int)m, (int)n, (int)k, alpha, A, (int)lda, B,
	                     (int)ldb, beta, C, (int)ldc);
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
	/* Checked before the lock: a parent's thread may have held it when the child was
	 * forked. */
	if (sg_runtime_forked())
		return forked_product(prec, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
	sg_door_enter();
	int ret = run_product(p, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, opts,
	                      &stats);
	sg_door_leave();
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
