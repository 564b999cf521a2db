/* The descriptor behind the opaque struct starpu_gemm_desc, for modules of the library that
 * need its fields without a function call per tile (compute/, check/). Users only see the
 * accessors of include/starpu_gemm.h. */
#ifndef SG_DESC_H
#define SG_DESC_H

#include <starpu_gemm.h>
#include "common/precision.h"

struct starpu_gemm_desc {
	char prec;                       /* normalised letter: 's', 'd', 'c', 'z' */
	const struct sg_precision *p;
	int64_t m, n;                    /* elements */
	int tile, mt, nt;                /* tile size, tiles in the rows and the columns */
	struct starpu_gemm_dist dist;
	MPI_Comm comm;
	int rank, nranks;
	/* Per tile, column-major tile order (index = j*mt + i): */
	int *owners;                     /* computed once, so a user owner is called once a tile */
	starpu_data_handle_t *handles;   /* every tile, owned or not */
	void **tiles;                    /* starpu_malloc'ed memory of owned tiles, else NULL */
	int64_t tag_base;                /* from starpu_mpi_tags_allocate(mt*nt) */
	int64_t local_tiles;
	size_t local_bytes;
};

static inline int64_t sg_desc_index(const struct starpu_gemm_desc *d, int i, int j)
{
	return (int64_t)j * d->mt + i;
}

/* Elements in tile row i (or tile column j): the last one may be smaller than the tile. */
static inline int sg_desc_extent(int64_t elems, int tile, int index)
{
	int64_t left = elems - (int64_t)index * tile;
	return left < tile ? (int)left : tile;
}

/* --- owner.c: ownership functions ------------------------------------------------------- */

/* 0 when dist describes nranks ranks (P, Q >= 1, P*Q == nranks, known kind, owner set for
 * STARPU_GEMM_DIST_USER), else -EINVAL with one line on stderr if verbose. */
int sg_dist_validate(const struct starpu_gemm_dist *dist, int nranks, int verbose);
/* Owner of tile (i,j) under dist (the user callback's answer is returned unchecked). */
int sg_dist_owner(const struct starpu_gemm_dist *dist, int i, int j);

/* --- random.c: the element generator, shared with check/ -------------------------------- */

/* Writes starpu_gemm_random_element(seed, row0 + r, col0 + c) at dst[r + c*ld] for a rows x
 * cols block: one hash chain per column, so generating panels is cheap. */
void sg_random_block(const struct sg_precision *p, uint64_t seed, int64_t row0, int64_t col0,
                     int rows, int cols, void *dst, int64_t ld);

#endif
