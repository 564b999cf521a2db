/* The communication-avoiding schedule (2.5D, Solomonik and Demmel), as layers of the grid:
 * its geometry, shared by the planner (compute/plan_layers.c), the walk (compute/walk.c) and
 * the submission (compute/pgemm.c, compute/partials.c).
 *
 * The P x Q grid is cut in pr x qc = c layers of P' x Q' ranks (P' = P / pr, Q' = Q / qc):
 * layer l = lr * qc + lc holds the ranks of rows [lr P', (lr + 1) P') and columns
 * [lc Q', (lc + 1) Q'). Layer k mod c computes the updates GEMM(i, j, k) of C(i,j) on its
 * rank (i mod P', j mod Q'). C's owner, (i mod P, j mod Q) on the 2D grid, is the rank of one
 * of the layers: it updates C itself, the others partial tiles that it adds into C
 * (compute/partials.h). A rank reads the
 * A tiles of P/P' times more rows, and the B tiles of Q/Q' times more columns, over 1/c of
 * the k steps: with c = 4 on 8 x 8 ranks, 11/64 of n^2 per rank against the 2D grid's 14/64.
 * The owners' adds cost c - 1 partial tiles per C tile received, and each layer takes at
 * least two k steps (the owner's first update comes before any partial is complete). */
#ifndef SG_LAYERS_H
#define SG_LAYERS_H

#include <starpu_gemm.h>

static inline int sg_layers(const struct starpu_gemm_plan *pl)
{
	return pl->layer_rows > 0 && pl->layer_cols > 0 ? pl->layer_rows * pl->layer_cols : 1;
}

/* The grid of one layer: P' (rows) and Q' (columns); the 2D grid's for plans of one layer. */
static inline int sg_layer_P(const struct starpu_gemm_plan *pl)
{
	return pl->layer_rows > 0 ? pl->P / pl->layer_rows : pl->P;
}

static inline int sg_layer_Q(const struct starpu_gemm_plan *pl)
{
	return pl->layer_cols > 0 ? pl->Q / pl->layer_cols : pl->Q;
}

/* The rank at place (p, q) of layer l's P' x Q' grid, and back: rank's layer and place. */
static inline int sg_layer_rank(const struct starpu_gemm_plan *pl, int l, int p, int q)
{
	int P1 = sg_layer_P(pl), Q1 = sg_layer_Q(pl), qc = pl->Q / Q1;
	return (p + P1 * (l / qc)) * pl->Q + q + Q1 * (l % qc);
}

static inline int sg_layer_place(const struct starpu_gemm_plan *pl, int rank, int *p, int *q)
{
	int P1 = sg_layer_P(pl), Q1 = sg_layer_Q(pl), row = rank / pl->Q, col = rank % pl->Q;
	*p = row % P1;
	*q = col % Q1;
	return (row / P1) * (pl->Q / Q1) + col / Q1;
}

/* The rank that runs GEMM(i, j, k): that of layer k mod c at (i mod P', j mod Q') of it. With
 * one layer, C(i,j)'s owner on the 2D grid. */
static inline int sg_layer_runner(const struct starpu_gemm_plan *pl, int i, int j, int k)
{
	return sg_layer_rank(pl, k % sg_layers(pl), i % sg_layer_P(pl), j % sg_layer_Q(pl));
}

/* The GEMM tasks rank runs: its layer's k steps (k mod c = its layer) of the C tiles at its
 * place in its layer's grid; with one layer, its own C tiles' every k step. */
static inline long long sg_layer_tasks(const struct starpu_gemm_plan *pl, int rank)
{
	int P1 = sg_layer_P(pl), Q1 = sg_layer_Q(pl), c = sg_layers(pl), p, q;
	int l = sg_layer_place(pl, rank, &p, &q);
	long long rows = (pl->Mt - p + P1 - 1) / P1, cols = (pl->Nt - q + Q1 - 1) / Q1;
	long long ks = (pl->Kt - l + c - 1) / c;
	return rows * cols * (ks > 0 ? ks : 0);
}

/* Whether GEMM(i, j, k) is the last update of its layer's partial tile of C(i,j) (the
 * partial is then complete), and the first (it writes the partial, reading nothing). */
static inline int sg_layer_last_k(const struct starpu_gemm_plan *pl, int k)
{
	return k + sg_layers(pl) >= pl->Kt;
}

static inline int sg_layer_first_k(const struct starpu_gemm_plan *pl, int k)
{
	return k < sg_layers(pl);
}

#endif
