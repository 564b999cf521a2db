/* libstarpu_gemm_scalapack: PBLAS's psgemm_, pdgemm_, pcgemm_ and pzgemm_ on StarPU-MPI, for
 * applications that call ScaLAPACK (LD_PRELOAD it, or link it before ScaLAPACK).
 *
 * Per call: the sub-matrices of A, B and C move from the application's block-cyclic arrays
 * into library tiles dealt over the same BLACS grid (doors/redistribute.c), starpu_gemm_pgemm
 * computes, C moves back. Everything this path does not take goes to the next p?gemm_ in
 * link order, ScaLAPACK's own, unchanged: calls below STARPU_GEMM_SCALAPACK_THRESHOLD
 * (M*N*K), invalid arguments (PBLAS then reports them through pxerbla, numbered its way),
 * replicated operands (RSRC or CSRC = -1), and any failure to start StarPU or to get memory,
 * agreed on by every process of the grid before anything moves. */
#define _GNU_SOURCE
#include <complex.h>
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include "doors/scalapack.h"
#include "doors/redistribute_flow.h"
#include "common/errors.h"
#include "common/precision.h"
#include "runtime/env.h"

/* PBLAS's p?gemm_ are C functions taking char pointers (PBLAS/SRC/p?gemm_.c): Fortran callers'
 * hidden string lengths are left unread, as PBLAS leaves them, and C callers pass none. */
#define PGEMM_PARAMS const char *transa, const char *transb, const int *m, const int *n, \
	const int *k, const void *alpha, const void *a, const int *ia, const int *ja,   \
	const int *desca, const void *b, const int *ib, const int *jb, const int *descb, \
	const void *beta, void *c, const int *ic, const int *jc, const int *descc
#define PGEMM_ARGS transa, transb, m, n, k, alpha, a, ia, ja, desca, b, ib, jb, descb, beta, \
	c, ic, jc, descc

typedef void pgemm_fn(PGEMM_PARAMS);

static void call_next(const char *symbol, pgemm_fn **next, PGEMM_PARAMS)
{
	if (!*next)
		*next = (pgemm_fn *)dlsym(RTLD_NEXT, symbol);
	if (!*next) {
		fprintf(stderr, "starpu_gemm_scalapack: no %s after libstarpu_gemm_scalapack in link "
		        "order: link ScaLAPACK after it\n", symbol);
		return;
	}
	(*next)(PGEMM_ARGS);
}

/* --- scalars --------------------------------------------------------------------------- */

static double part(const struct sg_precision *p, const void *x, int k)
{
	int single = p->elemsize == (p->is_complex ? 2 : 1) * sizeof(float);
	return single ? ((const float *)x)[k] : ((const double *)x)[k];
}

/* As PBLAS compares: both parts, in the precision's type. */
static int scalar_is(const struct sg_precision *p, const void *x, double re)
{
	return part(p, x, 0) == re && (!p->is_complex || part(p, x, 1) == 0);
}

struct scaling {
	const struct sg_precision *p;
	const void *beta;
};

/* C = beta C on one stretch (beta = 0 writes zeros without reading C, as PBLAS does). */
static void scale_run(void *x, int count, const void *arg)
{
	const struct scaling *s = arg;
	s->p->scale(x, count, s->beta);
}

/* --- the call ------------------------------------------------------------------------------ */

static int read_args(struct sg_pgemm_args *g, char prec, PGEMM_PARAMS)
{
	*g = (struct sg_pgemm_args){
		.prec = prec, .transA = (char)toupper((unsigned char)*transa),
		.transB = (char)toupper((unsigned char)*transb), .m = *m, .n = *n, .k = *k,
		.alpha = alpha, .beta = beta, .A = (void *)a, .B = (void *)b, .C = c,
		.ia = *ia, .ja = *ja, .ib = *ib, .jb = *jb, .ic = *ic, .jc = *jc };
	if (sg_pblas_desc_read(desca, &g->a) || sg_pblas_desc_read(descb, &g->b) ||
	    sg_pblas_desc_read(descc, &g->c))
		return -EINVAL;
	Cblacs_gridinfo(g->a.ctxt, &g->nprow, &g->npcol, &g->myrow, &g->mycol);
	return g->nprow == -1 ? -EINVAL : 0;
}

static int above_threshold(const struct sg_pgemm_args *g)
{
	if (g->m < 0 || g->n < 0 || g->k < 0)
		return 0;
	int64_t threshold = sg_scalapack_threshold();
	/* M*N fits in 62 bits; the product with K saturates instead of overflowing. */
	int64_t mn = g->m * g->n;
	return g->k == 0 || mn <= INT64_MAX / g->k ? mn * g->k >= threshold : 1;
}

/* Replicated operands (RSRC or CSRC = -1) are legal in PBLAS but not redistributed here. */
static int distributed(const struct sg_pgemm_args *g)
{
	const struct sg_pblas_desc *d[] = { &g->a, &g->b, &g->c };
	for (int x = 0; x < 3; x++)
		if (d[x]->rows.src < 0 || d[x]->cols.src < 0)
			return 0;
	return 1;
}

/* Every process of the grid gets the same answer: ok where all said ok. */
static int all_agree(MPI_Comm comm, int ok)
{
	int all = 0;
	SG_MPI_FATAL(MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm));
	return all;
}

/* One operand: its sub-matrix, rows x cols as stored (op-independent), from (i, j). */
static int plan_operand(struct sg_redist *r, const struct sg_pgemm_args *g, MPI_Comm comm,
                        const struct sg_pblas_desc *d, void *local, int64_t i, int64_t j,
                        int64_t rows, int64_t cols, int tile)
{
	const struct sg_precision *p = sg_precision(g->prec);
	struct sg_bc_axis row_axis = d->rows, col_axis = d->cols;
	row_axis.nprocs = g->nprow;
	col_axis.nprocs = g->npcol;
	return sg_redist_plan(r, p->elemsize, p->mpi_type, comm, g->nprow, g->npcol, local,
	                      d->lld, &row_axis, &col_axis, i - 1, j - 1, rows, cols, tile);
}

struct operands {
	struct sg_redist redist[3];          /* A, B, C */
	struct starpu_gemm_desc *desc[3];
	struct sg_redist_scratch *scratch;
};

static void release_operands(struct operands *o, int failed)
{
	for (int x = 0; x < 3; x++)
		sg_redist_free(&o->redist[x]);
	if (o->desc[0] || o->scratch)
		sg_scalapack_descs_done(failed);
}

/* Collective; 0 when all three plans and their buffers exist on every rank. */
static int plan_operands(struct operands *o, const struct sg_pgemm_args *g, MPI_Comm comm,
                         int tile)
{
	int nota = g->transA == 'N', notb = g->transB == 'N';
	int ret = plan_operand(&o->redist[0], g, comm, &g->a, g->A, g->ia, g->ja,
	                       nota ? g->m : g->k, nota ? g->k : g->m, tile);
	if (!ret)
		ret = plan_operand(&o->redist[1], g, comm, &g->b, g->B, g->ib, g->jb,
		                   notb ? g->k : g->n, notb ? g->n : g->k, tile);
	if (!ret)
		ret = plan_operand(&o->redist[2], g, comm, &g->c, g->C, g->ic, g->jc, g->m, g->n,
		                   tile);
	if (!all_agree(comm, ret == 0))
		return -ENOMEM;
	return sg_scalapack_scratch(&o->scratch, o->redist, 3);
}

/* Collective: the library's descriptors, dealt on the BLACS grid's shape. */
static int get_descs(struct operands *o, const struct sg_pgemm_args *g, MPI_Comm comm,
                     int tile)
{
	int nota = g->transA == 'N', notb = g->transB == 'N';
	int64_t shape[3][2] = { { nota ? g->m : g->k, nota ? g->k : g->m },
	                        { notb ? g->k : g->n, notb ? g->n : g->k }, { g->m, g->n } };
	return sg_scalapack_descs(o->desc, g->prec, shape, tile, g->nprow, g->npcol, comm);
}

struct timings {
	double in, compute, out;
	int on_node; /* the redistributions went through the node's shared memory */
	int overlapped; /* ... beside the product (doors/redistribute_flow.h): in is then the
	                 * planning and the copies' start, out the rest of C's copies after it */
	double waited;  /* overlapped: how long rank 0's walk waited for its tasks' tiles */
	int copiers;    /* overlapped: rank 0's copying threads */
};

/* The product with the moves beside it: the tiles are filled as the walk goes, C's go back
 * as they are done. 1 when done so (ret: the product's), 0 when the flow cannot be used here
 * (nothing was moved). t0: when the call began. */
static int multiply_overlapped(const struct sg_pgemm_args *g, struct operands *o, int in,
                               const void *beta, MPI_Comm comm, int tile, double t0,
                               struct timings *t, int *ret)
{
	/* The product's plan, made here so that the copies follow its walk. */
	struct starpu_gemm_opts opts;
	starpu_gemm_opts_init(&opts);
	opts.beta_zero = scalar_is(sg_precision(g->prec), beta, 0);
	struct starpu_gemm_dist dist = { .kind = STARPU_GEMM_DIST_2D_BLOCK_CYCLIC, .P = g->nprow,
	                                 .Q = g->npcol };
	struct starpu_gemm_plan plan;
	if (!all_agree(comm, starpu_gemm_plan_sizes(&plan, g->prec, g->transA, g->transB, g->m,
	                                            g->n, g->k, tile, &dist, comm, &opts) == 0))
		return 0;
	struct sg_redist_flow *f = sg_redist_flow_start(o->redist, o->desc, in, g->transA,
	                                                g->transB, &plan, o->scratch->threads);
	if (!f)
		return 0;
	opts.plan = &plan;
	opts.before_task = sg_redist_flow_before_task;
	opts.before_task_arg = f;
	double t1 = MPI_Wtime();
	starpu_resume(); /* workers sleep outside this (doors/scalapack_runtime.c) */
	struct starpu_gemm_request *req;
	*ret = starpu_gemm_pgemm_submit(g->transA, g->transB, g->alpha, o->desc[0], o->desc[1],
	                                beta, o->desc[2], &opts, &req);
	if (!*ret)
		*ret = starpu_gemm_wait(req, NULL);
	double t2 = MPI_Wtime();
	int copiers = sg_redist_flow_copiers(f);
	double waited = sg_redist_flow_finish(f, *ret == 0);
	starpu_pause();
	*t = (struct timings){ .in = t1 - t0, .compute = t2 - t1, .out = MPI_Wtime() - t2,
	                       .waited = waited, .on_node = 1, .overlapped = 1,
	                       .copiers = copiers };
	return 1;
}

/* Collective: the product through StarPU. 0, or an error agreed by every rank before C's
 * local array was written (the caller then hands the call to ScaLAPACK). */
/* stage_c, overlap: STARPU_GEMM_STAGE_C and STARPU_GEMM_SCALAPACK_OVERLAP as the grid agreed
 * on them. */
static int multiply(const struct sg_pgemm_args *g, MPI_Comm comm, int tile, int stage_c,
                    int overlap, struct timings *t)
{
	struct operands o = { 0 };
	double t0 = MPI_Wtime();
	int ret = plan_operands(&o, g, comm, tile);
	if (!ret)
		ret = get_descs(&o, g, comm, tile);
	/* With beta = 0, C is never read: its tiles are not filled (they hold whatever they
	 * held) and the tile GEMMs get beta = 0, which BLAS and cuBLAS define as not reading C.
	 * Else, as the one call does with a staged C, the product runs with beta = 0 too, and C's
	 * tiles are added to beta times the local arrays on the way back: C is neither moved in
	 * (a third of the bytes before the product, through memory or MPI) nor loaded onto the
	 * GPUs (STARPU_GEMM_STAGE_C=1: moved in and updated, as before). */
	const struct sg_precision *p = sg_precision(g->prec);
	int read_c = !scalar_is(p, g->beta, 0);
	const void *beta = g->beta;
	if (!ret && read_c && !stage_c) {
		sg_add_back_set(&o.redist[2].add_back, p, g->beta);
		read_c = 0;
		beta = p->zero;
	}
	if (!ret && overlap &&
	    multiply_overlapped(g, &o, read_c ? 3 : 2, beta, comm, tile, t0, t, &ret)) {
		release_operands(&o, ret != 0);
		return ret;
	}
	int on_node = 1;
	for (int x = 0; !ret && x < (read_c ? 3 : 2); x++)
		on_node &= sg_redist_to_tiles(&o.redist[x], o.desc[x], o.scratch);
	double t1 = MPI_Wtime();
	if (!ret) {
		/* Workers sleep outside this (doors/scalapack_runtime.c). */
		starpu_resume();
		ret = starpu_gemm_pgemm(g->transA, g->transB, g->alpha, o.desc[0], o.desc[1], beta,
		                        o.desc[2], NULL, NULL);
		starpu_pause();
	}
	double t2 = MPI_Wtime();
	if (!ret)
		on_node &= sg_redist_from_tiles(&o.redist[2], o.desc[2], o.scratch);
	release_operands(&o, ret != 0);
	*t = (struct timings){ .in = t1 - t0, .compute = t2 - t1, .out = MPI_Wtime() - t2,
	                       .on_node = on_node };
	return ret;
}

/* A grid of one process: the local arrays are the whole matrices, column-major with LLD
 * (whatever MB and NB), which is the one call's layout: it multiplies them where they lie, its
 * copier threads staging them through pinned tiles while the GPUs compute, instead of a
 * redistribution before and after (on one H100, n = 32768: bench/notes-arrays.md). */
static int multiply_in_place(const struct sg_pgemm_args *g, int tile, struct timings *t)
{
	size_t elemsize = sg_precision(g->prec)->elemsize;
	const char *A = (const char *)g->A + ((g->ia - 1) + (g->ja - 1) * g->a.lld) * elemsize;
	const char *B = (const char *)g->B + ((g->ib - 1) + (g->jb - 1) * g->b.lld) * elemsize;
	char *C = (char *)g->C + ((g->ic - 1) + (g->jc - 1) * g->c.lld) * elemsize;
	struct starpu_gemm_opts opts;
	starpu_gemm_opts_init(&opts);
	opts.tile = tile;
	double t0 = MPI_Wtime();
	starpu_resume(); /* workers sleep outside this (doors/scalapack_runtime.c) */
	int ret = starpu_gemm_gemm_ex(g->prec, g->transA, g->transB, g->m, g->n, g->k, g->alpha,
	                              A, g->a.lld, B, g->b.lld, g->beta, C, g->c.lld, &opts,
	                              NULL);
	starpu_pause();
	*t = (struct timings){ .compute = MPI_Wtime() - t0 };
	return ret;
}

/* alpha = 0 or K = 0: C = beta C where it lies. Only this rank's runs are used (any tile will
 * do); without memory for them the call goes to PBLAS, which scales C locally too. */
static int scale_c(const struct sg_pgemm_args *g, MPI_Comm comm, const char *symbol)
{
	struct sg_redist c;
	plan_operand(&c, g, comm, &g->c, g->C, g->ic, g->jc, g->m, g->n, 1);
	int ret = c.row_runs && c.col_runs ? 0 : -ENOMEM;
	if (ret == 0)
		sg_redist_for_local(&c, scale_run, &(struct scaling){ sg_precision(g->prec), g->beta });
	sg_redist_free(&c);
	if (ret == 0 && g->myrow == 0 && g->mycol == 0 && sg_scalapack_verbose())
		fprintf(stderr, "starpu_gemm_scalapack: %s M=%lld N=%lld K=%lld grid=%dx%d: "
		        "C = beta C in place, no product\n", symbol, (long long)g->m,
		        (long long)g->n, (long long)g->k, g->nprow, g->npcol);
	return ret;
}

/* STARPU_GEMM_SCALAPACK_OVERLAP as the grid's smallest value decides: 0 (a rank said 0: off),
 * 1 (a rank left it unset: where every rank has a GPU), 2 (every rank said 1: on). */
static int overlap_setting(void)
{
	int64_t v = sg_env_int(SG_ENV_GEMM_SCALAPACK_OVERLAP); /* -1: unset */
	return v < 0 ? 1 : 2 * (int)v;
}

/* Collective over the grid. 0 when the call was done here, else the caller hands it on. */
static int door(const struct sg_pgemm_args *g, const char *symbol)
{
	MPI_Comm comm = sg_scalapack_grid_comm(g->a.ctxt);
	int ok = sg_pgemm_args_valid(g) && distributed(g) &&
	         sg_scalapack_runtime(g->myrow == 0 && g->mycol == 0) == 0;
	/* All ranks must cut the matrices alike, and move C alike: the smallest wins. */
	int mine[5] = { ok, ok && starpu_cuda_worker_get_count() > 0, sg_scalapack_tile_setting(),
	                (int)sg_env_int(SG_ENV_GEMM_STAGE_C),
	                overlap_setting() };
	int all[5];
	SG_MPI_FATAL(MPI_Allreduce(mine, all, 5, MPI_INT, MPI_MIN, comm));
	if (!all[0])
		return -EINVAL;

	/* PBLAS's quick returns, and alpha = 0 or K = 0 (C = beta C) without moving anything. */
	const struct sg_precision *p = sg_precision(g->prec);
	int no_product = scalar_is(p, g->alpha, 0) || g->k == 0;
	if (g->m == 0 || g->n == 0 || (no_product && scalar_is(p, g->beta, 1)))
		return 0;
	if (no_product)
		return scale_c(g, comm, symbol);

	struct timings t = { 0 };
	int single = g->nprow * g->npcol == 1;
	/* The one call picks its own tile for the workers unless the setting says. */
	int cpus = (int)starpu_cpu_worker_get_count(), all_cpus = cpus;
	if (!single)
		SG_MPI_FATAL(MPI_Allreduce(&cpus, &all_cpus, 1, MPI_INT, MPI_SUM, comm));
	int tile = single ? all[2]
	                  : starpu_gemm_tile_rule(g->prec, g->m, g->n, g->k, all[1], all_cpus,
	                                          all[2]);
	/* The driver's limits (tile handles within host memory...) before anything is
	 * allocated: the plan from the sizes, which says why on the grid's first process. The
	 * one call checks them itself. */
	struct starpu_gemm_plan plan;
	struct starpu_gemm_dist dist = { .kind = STARPU_GEMM_DIST_2D_BLOCK_CYCLIC, .P = g->nprow,
	                                 .Q = g->npcol };
	if (!single && !all_agree(comm, starpu_gemm_plan_sizes(&plan, g->prec, g->transA,
	                                                       g->transB, g->m, g->n, g->k, tile,
	                                                       &dist, comm, NULL) == 0))
		return -ENOMEM;
	/* The moves beside the product where GPUs compute it (CPU workers would share the cores
	 * with the copiers), unless the setting says. */
	int overlap = all[4] == 2 || (all[4] == 1 && all[1]);
	int ret = single ? multiply_in_place(g, tile, &t)
	                 : multiply(g, comm, tile, all[3], overlap, &t);
	int rank;
	SG_MPI_FATAL(MPI_Comm_rank(comm, &rank));
	if (rank == 0 && sg_scalapack_verbose() && single)
		fprintf(stderr, "starpu_gemm_scalapack: %s M=%lld N=%lld K=%lld op=%c%c grid=1x1%s: "
		        "one process: the arrays in place, through starpu_gemm_gemm, in %.6f s\n",
		        symbol, (long long)g->m, (long long)g->n, (long long)g->k, g->transA,
		        g->transB, ret ? " (failed, handed to ScaLAPACK)" : "", t.compute);
	else if (rank == 0 && sg_scalapack_verbose() && t.overlapped)
		fprintf(stderr, "starpu_gemm_scalapack: %s M=%lld N=%lld K=%lld op=%c%c grid=%dx%d "
		        "tile=%d copy_threads=%d%s: moves planned in %.6f s, product with the moves "
		        "beside it %.6f s (its walk waited %.6f s for tiles), C's last copies %.6f s "
		        "(the node's shared memory, no MPI)\n", symbol, (long long)g->m,
		        (long long)g->n, (long long)g->k, g->transA, g->transB, g->nprow, g->npcol,
		        tile, t.copiers, ret ? " (failed, handed to ScaLAPACK)" : "",
		        t.in, t.compute, t.waited, t.out);
	else if (rank == 0 && sg_scalapack_verbose())
		fprintf(stderr, "starpu_gemm_scalapack: %s M=%lld N=%lld K=%lld op=%c%c grid=%dx%d "
		        "tile=%d copy_threads=%d%s: redistribution in %.6f s, compute %.6f s, "
		        "redistribution out %.6f s (%s)\n", symbol, (long long)g->m,
		        (long long)g->n, (long long)g->k, g->transA, g->transB, g->nprow, g->npcol,
		        tile, sg_scalapack_threads(), ret ? " (failed, handed to ScaLAPACK)" : "",
		        t.in, t.compute, t.out,
		        t.on_node ? "the node's shared memory, no MPI" : "MPI");
	return ret;
}

static void pgemm(char prec, const char *symbol, pgemm_fn **next, PGEMM_PARAMS)
{
	struct sg_pgemm_args g;
	/* The settings are checked before the threshold: the processes must agree on it. */
	if (read_args(&g, prec, PGEMM_ARGS) == 0 &&
	    sg_scalapack_grid_agrees(g.a.ctxt, g.myrow == 0 && g.mycol == 0) &&
	    above_threshold(&g) &&
	    sg_scalapack_grid_can_start(g.a.ctxt, g.myrow == 0 && g.mycol == 0) &&
	    door(&g, symbol) == 0)
		return;
	call_next(symbol, next, PGEMM_ARGS);
}

#define PGEMM_DOOR(prec, name)                          \
	void name(PGEMM_PARAMS);                        \
	void name(PGEMM_PARAMS)                         \
	{                                               \
		static pgemm_fn *next;                  \
		pgemm(prec, #name, &next, PGEMM_ARGS);  \
	}

PGEMM_DOOR('s', psgemm_)
PGEMM_DOOR('d', pdgemm_)
PGEMM_DOOR('c', pcgemm_)
PGEMM_DOOR('z', pzgemm_)
