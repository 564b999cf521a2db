/* Moving a sub-matrix between ScaLAPACK's 2D block-cyclic layout (the application's local
 * arrays) and a library descriptor's tiles, over one MPI communicator whose rank r is BLACS
 * grid position (r / npcol, r % npcol), the ranks of a BLACS grid's own communicator. Internal
 * to libstarpu_gemm_scalapack. */
#ifndef SG_DOORS_REDISTRIBUTE_H
#define SG_DOORS_REDISTRIBUTE_H

#include <stdint.h>
#include <stddef.h>
#include <mpi.h>
#include <starpu_gemm.h>
#include "common/precision.h"

/* One dimension of a block-cyclic layout: the first block holds first_block indices, the
 * others block each, dealt cyclically over nprocs processes starting at src. */
struct sg_bc_axis {
	int64_t extent;     /* global rows (or columns) of the whole matrix */
	int first_block, block, src, nprocs;
};

/* Indices of the global axis [0, extent) that process proc holds (ScaLAPACK's NUMROC, with
 * a first block of its own size, as PBLAS's PB_Cnumroc with I = 0). */
int64_t sg_bc_local_count(const struct sg_bc_axis *axis, int proc);

/* A stretch of consecutive indices of the sub-matrix inside one ScaLAPACK block and one tile:
 * contiguous in both the local array and the tile, so it moves with one memcpy per column. */
struct sg_run {
	int64_t first;      /* index in the sub-matrix */
	int len;
	int bc_proc;        /* process row (or column) holding it in the block-cyclic layout */
	int64_t bc_local;   /* its first local index there */
	int tile;           /* tile row (or column) of the descriptor holding it */
	/* Its place in what its pair of processes (bc_proc, tile mod nprocs) exchanges, as the
	 * sum of the lengths of that pair's runs before it; set for the pairs this process is
	 * in, on either side. */
	int64_t offset;
};

/* The plan of one sub-matrix's moves, made once per call and used both ways. */
struct sg_redist {
	size_t elemsize;
	MPI_Datatype type;          /* one element */
	MPI_Comm comm;
	int rank, nranks, nprow, npcol;
	char *local;                /* the application's local array (column-major, lld) */
	int64_t lld;
	int tile, mt, nt;           /* tile size, tile rows and columns */
	struct sg_run *row_runs, *col_runs;
	int nrow_runs, ncol_runs;
	int *bc_counts, *bc_displs;     /* per rank: elements of my local array its tiles hold */
	int *tile_counts, *tile_displs; /* per rank: elements of my tiles its local array holds */
	int64_t bc_total, tile_total;
	/* per process row p: rows of my local array in p's tiles, rows of my tiles in p's local
	 * array (the rows of each column packed for a peer of that row) */
	int64_t *bc_rows, *tile_rows;
	/* Set for C when its tiles hold the product alone (beta = 0): moved from the tiles, they
	 * are added to beta times the local array, local = tile + beta*local, instead of copied
	 * over it (add_back.p NULL). */
	struct sg_add_back add_back;
};

/* Plans the moves of rows x cols elements starting at global (i0, j0) (0-based) of the
 * block-cyclic matrix whose local array is local, to a descriptor of the same rows x cols cut
 * in tile x tile tiles and dealt 2D block-cyclically on the same nprow x npcol grid. Local:
 * no communication. Returns 0, -ENOMEM, or -E2BIG when a rank's share exceeds INT_MAX
 * elements (MPI counts are int). */
int sg_redist_plan(struct sg_redist *r, size_t elemsize, MPI_Datatype type, MPI_Comm comm,
                   int nprow, int npcol, void *local, int64_t lld, const struct sg_bc_axis *rows,
                   const struct sg_bc_axis *cols, int64_t i0, int64_t j0, int64_t nrows,
                   int64_t ncols, int tile);
void sg_redist_free(struct sg_redist *r);

/* Calls fn on every stretch of the sub-matrix in this rank's local array (count elements,
 * contiguous). Local: for what PBLAS does without moving data (C = beta C). */
void sg_redist_for_local(const struct sg_redist *r, void (*fn)(void *elems, int count,
                                                              const void *arg),
                         const void *arg);

/* Tile (ti, tj) of the plan's descriptor in the block-cyclic layout: 1 when this rank's
 * local array holds a part of it, and how many ranks do (holders). */
int sg_redist_tile_part(const struct sg_redist *r, int ti, int tj, int *holders);
/* This rank's part of tile (ti, tj) in the tile's columns [c0, c1), between the local array
 * and the tile at base (columns ld elements apart): copied in (to_tile), or back (copied, or
 * added where r->add_back is set). The stores stream: sg_stream_fence before handing the tile
 * on. */
void sg_redist_move_tile_part(const struct sg_redist *r, char *base, int64_t ld, int ti,
                              int tj, int c0, int c1, int to_tile);

/* Columns first..end-1 of column run `run`: a share of a move's copies for one thread. */
struct sg_redist_piece {
	int run;
	int first, end;
};

/* The packing buffers, shared by the moves of a call (sized for its largest plan) and kept for
 * the next calls while large enough, so their pages are touched once, not once per matrix and
 * direction. Starts zeroed. */
struct sg_redist_scratch {
	char *bc_buf, *tile_buf;
	int threads;                 /* copying threads of a move */
	struct sg_redist_piece *pieces;
	size_t npieces;              /* what pieces holds */
	/* my tiles, acquired for a move: pointer, leading dimension, handle */
	char **tile_ptr;
	int64_t *tile_ld;
	starpu_data_handle_t *tile_handle;
	size_t bc_bytes, tile_bytes, tiles;   /* what they hold */
};

/* Collective over plans[0].comm (all plans on one communicator): s holds enough for the plans
 * moved by up to threads threads (reallocated if not), 0; or -ENOMEM on every rank when one
 * rank lacks memory (s is then freed). */
int sg_redist_scratch_reserve(struct sg_redist_scratch *s, const struct sg_redist *plans,
                              int nplans, int threads);
void sg_redist_scratch_free(struct sg_redist_scratch *s);

/* Collective over r->comm: the sub-matrix into desc's tiles (desc made with the plan's shape,
 * tile and grid, over r->comm), or the tiles back into the sub-matrix; the elements of the
 * local array outside the sub-matrix are never touched. Where every tile is in reach (the
 * grid on one node, node sharing), each rank copies its local array straight to and from the
 * tiles; else through MPI_Alltoallv. The copies (packing, unpacking, and what stays on this
 * rank) run on s->threads threads, which share the columns. Returns 1 when moved through the
 * node's shared memory, 0 through MPI. */
int sg_redist_to_tiles(const struct sg_redist *r, struct starpu_gemm_desc *desc,
                       const struct sg_redist_scratch *s);
int sg_redist_from_tiles(const struct sg_redist *r, struct starpu_gemm_desc *desc,
                         const struct sg_redist_scratch *s);

#endif
