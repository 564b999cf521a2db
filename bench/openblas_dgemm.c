/* Peer: one CBLAS (OpenBLAS) DGEMM C = A*B + C on n x n random matrices, on all the cores
 * OpenBLAS uses (OPENBLAS_NUM_THREADS, else every core). Prints the median of --niter runs:
 *   RESULT name=openblas n=N gflops=X time_s=T threads=K */
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
	long long n = 4096;
	int niter = 3, warmup = 1;
	enum { OPT_NITER = 256, OPT_WARMUP };
	static const struct option longopts[] = {
		{ "n", required_argument, NULL, 'n' }, { "N", required_argument, NULL, 'n' },
		{ "niter", required_argument, NULL, OPT_NITER },
		{ "warmup", required_argument, NULL, OPT_WARMUP },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 }
	};
	int opt;
	while ((opt = getopt_long(argc, argv, "n:N:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'n': n = bench_int_option(argv[0], "-n", optarg, 1, 1 << 20); break;
		case OPT_NITER: niter = (int)bench_int_option(argv[0], "--niter", optarg, 1, 1000); break;
		case OPT_WARMUP: warmup = (int)bench_int_option(argv[0], "--warmup", optarg, 0, 1000); break;
		case 'h': usage(stdout, argv[0]); return 0;
		default: usage(stderr, argv[0]); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", argv[0], argv[optind]);
		return 2;
	}

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

	char extra[64] = "";
#ifdef OPENBLAS_VERSION
	snprintf(extra, sizeof(extra), "threads=%d", openblas_get_num_threads());
#endif
	bench_print_result("openblas", n, bench_dgemm_flops(n), bench_median(times, niter), extra);
	free(A);
	free(B);
	free(C);
	free(times);
	return 0;
}
