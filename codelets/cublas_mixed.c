#include "codelets/cublas_mixed.h"
#ifdef STARPU_USE_CUDA
#include <library_types.h>

/* One cublasGemmEx per kernel: A and B of ab_type, C float, the compute type. CUBLAS_GEMM_DEFAULT:
 * cuBLAS picks tensor-core kernels by itself for these compute types (the _TENSOR_OP
 * algorithm values are deprecated since CUDA 11). */
#define SG_CUBLAS_MIXED(name, ab_type, compute)                                               \
	cublasStatus_t name(cublasHandle_t handle, cublasOperation_t transA,                  \
	                    cublasOperation_t transB, int m, int n, int k, const float *alpha,  \
	                    const void *A, int lda, const void *B, int ldb, const float *beta,  \
	                    float *C, int ldc)                                                  \
	{                                                                                      \
		return cublasGemmEx(handle, transA, transB, m, n, k, alpha, A, ab_type, lda, B, \
		                    ab_type, ldb, beta, C, CUDA_R_32F, ldc, compute,           \
		                    CUBLAS_GEMM_DEFAULT);                                       \
	}
SG_CUBLAS_MIXED(sg_cublas_bgemm, CUDA_R_16BF, CUBLAS_COMPUTE_32F)
SG_CUBLAS_MIXED(sg_cublas_hgemm, CUDA_R_16F, CUBLAS_COMPUTE_32F)
SG_CUBLAS_MIXED(sg_cublas_tgemm, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32)
#endif
