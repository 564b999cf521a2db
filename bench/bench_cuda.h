/* Checks for the GPU peers: every CUDA and cuBLAS call goes through one of these, which name
 * the call, file and line, and end the program (the peers have nothing to clean up). */
#ifndef BENCH_CUDA_H
#define BENCH_CUDA_H

#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>
#include <cublas_api.h>

/* call returns a status of type; anything but ok ends the program, naming it with to_string. */
#define BENCH_CHECK_STATUS_(type, ok, to_string, call)                                        \
	do {                                                                                  \
		type bench_st_ = (call);                                                      \
		if (bench_st_ != (ok)) {                                                      \
			fprintf(stderr, "%s failed at %s:%d: %s\n", #call, __FILE__, __LINE__, \
			        to_string(bench_st_));                                        \
			exit(1);                                                              \
		}                                                                             \
	} while (0)
#define BENCH_CUDA_CHECK(call) BENCH_CHECK_STATUS_(cudaError_t, cudaSuccess, cudaGetErrorString, call)
#define BENCH_CUBLAS_CHECK(call)                                                              \
	BENCH_CHECK_STATUS_(cublasStatus_t, CUBLAS_STATUS_SUCCESS, cublasGetStatusString, call)

/* Exit 2 with a sentence naming option and value when fewer than needed CUDA devices are
 * visible. */
static inline void bench_cuda_need_devices(const char *program, const char *option, int value,
                                           int needed)
{
	int ndevices = 0;
	BENCH_CUDA_CHECK(cudaGetDeviceCount(&ndevices));
	if (needed > ndevices) {
		fprintf(stderr, "%s: %s %d, but only %d CUDA devices are visible\n", program, option,
		        value, ndevices);
		exit(2);
	}
}

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
