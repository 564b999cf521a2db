/* The one place that turns a precision letter into a CBLAS gemm call: the CPU codelet, the
 * verification and the tests all go through it, so they compute exactly the same thing. */
#ifndef SG_BLAS_H
#define SG_BLAS_H

/* C = alpha*op(A)*op(B) + beta*C, column-major, op(A) m x k, op(B) k x n, C m x n.
 * prec is 's','d','c','z', or 'b','h' (uint16_t A and B of bfloat16 or half, float C:
 * common/blas_mixed.h) or 't' (sgemm: TF32 is a GPU's rounding, and sgemm is within its
 * bound); trans letters 'N','T','C' (any case; 'C' on real means 'T');
 * alpha and beta point to a value of C's type. Returns 0, or -EINVAL for a bad
 * letter, a negative size, a leading dimension smaller than its operand's rows or a NULL
 * pointer: CBLAS itself would only print a message through xerbla and carry on. */
int sg_cblas_gemm(char prec, char transA, char transB, int m, int n, int k, const void *alpha,
                  const void *A, int lda, const void *B, int ldb, const void *beta, void *C,
                  int ldc);

#endif
