/* What the peer programs share: a clock, the median, a fast random fill, strict integer
 * options, and the results' CSV (common/results_csv.h), the driver's layout: its header once,
 * then one row per timed run. The peers link neither libstarpu_gemm nor StarPU: they measure
 * the libraries alone. */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

/* Seconds on a monotonic clock. */
double bench_now(void);


/* x[i] in [-0.5, 0.5), a function of (seed, i) only; spread over the machine's cores, since
 * the GPU peers fill tens of GB and one core would take longer than the GEMM itself. */
void bench_fill_random(double *x, size_t count, uint64_t seed);

/* text as an integer in [lo, hi]: 0, or -1 when it is not one. */
int bench_parse_int(const char *text, long long lo, long long hi, long long *value);

/* text as an integer in [lo, hi], or exit(2) with a sentence naming option and program. */
long long bench_int_option(const char *program, const char *option, const char *text,
                           long long lo, long long hi);

/* The options every peer takes, parsed in one place: -n/-N, --niter, --warmup and --help. Put
 * BENCH_RUN_LONGOPTS in the peer's struct option table; the short options are "n:N:h". */
struct bench_run {
	long long n;
	int niter, warmup;
};
enum { BENCH_OPT_NITER = 1000, BENCH_OPT_WARMUP };
#define BENCH_RUN_LONGOPTS                                                                  \
	{ "n", required_argument, NULL, 'n' }, { "N", required_argument, NULL, 'n' },       \
	{ "niter", required_argument, NULL, BENCH_OPT_NITER },                              \
	{ "warmup", required_argument, NULL, BENCH_OPT_WARMUP },                            \
	{ "help", no_argument, NULL, 'h' }

/* getopt_long over longopts: stores the shared options in run (a bad value exits 2 with a
 * sentence), answers --help with usage on stdout (exit 0), an unknown option with usage on
 * stderr (exit 2), operands after the options with a sentence (exit 2). Returns the peer's
 * own options one by one (optarg set), then -1. */
int bench_getopt(int argc, char **argv, const struct option *longopts, struct bench_run *run,
                 void (*usage)(FILE *out, const char *program));

/* One row of the results' CSV, after its header (printed by the first row of the process):
 * fields is "column=value ..." (no spaces in values); columns not named stay empty. A name
 * that is not a column ends the program (a bug in the peer). */
void bench_print_row(const char *fields);

/* One row per timed run of an n x n x n product of flops operations: system, prec d, M N K,
 * iter, time_s and gflops, with fields (may be NULL) as for bench_print_row. */
void bench_print_rows(const char *system, int64_t n, double flops, const double *times,
                      int count, const char *fields);

/* Real GEMM of n x n by n x n: 2n^3 operations. */
static inline double bench_dgemm_flops(int64_t n)
{
	return 2.0 * (double)n * (double)n * (double)n;
}

#endif
