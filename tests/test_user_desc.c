/* Descriptors over the caller's memory through starpu_gemm_pgemm, on 1-4 ranks:
 *   - over column-major arrays (starpu_gemm_desc_create_lapack) with ld > rows, each rank's
 *     array holding only the tiles it owns and NaN everywhere else (so any read of a tile it
 *     does not own would poison C), and nothing outside its tiles of C written;
 *   - over tiles the caller allocated one by one (starpu_gemm_desc_create_user, padded ld);
 *   - process-local descriptors (STARPU_GEMM_COMM_LOCAL) inside this MPI program;
 *   - composition: two products on the same C submitted back to back without waiting
 *     (C = A B + C twice, so C must end as C0 + 2 A B), an independent product submitted
 *     between them, and the caller's own StarPU tasks in flight meanwhile.
 * Every result goes through starpu_gemm_check (CBLAS reference regenerated from the seeds,
 * bound STARPU_GEMM_CHECK_BOUND).   test_user_desc P Q */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "test_common.h"
#include "common/precision.h"

enum { SEED_A = 11, SEED_B = 12, SEED_C = 13, SEED_D = 14 };

/* A rank's copy of the global m x n array (ld = m + 3): its own tiles random, NaN elsewhere. */
struct array {
	char *x;
	int64_t m, n, ld;
};

static void array_make(struct array *a, char prec, int64_t m, int64_t n, int tile,
                       const struct starpu_gemm_dist *dist, uint64_t seed)
{
	const struct sg_precision *p = sg_precision(prec);
	a->m = m;
	a->n = n;
	a->ld = m + 3;
	a->x = malloc((size_t)(a->ld * n) * p->elemsize);
	for (int64_t j = 0; j < n; j++)
		for (int64_t i = 0; i < a->ld; i++) {
			int owner = starpu_gemm_dist_owner(dist, i / tile, j / tile);
			if (i < m && owner == sgt_rank)
				starpu_gemm_random_element(prec, seed, i, j, a->x + (i + j * a->ld) * p->elemsize);
			else
				sg_store(p, a->x, i + j * a->ld, NAN);
		}
}

/* Whether every element outside this rank's tiles is still NaN. */
static int others_untouched(const struct array *a, char prec, int tile,
                            const struct starpu_gemm_dist *dist)
{
	const struct sg_precision *p = sg_precision(prec);
	for (int64_t j = 0; j < a->n; j++)
		for (int64_t i = 0; i < a->ld; i++)
			if ((i >= a->m || starpu_gemm_dist_owner(dist, i / tile, j / tile) != sgt_rank) &&
			    !isnan(creal(sg_load(p, a->x, i + j * a->ld))))
				return 0;
	return 1;
}

static void expect_product(char ta, char tb, double complex alpha, struct starpu_gemm_desc *A,
                           uint64_t sa, struct starpu_gemm_desc *B, uint64_t sb,
                           double complex beta, struct starpu_gemm_desc *C, uint64_t sc,
                           const char *what)
{
	char prec = starpu_gemm_desc_prec(C);
	double complex al[1], be[1];
	sgt_store(prec, alpha, al, 0);
	sgt_store(prec, beta, be, 0);
	double residual = INFINITY;
	int ret = starpu_gemm_check(ta, tb, al, A, sa, B, sb, be, C, sc, 0, &residual, NULL, NULL);
	sgt_expect(ret == 0 && residual <= STARPU_GEMM_CHECK_BOUND, "%cgemm %c%c %s: residual %.2e",
	           prec, ta, tb, what, residual);
}

static void over_arrays(char prec, char ta, char tb, int64_t M, int64_t N, int64_t K, int tile,
                        const struct starpu_gemm_dist *dist)
{
	struct array a, b, c;
	array_make(&a, prec, ta == 'N' ? M : K, ta == 'N' ? K : M, tile, dist, SEED_A);
	array_make(&b, prec, tb == 'N' ? K : N, tb == 'N' ? N : K, tile, dist, SEED_B);
	array_make(&c, prec, M, N, tile, dist, SEED_C);
	struct starpu_gemm_desc *A, *B, *C;
	int ret = starpu_gemm_desc_create_lapack(&A, prec, a.m, a.n, tile, a.x, a.ld, dist, MPI_COMM_WORLD);
	ret |= starpu_gemm_desc_create_lapack(&B, prec, b.m, b.n, tile, b.x, b.ld, dist, MPI_COMM_WORLD);
	ret |= starpu_gemm_desc_create_lapack(&C, prec, c.m, c.n, tile, c.x, c.ld, dist, MPI_COMM_WORLD);
	sgt_expect(ret == 0, "descriptors over arrays created");
	double complex alpha[1], beta[1];
	sgt_store(prec, 0.75 - 0.5 * I, alpha, 0);
	sgt_store(prec, -1.25 + 0.25 * I, beta, 0);
	ret = starpu_gemm_pgemm(ta, tb, alpha, A, B, beta, C, NULL, NULL);
	expect_product(ta, tb, 0.75 - 0.5 * I, A, SEED_A, B, SEED_B, -1.25 + 0.25 * I, C, SEED_C,
	               "over column-major arrays (ld = rows + 3)");
	starpu_gemm_desc_destroy(A);
	starpu_gemm_desc_destroy(B);
	starpu_gemm_desc_destroy(C);
	sgt_expect(ret == 0 && others_untouched(&c, prec, tile, dist) &&
	           others_untouched(&a, prec, tile, dist) && others_untouched(&b, prec, tile, dist),
	           "%cgemm: nothing outside this rank's tiles read as a number or written", prec);
	free(a.x);
	free(b.x);
	free(c.x);
}

/* Tiles the caller allocated one by one, with a padded leading dimension. */
struct tile_store {
	char *tiles[64][64];
	int tile;
	size_t elemsize;
};

static void *tile_address(int i, int j, int64_t *ld, void *arg)
{
	struct tile_store *s = arg;
	*ld = s->tile + 2;
	if (!s->tiles[i][j])
		s->tiles[i][j] = calloc((size_t)(s->tile + 2) * s->tile, s->elemsize);
	return s->tiles[i][j];
}

static void free_store(struct tile_store *s)
{
	for (int i = 0; i < 64; i++)
		for (int j = 0; j < 64; j++)
			free(s->tiles[i][j]);
	free(s);
}

static struct starpu_gemm_desc *user_desc(char prec, int64_t m, int64_t n, int tile,
                                          const struct starpu_gemm_dist *dist,
                                          struct tile_store **store, uint64_t seed)
{
	*store = calloc(1, sizeof(**store));
	(*store)->tile = tile;
	(*store)->elemsize = starpu_gemm_elemsize(prec);
	struct starpu_gemm_desc *d = NULL;
	int ret = starpu_gemm_desc_create_user(&d, prec, m, n, tile, tile_address, *store, dist,
	                                       MPI_COMM_WORLD);
	sgt_expect(ret == 0, "descriptor over caller tiles created (%lld x %lld)", (long long)m,
	           (long long)n);
	starpu_gemm_desc_fill_random(d, seed);
	return d;
}

/* C = A B + C twice, back to back, a product D = A^T op(B) between them, and the caller's
 * own tasks in flight: all submitted before anything is waited for. */
static void counter_task(void *buffers[], void *arg)
{
	(void)arg;
	int *x = (int *)STARPU_VARIABLE_GET_PTR(buffers[0]);
	(*x)++;
}

/* A CPU task where there are CPU workers; on a GPU node run with none, a task that runs
 * nowhere but still orders its accesses, its callback counting it. */
static struct starpu_codelet counter_cl = {
	.cpu_funcs = { counter_task }, .nbuffers = 1, .modes = { STARPU_RW }, .name = "caller_task",
};
static int nowhere_count;
static void count_nowhere(void *arg)
{
	(void)arg;
	__atomic_add_fetch(&nowhere_count, 1, __ATOMIC_SEQ_CST);
}

static void composed(char prec, int64_t M, int64_t N, int64_t K, int tile,
                     const struct starpu_gemm_dist *dist)
{
	struct tile_store *sa, *sb, *sc, *sd;
	struct starpu_gemm_desc *A = user_desc(prec, M, K, tile, dist, &sa, SEED_A);
	struct starpu_gemm_desc *B = user_desc(prec, K, N, tile, dist, &sb, SEED_B);
	struct starpu_gemm_desc *C = user_desc(prec, M, N, tile, dist, &sc, SEED_C);
	struct starpu_gemm_desc *D = user_desc(prec, K, N, tile, dist, &sd, SEED_D);
	double complex one[1], zero[1];
	sgt_store(prec, 1, one, 0);
	sgt_store(prec, 0, zero, 0);
	int counter = 0;
	nowhere_count = 0;
	if (starpu_cpu_worker_get_count() == 0)
		counter_cl.where = STARPU_NOWHERE;
	void (*callback)(void *) = counter_cl.where == STARPU_NOWHERE ? count_nowhere : NULL;
	starpu_data_handle_t h;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t)&counter, sizeof(counter));
	struct starpu_gemm_request *r1, *r2, *r3;
	int ret = starpu_gemm_pgemm_submit('N', 'N', one, A, B, one, C, NULL, &r1);
	for (int t = 0; t < 20; t++)
		ret |= starpu_task_insert(&counter_cl, STARPU_RW, h, STARPU_CALLBACK, callback, 0) < 0;
	/* An independent product between the two (M == K, so A^T B conforms). */
	ret |= starpu_gemm_pgemm_submit('T', 'N', one, A, B, zero, D, NULL, &r2);
	ret |= starpu_gemm_pgemm_submit('N', 'N', one, A, B, one, C, NULL, &r3);
	for (int t = 0; t < 20; t++)
		ret |= starpu_task_insert(&counter_cl, STARPU_RW, h, STARPU_CALLBACK, callback, 0) < 0;
	ret |= starpu_gemm_wait(r3, NULL);
	ret |= starpu_gemm_wait(r1, NULL);
	ret |= starpu_gemm_wait(r2, NULL);
	starpu_data_unregister(h);
	counter += nowhere_count;
	sgt_expect(ret == 0 && counter == 40, "3 products submitted back to back with 40 caller "
	           "tasks in flight: all returned 0, caller tasks ran %d times", counter);
	expect_product('N', 'N', 2, A, SEED_A, B, SEED_B, 1, C, SEED_C,
	               "C = A B + C twice without waiting: C0 + 2 A B");
	expect_product('T', 'N', 1, A, SEED_A, B, SEED_B, 0, D, SEED_D,
	               "D = A^T B submitted between them");
	starpu_gemm_desc_destroy(A);
	starpu_gemm_desc_destroy(B);
	starpu_gemm_desc_destroy(C);
	starpu_gemm_desc_destroy(D);
	free_store(sa);
	free_store(sb);
	free_store(sc);
	free_store(sd);
}

/* Process-local descriptors in an MPI program: each rank multiplies on its own. */
static void local_product(char prec, int64_t M, int64_t N, int64_t K, int tile)
{
	struct starpu_gemm_desc *A, *B, *C;
	int ret = starpu_gemm_desc_create(&A, prec, K, M, tile, NULL, STARPU_GEMM_COMM_LOCAL);
	ret |= starpu_gemm_desc_create(&B, prec, N, K, tile, NULL, STARPU_GEMM_COMM_LOCAL);
	ret |= starpu_gemm_desc_create(&C, prec, M, N, tile, NULL, STARPU_GEMM_COMM_LOCAL);
	starpu_gemm_desc_fill_random(A, SEED_A);
	starpu_gemm_desc_fill_random(B, SEED_B);
	starpu_gemm_desc_fill_random(C, SEED_C);
	double complex alpha[1], beta[1];
	sgt_store(prec, 2, alpha, 0);
	sgt_store(prec, 0.5, beta, 0);
	ret |= starpu_gemm_pgemm('T', 'C', alpha, A, B, beta, C, NULL, NULL);
	sgt_expect(ret == 0, "process-local descriptors: created and multiplied");
	expect_product('T', 'C', 2, A, SEED_A, B, SEED_B, 0.5, C, SEED_C, "process-local");
	starpu_gemm_desc_destroy(A);
	starpu_gemm_desc_destroy(B);
	starpu_gemm_desc_destroy(C);
}

/* Products chained without waiting on the library's tiles, which the ranks of a node read in
 * place (distrib/node_share.c): D = (A B) E, where the second product reads the first one's C
 * before the first is waited for, must equal the same two products each waited for. */
static void chained(char prec, int64_t n, int tile, const struct starpu_gemm_dist *dist)
{
	struct starpu_gemm_desc *m[6]; /* A, B, E, then C1, D and the waited-for D */
	int ret = 0;
	for (int x = 0; x < 6; x++)
		ret |= starpu_gemm_desc_create(&m[x], prec, n, n, tile, dist, MPI_COMM_WORLD);
	for (int x = 0; x < 3; x++)
		ret |= starpu_gemm_desc_fill_random(m[x], SEED_A + (uint64_t)x);
	double complex one[1], zero[1];
	sgt_store(prec, 1, one, 0);
	sgt_store(prec, 0, zero, 0);
	struct starpu_gemm_request *r1, *r2;
	ret |= starpu_gemm_pgemm_submit('N', 'N', one, m[0], m[1], zero, m[3], NULL, &r1);
	ret |= starpu_gemm_pgemm_submit('N', 'N', one, m[3], m[2], zero, m[4], NULL, &r2);
	ret |= starpu_gemm_wait(r1, NULL);
	ret |= starpu_gemm_wait(r2, NULL);
	ret |= starpu_gemm_pgemm('N', 'N', one, m[3], m[2], zero, m[5], NULL, NULL);
	size_t bytes = (size_t)n * n * starpu_gemm_elemsize(prec);
	int rank;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	void *d = rank == 0 ? malloc(bytes) : NULL, *ref = rank == 0 ? malloc(bytes) : NULL;
	ret |= starpu_gemm_desc_gather(m[4], d, 0);
	ret |= starpu_gemm_desc_gather(m[5], ref, 0);
	double err = rank == 0 ? sgt_rel_error(prec, n * n, d, ref) : 0;
	MPI_Bcast(&err, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	sgt_expect(ret == 0 && err < 1e-12, "(A B) E chained without waiting on the library's "
	           "tiles equals the products waited for: relative error %.2e", err);
	free(d);
	free(ref);
	for (int x = 0; x < 6; x++)
		starpu_gemm_desc_destroy(m[x]);
}

/* A leading dimension above INT_MAX is refused (StarPU registers 32 bits of it, the kernels
 * take an int): it used to be truncated, and StarPU asserted on 2^32 + 1 read as 1. */
static void *huge_ld_address(int i, int j, int64_t *ld, void *arg)
{
	*ld = ((int64_t)1 << 32) + 1;
	return arg;
}

static void huge_leading_dimension(void)
{
	static double array[64];
	struct starpu_gemm_desc *d = NULL;
	int ret = starpu_gemm_desc_create_lapack(&d, 'd', 20, 1, 16, array, ((int64_t)1 << 32) + 1,
	                                         NULL, STARPU_GEMM_COMM_LOCAL);
	int ret31 = starpu_gemm_desc_create_lapack(&d, 'd', 20, 1, 16, array,
	                                           ((int64_t)1 << 31) + 1, NULL,
	                                           STARPU_GEMM_COMM_LOCAL);
	int ret_user = starpu_gemm_desc_create_user(&d, 'd', 20, 1, 16, huge_ld_address, array,
	                                            NULL, STARPU_GEMM_COMM_LOCAL);
	sgt_expect(ret == -EINVAL && ret31 == -EINVAL && ret_user == -EINVAL && !d,
	           "leading dimensions above INT_MAX refused (%d, %d, user %d)", ret, ret31,
	           ret_user);
}

int main(int argc, char **argv)
{
	sgt_init(&argc, &argv);
	if (argc != 3)
		return sgt_usage("test_user_desc P Q");
	struct starpu_gemm_dist dist = { STARPU_GEMM_DIST_2D_BLOCK_CYCLIC, atoi(argv[1]),
	                                 atoi(argv[2]), NULL, NULL };
	const char *precs = "sdcz", *trans = "NTC";
	for (const char *p = precs; *p; p++) {
		int ta = sgt_rand_int(0, 2), tb = sgt_rand_int(0, 2);
		over_arrays(*p, trans[ta], trans[tb], sgt_rand_int(20, 90), sgt_rand_int(20, 90),
		            sgt_rand_int(20, 90), sgt_rand_int(8, 24), &dist);
	}
	int64_t n = sgt_rand_int(30, 80);
	composed('d', n, sgt_rand_int(30, 80), n, sgt_rand_int(8, 20), &dist);
	composed('z', n, sgt_rand_int(30, 80), n, sgt_rand_int(8, 20), &dist);
	local_product('c', sgt_rand_int(20, 60), sgt_rand_int(20, 60), sgt_rand_int(20, 60), 16);
	chained('d', sgt_rand_int(40, 90), sgt_rand_int(8, 20), &dist);
	huge_leading_dimension();
	return sgt_finish();
}
