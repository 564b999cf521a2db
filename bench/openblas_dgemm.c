/* Peer: one CBLAS (OpenBLAS) DGEMM C = A*B + C on n x n random matrices, on all the cores
 * OpenBLAS uses (OPENBLAS_NUM_THREADS, else every core). Prints rows of the results' CSV
 * (bench/bench_util.h), system openblas, threads K. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <cblas.h>
#include "bench/bench_util.h"

static void usage(FILE *out, const char *program)
{
	fprintf(out, "usage: %s [-n N] [--niter I] [--warmup W]\n"
	        "  -n, --n N      matrix order (default 4096)\n"
	        "  --niter I      timed runs, the median is reported (default 3)\n"
	        "  --warmup W     untimed runs first (default 1)\n", program);
}

int main(int argc, char **argv)
{
	struct bench_run run = { .n = 4096, .niter = 3, .warmup = 1 };
	static const struct option longopts[] = { BENCH_RUN_LONGOPTS, { NULL, 0, NULL, 0 } };
	while (bench_getopt(argc, argv, longopts, &run, usage) != -1)
		; /* no options of its own */
	long long n = run.n;
	int niter = run.niter, warmup = run.warmup;

	size_t count = (size_t)n * (size_t)n;
	double *A = malloc(count * sizeof(double)), *B = malloc(count * sizeof(double)),
	       *C = malloc(count * sizeof(double));
	double *times = malloc((size_t)niter * sizeof(double));
	if (!A || !B || !C || !times) {
		fprintf(stderr, "%s: cannot allocate three %lld x %lld matrices (%.1f GB)\n", argv[0],
		        n, n, 3.0 * (double)count * sizeof(double) / 1e9);
		return 1;
	}
	bench_fill_random(A, count, 1);
	bench_fill_random(B, count, 2);
	bench_fill_random(C, count, 3);

	/* beta = 1, like the driver's default, so both do the same memory traffic on C. */
	for (int it = 0; it < warmup + niter; it++) {
		double t0 = bench_now();
		cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n, (int)n, 1.0, A,
		            (int)n, B, (int)n, 1.0, C, (int)n);
		double t = bench_now() - t0;
		if (it >= warmup)
			times[it - warmup] = t;
	}

	char extra[64] = "ranks=1";
#ifdef OPENBLAS_VERSION
	snprintf(extra, sizeof(extra), "ranks=1 threads=%d", openblas_get_num_threads());
#endif
	bench_print_rows("openblas", n, bench_dgemm_flops(n), times, niter, extra);
	free(A);
	free(B);
	free(C);
	free(times);
	return 0;
}
