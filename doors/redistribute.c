/* Block-cyclic <-> tiles, with one MPI_Alltoallv per matrix and direction.
 *
 * Both layouts deal their blocks over the same P x Q grid, so the element (r, c) of the
 * sub-matrix goes from the block-cyclic owner (bc_proc(r), bc_proc(c)) to the tile owner
 * (tile(r) mod P, tile(c) mod Q). Cutting each dimension into runs that sit in one block and
 * one tile, every side visits what it exchanges with a peer in the same order (columns
 * ascending, then row runs ascending), so a buffer packed per peer needs no indices: what a
 * peer gets is a column-major matrix, each run's place in it known from the plan (its offset
 * among its pair's runs), and so threads can copy any columns in any order. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "doors/redistribute.h"
#include "common/threads.h"
#include "common/errors.h"
#include "common/stream_copy.h"

/* Local index of the first element of block b on the process holding it: the blocks of
 * that process before b are b mod nprocs, b mod nprocs + nprocs, ..., all of block size
 * except block 0. */
static int64_t block_local_start(const struct sg_bc_axis *a, int64_t b)
{
	int64_t before = b / a->nprocs;
	if (b % a->nprocs == 0 && before > 0)
		return a->first_block + (before - 1) * a->block;
	return before * a->block;
}

static int64_t block_first(const struct sg_bc_axis *a, int64_t b)
{
	return b == 0 ? 0 : a->first_block + (b - 1) * a->block;
}

static int64_t block_of(const struct sg_bc_axis *a, int64_t g)
{
	return g < a->first_block ? 0 : 1 + (g - a->first_block) / a->block;
}

static int block_proc(const struct sg_bc_axis *a, int64_t b)
{
	return (int)((a->src + b) % a->nprocs);
}

int64_t sg_bc_local_count(const struct sg_bc_axis *a, int proc)
{
	if (a->extent <= 0)
		return 0;
	int64_t nblocks = a->extent <= a->first_block
	                ? 1 : 1 + (a->extent - a->first_block + a->block - 1) / a->block;
	int64_t dist = ((int64_t)proc - a->src + a->nprocs) % a->nprocs;
	if (dist >= nblocks)
		return 0;
	int64_t last = dist + (nblocks - 1 - dist) / a->nprocs * a->nprocs;
	int64_t end = last == 0 ? a->first_block : block_first(a, last) + a->block;
	if (end > a->extent)
		end = a->extent;
	return block_local_start(a, last) + end - block_first(a, last);
}

/* Runs of the n indices from global index g0; out NULL only counts them. */
static int make_runs(const struct sg_bc_axis *a, int64_t g0, int64_t n, int tile,
                     struct sg_run *out)
{
	int count = 0;
	for (int64_t pos = 0; pos < n; count++) {
		int64_t g = g0 + pos, b = block_of(a, g);
		int64_t block_end = b == 0 ? a->first_block : block_first(a, b) + a->block;
		int t = (int)(pos / tile);
		int64_t len = block_end - g;
		if (len > (int64_t)(t + 1) * tile - pos)
			len = (int64_t)(t + 1) * tile - pos;
		if (len > n - pos)
			len = n - pos;
		if (out)
			out[count] = (struct sg_run){ .first = pos, .len = (int)len,
				.bc_proc = block_proc(a, b),
				.bc_local = block_local_start(a, b) + g - block_first(a, b), .tile = t };
		pos += len;
	}
	return count;
}

/* The runs' offsets for process me (see struct sg_run): runs it holds in the block-cyclic
 * layout counted per tile process, runs of its tiles per block-cyclic process. */
static int place_runs(struct sg_run *runs, int n, int nprocs, int me)
{
	int64_t *sum = calloc(2 * (size_t)nprocs, sizeof(*sum));
	if (!sum)
		return -ENOMEM;
	for (int k = 0; k < n; k++) {
		int tile_proc = runs[k].tile % nprocs;
		int64_t *at = runs[k].bc_proc == me ? &sum[tile_proc]
		            : tile_proc == me ? &sum[nprocs + runs[k].bc_proc] : NULL;
		if (at) {
			runs[k].offset = *at;
			*at += runs[k].len;
		}
	}
	free(sum);
	return 0;
}

static struct sg_run *runs_of(const struct sg_bc_axis *a, int64_t g0, int64_t n, int tile,
                              int me, int *count)
{
	*count = make_runs(a, g0, n, tile, NULL);
	struct sg_run *runs = calloc((size_t)(*count > 0 ? *count : 1), sizeof(*runs));
	if (runs)
		make_runs(a, g0, n, tile, runs);
	if (runs && place_runs(runs, *count, a->nprocs, me)) {
		free(runs);
		runs = NULL;
	}
	return runs;
}

/* Elements per peer: my block-cyclic part sent to (or received from) the peer's tiles is the
 * product of my rows falling on its tile rows and my columns falling on its tile columns; and
 * the same the other way round. */
static int64_t run_lengths(const struct sg_run *runs, int n, int bc_proc, int tile_proc,
                           int nprocs)
{
	int64_t sum = 0;
	for (int k = 0; k < n; k++)
		if ((bc_proc < 0 || runs[k].bc_proc == bc_proc) &&
		    (tile_proc < 0 || runs[k].tile % nprocs == tile_proc))
			sum += runs[k].len;
	return sum;
}

static int fill_counts(struct sg_redist *r)
{
	int myrow = r->rank / r->npcol, mycol = r->rank % r->npcol;
	int64_t bc_total = 0, tile_total = 0;
	for (int p = 0; p < r->nprow; p++) {
		r->bc_rows[p] = run_lengths(r->row_runs, r->nrow_runs, myrow, p, r->nprow);
		r->tile_rows[p] = run_lengths(r->row_runs, r->nrow_runs, p, myrow, r->nprow);
		for (int q = 0; q < r->npcol; q++) {
			int peer = p * r->npcol + q;
			/* What stays on this rank is copied directly (walk_self), not through MPI. */
			int64_t out = peer == r->rank ? 0 : r->bc_rows[p] *
			              run_lengths(r->col_runs, r->ncol_runs, mycol, q, r->npcol);
			int64_t in = peer == r->rank ? 0 : r->tile_rows[p] *
			             run_lengths(r->col_runs, r->ncol_runs, q, mycol, r->npcol);
			if (bc_total + out > INT_MAX || tile_total + in > INT_MAX)
				return -E2BIG;
			r->bc_counts[peer] = (int)out;
			r->bc_displs[peer] = (int)bc_total;
			r->tile_counts[peer] = (int)in;
			r->tile_displs[peer] = (int)tile_total;
			bc_total += out;
			tile_total += in;
		}
	}
	r->bc_total = bc_total;
	r->tile_total = tile_total;
	return 0;
}

int sg_redist_plan(struct sg_redist *r, size_t elemsize, MPI_Datatype type, MPI_Comm comm,
                   int nprow, int npcol, void *local, int64_t lld, const struct sg_bc_axis *rows,
                   const struct sg_bc_axis *cols, int64_t i0, int64_t j0, int64_t nrows,
                   int64_t ncols, int tile)
{
	memset(r, 0, sizeof(*r));
	r->elemsize = elemsize;
	r->type = type;
	r->comm = comm;
	r->nprow = nprow;
	r->npcol = npcol;
	r->local = local;
	r->lld = lld;
	r->tile = tile;
	SG_MPI_FATAL(MPI_Comm_rank(comm, &r->rank));
	SG_MPI_FATAL(MPI_Comm_size(comm, &r->nranks));
	r->row_runs = runs_of(rows, i0, nrows, tile, r->rank / npcol, &r->nrow_runs);
	r->col_runs = runs_of(cols, j0, ncols, tile, r->rank % npcol, &r->ncol_runs);
	r->bc_counts = malloc(4 * (size_t)r->nranks * sizeof(int));
	r->bc_rows = malloc(2 * (size_t)nprow * sizeof(*r->bc_rows));
	if (!r->row_runs || !r->col_runs || !r->bc_counts || !r->bc_rows)
		return -ENOMEM;
	r->tile_rows = r->bc_rows + nprow;
	r->mt = (int)((nrows + tile - 1) / tile);
	r->nt = (int)((ncols + tile - 1) / tile);
	r->bc_displs = r->bc_counts + r->nranks;
	r->tile_counts = r->bc_displs + r->nranks;
	r->tile_displs = r->tile_counts + r->nranks;
	return fill_counts(r);
}

void sg_redist_free(struct sg_redist *r)
{
	free(r->row_runs);
	free(r->col_runs);
	free(r->bc_counts);
	free(r->bc_rows);
	memset(r, 0, sizeof(*r));
}

/* Into a tile or the application's array, the stores stream (common/stream_copy.h); into an
 * MPI packing buffer (packing), which this process's MPI_Alltoallv reads next, they do not. */
static void copy(void *buf, void *mine, size_t bytes, int to_buf, int packing)
{
	if (to_buf && packing)
		memcpy(buf, mine, bytes);
	else if (to_buf)
		sg_stream_copy(buf, mine, bytes);
	else
		sg_stream_copy(mine, buf, bytes);
}

/* A run between mine and buf (copy), or into the local array as local = buf + beta*local
 * (r->add_back). */
static void move_run(const struct sg_redist *r, void *buf, void *mine, size_t bytes, int to_buf,
                     int mine_is_local, int packing)
{
	if (!to_buf && mine_is_local && r->add_back.p)
		sg_add_back(&r->add_back, mine, buf, (int64_t)(bytes / r->elemsize));
	else
		copy(buf, mine, bytes, to_buf, packing);
}

void sg_redist_for_local(const struct sg_redist *r, void (*fn)(void *elems, int count,
                                                              const void *arg),
                         const void *arg)
{
	int myrow = r->rank / r->npcol, mycol = r->rank % r->npcol;
	for (int cr = 0; cr < r->ncol_runs; cr++) {
		const struct sg_run *c = &r->col_runs[cr];
		for (int k = 0; c->bc_proc == mycol && k < c->len; k++) {
			char *column = r->local + (size_t)(c->bc_local + k) * (size_t)r->lld * r->elemsize;
			for (int rr = 0; rr < r->nrow_runs; rr++)
				if (r->row_runs[rr].bc_proc == myrow)
					fn(column + (size_t)r->row_runs[rr].bc_local * r->elemsize,
					   r->row_runs[rr].len, arg);
		}
	}
}

/* My tiles of a plan, held for a walk: tile (i, j) at [i / P + (j / Q) * rows]. */
struct held_tiles {
	int rows, cols;
	char **ptr;
	int64_t *ld;
	starpu_data_handle_t *handle;
};

static int64_t local_tiles(const struct sg_redist *r, int *rows, int *cols)
{
	int myrow = r->rank / r->npcol, mycol = r->rank % r->npcol;
	*rows = r->mt > myrow ? (r->mt - myrow + r->nprow - 1) / r->nprow : 0;
	*cols = r->nt > mycol ? (r->nt - mycol + r->npcol - 1) / r->npcol : 0;
	return (int64_t)*rows * *cols;
}

static struct held_tiles hold_tiles(const struct sg_redist *r,
                                    const struct starpu_gemm_desc *desc,
                                    const struct sg_redist_scratch *s,
                                    enum starpu_data_access_mode mode)
{
	struct held_tiles h = { .ptr = s->tile_ptr, .ld = s->tile_ld, .handle = s->tile_handle };
	int myrow = r->rank / r->npcol, mycol = r->rank % r->npcol;
	local_tiles(r, &h.rows, &h.cols);
	for (int j = 0; j < h.cols; j++) {
		for (int i = 0; i < h.rows; i++) {
			int ti = myrow + i * r->nprow, tj = mycol + j * r->npcol;
			size_t at = (size_t)i + (size_t)j * h.rows;
			if (starpu_gemm_desc_owner(desc, ti, tj) != r->rank)
				sg_fatal(__FILE__, __LINE__, "starpu_gemm_desc_owner",
				         "tile not on the grid position of the block-cyclic layout", NULL);
			h.handle[at] = starpu_gemm_desc_handle(desc, ti, tj);
			SG_STARPU_FATAL(starpu_data_acquire(h.handle[at], mode), "tile to redistribute");
			h.ptr[at] = (char *)starpu_matrix_get_local_ptr(h.handle[at]);
			h.ld[at] = starpu_matrix_get_local_ld(h.handle[at]);
		}
	}
	return h;
}

static void release_tiles(const struct held_tiles *h)
{
	for (size_t at = 0; at < (size_t)h->rows * h->cols; at++)
		starpu_data_release(h->handle[at]);
}


/* One side of a move, or both (what stays on this rank): the columns whose runs it visits
 * are cut in pieces, shared by the threads. */
struct walk {
	const struct sg_redist *r;
	int bc_side, tile_side;     /* visits my local array's runs, my tiles' runs */
	const struct held_tiles *h;
	char **node_ptr;            /* with bc_side alone: every tile, wherever on the node it is */
	const int64_t *node_ld;     /* (node sharing), at [i + j * mt]: both sides at once */
	char *buf;                  /* one side: packed per peer at displs, rows[peer's row] a column */
	const int *displs;
	const int64_t *rows;
	int to_buf;                 /* both sides: to the tiles */
	const struct sg_redist_piece *pieces;
};

static char *in_local(const struct sg_redist *r, const struct sg_run *row,
                      const struct sg_run *c, int k)
{
	size_t at = (size_t)(c->bc_local + k) * (size_t)r->lld + (size_t)row->bc_local;
	return r->local + at * r->elemsize;
}

/* Where element (run row, column k of run c) lies in its tile, whose memory is base with
 * columns ld elements apart. */
static char *in_tile_at(const struct sg_redist *r, char *base, int64_t ld,
                        const struct sg_run *row, const struct sg_run *c, int k)
{
	int64_t tile_row = row->first - (int64_t)row->tile * r->tile;
	int64_t tile_col = c->first + k - (int64_t)c->tile * r->tile;
	return base + (size_t)(tile_row + tile_col * ld) * r->elemsize;
}

/* ... in my tile. */
static char *in_tile(const struct sg_redist *r, const struct held_tiles *h,
                     const struct sg_run *row, const struct sg_run *c, int k)
{
	size_t at = (size_t)(row->tile / r->nprow) + (size_t)(c->tile / r->npcol) * h->rows;
	return in_tile_at(r, h->ptr[at], h->ld[at], row, c, k);
}

/* Where element (run row, column k of run c) lies in its tile, this rank's or a node peer's. */
static char *in_node_tile(const struct sg_redist *r, const struct walk *w,
                          const struct sg_run *row, const struct sg_run *c, int k)
{
	size_t at = (size_t)row->tile + (size_t)c->tile * r->mt;
	return in_tile_at(r, w->node_ptr[at], w->node_ld[at], row, c, k);
}

static void move_piece(const void *walk, int piece)
{
	const struct walk *w = walk;
	const struct sg_redist *r = w->r;
	const struct sg_redist_piece *pc = &w->pieces[piece];
	const struct sg_run *c = &r->col_runs[pc->run];
	int myrow = r->rank / r->npcol;
	int peer_col = w->bc_side ? c->tile % r->npcol : c->bc_proc;
	for (int k = pc->first; k < pc->end; k++) {
		for (int rr = 0; rr < r->nrow_runs; rr++) {
			const struct sg_run *row = &r->row_runs[rr];
			int bc_row = row->bc_proc, tile_row = row->tile % r->nprow;
			if ((w->bc_side && bc_row != myrow) || (w->tile_side && tile_row != myrow))
				continue;
			size_t bytes = (size_t)row->len * r->elemsize;
			if (w->node_ptr) {
				move_run(r, in_node_tile(r, w, row, c, k), in_local(r, row, c, k), bytes,
				         w->to_buf, 1, 0);
				continue;
			}
			if (w->bc_side && w->tile_side) {
				move_run(r, in_tile(r, w->h, row, c, k), in_local(r, row, c, k), bytes,
				         w->to_buf, 1, 0);
				continue;
			}
			int peer_row = w->bc_side ? tile_row : bc_row;
			int peer = peer_row * r->npcol + peer_col;
			if (peer == r->rank)
				continue; /* copied by the walk of both sides */
			int64_t at = w->displs[peer] + (c->offset + k) * w->rows[peer_row] + row->offset;
			move_run(r, w->buf + (size_t)at * r->elemsize, w->bc_side ? in_local(r, row, c, k)
			         : in_tile(r, w->h, row, c, k), bytes, w->to_buf, w->bc_side, 1);
		}
	}
	/* Before the barrier or message that hands the copies on. */
	sg_stream_fence();
}

/* Runs of one dimension in tile t: how many processes hold a part (holders), and whether
 * process me does. */
static int tile_runs_held(const struct sg_run *runs, int n, int t, int nprocs, int me,
                          int *holders)
{
	int mine = 0;
	*holders = 0;
	for (int p = 0; p < nprocs; p++) {
		int held = 0;
		for (int k = 0; k < n && !held; k++)
			held = runs[k].tile == t && runs[k].bc_proc == p;
		*holders += held;
		mine |= held && p == me;
	}
	return mine;
}

int sg_redist_tile_part(const struct sg_redist *r, int ti, int tj, int *holders)
{
	int row_holders, col_holders;
	int mine = tile_runs_held(r->row_runs, r->nrow_runs, ti, r->nprow, r->rank / r->npcol,
	                          &row_holders);
	mine &= tile_runs_held(r->col_runs, r->ncol_runs, tj, r->npcol, r->rank % r->npcol,
	                       &col_holders);
	*holders = row_holders * col_holders;
	return mine;
}

void sg_redist_move_tile_part(const struct sg_redist *r, char *base, int64_t ld, int ti,
                              int tj, int c0, int c1, int to_tile)
{
	int myrow = r->rank / r->npcol, mycol = r->rank % r->npcol;
	for (int cr = 0; cr < r->ncol_runs; cr++) {
		const struct sg_run *c = &r->col_runs[cr];
		if (c->tile != tj || c->bc_proc != mycol)
			continue;
		int64_t first = c->first - (int64_t)tj * r->tile; /* the run's first tile column */
		int k0 = (int)(c0 > first ? c0 - first : 0);
		int k1 = (int)(c1 - first < c->len ? c1 - first : c->len);
		for (int k = k0; k < k1; k++)
			for (int rr = 0; rr < r->nrow_runs; rr++) {
				const struct sg_run *row = &r->row_runs[rr];
				if (row->tile == ti && row->bc_proc == myrow)
					move_run(r, in_tile_at(r, base, ld, row, c, k), in_local(r, row, c, k),
					         (size_t)row->len * r->elemsize, to_tile, 1, 0);
			}
	}
}

/* Starting a thread costs about as much as copying 100 KiB: each copies 1 MiB or more. */
#define BYTES_PER_THREAD ((int64_t)1 << 20)
/* Pieces per thread: enough for threads that finish early to take over others' work. */
#define PIECES_PER_THREAD 4

static void walk(struct walk *w, const struct sg_redist_scratch *s)
{
	const struct sg_redist *r = w->r;
	int myrow = r->rank / r->npcol, mycol = r->rank % r->npcol;
	int row_bc = w->bc_side ? myrow : -1, row_tile = w->tile_side ? myrow : -1;
	int col_bc = w->bc_side ? mycol : -1, col_tile = w->tile_side ? mycol : -1;
	int64_t rows = run_lengths(r->row_runs, r->nrow_runs, row_bc, row_tile, r->nprow);
	int64_t cols = run_lengths(r->col_runs, r->ncol_runs, col_bc, col_tile, r->npcol);
	if (rows == 0 || cols == 0)
		return;
	int64_t useful = 1 + rows * cols * (int64_t)r->elemsize / BYTES_PER_THREAD;
	int threads = s->threads < useful ? s->threads : (int)useful;
	/* At most ncol_runs + PIECES_PER_THREAD * threads pieces (scratch_reserve's bound). */
	int64_t per_piece = (cols + PIECES_PER_THREAD * threads - 1) / (PIECES_PER_THREAD * threads);
	struct sg_redist_piece *pieces = s->pieces;
	int npieces = 0;
	for (int cr = 0; cr < r->ncol_runs; cr++) {
		const struct sg_run *c = &r->col_runs[cr];
		if ((col_bc >= 0 && c->bc_proc != col_bc) ||
		    (col_tile >= 0 && c->tile % r->npcol != col_tile))
			continue;
		for (int64_t first = 0; first < c->len; first += per_piece)
			pieces[npieces++] = (struct sg_redist_piece){ .run = cr, .first = (int)first,
				.end = (int)(first + per_piece < c->len ? first + per_piece : c->len) };
	}
	w->pieces = pieces;
	sg_run_on_threads(npieces, threads, move_piece, w);
}

/* Between the local array and its packing buffer. */
static void walk_local(const struct sg_redist *r, const struct sg_redist_scratch *s, int to_buf)
{
	if (r->bc_total > 0) /* else all stays on this rank (walk_self), as on one rank */
		walk(&(struct walk){ .r = r, .bc_side = 1, .buf = s->bc_buf, .displs = r->bc_displs,
		                     .rows = r->bc_rows, .to_buf = to_buf }, s);
}

/* Between my tiles and their packing buffer. */
static void walk_tiles(const struct sg_redist *r, const struct held_tiles *h,
                       const struct sg_redist_scratch *s, int to_buf)
{
	if (r->tile_total > 0)
		walk(&(struct walk){ .r = r, .tile_side = 1, .h = h, .buf = s->tile_buf,
		                     .displs = r->tile_displs, .rows = r->tile_rows, .to_buf = to_buf },
		     s);
}

/* What this rank holds in both layouts: straight between the local array and its tiles. */
static void walk_self(const struct sg_redist *r, const struct held_tiles *h,
                      const struct sg_redist_scratch *s, int to_tiles)
{
	walk(&(struct walk){ .r = r, .bc_side = 1, .tile_side = 1, .h = h, .to_buf = to_tiles }, s);
}

int sg_redist_scratch_reserve(struct sg_redist_scratch *s, const struct sg_redist *plans,
                              int nplans, int threads)
{
	threads = threads > 1 ? threads : 1;
	struct sg_redist_scratch need = { .tiles = 1, .npieces = 1 };
	for (int p = 0; p < nplans; p++) {
		int rows, cols;
		size_t bc = (size_t)plans[p].bc_total * plans[p].elemsize + 1;
		size_t tile = (size_t)plans[p].tile_total * plans[p].elemsize + 1;
		size_t tiles = (size_t)local_tiles(&plans[p], &rows, &cols);
		size_t pieces = (size_t)plans[p].ncol_runs + (size_t)PIECES_PER_THREAD * threads;
		need.bc_bytes = bc > need.bc_bytes ? bc : need.bc_bytes;
		need.tile_bytes = tile > need.tile_bytes ? tile : need.tile_bytes;
		need.tiles = tiles > need.tiles ? tiles : need.tiles;
		need.npieces = pieces > need.npieces ? pieces : need.npieces;
	}
	int ok = s->bc_bytes >= need.bc_bytes && s->tile_bytes >= need.tile_bytes &&
	         s->tiles >= need.tiles && s->npieces >= need.npieces;
	if (!ok) {
		sg_redist_scratch_free(s);
		s->bc_buf = malloc(need.bc_bytes);
		s->tile_buf = malloc(need.tile_bytes);
		s->pieces = malloc(need.npieces * sizeof(*s->pieces));
		s->tile_ptr = malloc(need.tiles * sizeof(*s->tile_ptr));
		s->tile_ld = malloc(need.tiles * sizeof(*s->tile_ld));
		s->tile_handle = malloc(need.tiles * sizeof(*s->tile_handle));
		ok = s->bc_buf && s->tile_buf && s->pieces && s->tile_ptr && s->tile_ld &&
		     s->tile_handle;
		s->bc_bytes = need.bc_bytes;
		s->tile_bytes = need.tile_bytes;
		s->npieces = need.npieces;
		s->tiles = need.tiles;
	}
	s->threads = threads;
	int all = 0;
	SG_MPI_FATAL(MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, plans[0].comm));
	if (all)
		return 0;
	sg_redist_scratch_free(s);
	return -ENOMEM;
}

void sg_redist_scratch_free(struct sg_redist_scratch *s)
{
	free(s->bc_buf);
	free(s->tile_buf);
	free(s->pieces);
	free(s->tile_ptr);
	free(s->tile_ld);
	free(s->tile_handle);
	*s = (struct sg_redist_scratch){ 0 };
}

/* Node sharing (distrib/node_share.c): where every tile of desc is in this process's reach
 * (the whole grid on one node, the library's tiles in its shared memory), each rank copies its
 * own local array straight into the tiles, its own and its node peers', and back, with no MPI
 * message: between processes of a node MPI moves 3-5 GB/s per rank (docs/node-sharing.md).
 * Collective over r->comm. The owners hold their tiles (mode: STARPU_W into the tiles, which
 * drops their GPUs' copies; STARPU_R out of them, which brings them home) from before a
 * barrier to after the next, so no task touches a tile while another rank copies; the next
 * product drops the stale copies of peers' tiles on every rank's GPUs (compute/pgemm.c,
 * share_begin). 1 when done so, 0 when not in reach (the caller moves it through MPI). */
static int move_on_node(const struct sg_redist *r, struct starpu_gemm_desc *desc,
                        const struct sg_redist_scratch *s, int to_tiles)
{
	size_t tiles = (size_t)r->mt * r->nt;
	char **ptr = malloc((tiles ? tiles : 1) * sizeof(*ptr));
	int64_t *ld = malloc((tiles ? tiles : 1) * sizeof(*ld));
	int mine = ptr && ld, all = 0;
	for (int j = 0; mine && j < r->nt; j++)
		for (int i = 0; mine && i < r->mt; i++)
			mine = (ptr[i + (size_t)j * r->mt] = starpu_gemm_desc_tile_in_reach(
			                desc, i, j, &ld[i + (size_t)j * r->mt])) != NULL;
	SG_MPI_FATAL(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, r->comm));
	if (all) {
		struct held_tiles h = hold_tiles(r, desc, s, to_tiles ? STARPU_W : STARPU_R);
		SG_MPI_FATAL(MPI_Barrier(r->comm));
		walk(&(struct walk){ .r = r, .bc_side = 1, .node_ptr = ptr, .node_ld = ld,
		                     .to_buf = to_tiles }, s);
		SG_MPI_FATAL(MPI_Barrier(r->comm));
		release_tiles(&h);
	}
	free(ptr);
	free(ld);
	return all;
}

int sg_redist_to_tiles(const struct sg_redist *r, struct starpu_gemm_desc *desc,
                       const struct sg_redist_scratch *s)
{
	if (move_on_node(r, desc, s, 1))
		return 1;
	walk_local(r, s, 1);
	SG_MPI_FATAL(MPI_Alltoallv(s->bc_buf, r->bc_counts, r->bc_displs, r->type, s->tile_buf,
	                           r->tile_counts, r->tile_displs, r->type, r->comm));
	/* Every element of every tile is written: no need to fetch what the tile held. */
	struct held_tiles h = hold_tiles(r, desc, s, STARPU_W);
	walk_tiles(r, &h, s, 0);
	walk_self(r, &h, s, 1);
	release_tiles(&h);
	return 0;
}

int sg_redist_from_tiles(const struct sg_redist *r, struct starpu_gemm_desc *desc,
                         const struct sg_redist_scratch *s)
{
	if (move_on_node(r, desc, s, 0))
		return 1;
	struct held_tiles h = hold_tiles(r, desc, s, STARPU_R);
	walk_tiles(r, &h, s, 1);
	walk_self(r, &h, s, 0);
	release_tiles(&h);
	SG_MPI_FATAL(MPI_Alltoallv(s->tile_buf, r->tile_counts, r->tile_displs, r->type,
	                           s->bc_buf, r->bc_counts, r->bc_displs, r->type, r->comm));
	walk_local(r, s, 0);
	return 0;
}
