#include <errno.h>
#include <cblas.h>
#include "blas.h"
#include "blas_mixed.h"
#include "precision.h"
#include <starpu_gemm.h>

/* The four CBLAS entry points behind one signature: real ones take scalars by value,
 * complex ones by address. */
typedef void (*gemm_fn)(enum CBLAS_TRANSPOSE, enum CBLAS_TRANSPOSE, int, int, int, const void *,
                        const void *, int, const void *, int, const void *, void *, int);

static void gemm_s(enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, int m, int n, int k,
                   const void *alpha, const void *A, int lda, const void *B, int ldb,
                   const void *beta, void *C, int ldc)
{
	cblas_sgemm(CblasColMajor, ta, tb, m, n, k, *(const float *)alpha, A, lda, B, ldb,
	            *(const float *)beta, C, ldc);
}

static void gemm_d(enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, int m, int n, int k,
                   const void *alpha, const void *A, int lda, const void *B, int ldb,
                   const void *beta, void *C, int ldc)
{
	cblas_dgemm(CblasColMajor, ta, tb, m, n, k, *(const double *)alpha, A, lda, B, ldb,
	            *(const double *)beta, C, ldc);
}

static void gemm_c(enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, int m, int n, int k,
                   const void *alpha, const void *A, int lda, const void *B, int ldb,
                   const void *beta, void *C, int ldc)
{
	cblas_cgemm(CblasColMajor, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

static void gemm_z(enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, int m, int n, int k,
                   const void *alpha, const void *A, int lda, const void *B, int ldb,
                   const void *beta, void *C, int ldc)
{
	cblas_zgemm(CblasColMajor, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

/* The CPU kernel of each storage of A and B: 't' is an 's' product here (TF32 is a GPU's
 * rounding: sgemm is more accurate); 'b' and 'h' widen to float (common/blas_mixed.h). */
static const struct {
	gemm_fn blas;
	int widening;
} kernels[] = {
	[SG_F32] = { gemm_s, 0 }, [SG_F64] = { gemm_d, 0 }, [SG_C32] = { gemm_c, 0 },
	[SG_C64] = { gemm_z, 0 }, [SG_BF16] = { NULL, 1 }, [SG_F16] = { NULL, 1 },
};

static enum CBLAS_TRANSPOSE cblas_trans(char trans)
{
	return trans == 'N' ? CblasNoTrans : trans == 'T' ? CblasTrans : CblasConjTrans;
}

static int64_t at_least_one(int64_t x)
{
	return x > 1 ? x : 1;
}

int starpu_gemm_gemm_check(char prec, char transA, char transB, int64_t m, int64_t n,
                           int64_t k, int64_t lda, int64_t ldb, int64_t ldc)
{
	if (!sg_precision(prec))
		return -1;
	char ta = sg_trans(prec, transA), tb = sg_trans(prec, transB);
	/* The reference BLAS's order and numbering (xGEMM's INFO), which its testers check. */
	if (!ta)
		return 1;
	if (!tb)
		return 2;
	if (m < 0)
		return 3;
	if (n < 0)
		return 4;
	if (k < 0)
		return 5;
	if (lda < at_least_one(ta == 'N' ? m : k))
		return 8;
	if (ldb < at_least_one(tb == 'N' ? k : n))
		return 10;
	if (ldc < at_least_one(m))
		return 13;
	return 0;
}

int sg_cblas_gemm(char prec, char transA, char transB, int m, int n, int k, const void *alpha,
                  const void *A, int lda, const void *B, int ldb, const void *beta, void *C,
                  int ldc)
{
	const struct sg_precision *p = sg_precision(prec);
	if (starpu_gemm_gemm_check(prec, transA, transB, m, n, k, lda, ldb, ldc) || !alpha ||
	    !beta || !A || !B || !C)
		return -EINVAL;
	char ta = sg_trans(prec, transA), tb = sg_trans(prec, transB);
	if (kernels[p->format].widening)
		return sg_cblas_gemm_widening(p, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
	kernels[p->format].blas(cblas_trans(ta), cblas_trans(tb), m, n, k, alpha, A, lda, B, ldb,
	                        beta, C, ldc);
	return 0;
}
