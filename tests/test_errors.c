/* How a rank fails: errors are reported with the place they happened, and never leave the other
 * ranks waiting.
 *   test_errors alloc      a tile too large to allocate, on the last rank only: every rank's
 *                          starpu_gemm_desc_create returns -ENOMEM (rank 0 checks it, the
 *                          failing rank names the tile), and the job ends normally.
 *   test_errors bad_tile   a tile GEMM task whose tiles do not conform, run on the last rank
 *                          while the others wait: the codelet names the worker and the tiles
 *                          and aborts the whole job (tests/errors.sh checks the exit and the
 *                          message). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "test_common.h"

static int last_rank(int i, int j, void *arg)
{
	return sgt_size - 1;
}

static void alloc_failure(void)
{
	/* One 2^21 x 2^21 double tile: 32 TiB, more than any malloc will give. */
	const int64_t n = (int64_t)1 << 21;
	struct starpu_gemm_dist dist = { STARPU_GEMM_DIST_USER, 1, sgt_size, last_rank, NULL };
	struct starpu_gemm_desc *X = (struct starpu_gemm_desc *)1;
	int ret = starpu_gemm_desc_create(&X, 'd', n, n, (int)n, &dist, MPI_COMM_WORLD);
	sgt_expect(ret == -ENOMEM && X == NULL, "a 32 TiB tile on rank %d: desc_create returns %d "
	           "(-ENOMEM is %d) and no descriptor on rank %d", sgt_size - 1, ret, -ENOMEM,
	           sgt_rank);
	/* The job goes on: a small matrix still works after the failure. */
	ret = starpu_gemm_desc_create(&X, 'd', 8, 8, 4, &dist, MPI_COMM_WORLD);
	sgt_expect(ret == 0, "an 8 x 8 matrix after the failure: desc_create returns %d", ret);
	if (ret == 0)
		starpu_gemm_desc_destroy(X);
}

static void bad_tile(void)
{
	/* 6 x 6 in tiles of 4: tile (0,0) is 4 x 4, tile (1,1) is 2 x 2. */
	struct starpu_gemm_dist dist = { STARPU_GEMM_DIST_USER, 1, sgt_size, last_rank, NULL };
	struct starpu_gemm_desc *A, *B, *C;
	if (starpu_gemm_desc_create(&A, 'd', 6, 6, 4, &dist, MPI_COMM_WORLD) ||
	    starpu_gemm_desc_create(&B, 'd', 6, 6, 4, &dist, MPI_COMM_WORLD) ||
	    starpu_gemm_desc_create(&C, 'd', 6, 6, 4, &dist, MPI_COMM_WORLD)) {
		sgt_expect(0, "create descriptors");
		return;
	}
	starpu_gemm_desc_fill_random(A, 1);
	starpu_gemm_desc_fill_random(B, 2);
	starpu_gemm_desc_fill_random(C, 3);
	char transA = 'N', transB = 'N';
	double alpha = 1, beta = 1;
	/* starpu_gemm_tile_insert would refuse this; the raw codelet must catch it itself. */
	int ret = starpu_mpi_task_insert(MPI_COMM_WORLD, starpu_gemm_codelet('d'),
		STARPU_VALUE, &transA, sizeof(char), STARPU_VALUE, &transB, sizeof(char),
		STARPU_VALUE, &alpha, sizeof(double), STARPU_VALUE, &beta, sizeof(double),
		STARPU_R, starpu_gemm_desc_handle(A, 0, 0), STARPU_R, starpu_gemm_desc_handle(B, 0, 0),
		STARPU_RW, starpu_gemm_desc_handle(C, 1, 1), 0);
	sgt_expect(ret == 0, "submit a non-conforming tile GEMM (%d)", ret);
	/* Rank 0 waits here for a task of another rank: only MPI_Abort can end it. */
	starpu_task_wait_for_all();
	MPI_Barrier(MPI_COMM_WORLD);
	sgt_expect(0, "the job went on after a non-conforming tile GEMM");
	starpu_gemm_desc_destroy(A);
	starpu_gemm_desc_destroy(B);
	starpu_gemm_desc_destroy(C);
}

int main(int argc, char **argv)
{
	sgt_init(&argc, &argv);
	if (argc == 2 && !strcmp(argv[1], "alloc")) {
		alloc_failure();
	} else if (argc == 2 && !strcmp(argv[1], "bad_tile")) {
		bad_tile();
	} else {
		return sgt_usage("test_errors alloc|bad_tile");
	}
	return sgt_finish();
}
