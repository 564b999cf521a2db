#include "codelets/cublas_mixed.h"
#ifdef STARPU_USE_CUDA
#include <library_types.h>

/* CUBLAS_GEMM_DEFAULT: cuBLAS picks tensor-core kernels by itself for these compute types
 * (the _TENSOR_OP algorithm values are deprecated since CUDA 11). */
static cublasStatus_t gemm_ex(cublasHandle_t handle, cublasOperation_t transA,
                              cublasOperation_t transB, int m, int n, int k, const float *alpha,
                              const void *A, int lda, const void *B, int ldb, const float *beta,
                              float *C, int ldc, cudaDataType ab_type, cublasComputeType_t compute)
{
	return cublasGemmEx(handle, transA, transB, m, n, k, alpha, A, ab_type, lda, B, ab_type,
	                    ldb, beta, C, CUDA_R_32F, ldc, compute, CUBLAS_GEMM_DEFAULT);
}

cublasStatus_t sg_cublas_bgemm(cublasHandle_t handle, cublasOperation_t transA,
                               cublasOperation_t transB, int m, int n, int k, const float *alpha,
                               const void *A, int lda, const void *B, int ldb,
                               const float *beta, float *C, int ldc)
{
	return gemm_ex(handle, transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
	               CUDA_R_16BF, CUBLAS_COMPUTE_32F);
}

cublasStatus_t sg_cublas_hgemm(cublasHandle_t handle, cublasOperation_t transA,
                               cublasOperation_t transB, int m, int n, int k, const float *alpha,
                               const void *A, int lda, const void *B, int ldb,
                               const float *beta, float *C, int ldc)
{
	return gemm_ex(handle, transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
	               CUDA_R_16F, CUBLAS_COMPUTE_32F);
}

cublasStatus_t sg_cublas_tgemm(cublasHandle_t handle, cublasOperation_t transA,
                               cublasOperation_t transB, int m, int n, int k, const float *alpha,
                               const void *A, int lda, const void *B, int ldb,
                               const float *beta, float *C, int ldc)
{
	return gemm_ex(handle, transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
	               CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32);
}
#endif
