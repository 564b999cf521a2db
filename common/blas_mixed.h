/* The CPU kernel of the mixed precisions 'b' and 'h' (bfloat16 or half A and B, float C),
 * behind sg_cblas_gemm (common/blas.h): there is no CBLAS for them but OpenBLAS's
 * cblas_sbgemm, which Debian's OpenBLAS 0.3.21 declares and does not build. */
#ifndef SG_BLAS_MIXED_H
#define SG_BLAS_MIXED_H

#include "common/precision.h"

/* C = alpha op(A) op(B) + beta C for p 'b' or 'h', letters normalised, arguments checked:
 * cblas_sbgemm where configure found it (bfloat16), else A and B widened to float (exactly)
 * and one cblas_sgemm. Returns 0 or -ENOMEM. */
int sg_cblas_gemm_widening(const struct sg_precision *p, char transA, char transB, int m,
                           int n, int k, const void *alpha, const void *A, int lda,
                           const void *B, int ldb, const void *beta, void *C, int ldc);

/* The rows x cols block at src (leading dimension ld, elements of format) as floats at dst,
 * leading dimension rows. */
void sg_widen_to_float(enum sg_format format, const void *src, int rows, int cols, int64_t ld,
                       float *dst);

#endif
