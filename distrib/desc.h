/* The descriptor behind the opaque struct starpu_gemm_desc, for modules of the library that
 * need its fields without a function call per tile (compute/, check/). Users only see the
 * accessors of include/starpu_gemm.h. */
#ifndef SG_DESC_H
#define SG_DESC_H

#include <starpu_gemm.h>
#include "common/precision.h"

struct starpu_gemm_desc {
	char prec;                       /* normalised letter: 's','d','c','z','b','h' */
	const struct sg_precision *p;
	int64_t m, n;                    /* elements */
	int tile, mt, nt;                /* tile size, tiles in the rows and the columns */
	struct starpu_gemm_dist dist;
	MPI_Comm comm;
	int rank, nranks;
	/* Per tile, column-major tile order (index = j*mt + i): */
	int *owners;                     /* computed once, so a user owner is called once a tile */
	starpu_data_handle_t *handles;   /* owned tiles' from creation; another rank's once this
	                                  * rank uses it (sg_desc_handle), else NULL */
	void **tiles;                    /* memory of owned tiles, else NULL */
	int64_t *lds;                    /* leading dimension of each owned tile, in elements */
	int user_memory;                 /* tiles are the caller's memory, not starpu_malloc'ed */
	int local;                       /* STARPU_GEMM_COMM_LOCAL: StarPU only, no MPI */
	int64_t tag_base;                /* from starpu_mpi_tags_allocate(mt*nt) */
	int64_t local_tiles;
	size_t local_bytes;
	/* Node sharing (distrib/node_share.c): the tiles of this node's ranks in one shared
	 * mapping. Only for tiles the library allocates on several ranks of a node. */
	int shared;                      /* 1: node peers' tiles are readable in place here */
	unsigned char *on_node;          /* per rank of comm: 1 for a node peer (shared only) */
	void **peer;                     /* per tile: its memory when a node peer owns it */
	starpu_data_handle_t *reach;     /* per tile a node peer owns: a handle over peer[t],
	                                  * this rank's own for StarPU-MPI (tag_base + mt*nt + t) */
	struct sg_node_share *share;
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

/* Tile t (index order) as coordinates and extents. */
static inline void sg_desc_tile_shape(const struct starpu_gemm_desc *d, int64_t t, int *i,
                                      int *j, int *rows, int *cols)
{
	*i = (int)(t % d->mt);
	*j = (int)(t / d->mt);
	*rows = sg_desc_extent(d->m, d->tile, *i);
	*cols = sg_desc_extent(d->n, d->tile, *j);
}

static inline size_t sg_desc_tile_bytes(const struct starpu_gemm_desc *d, int64_t t)
{
	int i, j, rows, cols;
	sg_desc_tile_shape(d, t, &i, &j, &rows, &cols);
	return (size_t)rows * (size_t)cols * d->p->elemsize;
}

/* Index in an owned tile's memory of its e-th element in column-major order (tiles over the
 * caller's memory have their own leading dimension). */
static inline int64_t sg_desc_tile_elem(const struct starpu_gemm_desc *d, int64_t t, int64_t e,
                                        int rows)
{
	return e % rows + e / rows * d->lds[t];
}

/* The walk every per-rank loop shares: the next tile after t (start from -1) that this rank
 * owns, in index order, or -1 when none is left. */
static inline int64_t sg_desc_next_local(const struct starpu_gemm_desc *d, int64_t t)
{
	for (t++; t < (int64_t)d->mt * d->nt; t++)
		if (d->owners[t] == d->rank)
			return t;
	return -1;
}
#define SG_DESC_FOR_LOCAL(d, t) \
	for (int64_t t = sg_desc_next_local(d, -1); t >= 0; t = sg_desc_next_local(d, t))

/* Tile t's handle, registered here at the first call for a tile of another rank (every rank
 * that names the tile in a StarPU-MPI call must have it: the runner of a task reading it, the
 * root of a gather); thread-safe. */
starpu_data_handle_t sg_desc_handle(const struct starpu_gemm_desc *d, int64_t t);
/* Tile t's handle if it is registered here, else NULL (registers nothing: for loops over
 * every tile, such as cache flushes, that must not register what this rank never used). */
starpu_data_handle_t sg_desc_handle_if_used(const struct starpu_gemm_desc *d, int64_t t);

/* Handles of d registered on this rank: its own tiles', the others' it used, and its node
 * peers' reach handles. */
int64_t sg_desc_handles_used(const struct starpu_gemm_desc *d);

/* Sizes and distribution of an m x n matrix of prec cut in tiles, checked identically on every
 * rank (no communication): 0 or -EINVAL; only verbose (rank 0) says what is wrong, once for the
 * job. The descriptors and the plan from sizes alone (starpu_gemm_plan_sizes) check here. */
int sg_desc_validate(char prec, int64_t m, int64_t n, int tile,
                     const struct starpu_gemm_dist *dist, int nranks, int verbose);
/* The distribution a descriptor on comm has: dist, or one process for STARPU_GEMM_COMM_LOCAL
 * (whose callers may pass NULL). */
const struct starpu_gemm_dist *sg_desc_dist_of(const struct starpu_gemm_dist *dist,
                                               MPI_Comm comm);

/* --- node_share.c: the node's tiles in one shared mapping ---------------------------------- */

/* Collective over d->comm, for a descriptor whose tiles the library allocates: places every
 * tile of this node's ranks in shared memory (d->tiles for this rank's, d->peer for its
 * node peers') and sets d->shared. Returns 0 (d->shared 0 when the node has one rank or
 * STARPU_GEMM_SHARE_NODE=0 on one of them), -ENOSPC when the node could not map the window
 * (the caller then allocates private tiles; *reason: an errno of the failure, the same on the
 * node's ranks), -ENOMEM. */
int sg_node_share_alloc(struct starpu_gemm_desc *d, int *reason);
/* Unmaps the node's segments here (not collective: a segment lives while any rank maps it). */
void sg_node_share_free(struct starpu_gemm_desc *d);
/* Whether this process asks for node sharing (STARPU_GEMM_SHARE_NODE, default 1). */
int sg_node_share_wanted(void);

/* The handle this rank's tasks read tile t through: its own tile's, a node peer's reach
 * handle, or NULL when the tile is on another node (StarPU-MPI brings a copy to the regular
 * handle then). */
static inline starpu_data_handle_t sg_desc_reach_handle(const struct starpu_gemm_desc *d,
                                                        int64_t t)
{
	if (d->owners[t] == d->rank)
		return d->handles[t];
	return d->shared && d->on_node[d->owners[t]] ? d->reach[t] : NULL;
}

/* Whether ranks a and b of d's communicator read each other's tiles in place. */
static inline int sg_desc_same_node(const struct starpu_gemm_desc *d, int a, int b)
{
	if (a == b)
		return 1;
	if (!d->shared || (a != d->rank && b != d->rank))
		return 0; /* only this rank's own peers are known */
	return d->on_node[a == d->rank ? b : a];
}

/* --- conform.c: the one conformance check of a product's operands ------------------------ */

/* 0 when op(A) (M x K), op(B) (K x N) and C (M x N) conform and share precision, tile size and
 * communicator; fills the normalised transposes and K. Else -EINVAL and a sentence in msg.
 * Same answer on every rank: no communication. */
int sg_desc_conform(char transA, char transB, const struct starpu_gemm_desc *A,
                    const struct starpu_gemm_desc *B, const struct starpu_gemm_desc *C,
                    char *ta, char *tb, int64_t *K, char *msg, size_t len);

/* --- owner.c: ownership functions ------------------------------------------------------- */

/* 0 when dist describes nranks ranks (P, Q >= 1, P*Q == nranks, known kind, owner set for
 * STARPU_GEMM_DIST_USER), else -EINVAL with one line on stderr if verbose. */
int sg_dist_validate(const struct starpu_gemm_dist *dist, int nranks, int verbose);
/* Owner of tile (i,j) under dist (the user callback's answer is returned unchecked). */
int sg_dist_owner(const struct starpu_gemm_dist *dist, int i, int j);

/* --- random.c: the element generator, shared with check/ -------------------------------- */

/* splitmix64's finaliser: a bijection of 64-bit words with good avalanche; the hash behind
 * the random elements and check/'s sample positions. */
static inline uint64_t sg_mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}
#define SG_GOLDEN 0x9E3779B97F4A7C15ULL

/* Writes starpu_gemm_random_element(seed, row0 + r, col0 + c) at dst[r + c*ld] for a rows x
 * cols block: one hash chain per column, so generating panels is cheap. */
void sg_random_block(const struct sg_precision *p, uint64_t seed, int64_t row0, int64_t col0,
                     int rows, int cols, void *dst, int64_t ld);

#endif
