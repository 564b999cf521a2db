/* An application that knows nothing of us: C = A*B + C with the Fortran BLAS dgemm_ on n x n
 * matrices from malloc, linked against the system BLAS (libblas.so.3). Run it plain, or with
 * LD_PRELOAD=libstarpu_gemm_blas.so to send the call to the GPUs. Prints rows of the
 * results' CSV (bench/bench_util.h), system dgemm_app, and on stderr the sum of C, to compare
 * runs with and without the preload. */
#include <stdio.h>
#include <stdlib.h>
#include "bench/bench_util.h"

void dgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
            const double *alpha, const double *A, const int *lda, const double *B,
            const int *ldb, const double *beta, double *C, const int *ldc, size_t, size_t);

static void usage(FILE *out, const char *program)
{
	fprintf(out, "usage: %s [-n N] [--niter I] [--warmup W]\n"
	        "  dgemm_ on n x n malloc'ed matrices (default n 4096), timed per call; the median "
	        "is reported\n", program);
}

int main(int argc, char **argv)
{
	struct bench_run run = { .n = 4096, .niter = 3, .warmup = 1 };
	static const struct option longopts[] = { BENCH_RUN_LONGOPTS, { NULL, 0, NULL, 0 } };
	while (bench_getopt(argc, argv, longopts, &run, usage) != -1)
		;
	int n = (int)run.n;
	size_t count = (size_t)n * (size_t)n;
	double *A = malloc(count * sizeof(double)), *B = malloc(count * sizeof(double));
	double *C = malloc(count * sizeof(double));
	double *times = malloc((size_t)run.niter * sizeof(double));
	if (!A || !B || !C || !times) {
		perror(argv[0]);
		return 1;
	}
	bench_fill_random(A, count, 1);
	bench_fill_random(B, count, 2);
	const double alpha = 1.0, beta = 1.0;
	double checksum = 0;
	for (int it = 0; it < run.warmup + run.niter; it++) {
		bench_fill_random(C, count, 3);
		double t0 = bench_now();
		dgemm_("N", "N", &n, &n, &n, &alpha, A, &n, B, &n, &beta, C, &n, 1, 1);
		double t = bench_now() - t0;
		if (it >= run.warmup)
			times[it - run.warmup] = t;
	}
	for (size_t e = 0; e < count; e++)
		checksum += C[e];
	/* The sum of C: that the product was computed, and alike with and without the preload. */
	fprintf(stderr, "dgemm_app: checksum %.10e\n", checksum);
	bench_print_rows("dgemm_app", n, bench_dgemm_flops(n), times, run.niter, "ranks=1 layout=lapack");
	free(A);
	free(B);
	free(C);
	free(times);
	return 0;
}
