#include <errno.h>
#include <stdlib.h>
#include <cblas.h>
#include "common/blas_mixed.h"

void sg_widen_to_float(enum sg_format format, const void *src, int rows, int cols, int64_t ld,
                       float *dst)
{
	const uint16_t *x = src;
	for (int c = 0; c < cols; c++) {
		const uint16_t *column = x + (size_t)c * (size_t)ld;
		float *out = dst + (size_t)c * (size_t)rows;
		if (format == SG_BF16)
			for (int r = 0; r < rows; r++)
				out[r] = sg_bf16_to_float(column[r]);
		else
			for (int r = 0; r < rows; r++)
				out[r] = sg_half_to_float(column[r]);
	}
}

static enum CBLAS_TRANSPOSE trans_of(char trans)
{
	return trans == 'N' ? CblasNoTrans : CblasTrans;
}

int sg_cblas_gemm_widening(const struct sg_precision *p, char transA, char transB, int m,
                           int n, int k, const void *alpha, const void *A, int lda,
                           const void *B, int ldb, const void *beta, void *C, int ldc)
{
	float a = *(const float *)alpha, b = *(const float *)beta;
#ifdef HAVE_CBLAS_SBGEMM
	if (p->format == SG_BF16) {
		cblas_sbgemm(CblasColMajor, trans_of(transA), trans_of(transB), m, n, k, a, A, lda, B,
		             ldb, b, C, ldc);
		return 0;
	}
#endif
	/* The stored blocks, as they are: op() stays CBLAS's job. */
	int a_rows = transA == 'N' ? m : k, a_cols = transA == 'N' ? k : m;
	int b_rows = transB == 'N' ? k : n, b_cols = transB == 'N' ? n : k;
	size_t a_elems = (size_t)a_rows * (size_t)a_cols, b_elems = (size_t)b_rows * (size_t)b_cols;
	float *wide = malloc((a_elems + b_elems + 1) * sizeof(float));
	if (!wide)
		return -ENOMEM;
	sg_widen_to_float(p->format, A, a_rows, a_cols, lda, wide);
	sg_widen_to_float(p->format, B, b_rows, b_cols, ldb, wide + a_elems);
	/* ld >= 1 even for empty blocks, as CBLAS requires. */
	cblas_sgemm(CblasColMajor, trans_of(transA), trans_of(transB), m, n, k, a, wide,
	            a_rows > 1 ? a_rows : 1, wide + a_elems, b_rows > 1 ? b_rows : 1, b, C, ldc);
	free(wide);
	return 0;
}
