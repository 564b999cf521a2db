/* How fast pageable memory is pinned and unpinned (cudaHostRegister/Unregister), with 1 to T
 * threads each registering its own slices, and how fast pageable and pinned memory copy to
 * the GPU: the facts the one call on host arrays chooses its pinning by (doors/pin.h).
 * Rows of the results' CSV (bench/bench_util.h), M the MiB moved, gbs the rate: system h2d
 * (memory pageable or pinned), pin and unpin (1-16 threads), memcpy (1, 2, 4, ... threads up
 * to the online cores, and that count: host to host, as the door's staging copies, whose
 * threads scale with the cores and GPUs, doors/stage.c). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bench/bench_util.h"
#include "bench/bench_cuda.h"

struct slice {
	char *base, *dst;
	size_t bytes;
	int unpin;
};

static void *copy_slice(void *arg)
{
	struct slice *s = arg;
	memcpy(s->dst, s->base, s->bytes);
	return NULL;
}

/* GB/s copying bytes from src to dst with threads threads, each its contiguous share. */
static double copy_rate(char *dst, char *src, size_t bytes, int threads)
{
	struct slice *slices = calloc((size_t)threads, sizeof(*slices));
	pthread_t *ids = calloc((size_t)threads, sizeof(*ids));
	if (!slices || !ids) {
		fprintf(stderr, "pin_rate: out of memory for %d threads\n", threads);
		exit(1);
	}
	size_t share = bytes / (size_t)threads;
	double t0 = bench_now();
	for (int t = 0; t < threads; t++) {
		slices[t] = (struct slice){ .base = src + t * share, .dst = dst + t * share,
		                           .bytes = share };
		pthread_create(&ids[t], NULL, copy_slice, &slices[t]);
	}
	for (int t = 0; t < threads; t++)
		pthread_join(ids[t], NULL);
	double seconds = bench_now() - t0;
	free(slices);
	free(ids);
	return (double)share * threads / seconds / 1e9;
}

static void *work(void *arg)
{
	struct slice *s = arg;
	if (s->unpin)
		BENCH_CUDA_CHECK(cudaHostUnregister(s->base));
	else
		BENCH_CUDA_CHECK(cudaHostRegister(s->base, s->bytes, cudaHostRegisterPortable));
	return NULL;
}

/* Seconds to pin (or unpin) bytes at base in `threads` slices of `slice_bytes`, handed out
 * round-robin to the threads (as the door pins panels). */
static double run(char *base, size_t bytes, size_t slice_bytes, int threads, int unpin)
{
	size_t nslices = bytes / slice_bytes;
	struct slice *slices = calloc(nslices, sizeof(*slices));
	pthread_t *ids = calloc(nslices, sizeof(*ids));
	double t0 = bench_now();
	for (size_t first = 0; first < nslices; first += (size_t)threads) {
		size_t last = first + (size_t)threads < nslices ? first + (size_t)threads : nslices;
		for (size_t s = first; s < last; s++) {
			slices[s] = (struct slice){ .base = base + s * slice_bytes, .bytes = slice_bytes,
			                           .unpin = unpin };
			pthread_create(&ids[s], NULL, work, &slices[s]);
		}
		for (size_t s = first; s < last; s++)
			pthread_join(ids[s], NULL);
	}
	double t = bench_now() - t0;
	free(slices);
	free(ids);
	return t;
}

/* One row: mib MiB moved at gbs GB/s by threads threads (0: not threaded) into memory. */
static void row(const char *system, long long mib, const char *memory, int threads, double gbs)
{
	char fields[160];
	snprintf(fields, sizeof(fields), "system=%s M=%lld memory=%s gbs=%.2f", system, mib, memory,
	         gbs);
	if (threads)
		snprintf(fields + strlen(fields), sizeof(fields) - strlen(fields), " threads=%d",
		         threads);
	bench_print_row(fields);
}

static void usage(FILE *out, const char *program)
{
	fprintf(out, "usage: %s [-n MiB] [--slice MiB]   (default 8192 MiB in 1024 MiB slices)\n",
	        program);
}

int main(int argc, char **argv)
{
	struct bench_run r = { .n = 8192, .niter = 1, .warmup = 0 };
	long long slice_mib = 1024;
	enum { OPT_SLICE = 256 };
	static const struct option longopts[] = { BENCH_RUN_LONGOPTS,
		{ "slice", required_argument, NULL, OPT_SLICE }, { NULL, 0, NULL, 0 } };
	int opt;
	while ((opt = bench_getopt(argc, argv, longopts, &r, usage)) != -1)
		slice_mib = bench_int_option(argv[0], "--slice", optarg, 1, 1 << 20);
	size_t bytes = (size_t)r.n << 20, slice = (size_t)slice_mib << 20;
	char *host = malloc(bytes), *dev;
	memset(host, 1, bytes); /* touched: the pages exist, as an application's arrays do */
	BENCH_CUDA_CHECK(cudaFree(0));
	BENCH_CUDA_CHECK(cudaMalloc((void **)&dev, slice));
	double t0 = bench_now();
	BENCH_CUDA_CHECK(cudaMemcpy(dev, host, slice, cudaMemcpyHostToDevice));
	row("h2d", slice_mib, "pageable", 0, slice / (bench_now() - t0) / 1e9);
	for (int threads = 1; threads <= 16; threads *= 2) {
		double pin = run(host, bytes, slice, threads, 0);
		if (threads == 1) {
			t0 = bench_now();
			BENCH_CUDA_CHECK(cudaMemcpy(dev, host, slice, cudaMemcpyHostToDevice));
			row("h2d", slice_mib, "pinned", 0, slice / (bench_now() - t0) / 1e9);
		}
		double unpin = run(host, bytes, slice, threads, 1);
		row("pin", r.n, "pageable", threads, bytes / pin / 1e9);
		row("unpin", r.n, "pinned", threads, bytes / unpin / 1e9);
	}
	/* Into pinned memory, as staging does; the first pass also faults the pages in. */
	char *pinned;
	size_t copy_bytes = bytes / 2;
	BENCH_CUDA_CHECK(cudaMallocHost((void **)&pinned, copy_bytes));
	copy_rate(pinned, host, copy_bytes, 8);
	/* Up to the online cores (32 and 64 rows on a 64-core node), and that count when it is
	 * not a power of two: whether more copiers still copy faster. */
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	int cores = online > 0 ? (int)online : 1;
	for (int threads = 1;; threads *= 2) {
		if (threads > cores)
			threads = cores;
		row("memcpy", (long long)(copy_bytes >> 20), "pinned", threads,
		    copy_rate(pinned, host, copy_bytes, threads));
		if (threads == cores)
			break;
	}
	BENCH_CUDA_CHECK(cudaFreeHost(pinned));
	BENCH_CUDA_CHECK(cudaFree(dev));
	free(host);
	return 0;
}
