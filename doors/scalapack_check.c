/* PBLAS's own argument checks for p?gemm_ (pdgemm_.c and PB_Cchkmat.c), as a yes/no answer.
 *
 * The drop-in does not report errors itself: a call these checks reject is handed to the
 * next p?gemm_ (the real PBLAS), which runs the same checks and calls pxerbla with PBLAS's
 * own argument numbering, so an application (or a tester's error-exit run) sees exactly what
 * PBLAS would say. Answering "valid" where PBLAS says "invalid" would lose an error, so these
 * checks mirror PBLAS's one by one. */
#include <errno.h>
#include "doors/scalapack.h"

enum { BLOCK_CYCLIC_2D = 1, BLOCK_CYCLIC_2D_INB = 2 };

/* Where each field sits, per descriptor type (PBLAS's DTYPE1_..LLD1_ and DTYPE_..LLD_): type
 * 1 (9 entries) has no first block of its own size, so IMB and INB read MB and NB. */
static const struct desc_fields {
	int m, n, imb, inb, mb, nb, rsrc, csrc, lld;
} fields[] = {
	[BLOCK_CYCLIC_2D] = { 2, 3, 4, 5, 4, 5, 6, 7, 8 },
	[BLOCK_CYCLIC_2D_INB] = { 2, 3, 4, 5, 6, 7, 8, 9, 10 },
};

int sg_pblas_desc_read(const int *d, struct sg_pblas_desc *out)
{
	out->dtype = d[0];
	out->ctxt = d[1];
	if (d[0] != BLOCK_CYCLIC_2D && d[0] != BLOCK_CYCLIC_2D_INB)
		return -EINVAL;
	const struct desc_fields *f = &fields[d[0]];
	out->rows = (struct sg_bc_axis){ .extent = d[f->m], .first_block = d[f->imb],
	                                 .block = d[f->mb], .src = d[f->rsrc] };
	out->cols = (struct sg_bc_axis){ .extent = d[f->n], .first_block = d[f->inb],
	                                 .block = d[f->nb], .src = d[f->csrc] };
	out->lld = d[f->lld];
	return 0;
}

/* PB_Cchkmat for sub(X) = X(i:i+m-1, j:j+n-1) (i, j 1-based). */
static int matrix_valid(const struct sg_pgemm_args *g, int64_t m, int64_t n, int64_t i,
                        int64_t j, const struct sg_pblas_desc *d)
{
	if (m < 0 || n < 0 || i < 1 || j < 1)
		return 0;
	if (d->dtype != BLOCK_CYCLIC_2D && d->dtype != BLOCK_CYCLIC_2D_INB)
		return 0;
	if (d->ctxt != g->a.ctxt)
		return 0;
	if (d->rows.first_block < 1 || d->cols.first_block < 1 || d->rows.block < 1 ||
	    d->cols.block < 1)
		return 0;
	/* -1 (replicated) is legal for PBLAS */
	if (d->rows.src < -1 || d->rows.src >= g->nprow || d->cols.src < -1 ||
	    d->cols.src >= g->npcol)
		return 0;
	if (m == 0 || n == 0)
		return d->rows.extent >= 0 && d->cols.extent >= 0 && d->lld >= 1;
	if (d->rows.extent < 1 || d->cols.extent < 1)
		return 0;
	if (i - 1 + m > d->rows.extent || j - 1 + n > d->cols.extent)
		return 0;
	/* LLD must hold this rank's rows, unless it holds no column at all. */
	struct sg_bc_axis rows = d->rows, cols = d->cols;
	rows.nprocs = g->nprow;
	cols.nprocs = g->npcol;
	int64_t np = rows.src == -1 ? rows.extent : sg_bc_local_count(&rows, g->myrow);
	if (d->lld >= (np > 1 ? np : 1))
		return 1;
	int64_t nq = cols.src == -1 ? cols.extent : sg_bc_local_count(&cols, g->mycol);
	return d->lld >= 1 && nq == 0;
}

static int trans_valid(char t)
{
	return t == 'N' || t == 'T' || t == 'C';
}

int sg_pgemm_args_valid(const struct sg_pgemm_args *g)
{
	if (g->nprow == -1 || !trans_valid(g->transA) || !trans_valid(g->transB))
		return 0;
	int nota = g->transA == 'N', notb = g->transB == 'N';
	return matrix_valid(g, nota ? g->m : g->k, nota ? g->k : g->m, g->ia, g->ja, &g->a) &&
	       matrix_valid(g, notb ? g->k : g->n, notb ? g->n : g->k, g->ib, g->jb, &g->b) &&
	       matrix_valid(g, g->m, g->n, g->ic, g->jc, &g->c);
}
