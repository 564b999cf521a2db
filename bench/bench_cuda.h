/* Checks for the GPU peers: every CUDA and cuBLAS call goes through one of these, which name
 * the call, file and line, and end the program (the peers have nothing to clean up). */
#ifndef BENCH_CUDA_H
#define BENCH_CUDA_H

#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>
#include <cublas_api.h>

#define BENCH_CUDA_CHECK(call)                                                                \
	do {                                                                                  \
		cudaError_t bench_err_ = (call);                                              \
		if (bench_err_ != cudaSuccess) {                                              \
			fprintf(stderr, "%s failed at %s:%d: %s\n", #call, __FILE__, __LINE__, \
			        cudaGetErrorString(bench_err_));                              \
			exit(1);                                                              \
		}                                                                             \
	} while (0)

#define BENCH_CUBLAS_CHECK(call)                                                              \
	do {                                                                                  \
		cublasStatus_t bench_st_ = (call);                                            \
		if (bench_st_ != CUBLAS_STATUS_SUCCESS) {                                     \
			fprintf(stderr, "%s failed at %s:%d: %s\n", #call, __FILE__, __LINE__, \
			        cublasGetStatusString(bench_st_));                            \
			exit(1);                                                              \
		}                                                                             \
	} while (0)

/* The device's name with spaces made '_', for a key=value field. */
static inline void bench_cuda_device_name(int device, char *name, size_t len)
{
	struct cudaDeviceProp prop;
	BENCH_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
	snprintf(name, len, "%s", prop.name);
	for (char *c = name; *c; c++)
		if (*c == ' ' || *c == '=')
			*c = '_';
}

#endif
