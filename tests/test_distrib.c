/* Distributed descriptors (distrib/): for every process grid P x Q of the ranks and every
 * ownership function, random ragged shapes (dimensions below the tile and 1 included) are
 * created, filled from a seed, gathered on a root and compared element by element, exactly,
 * with starpu_gemm_random_element; owners follow the documented formulas; bad arguments
 * return -EINVAL on every rank without hanging. Also a sub-communicator, a refill, and on 2
 * ranks a matrix gathered in several windows.
 *   test_distrib NCASES   cases per (grid, distribution); SEED replays a run */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "test_common.h"

/* Out of range for tile (1,0) only: creation must still see it. */
static int bad_owner(int i, int j, void *arg)
{
	return i == 1 && j == 0 ? *(int *)arg : 0;
}

static int expected_owner(const struct starpu_gemm_dist *dist, int i, int j)
{
	int size = dist->P * dist->Q;
	switch (dist->kind) {
	case STARPU_GEMM_DIST_1D_ROW_CYCLIC: return i % size;
	case STARPU_GEMM_DIST_1D_COL_CYCLIC: return j % size;
	case STARPU_GEMM_DIST_USER: return dist->owner(i, j, dist->owner_arg);
	default: return (i % dist->P) * dist->Q + j % dist->Q;
	}
}

/* Owners, shapes and handles of every tile, and this rank's tile and byte counts. */
static int check_layout(const struct starpu_gemm_desc *d, const struct starpu_gemm_dist *dist,
                        int rank)
{
	int64_t m = starpu_gemm_desc_rows(d), n = starpu_gemm_desc_cols(d), tiles = 0;
	int tile = starpu_gemm_desc_tile_size(d), mt = starpu_gemm_desc_tile_rows(d);
	int nt = starpu_gemm_desc_tile_cols(d), ok = mt == (m + tile - 1) / tile &&
	                                             nt == (n + tile - 1) / tile;
	size_t bytes = 0, es = starpu_gemm_elemsize(starpu_gemm_desc_prec(d));
	int64_t rows_sum = 0, cols_sum = 0;
	for (int j = 0; j < nt; j++) {
		for (int i = 0; i < mt; i++) {
			int rows, cols;
			starpu_gemm_desc_tile_shape(d, i, j, &rows, &cols);
			ok &= rows == (i < mt - 1 ? tile : (int)(m - (int64_t)(mt - 1) * tile));
			ok &= cols == (j < nt - 1 ? tile : (int)(n - (int64_t)(nt - 1) * tile));
			ok &= starpu_gemm_desc_owner(d, i, j) == expected_owner(dist, i, j);
			ok &= starpu_gemm_desc_handle(d, i, j) != NULL;
			rows_sum += j == 0 ? rows : 0;
			cols_sum += i == 0 ? cols : 0;
			if (starpu_gemm_desc_owner(d, i, j) == rank) {
				tiles++;
				bytes += (size_t)rows * cols * es;
			}
		}
	}
	ok &= rows_sum == m && cols_sum == n;
	ok &= starpu_gemm_desc_local_tiles(d) == tiles && starpu_gemm_desc_local_bytes(d) == bytes;
	ok &= starpu_gemm_desc_owner(d, mt, 0) == -1 && starpu_gemm_desc_handle(d, 0, nt) == NULL;
	return ok;
}

/* Elements of root's gathered copy that differ from the generator (0 elsewhere). */
static int64_t gathered_mismatches(const struct starpu_gemm_desc *d, const char *full,
                                   uint64_t seed)
{
	char prec = starpu_gemm_desc_prec(d);
	size_t es = starpu_gemm_elemsize(prec);
	int64_t m = starpu_gemm_desc_rows(d), n = starpu_gemm_desc_cols(d), bad = 0;
	char expected[16];
	for (int64_t c = 0; c < n; c++) {
		for (int64_t r = 0; r < m; r++) {
			starpu_gemm_random_element(prec, seed, r, c, expected);
			bad += memcmp(expected, full + (size_t)(r + c * m) * es, es) != 0;
		}
	}
	return bad;
}

/* Create, fill, gather, compare; then refill with another seed and gather again, which only
 * passes if root dropped its copies of remote tiles after the first gather. */
static void run_case(char prec, int64_t m, int64_t n, int tile,
                     const struct starpu_gemm_dist *dist, MPI_Comm comm, uint64_t seed)
{
	int rank, size;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	int root = (int)(seed % (uint64_t)size);
	struct starpu_gemm_desc *d;
	int ret = starpu_gemm_desc_create(&d, prec, m, n, tile, dist, comm);
	char what[160];
	snprintf(what, sizeof(what), "%c %lldx%lld tile %d, %s %dx%d on %d rank(s), root %d", prec,
	         (long long)m, (long long)n, tile, sgt_dist_name(dist->kind), dist->P, dist->Q, size,
	         root);
	sgt_expect(ret == 0, "create %s (%d)", what, ret);
	if (ret)
		return;
	sgt_expect(check_layout(d, dist, rank), "owners, shapes and counts of %s", what);
	char *full = rank == root ? malloc((size_t)(m * n) * starpu_gemm_elemsize(prec)) : NULL;
	for (int pass = 0; pass < 2; pass++) {
		uint64_t fill_seed = seed + 1000003u * (uint64_t)pass;
		int fill = starpu_gemm_desc_fill_random(d, fill_seed);
		int gather = starpu_gemm_desc_gather(d, full, root);
		int64_t bad = rank == root ? gathered_mismatches(d, full, fill_seed) : 0;
		sgt_expect(fill == 0 && gather == 0 && bad == 0,
		           "fill+gather %s, pass %d: %lld element(s) differ", what, pass,
		           (long long)bad);
	}
	free(full);
	starpu_gemm_desc_destroy(d);
}

static void grid_cases(int P, int Q, int ncases)
{
	const char precs[] = "sdcz";
	for (int kind = 0; kind < 4; kind++) {
		struct starpu_gemm_dist dist = { (enum starpu_gemm_dist_kind)kind, P, Q,
		                                 kind == STARPU_GEMM_DIST_USER ? sgt_user_owner : NULL,
		                                 &sgt_size };
		for (int c = 0; c < ncases; c++) {
			int tile = sgt_rand_int(1, 8);
			/* Dimensions 1, below the tile, or a few ragged tiles. */
			int shape = sgt_rand_int(0, 3);
			int64_t m = shape == 0 ? 1 : shape == 1 ? sgt_rand_int(1, tile) : sgt_rand_int(1, 5 * tile);
			int64_t n = shape == 0 ? sgt_rand_int(1, 3 * tile) : sgt_rand_int(1, 5 * tile);
			run_case(precs[sgt_rand_int(0, 3)], m, n, tile, &dist, MPI_COMM_WORLD,
			         (uint64_t)sgt_rand_int(0, 1 << 30));
		}
	}
}

static void expect_einval(const char *what, char prec, int64_t m, int64_t n, int tile,
                          const struct starpu_gemm_dist *dist)
{
	struct starpu_gemm_desc *d = (struct starpu_gemm_desc *)&d;
	int ret = starpu_gemm_desc_create(&d, prec, m, n, tile, dist, MPI_COMM_WORLD);
	sgt_expect(ret == -EINVAL && d == NULL, "%s gives -EINVAL (%d)", what, ret);
	if (ret == 0)
		starpu_gemm_desc_destroy(d);
}

static void bad_inputs(void)
{
	struct starpu_gemm_dist good = { STARPU_GEMM_DIST_2D_BLOCK_CYCLIC, sgt_size, 1, NULL, NULL };
	struct starpu_gemm_dist grid = good, user = good, no_owner = good, negative = good;
	grid.Q = 2;
	user.kind = no_owner.kind = negative.kind = STARPU_GEMM_DIST_USER;
	user.owner = bad_owner;
	user.owner_arg = &sgt_size;
	static int minus_one = -1;
	negative.owner = bad_owner;
	negative.owner_arg = &minus_one;
	expect_einval("grid P*Q != size", 'd', 10, 10, 4, &grid);
	expect_einval("m = 0", 'd', 0, 10, 4, &good);
	expect_einval("n = -3", 'd', 10, -3, 4, &good);
	expect_einval("tile = 0", 'd', 10, 10, 0, &good);
	expect_einval("precision 'x'", 'x', 10, 10, 4, &good);
	expect_einval("NULL distribution", 'd', 10, 10, 4, NULL);
	expect_einval("user owner returning size", 'z', 10, 10, 4, &user);
	expect_einval("user owner returning -1", 's', 10, 10, 4, &negative);
	expect_einval("user distribution without owner", 'c', 10, 10, 4, &no_owner);
	expect_einval("tile count over INT_MAX", 's', (int64_t)1 << 40, 1, 1, &good);
	sgt_expect(starpu_gemm_desc_create(NULL, 'd', 4, 4, 2, &good, MPI_COMM_WORLD) == -EINVAL,
	           "NULL descriptor pointer gives -EINVAL");

	struct starpu_gemm_desc *d;
	int ret = starpu_gemm_desc_create(&d, 'd', 10, 10, 4, &good, MPI_COMM_WORLD);
	sgt_expect(ret == 0, "create 10x10 for bad gathers");
	if (ret)
		return;
	double buf[100];
	sgt_expect(starpu_gemm_desc_gather(d, buf, sgt_size) == -EINVAL,
	           "gather to root out of range gives -EINVAL");
	sgt_expect(starpu_gemm_desc_gather(d, NULL, 0) == -EINVAL,
	           "gather to a NULL buffer on root gives -EINVAL on every rank");
	starpu_gemm_desc_destroy(d);
}

/* A matrix on half of the ranks (even and odd world ranks), StarPU-MPI started on the world. */
static void sub_communicator(void)
{
	MPI_Comm half;
	MPI_Comm_split(MPI_COMM_WORLD, sgt_rank % 2, sgt_rank, &half);
	int size;
	MPI_Comm_size(half, &size);
	struct starpu_gemm_dist dist = { STARPU_GEMM_DIST_2D_BLOCK_CYCLIC, 1, size, NULL, NULL };
	run_case('z', 13, 9, 4, &dist, half, 7 + (uint64_t)sgt_rank % 2);
	MPI_Comm_free(&half);
}

int main(int argc, char **argv)
{
	sgt_init(&argc, &argv);
	int ncases = argc > 1 ? atoi(argv[1]) : 3;
	for (int P = 1; P <= sgt_size; P++)
		if (sgt_size % P == 0)
			grid_cases(P, sgt_size / P, ncases);
	bad_inputs();
	if (sgt_size > 1)
		sub_communicator();
	/* Over 64 MiB: the gather moves it in several windows of tiles. */
	if (sgt_size == 2) {
		struct starpu_gemm_dist dist = { STARPU_GEMM_DIST_2D_BLOCK_CYCLIC, 2, 1, NULL, NULL };
		run_case('d', 3000, 2900, 500, &dist, MPI_COMM_WORLD, 12345);
	}
	return sgt_finish();
}
