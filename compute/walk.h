/* The order of the product's tasks, in one place: compute/pgemm.c submits them in it and
 * doors/stage.c stages the application's tiles in it.
 *
 * Algorithm 3 (the seed paper's blocked, chunked outer product): for y < Y, for x < X (block
 * (x,y) of C, spanning bP x cQ tiles), for z < Z (chunk (x,y,z): the block's k steps
 * [zd, zd+d)). Inside a chunk, whose A and B tiles are all resident anyway, C tiles come in
 * growing squares (shell s: column s top-down, then row s left to right) and each C tile's
 * k steps back to back: a C tile finishes, and can go home, as soon as its updates are done,
 * and the first shells need a few rows of A and columns of B, not all of A (a block column)
 * or all of B (a block row) before the GPU can run at full rate. */
#ifndef SG_WALK_H
#define SG_WALK_H

#include <stdint.h>
#include <starpu_gemm.h>

struct sg_walk {
	const struct starpu_gemm_plan *plan;
	int x, y, z;                 /* the current chunk (after sg_walk_next_chunk) */
	int i0, i1, j0, j1, k0, k1;  /* its C rows and columns, its k steps */
	int64_t chunk;               /* chunks begun so far, minus one */
	int64_t seq;                 /* tasks handed out so far, minus one: the task's number */
	int di, dj, k, started;      /* the current task, relative to (i0, j0) */
};

/* Before the first chunk; the walk spans plan's Mt x Nt x Kt tiles on a P x Q grid. */
void sg_walk_start(struct sg_walk *w, const struct starpu_gemm_plan *plan);
/* Moves to the next chunk; 0 when there is none. */
int sg_walk_next_chunk(struct sg_walk *w);
/* Whether the current chunk is its block's last (the block's C is then complete). */
int sg_walk_block_ends(const struct sg_walk *w);
/* The next task GEMM(i, j, k) of the current chunk; 0 at the end of the chunk. */
int sg_walk_next_task(struct sg_walk *w, int *i, int *j, int *k);
/* With C's loads spread over a block's chunks (plan.c_spread): the chunk z of the current
 * block in which C(i,j), a tile of it, is loaded (its first update of that chunk applies
 * beta; its updates of earlier chunks go to a scratch tile). By the tile's place in the
 * chunk's shells, pos of rows x cols: Z - 1 - floor(pos Z / (rows cols)), so that each chunk
 * loads about 1/Z of the block's C tiles, the first chunk those the walk reaches last (its
 * first shells are loading A and B then), the last chunk those it reaches first. */
int sg_walk_c_chunk(const struct sg_walk *w, int i, int j);
/* Whether C(i,j) is in the walk's last shell (of the last block's last chunk): the C tiles the
 * product finishes last. */
int sg_walk_in_last_shell(const struct starpu_gemm_plan *plan, int i, int j);
/* How many C tiles that shell holds, over all ranks. */
int sg_walk_last_shell_tiles(const struct starpu_gemm_plan *plan);

/* The walk keeps a C tile's updates together within a chunk: when it leaves a tile after the
 * tile's last k step, the tile is final and can go home while the rest computes (the doors'
 * copies back). Fed every task GEMM(i, j, k) of C tiles one follows, in the walk's order;
 * returns 1 with the tile left in (*i0, *j0) when the one before was a tile's last update. */
struct sg_walk_leave {
	int i, j, k;       /* the last task fed; i = -1 before the first */
};

static inline int sg_walk_leaves_tile(struct sg_walk_leave *l, int Kt, int i, int j, int k,
                                      int *i0, int *j0)
{
	int left = l->i >= 0 && (l->i != i || l->j != j) && l->k == Kt - 1;
	*i0 = l->i;
	*j0 = l->j;
	*l = (struct sg_walk_leave){ i, j, k };
	return left;
}

#endif
