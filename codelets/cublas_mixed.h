/* cuBLAS entry points of the tensor-core kernels, shaped like cublasSgemm so that
 * gemm_template.c instantiates them as it does the four BLAS precisions: 'b' and 'h'
 * (bfloat16 or half A and B, float C, CUBLAS_COMPUTE_32F) and 't' (float A, B and C,
 * CUBLAS_COMPUTE_32F_FAST_TF32), all through cublasGemmEx. A and B are untyped: their
 * elements are the uint16_t bits of the mixed precisions. */
#ifndef SG_CUBLAS_MIXED_H
#define SG_CUBLAS_MIXED_H

#include <starpu.h>
#ifdef STARPU_USE_CUDA
#include <cublas_v2.h>

#define SG_CUBLAS_MIXED_ARGS cublasHandle_t handle, cublasOperation_t transA,               \
	cublasOperation_t transB, int m, int n, int k, const float *alpha, const void *A,      \
	int lda, const void *B, int ldb, const float *beta, float *C, int ldc
cublasStatus_t sg_cublas_bgemm(SG_CUBLAS_MIXED_ARGS);
cublasStatus_t sg_cublas_hgemm(SG_CUBLAS_MIXED_ARGS);
cublasStatus_t sg_cublas_tgemm(SG_CUBLAS_MIXED_ARGS);
#undef SG_CUBLAS_MIXED_ARGS

#endif
#endif
