/* Peer: the single-GPU ceiling. cuBLAS DGEMM C = A*B + C on n x n random matrices already in
 * GPU memory, each run timed with CUDA events; one row of the results' CSV per timed run
 * (bench/bench_util.h), system cublas_peak, with the GPU's name (the reporter takes the
 * fastest run, what the seed paper calls the practical peak). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <cublas_v2.h>
#include "bench/bench_util.h"
#include "bench/bench_cuda.h"

static void usage(FILE *out, const char *program)
{
	fprintf(out, "usage: %s [-n N] [--device D] [--niter I] [--warmup W]\n"
	        "  -n, --n N      matrix order (default 16384); needs 24 n^2 bytes of GPU memory\n"
	        "  --device D     CUDA device (default 0)\n"
	        "  --niter I      timed runs, the median is reported (default 5)\n"
	        "  --warmup W     untimed runs first (default 1)\n", program);
}

/* Fill a device matrix from one random host chunk copied over and over, at a shift that is
 * not a multiple of the column length: generating n^2 values on the host would take longer
 * than the benchmark, and DGEMM's speed does not depend on the values. */
static void fill_device(double *dst, size_t count, const double *chunk, size_t chunk_len,
                        size_t shift)
{
	for (size_t done = 0; done < count;) {
		size_t offset = (done + shift) % chunk_len;
		size_t len = chunk_len - offset;
		if (len > count - done)
			len = count - done;
		BENCH_CUDA_CHECK(cudaMemcpy(dst + done, chunk + offset, len * sizeof(double),
		                            cudaMemcpyHostToDevice));
		done += len;
	}
}

int main(int argc, char **argv)
{
	struct bench_run run = { .n = 16384, .niter = 5, .warmup = 1 };
	int device = 0;
	enum { OPT_DEVICE = 256 };
	static const struct option longopts[] = {
		BENCH_RUN_LONGOPTS, { "device", required_argument, NULL, OPT_DEVICE },
		{ NULL, 0, NULL, 0 }
	};
	while (bench_getopt(argc, argv, longopts, &run, usage) == OPT_DEVICE)
		device = (int)bench_int_option(argv[0], "--device", optarg, 0, 1023);
	long long n = run.n;
	int niter = run.niter, warmup = run.warmup;

	bench_cuda_need_devices(argv[0], "--device", device, device + 1);
	BENCH_CUDA_CHECK(cudaSetDevice(device));
	size_t count = (size_t)n * (size_t)n, free_bytes = 0, total_bytes = 0;
	BENCH_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
	if (3 * count * sizeof(double) > free_bytes) {
		fprintf(stderr, "%s: n=%lld needs %.1f GB of GPU memory, device %d has %.1f GB free\n",
		        argv[0], n, 3.0 * (double)count * sizeof(double) / 1e9, device,
		        (double)free_bytes / 1e9);
		return 1;
	}

	double *A = NULL, *B = NULL, *C = NULL, *chunk = NULL;
	size_t chunk_len = ((size_t)1 << 24) - 3; /* 128 MB, odd so rows do not line up */
	BENCH_CUDA_CHECK(cudaMalloc((void **)&A, count * sizeof(double)));
	BENCH_CUDA_CHECK(cudaMalloc((void **)&B, count * sizeof(double)));
	BENCH_CUDA_CHECK(cudaMalloc((void **)&C, count * sizeof(double)));
	BENCH_CUDA_CHECK(cudaMallocHost((void **)&chunk, chunk_len * sizeof(double)));
	bench_fill_random(chunk, chunk_len, 42);
	fill_device(A, count, chunk, chunk_len, 0);
	fill_device(B, count, chunk, chunk_len, chunk_len / 3);
	fill_device(C, count, chunk, chunk_len, 2 * (chunk_len / 3));
	BENCH_CUDA_CHECK(cudaFreeHost(chunk));

	cublasHandle_t handle;
	BENCH_CUBLAS_CHECK(cublasCreate(&handle));
	cudaEvent_t start, stop;
	BENCH_CUDA_CHECK(cudaEventCreate(&start));
	BENCH_CUDA_CHECK(cudaEventCreate(&stop));
	double *times = malloc((size_t)niter * sizeof(double));
	if (!times) {
		perror(argv[0]);
		return 1;
	}
	const double alpha = 1.0, beta = 1.0;
	const int dim = (int)n;
	for (int it = 0; it < warmup + niter; it++) {
		BENCH_CUDA_CHECK(cudaEventRecord(start, 0));
		BENCH_CUBLAS_CHECK(cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, dim, dim, dim, &alpha,
		                               A, dim, B, dim, &beta, C, dim));
		BENCH_CUDA_CHECK(cudaEventRecord(stop, 0));
		BENCH_CUDA_CHECK(cudaEventSynchronize(stop));
		float ms = 0;
		BENCH_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
		if (it >= warmup)
			times[it - warmup] = 1e-3 * ms;
	}

	char name[256], extra[300];
	bench_cuda_device_name(device, name, sizeof(name));
	snprintf(extra, sizeof(extra), "ncuda=1 ranks=1 gpu=%s", name);
	bench_print_rows("cublas_peak", n, bench_dgemm_flops(n), times, niter, extra);

	free(times);
	BENCH_CUDA_CHECK(cudaEventDestroy(start));
	BENCH_CUDA_CHECK(cudaEventDestroy(stop));
	BENCH_CUBLAS_CHECK(cublasDestroy(handle));
	BENCH_CUDA_CHECK(cudaFree(A));
	BENCH_CUDA_CHECK(cudaFree(B));
	BENCH_CUDA_CHECK(cudaFree(C));
	return 0;
}
