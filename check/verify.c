/* One rank's half of starpu_gemm_check: its own C tiles against a reference regenerated from
 * the seeds. Full mode builds each C tile's reference with CBLAS from panels of op(A) and
 * op(B) cut in k, so memory stays a few tiles whatever K; sampled mode costs O(samples K).
 * The reference is in ck->pr: the precision itself for s/d/c/z, double for the mixed ones,
 * from the same inputs as stored (bfloat16 and half are exact in double). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include "check/check.h"
#include "common/blas.h"
#include "common/errors.h"

/* Elements of one regenerated panel of op(A) or op(B) in full mode. */
#define PANEL_ELEMS ((int64_t)1 << 20)
/* Length in k of one regenerated piece of a row of op(A) or column of op(B), sampled mode. */
#define DOT_CHUNK 4096
/* The full check's CBLAS GEMM runs on the calling thread, whose BLAS buffers come beside the
 * idle workers': 2 MiB, a worker's at tiles up to 512 (compute/plan.c). Without them a
 * checked 1024^3 in double at t = 512 peaked 0.7 MB above the panels and the product. */
#define BLAS_THREAD_BYTES (2.0 * 1048576)

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* Records the first NaN/Inf of tile (i,j) in column-major order of the whole matrix. */
static void scan_nonfinite(struct sg_check *ck, int i, int j, int rows, int cols,
                           const void *tile, int64_t ld)
{
	for (int c = 0; c < cols; c++) {
		for (int r = 0; r < rows; r++) {
			double complex v = sg_load(ck->pc, tile, r + (int64_t)c * ld);
			if (isfinite(creal(v)) && isfinite(cimag(v)))
				continue;
			int64_t row = (int64_t)i * ck->C->tile + r, col = (int64_t)j * ck->C->tile + c;
			if (col * ck->C->m + row < ck->first_nonfinite)
				ck->first_nonfinite = col * ck->C->m + row;
			return;
		}
	}
}

struct panels {
	void *ref, *a, *b;   /* C tile reference, panel of A, panel of B (in ck->pr) */
	int64_t kc;          /* k extent of one panel */
};

/* count elements regenerated in from's storage at the start of buf, rewritten in place as
 * to's (as wide or wider): from the last, so none is overwritten before it is read. */
static void widen_in_place(const struct sg_precision *from, const struct sg_precision *to,
                           void *buf, int64_t count)
{
	if (from->format == to->format)
		return;
	for (int64_t e = count - 1; e >= 0; e--)
		sg_store(to, buf, e, sg_load(from, buf, e));
}

/* The rows x cols block of X at (row0, col0) as the reference's elements, ld = rows. */
static void regenerate(const struct sg_check *ck, const struct sg_precision *stored,
                       uint64_t seed, int64_t row0, int64_t col0, int rows, int cols, void *buf)
{
	sg_random_block(stored, seed, row0, col0, rows, cols, buf, rows);
	widen_in_place(stored, ck->pr, buf, (int64_t)rows * cols);
}

/* ref = alpha op(A)(rows of tile i, :) op(B)(:, columns of tile j) + beta C0(tile i,j), the
 * k loop cut in panels. The stored blocks of A and B are regenerated and handed to CBLAS
 * with their trans letters, so transposition and conjugation stay CBLAS's job. */
static int reference_tile(struct sg_check *ck, struct panels *w, int i, int j, int rows,
                          int cols)
{
	const struct sg_precision *pr = ck->pr, *pab = ck->A->p;
	int64_t row0 = (int64_t)i * ck->C->tile, col0 = (int64_t)j * ck->C->tile;
	/* alpha and beta of C's type, as the reference's. */
	double complex alpha[1], beta[1];
	sg_store(pr, alpha, 0, sg_load(ck->pc, ck->alpha, 0));
	sg_store(pr, beta, 0, sg_load(ck->pc, ck->beta, 0));
	regenerate(ck, ck->pc, ck->seedC0, row0, col0, rows, cols, w->ref);
	double complex b = sg_load(pr, beta, 0); /* only the stored part of beta is set */
	for (int64_t e = 0; e < (int64_t)rows * cols; e++)
		ck->ref2 += pow(cabs(b * sg_load(pr, w->ref, e)), 2);
	for (int64_t k0 = 0; k0 < ck->K; k0 += w->kc) {
		int kb = (int)min64(w->kc, ck->K - k0);
		int lda = ck->transA == 'N' ? rows : kb, ldb = ck->transB == 'N' ? kb : cols;
		if (ck->transA == 'N')
			regenerate(ck, pab, ck->seedA, row0, k0, rows, kb, w->a);
		else
			regenerate(ck, pab, ck->seedA, k0, row0, kb, rows, w->a);
		if (ck->transB == 'N')
			regenerate(ck, pab, ck->seedB, k0, col0, kb, cols, w->b);
		else
			regenerate(ck, pab, ck->seedB, col0, k0, cols, kb, w->b);
		int ret = sg_cblas_gemm(pr->letter, ck->transA, ck->transB, rows, cols, kb, alpha,
		                        w->a, lda, w->b, ldb, k0 == 0 ? (const void *)beta : pr->one,
		                        w->ref, rows);
		if (ret)
			return ret;
	}
	return 0;
}

/* Bytes of the reference tile and of one panel of op(A) and op(B) in full mode, and the
 * panels' k extent: so memory stays a few tiles whatever K. */
static void panel_bytes(const struct sg_check *ck, size_t bytes[3], int64_t *kc)
{
	const struct starpu_gemm_desc *C = ck->C;
	size_t es = ck->pr->elemsize;
	int64_t rmax = min64(C->tile, C->m), cmax = min64(C->tile, C->n);
	*kc = min64(ck->K, PANEL_ELEMS / (rmax > cmax ? rmax : cmax) + 1);
	bytes[0] = (size_t)(rmax * cmax) * es;
	bytes[1] = (size_t)(rmax * *kc) * es;
	bytes[2] = (size_t)(cmax * *kc) * es;
}

double sg_check_full_bytes(const struct sg_check *ck)
{
	size_t bytes[3];
	int64_t kc;
	panel_bytes(ck, bytes, &kc);
	return (double)bytes[0] + (double)bytes[1] + (double)bytes[2] + BLAS_THREAD_BYTES;
}

int sg_check_full(struct sg_check *ck)
{
	const struct starpu_gemm_desc *C = ck->C;
	size_t bytes[3];
	struct panels w;
	panel_bytes(ck, bytes, &w.kc);
	w.ref = malloc(bytes[0]);
	w.a = malloc(bytes[1]);
	w.b = malloc(bytes[2]);
	int ret = w.ref && w.a && w.b ? 0 : -ENOMEM;
	SG_DESC_FOR_LOCAL(C, t) {
		if (ret)
			break;
		int i, j, rows, cols;
		sg_desc_tile_shape(C, t, &i, &j, &rows, &cols);
		/* Once a NaN/Inf is known the residual is +Inf: only the scan goes on. */
		int compare = ck->first_nonfinite == INT64_MAX;
		if (compare && (ret = reference_tile(ck, &w, i, j, rows, cols)))
			break;
		/* R: waits for the tasks writing the tile and brings it back from a GPU. */
		if ((ret = starpu_data_acquire(C->handles[t], STARPU_R)))
			break;
		const void *tile = C->tiles[t];
		scan_nonfinite(ck, i, j, rows, cols, tile, C->lds[t]);
		for (int64_t e = 0; compare && e < (int64_t)rows * cols; e++) {
			double complex r = sg_load(ck->pr, w.ref, e);
			double complex d = sg_load(ck->pc, tile, sg_desc_tile_elem(C, t, e, rows)) - r;
			ck->diff2 += creal(d) * creal(d) + cimag(d) * cimag(d);
			ck->ref2 += creal(r) * creal(r) + cimag(r) * cimag(r);
		}
		starpu_data_release(C->handles[t]);
	}
	free(w.ref);
	free(w.a);
	free(w.b);
	return ret;
}

/* alpha sum_k op(A)(row,k) op(B)(k,col) + beta C0(row,col), in double complex whatever the
 * precision: regenerating a row of op(A) and a column of op(B) costs O(K). */
static double complex reference_entry(const struct sg_check *ck, int64_t row, int64_t col,
                                      void *abuf, void *bbuf, double complex *beta_c0)
{
	const struct sg_precision *p = ck->A->p, *pc = ck->pc;
	double complex sum = 0;
	for (int64_t k0 = 0; k0 < ck->K; k0 += DOT_CHUNK) {
		int kb = (int)min64(DOT_CHUNK, ck->K - k0);
		/* Row `row` of op(A) is a row of A, or a column of A when transposed. */
		if (ck->transA == 'N')
			sg_random_block(p, ck->seedA, row, k0, 1, kb, abuf, 1);
		else
			sg_random_block(p, ck->seedA, k0, row, kb, 1, abuf, kb);
		if (ck->transB == 'N')
			sg_random_block(p, ck->seedB, k0, col, kb, 1, bbuf, kb);
		else
			sg_random_block(p, ck->seedB, col, k0, 1, kb, bbuf, 1);
		for (int k = 0; k < kb; k++) {
			double complex a = sg_load(p, abuf, k), b = sg_load(p, bbuf, k);
			sum += (ck->transA == 'C' ? conj(a) : a) * (ck->transB == 'C' ? conj(b) : b);
		}
	}
	double complex c0_storage[1];
	starpu_gemm_random_element(pc->letter, ck->seedC0, row, col, c0_storage);
	*beta_c0 = sg_load(pc, ck->beta, 0) * sg_load(pc, c0_storage, 0);
	return sg_load(pc, ck->alpha, 0) * sum + *beta_c0;
}

static int cmp_int64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return (a > b) - (a < b);
}

/* samples positions among this rank's C entries, numbered tile after tile in the order the
 * tiles are walked, sorted so each tile is acquired once. Same draws for the same seeds. */
static int64_t *draw_samples(const struct sg_check *ck, int64_t samples, int64_t local_entries)
{
	int64_t *pos = malloc((size_t)samples * sizeof(*pos));
	if (!pos)
		return NULL;
	uint64_t state = ck->seedC0 ^ (ck->seedA << 1) ^ ((uint64_t)ck->C->rank << 32);
	for (int64_t s = 0; s < samples; s++)
		pos[s] = (int64_t)(sg_splitmix64(&state) % (uint64_t)local_entries);
	qsort(pos, (size_t)samples, sizeof(*pos), cmp_int64);
	return pos;
}

/* Entries of C on this rank. */
static int64_t local_entries_of(const struct starpu_gemm_desc *C)
{
	int64_t entries = 0;
	SG_DESC_FOR_LOCAL(C, t)
		entries += (int64_t)(sg_desc_tile_bytes(C, t) / C->p->elemsize);
	return entries;
}

double sg_check_sampled_bytes(const struct sg_check *ck, int64_t samples)
{
	if (samples >= local_entries_of(ck->C)) /* sg_check_sampled's choice */
		return sg_check_full_bytes(ck);
	return (double)samples * sizeof(int64_t) + 2.0 * DOT_CHUNK * ck->A->p->elemsize;
}

int sg_check_sampled(struct sg_check *ck, int64_t samples)
{
	const struct starpu_gemm_desc *C = ck->C;
	int64_t local_entries = local_entries_of(C);
	/* As many samples as entries: the full check costs the same and is exact. */
	if (samples >= local_entries)
		return sg_check_full(ck);
	int64_t *pos = draw_samples(ck, samples, local_entries);
	size_t es = ck->A->p->elemsize;
	void *abuf = malloc(DOT_CHUNK * es), *bbuf = malloc(DOT_CHUNK * es);
	int ret = pos && abuf && bbuf ? 0 : -ENOMEM;
	int64_t start = 0, s = 0; /* first entry of the current tile, next sample */
	SG_DESC_FOR_LOCAL(C, t) {
		if (ret)
			break;
		int i, j, rows, cols;
		sg_desc_tile_shape(C, t, &i, &j, &rows, &cols);
		if ((ret = starpu_data_acquire(C->handles[t], STARPU_R)))
			break;
		scan_nonfinite(ck, i, j, rows, cols, C->tiles[t], C->lds[t]);
		for (; s < samples && pos[s] < start + (int64_t)rows * cols; s++) {
			int64_t e = pos[s] - start;
			int64_t row = (int64_t)i * C->tile + e % rows;
			int64_t col = (int64_t)j * C->tile + e / rows;
			double complex beta_c0, r = reference_entry(ck, row, col, abuf, bbuf, &beta_c0);
			double complex d = sg_load(ck->pc, C->tiles[t], sg_desc_tile_elem(C, t, e, rows)) - r;
			ck->diff2 += creal(d) * creal(d) + cimag(d) * cimag(d);
			ck->ref2 += pow(cabs(r), 2) + pow(cabs(beta_c0), 2);
		}
		starpu_data_release(C->handles[t]);
		start += (int64_t)rows * cols;
	}
	/* An unbiased estimate of the squared error over all this rank's entries, so sampled and
	 * full residuals compare with the same bound. */
	ck->diff2 *= (double)local_entries / (double)samples;
	ck->ref2 *= (double)local_entries / (double)samples;
	free(pos);
	free(abuf);
	free(bbuf);
	return ret;
}
