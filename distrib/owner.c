/* Ownership functions: which rank holds tile (i,j). The 2D block-cyclic layout is the paper's
 * (section 2): node (u,v) of a P x Q grid is rank u*Q + v and holds the tiles with
 * i = u mod P and j = v mod Q. */
#include <errno.h>
#include <stdio.h>
#include "distrib/desc.h"

int sg_dist_validate(const struct starpu_gemm_dist *dist, int nranks, int verbose)
{
	if (!dist) {
		if (verbose)
			fprintf(stderr, "starpu_gemm: no distribution given\n");
		return -EINVAL;
	}
	if (dist->P < 1 || dist->Q < 1 || (int64_t)dist->P * dist->Q != nranks) {
		if (verbose)
			fprintf(stderr, "starpu_gemm: process grid %d x %d does not match the %d "
			        "rank(s) of the communicator\n", dist->P, dist->Q, nranks);
		return -EINVAL;
	}
	switch (dist->kind) {
	case STARPU_GEMM_DIST_2D_BLOCK_CYCLIC:
	case STARPU_GEMM_DIST_1D_ROW_CYCLIC:
	case STARPU_GEMM_DIST_1D_COL_CYCLIC:
		return 0;
	case STARPU_GEMM_DIST_USER:
		if (dist->owner)
			return 0;
		if (verbose)
			fprintf(stderr, "starpu_gemm: user distribution without an owner function\n");
		return -EINVAL;
	}
	if (verbose)
		fprintf(stderr, "starpu_gemm: unknown distribution kind %d\n", (int)dist->kind);
	return -EINVAL;
}

int sg_dist_owner(const struct starpu_gemm_dist *dist, int i, int j)
{
	switch (dist->kind) {
	case STARPU_GEMM_DIST_1D_ROW_CYCLIC:
		return i % (dist->P * dist->Q);
	case STARPU_GEMM_DIST_1D_COL_CYCLIC:
		return j % (dist->P * dist->Q);
	case STARPU_GEMM_DIST_USER:
		return dist->owner(i, j, dist->owner_arg);
	case STARPU_GEMM_DIST_2D_BLOCK_CYCLIC:
	default:
		return (i % dist->P) * dist->Q + j % dist->Q;
	}
}

int starpu_gemm_dist_owner(const struct starpu_gemm_dist *dist, int i, int j)
{
	return dist ? sg_dist_owner(dist, i, j) : -1;
}
