/* The product's task order: compute/walk.h says what it is and why. */
#include "compute/walk.h"
#include "compute/problem.h"
#include "compute/layers.h"

void sg_walk_start(struct sg_walk *w, const struct starpu_gemm_plan *plan)
{
	*w = (struct sg_walk){ .plan = plan, .x = -1, .y = 0, .z = plan->Z - 1,
	                       .chunk = -1, .seq = -1 };
}

/* Block (x,y) of C: its rows [i0, i1) and columns [j0, j1) of tiles; b x c of them for each
 * rank of the grid, or with layers of each rank of a layer's grid (compute/layers.h). */
static void block_extent(const struct starpu_gemm_plan *pl, int x, int y, int *i0, int *i1,
                         int *j0, int *j1)
{
	int P = sg_layer_P(pl), Q = sg_layer_Q(pl);
	*i0 = x * pl->b * P;
	*i1 = sg_min(*i0 + pl->b * P, pl->Mt);
	*j0 = y * pl->c * Q;
	*j1 = sg_min(*j0 + pl->c * Q, pl->Nt);
}

int sg_walk_next_chunk(struct sg_walk *w)
{
	const struct starpu_gemm_plan *pl = w->plan;
	if (++w->z == pl->Z) {
		w->z = 0;
		if (++w->x == pl->X) {
			w->x = 0;
			if (++w->y == pl->Y)
				return 0;
		}
	}
	block_extent(pl, w->x, w->y, &w->i0, &w->i1, &w->j0, &w->j1);
	w->k0 = w->z * pl->d;
	w->k1 = sg_min(w->k0 + pl->d, pl->Kt);
	w->chunk++;
	w->started = 0;
	return 1;
}

int sg_walk_block_ends(const struct sg_walk *w)
{
	return w->z == w->plan->Z - 1;
}

/* The C tile after (di, dj) in growing squares over rows x cols: shell s holds the tiles
 * whose larger coordinate is s, its column part (di < s, dj = s) top-down, then its row part
 * (di = s, dj <= s) left to right. Returns 0 after the last tile. */
static int next_in_shells(int rows, int cols, int *di, int *dj)
{
	int s = sg_max(*di, *dj);
	if (*dj == s && *di < s) {
		if (*di + 1 < s && *di + 1 < rows) {
			(*di)++;
			return 1;
		}
		if (s < rows) {
			*di = s;
			*dj = 0;
			return 1;
		}
	} else if (*dj + 1 <= s && *dj + 1 < cols) {
		(*dj)++;
		return 1;
	}
	for (s++; s < sg_max(rows, cols); s++) {
		if (s < cols) {
			*di = 0;
			*dj = s;
			return 1;
		}
		if (s < rows) {
			*di = s;
			*dj = 0;
			return 1;
		}
	}
	return 0;
}

int sg_walk_next_task(struct sg_walk *w, int *i, int *j, int *k)
{
	if (!w->started) {
		w->started = 1;
		w->di = w->dj = 0;
		w->k = w->k0;
	} else if (++w->k == w->k1) {
		w->k = w->k0;
		if (!next_in_shells(w->i1 - w->i0, w->j1 - w->j0, &w->di, &w->dj))
			return 0;
	}
	if (w->i0 >= w->i1 || w->j0 >= w->j1 || w->k0 >= w->k1)
		return 0;
	*i = w->i0 + w->di;
	*j = w->j0 + w->dj;
	*k = w->k;
	w->seq++;
	return 1;
}

int sg_walk_c_chunk(const struct sg_walk *w, int i, int j)
{
	int rows = w->i1 - w->i0, cols = w->j1 - w->j0;
	int di = i - w->i0, dj = j - w->j0, s = sg_max(di, dj);
	/* Shells before s, then in shell s its column part (di < s; there when s < cols), then
	 * its row part (di = s), as next_in_shells walks them. */
	int64_t pos = (int64_t)sg_min(s, rows) * sg_min(s, cols);
	pos += dj == s && di < s ? di : (s < cols ? sg_min(s, rows) : 0) + dj;
	int Z = w->plan->Z;
	return Z - 1 - (int)(pos * Z / ((int64_t)rows * cols));
}

/* The last block's first tile and extent in tiles, and its last shell's index. */
static int last_block(const struct starpu_gemm_plan *pl, int *i0, int *j0, int *rows, int *cols)
{
	int i1, j1;
	block_extent(pl, pl->X - 1, pl->Y - 1, i0, &i1, j0, &j1);
	*rows = i1 - *i0;
	*cols = j1 - *j0;
	return sg_max(*rows, *cols) - 1;
}

int sg_walk_in_last_shell(const struct starpu_gemm_plan *pl, int i, int j)
{
	int i0, j0, rows, cols, last = last_block(pl, &i0, &j0, &rows, &cols);
	return i >= i0 && j >= j0 && sg_max(i - i0, j - j0) == last;
}

int sg_walk_last_shell_tiles(const struct starpu_gemm_plan *pl)
{
	int i0, j0, rows, cols;
	last_block(pl, &i0, &j0, &rows, &cols);
	return rows == cols ? 2 * rows - 1 : sg_min(rows, cols);
}
