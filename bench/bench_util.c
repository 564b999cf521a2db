#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "bench/bench_util.h"
#include "common/results_csv.h"

double bench_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* splitmix64: a counter-based generator, so each thread fills its own slice independently
 * and the result does not depend on the number of threads. */
static inline uint64_t splitmix64(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

struct fill_slice {
	double *x;
	size_t begin, end;
	uint64_t seed;
};

static void *fill_slice_run(void *arg)
{
	const struct fill_slice *s = arg;
	uint64_t base = splitmix64(s->seed);
	for (size_t i = s->begin; i < s->end; i++)
		s->x[i] = (double)(splitmix64(base + i) >> 11) * 0x1.0p-53 - 0.5;
	return NULL;
}

void bench_fill_random(double *x, size_t count, uint64_t seed)
{
	enum { MAX_THREADS = 64 };
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	int nthreads = cores < 1 ? 1 : cores > MAX_THREADS ? MAX_THREADS : (int)cores;
	if (count < ((size_t)1 << 20))
		nthreads = 1;
	pthread_t threads[MAX_THREADS];
	struct fill_slice slices[MAX_THREADS];
	for (int t = 0; t < nthreads; t++) {
		slices[t] = (struct fill_slice){ x, count * (size_t)t / (size_t)nthreads,
		                                 count * (size_t)(t + 1) / (size_t)nthreads, seed };
		/* Slice 0 runs on this thread; a thread that cannot start is filled here too. */
		if (t == 0 || pthread_create(&threads[t], NULL, fill_slice_run, &slices[t]) != 0) {
			fill_slice_run(&slices[t]);
			slices[t].x = NULL;
		}
	}
	for (int t = 1; t < nthreads; t++)
		if (slices[t].x)
			pthread_join(threads[t], NULL);
}

int bench_parse_int(const char *text, long long lo, long long hi, long long *value)
{
	char *end = NULL;
	errno = 0;
	long long v = strtoll(text, &end, 10);
	if (end == text || *end != '\0' || errno == ERANGE || v < lo || v > hi)
		return -1;
	*value = v;
	return 0;
}

long long bench_int_option(const char *program, const char *option, const char *text,
                           long long lo, long long hi)
{
	long long v = 0;
	if (bench_parse_int(text, lo, hi, &v) != 0) {
		fprintf(stderr, "%s: %s needs an integer from %lld to %lld, not '%s'\n", program,
		        option, lo, hi, text);
		exit(2);
	}
	return v;
}

void bench_print_row(const char *fields)
{
	enum { MAX_COLUMNS = 64 };
	static char header[] = SG_RESULTS_CSV_HEADER;
	static char names[sizeof(header)];
	static const char *column[MAX_COLUMNS];
	static int ncolumns;
	if (!ncolumns) {
		printf("%s\n", header);
		memcpy(names, header, sizeof(header));
		for (char *name = strtok(names, ","); name && ncolumns < MAX_COLUMNS;
		     name = strtok(NULL, ","))
			column[ncolumns++] = name;
	}
	const char *value[MAX_COLUMNS] = { 0 };
	int length[MAX_COLUMNS] = { 0 };
	for (const char *f = fields; *f;) {
		f += strspn(f, " ");
		size_t key = strcspn(f, "= "), end = strcspn(f, " ");
		if (!*f)
			break;
		int c = 0;
		while (c < ncolumns && (strlen(column[c]) != key || strncmp(column[c], f, key)))
			c++;
		if (c == ncolumns || f[key] != '=') {
			fprintf(stderr, "bench_print_row: '%.*s' is not column=value of the results' "
			        "CSV\n", (int)end, f);
			exit(1);
		}
		value[c] = f + key + 1;
		length[c] = (int)(end - key - 1);
		f += end;
	}
	for (int c = 0; c < ncolumns; c++)
		printf("%s%.*s", c ? "," : "", value[c] ? length[c] : 0, value[c] ? value[c] : "");
	printf("\n");
	fflush(stdout);
}

void bench_print_rows(const char *system, int64_t n, double flops, const double *times,
                      int count, const char *fields)
{
	for (int i = 0; i < count; i++) {
		char row[512];
		snprintf(row, sizeof(row), "system=%s prec=d transA=N transB=N M=%lld N=%lld K=%lld "
		         "iter=%d time_s=%.6f gflops=%.3f %s", system, (long long)n, (long long)n,
		         (long long)n, i + 1, times[i], flops / times[i] / 1e9, fields ? fields : "");
		bench_print_row(row);
	}
}

int bench_getopt(int argc, char **argv, const struct option *longopts, struct bench_run *run,
                 void (*usage)(FILE *out, const char *program))
{
	const char *program = argv[0];
	int opt;
	while ((opt = getopt_long(argc, argv, "n:N:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'n': run->n = bench_int_option(program, "-n", optarg, 1, 1 << 20); break;
		case BENCH_OPT_NITER: run->niter = (int)bench_int_option(program, "--niter", optarg, 1, 1000); break;
		case BENCH_OPT_WARMUP: run->warmup = (int)bench_int_option(program, "--warmup", optarg, 0, 1000); break;
		case 'h': usage(stdout, program); exit(0);
		case '?': usage(stderr, program); exit(2);
		default: return opt;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", program, argv[optind]);
		exit(2);
	}
	return -1;
}
