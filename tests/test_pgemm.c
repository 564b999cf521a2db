/* starpu_gemm_pgemm against a CBLAS reference: random precisions, transposes, ragged shapes
 * (including dimensions below the tile and 1), ownership functions, alpha/beta; the result
 * is gathered on rank 0 and compared norm-wise: ||C - Cref|| / (||A|| ||B|| K eps) <= 10.
 *   test_pgemm P Q NCASES [forced|home]  fixed grid; "forced" also runs each case with
 *                                    b=c=d=1, lookahead=1, with the throttle off and with
 *                                    C's loads spread over chunks of d=1; "home"
 *                                    runs each case with C kept in host memory (opts.c_home:
 *                                    scratch tiles, added to beta C by a CPU worker), also
 *                                    with b=c=d=1, lookahead=1
 *   test_pgemm random NCASES         every case draws its grid (any P x Q = ranks), sizes
 *                                    up to 1500, tile, distribution and plan parameters
 * Cases come from SEED (printed), so one failing run can be replayed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "test_common.h"
#include "common/blas.h"
#include "common/precision.h"

struct gemm_case {
	char prec, transA, transB;
	int64_t M, N, K;
	int tile;
	enum starpu_gemm_dist_kind kind;
	double complex alpha, beta;
};

static int spread_products; /* products whose plan spread C's loads (plan.c_spread) */

/* Runs one product with opts and returns the scaled residual on rank 0 (0 elsewhere). */
static double run_case(const struct gemm_case *tc, int P, int Q, const struct starpu_gemm_opts *opts,
                       uint64_t seed)
{
	int nranks = P * Q;
	struct starpu_gemm_dist dist = { tc->kind, P, Q, sgt_user_owner, &nranks };
	int64_t am = tc->transA == 'N' ? tc->M : tc->K, an = tc->transA == 'N' ? tc->K : tc->M;
	int64_t bm = tc->transB == 'N' ? tc->K : tc->N, bn = tc->transB == 'N' ? tc->N : tc->K;
	struct starpu_gemm_desc *A, *B, *C;
	if (starpu_gemm_desc_create(&A, tc->prec, am, an, tc->tile, &dist, MPI_COMM_WORLD) ||
	    starpu_gemm_desc_create(&B, tc->prec, bm, bn, tc->tile, &dist, MPI_COMM_WORLD) ||
	    starpu_gemm_desc_create(&C, tc->prec, tc->M, tc->N, tc->tile, &dist, MPI_COMM_WORLD)) {
		sgt_expect(0, "descriptor creation");
		return INFINITY;
	}
	starpu_gemm_desc_fill_random(A, seed + 1);
	starpu_gemm_desc_fill_random(B, seed + 2);
	starpu_gemm_desc_fill_random(C, seed + 3);
	double complex alpha_v[1], beta_v[1];
	sgt_store(tc->prec, tc->alpha, alpha_v, 0);
	sgt_store(tc->prec, tc->beta, beta_v, 0);
	struct starpu_gemm_stats stats;
	int ret = starpu_gemm_pgemm(tc->transA, tc->transB, alpha_v, A, B, beta_v, C, opts, &stats);
	if (ret)
		sgt_expect(0, "starpu_gemm_pgemm returned %d", ret);
	/* C's loads spread where asked and possible: beta reads C and a block has chunks. */
	else if (opts && opts->c_spread == 1 && tc->beta != 0 && stats.plan.Z >= 2)
		sgt_expect(stats.plan.c_spread, "C's loads spread asked, Z = %d, not planned",
		           stats.plan.Z);
	spread_products += !ret && stats.plan.c_spread;

	size_t es = starpu_gemm_elemsize(tc->prec);
	void *Cg = sgt_rank == 0 ? malloc((size_t)(tc->M * tc->N) * es) : NULL;
	starpu_gemm_desc_gather(C, Cg, 0);
	double residual = 0;
	if (sgt_rank == 0) {
		void *Ar = sgt_regenerate(tc->prec, seed + 1, am, an);
		void *Br = sgt_regenerate(tc->prec, seed + 2, bm, bn);
		void *Cr = sgt_regenerate(tc->prec, seed + 3, tc->M, tc->N);
		sg_cblas_gemm(tc->prec, tc->transA, tc->transB, (int)tc->M, (int)tc->N, (int)tc->K,
		              alpha_v, Ar, (int)am, Br, (int)bm, beta_v, Cr, (int)tc->M);
		double eps = sg_precision(tc->prec)->eps;
		residual = sgt_norm(tc->prec, tc->M * tc->N, Cg, Cr) /
		           (sgt_norm(tc->prec, am * an, Ar, NULL) * sgt_norm(tc->prec, bm * bn, Br, NULL) *
		            (double)tc->K * eps);
		free(Ar);
		free(Br);
		free(Cr);
		free(Cg);
	}
	starpu_gemm_desc_destroy(A);
	starpu_gemm_desc_destroy(B);
	starpu_gemm_desc_destroy(C);
	return residual;
}

static void draw_case(struct gemm_case *tc, int n, int max_dim)
{
	const char precs[] = "sdcz", trans[] = "NTC";
	tc->prec = precs[sgt_rand_int(0, 3)];
	tc->transA = trans[sgt_rand_int(0, 2)];
	tc->transB = trans[sgt_rand_int(0, 2)];
	/* Mostly small and ragged; one case in five up to max_dim; some 1 or below the tile. */
	int top = n % 5 == 4 ? max_dim : 160;
	tc->M = sgt_rand_int(1, top);
	tc->N = sgt_rand_int(1, top);
	tc->K = sgt_rand_int(1, top);
	int64_t big = tc->M > tc->N ? tc->M : tc->N;
	big = big > tc->K ? big : tc->K;
	/* At most ~12 tiles a dimension keeps each case to a couple thousand tasks. */
	tc->tile = sgt_rand_int((int)(big + 11) / 12 > 4 ? (int)(big + 11) / 12 : 4, (int)big + 8);
	if (n % 5 == 1)
		tc->K = 1;
	if (n % 5 == 2)
		tc->M = sgt_rand_int(1, tc->tile);
	if (n % 5 == 3)
		tc->N = 1;
	tc->kind = (enum starpu_gemm_dist_kind)sgt_rand_int(0, 3);
	/* Any sign; 0 and 1 often, since BLAS treats them specially (beta = 0: C0 is not read). */
	double complex special[2] = { 0, 1 };
	int pick = sgt_rand_int(0, 7);
	tc->alpha = pick < 2 ? special[pick] : (sgt_rand_int(-20, 20) / 10.0) +
	                                       I * (sgt_rand_int(-10, 10) / 10.0);
	pick = sgt_rand_int(0, 7);
	tc->beta = pick < 2 ? special[pick] : (sgt_rand_int(-20, 20) / 10.0) +
	                                      I * (sgt_rand_int(-10, 10) / 10.0);
	if (!sg_precision(tc->prec)->is_complex) {
		tc->alpha = creal(tc->alpha);
		tc->beta = creal(tc->beta);
	}
}

static void report(const struct gemm_case *tc, int P, int Q, const char *plan, double r)
{
	if (sgt_rank == 0)
		sgt_expect(r <= STARPU_GEMM_CHECK_BOUND,
		           "pgemm %c%c%c M=%lld N=%lld K=%lld t=%d grid %dx%d dist %s plan %s "
		           "alpha %g%+gi beta %g%+gi: residual %.3g",
		           tc->prec, tc->transA, tc->transB, (long long)tc->M, (long long)tc->N,
		           (long long)tc->K, tc->tile, P, Q, sgt_dist_name(tc->kind), plan,
		           creal(tc->alpha), cimag(tc->alpha), creal(tc->beta), cimag(tc->beta), r);
}

/* opts.before_task: every task of the product once, each C tile's k steps in order. */
struct task_count {
	int Mt, Nt, Kt;
	int64_t calls, misordered;
	int *next_k; /* per C tile: the k its next call must have */
};

static void count_task(void *arg, int i, int j, int k)
{
	struct task_count *tc = arg;
	tc->calls++;
	if (i < 0 || i >= tc->Mt || j < 0 || j >= tc->Nt || tc->next_k[j * tc->Mt + i]++ != k)
		tc->misordered++;
}

static void check_before_task(const struct gemm_case *tc, int P, int Q, uint64_t seed)
{
	struct task_count count = { (int)((tc->M + tc->tile - 1) / tc->tile),
	                            (int)((tc->N + tc->tile - 1) / tc->tile),
	                            (int)((tc->K + tc->tile - 1) / tc->tile), 0, 0, NULL };
	count.next_k = calloc((size_t)count.Mt * count.Nt, sizeof(int));
	struct starpu_gemm_opts opts;
	starpu_gemm_opts_init(&opts);
	opts.before_task = count_task;
	opts.before_task_arg = &count;
	report(tc, P, Q, "before_task", run_case(tc, P, Q, &opts, seed));
	int64_t tasks = (int64_t)count.Mt * count.Nt * count.Kt;
	/* A rank that holds no tile of A, B or C does not walk. */
	sgt_expect((count.calls == tasks || count.calls == 0) && count.misordered == 0,
	           "before_task on rank %d: %lld calls for %lld tasks, %lld out of order", sgt_rank,
	           (long long)count.calls, (long long)tasks, (long long)count.misordered);
	if (sgt_rank == 0)
		printf("before_task: %lld calls on rank 0, one per task, each C tile's k in order\n",
		       (long long)count.calls);
	free(count.next_k);
}

/* Fixed grid: the issue-4 matrix of grids, with forced plans on request. */
static void fixed_cases(int P, int Q, int ncases, int forced, int home, uint64_t seed)
{
	for (int n = 0; n < ncases; n++) {
		struct gemm_case tc;
		draw_case(&tc, n, 160);
		tc.prec = "sdcz"[n % 4];
		if (!sg_precision(tc.prec)->is_complex) {
			tc.alpha = creal(tc.alpha);
			tc.beta = creal(tc.beta);
		}
		tc.kind = (enum starpu_gemm_dist_kind)(n % 4);
		uint64_t case_seed = seed + 10 * (uint64_t)n;
		struct starpu_gemm_opts opts;
		starpu_gemm_opts_init(&opts);
		opts.c_home = home;
		report(&tc, P, Q, home ? "C at home" : "auto", run_case(&tc, P, Q, &opts, case_seed));
		if (n == 0 && !home)
			check_before_task(&tc, P, Q, case_seed);
		if (home) {
			opts.b = opts.c = opts.d = 1;
			opts.lookahead = 1;
			report(&tc, P, Q, "C at home, b=c=d=1,l=1", run_case(&tc, P, Q, &opts, case_seed));
		}
		if (!forced)
			continue;
		opts.b = opts.c = opts.d = 1;
		opts.lookahead = 1;
		report(&tc, P, Q, "b=c=d=1,l=1", run_case(&tc, P, Q, &opts, case_seed));
		/* C's loads spread over the chunks: the updates before a tile's chunk go to its
		 * scratch tile, added to C after C's first update there (CPU workers here). */
		starpu_gemm_opts_init(&opts);
		opts.d = 1;
		opts.c_spread = 1;
		report(&tc, P, Q, "C spread, d=1", run_case(&tc, P, Q, &opts, case_seed));
		opts.b = opts.c = 1; /* several blocks, ragged chunks */
		opts.d = 2;
		opts.lookahead = 0;
		report(&tc, P, Q, "C spread, b=c=1,d=2,l=0", run_case(&tc, P, Q, &opts, case_seed));
		starpu_gemm_opts_init(&opts);
		opts.d = 3;
		opts.c_spread = 1;
		opts.no_throttle = 1;
		report(&tc, P, Q, "C spread, d=3, unthrottled", run_case(&tc, P, Q, &opts, case_seed));
		starpu_gemm_opts_init(&opts);
		opts.no_throttle = 1;
		report(&tc, P, Q, "unthrottled", run_case(&tc, P, Q, &opts, case_seed));
	}
	if (forced) {
		sgt_expect(spread_products > 0, "no product spread C's loads");
		if (sgt_rank == 0)
			printf("C's loads spread in %d of the products\n", spread_products);
	}
}

/* Randomized property test: grid, sizes, distribution and plan all drawn per case. */
static void random_cases(int ncases, uint64_t seed)
{
	for (int n = 0; n < ncases; n++) {
		struct gemm_case tc;
		draw_case(&tc, n, 1500);
		int P = sgt_rand_divisor(sgt_size);
		struct starpu_gemm_opts opts;
		starpu_gemm_opts_init(&opts);
		char plan[64] = "auto";
		switch (sgt_rand_int(0, 5)) {
		case 0:
			break;
		case 5:
			opts.c_spread = 1;
			opts.d = sgt_rand_int(1, 3);
			snprintf(plan, sizeof(plan), "C spread, d=%d", opts.d);
			break;
		case 4:
			opts.c_home = 1;
			strcpy(plan, "C at home");
			break;
		case 1:
			opts.no_throttle = 1;
			strcpy(plan, "unthrottled");
			break;
		default:
			opts.b = sgt_rand_int(1, 4);
			opts.c = sgt_rand_int(1, 4);
			opts.d = sgt_rand_int(1, 4);
			opts.lookahead = sgt_rand_int(0, 3);
			snprintf(plan, sizeof(plan), "b=%d,c=%d,d=%d,l=%d", opts.b, opts.c, opts.d,
			         opts.lookahead);
		}
		report(&tc, P, sgt_size / P, plan,
		       run_case(&tc, P, sgt_size / P, &opts, seed + 10 * (uint64_t)n));
	}
}

int main(int argc, char **argv)
{
	sgt_init(&argc, &argv);
	uint64_t seed = sgt_seed();
	if (argc == 3 && !strcmp(argv[1], "random")) {
		random_cases(atoi(argv[2]), seed);
	} else if (argc >= 4) {
		fixed_cases(atoi(argv[1]), atoi(argv[2]), atoi(argv[3]),
		            argc > 4 && !strcmp(argv[4], "forced"), argc > 4 && !strcmp(argv[4], "home"),
		            seed);
	} else {
		return sgt_usage("test_pgemm P Q NCASES [forced|home] | test_pgemm random NCASES");
	}
	return sgt_finish();
}
