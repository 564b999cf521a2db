/* Peer: cuBLASXt DGEMM C = A*B + C with the n x n matrices in pinned host memory, spread
 * over GPUs 0..G-1 in B x B blocks, the result back in host memory. The time of a run is the
 * wall clock around cublasXtDgemm (and a synchronisation of the devices, in case a transfer
 * is still in flight). --gpus and --block take one value or a list ("1,2,4", "2048,4096"):
 * the matrices are allocated and filled once (tens of GB: longer than the GEMMs) and each
 * (G, B) is measured in turn: rows of the results' CSV (bench/bench_util.h), system
 * cublasxt, ncuda G, block B, memory pinned or pageable. --pageable puts the matrices in malloc'ed memory, as an application's arrays are. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cublasXt.h>
#include "bench/bench_util.h"
#include "bench/bench_cuda.h"

#define MAX_LIST 16
#define MAX_GPUS 64

static void usage(FILE *out, const char *program)
{
	fprintf(out, "usage: %s [-n N] [--gpus G[,G...]] [--block B[,B...]] [--niter I] "
	        "[--warmup W]\n"
	        "  -n, --n N      matrix order (default 16384); needs 24 n^2 bytes of pinned host "
	        "memory\n"
	        "  --gpus G       use CUDA devices 0..G-1 (default 1); a comma-separated list "
	        "measures each\n"
	        "  --block B      cublasXtSetBlockDim (default 4096); a list measures each\n"
	        "  --pageable     matrices from malloc instead of cudaMallocHost\n"
	        "  --niter I      timed runs per (G, B), the median is reported (default 3)\n"
	        "  --warmup W     untimed full-size runs per (G, B) (default 1); a small call "
	        "always\n"
	        "                 starts the GPUs' contexts first\n", program);
}

/* "4096" or "2048,4096,8192": the values in [lo, hi], how many. */
static int parse_list(const char *program, const char *option, const char *text, int lo, int hi,
                      int *values)
{
	char copy[256];
	snprintf(copy, sizeof(copy), "%s", text);
	int count = 0;
	for (char *save = NULL, *item = strtok_r(copy, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		if (count == MAX_LIST) {
			fprintf(stderr, "%s: %s takes at most %d values\n", program, option, MAX_LIST);
			exit(2);
		}
		values[count++] = (int)bench_int_option(program, option, item, lo, hi);
	}
	if (count == 0) {
		fprintf(stderr, "%s: %s needs at least one value\n", program, option);
		exit(2);
	}
	return count;
}

/* One timed cublasXtDgemm: returns seconds. */
static double timed_dgemm(cublasXtHandle_t handle, int gpus, size_t n, const double *A,
                          const double *B, double *C)
{
	const double alpha = 1.0, beta = 1.0;
	double t0 = bench_now();
	BENCH_CUBLAS_CHECK(cublasXtDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, A, n,
	                                 B, n, &beta, C, n));
	for (int d = 0; d < gpus; d++) {
		BENCH_CUDA_CHECK(cudaSetDevice(d));
		BENCH_CUDA_CHECK(cudaDeviceSynchronize());
	}
	return bench_now() - t0;
}

/* Every block size on GPUs 0..gpus-1, with a handle of their own; one RESULT line each. */
static void measure_gpus(int gpus, const int *blocks, int nblocks, int niter, int warmup,
                         size_t n, const double *A, const double *B, double *C, double *times,
                         int pageable)
{
	cublasXtHandle_t handle;
	int devices[MAX_GPUS];
	for (int d = 0; d < gpus; d++)
		devices[d] = d;
	BENCH_CUBLAS_CHECK(cublasXtCreate(&handle));
	BENCH_CUBLAS_CHECK(cublasXtDeviceSelect(handle, gpus, devices));
	/* Contexts and cuBLAS handles start on the first call: make it a small one. */
	size_t small = n < 1024 ? n : 1024;
	BENCH_CUBLAS_CHECK(cublasXtSetBlockDim(handle, (int)small));
	timed_dgemm(handle, gpus, small, A, B, C);

	for (int b = 0; b < nblocks; b++) {
		BENCH_CUBLAS_CHECK(cublasXtSetBlockDim(handle, blocks[b]));
		for (int it = 0; it < warmup + niter; it++) {
			double t = timed_dgemm(handle, gpus, n, A, B, C);
			if (it >= warmup)
				times[it - warmup] = t;
		}
		char extra[128];
		snprintf(extra, sizeof(extra), "ranks=1 ncuda=%d block=%d memory=%s", gpus, blocks[b],
		         pageable ? "pageable" : "pinned");
		bench_print_rows("cublasxt", (int64_t)n, bench_dgemm_flops((int64_t)n), times, niter,
		                 extra);
	}
	BENCH_CUBLAS_CHECK(cublasXtDestroy(handle));
}

int main(int argc, char **argv)
{
	struct bench_run run = { .n = 16384, .niter = 3, .warmup = 1 };
	int gpu_counts[MAX_LIST] = { 1 }, ngpu_counts = 1, blocks[MAX_LIST] = { 4096 }, nblocks = 1;
	int pageable = 0;
	enum { OPT_GPUS = 256, OPT_BLOCK, OPT_PAGEABLE };
	static const struct option longopts[] = {
		BENCH_RUN_LONGOPTS, { "gpus", required_argument, NULL, OPT_GPUS },
		{ "block", required_argument, NULL, OPT_BLOCK },
		{ "pageable", no_argument, NULL, OPT_PAGEABLE }, { NULL, 0, NULL, 0 }
	};
	int opt;
	while ((opt = bench_getopt(argc, argv, longopts, &run, usage)) != -1) {
		if (opt == OPT_PAGEABLE)
			pageable = 1;
		else if (opt == OPT_GPUS)
			ngpu_counts = parse_list(argv[0], "--gpus", optarg, 1, MAX_GPUS, gpu_counts);
		else
			nblocks = parse_list(argv[0], "--block", optarg, 1, 1 << 20, blocks);
	}
	long long n = run.n;
	int niter = run.niter, warmup = run.warmup;
	for (int g = 0; g < ngpu_counts; g++)
		bench_cuda_need_devices(argv[0], "--gpus", gpu_counts[g], gpu_counts[g]);

	size_t count = (size_t)n * (size_t)n;
	double *A = NULL, *B = NULL, *C = NULL;
	double **matrices[3] = { &A, &B, &C };
	for (int x = 0; x < 3; x++) {
		if (pageable)
			*matrices[x] = malloc(count * sizeof(double));
		else
			BENCH_CUDA_CHECK(cudaMallocHost((void **)matrices[x], count * sizeof(double)));
		if (!*matrices[x]) {
			perror(argv[0]);
			return 1;
		}
	}
	bench_fill_random(A, count, 1);
	bench_fill_random(B, count, 2);
	bench_fill_random(C, count, 3);

	double *times = malloc((size_t)niter * sizeof(double));
	if (!times) {
		perror(argv[0]);
		return 1;
	}
	for (int g = 0; g < ngpu_counts; g++)
		measure_gpus(gpu_counts[g], blocks, nblocks, niter, warmup, (size_t)n, A, B, C, times,
		             pageable);

	free(times);
	for (int x = 0; x < 3; x++) {
		if (pageable)
			free(*matrices[x]);
		else
			BENCH_CUDA_CHECK(cudaFreeHost(*matrices[x]));
	}
	return 0;
}
