/* How fast a caller's pageable column-major array reaches every GPU of the process, tile by
 * tile, two ways, with the same copier threads (the question of bench/notes-arrays.md, "Four
 * GPUs": is the one call's staging bound by the node's memory, and would it be less so if the
 * GPUs read the copies while they are still in the processor's cache?):
 *   stage  the door today (doors/stage.c): copiers fill whole pinned tiles, each GPU copies a
 *          tile in as soon as it is filled; every byte is read from memory, written to the
 *          pinned tile in memory, and read again by the GPU;
 *   ring   each copier fills small pinned slots of its own (a few MiB, reused at once), and
 *          its GPU copies each slot in as soon as it is filled, while the slot's bytes are
 *          still in the cache: the memory is read once.
 * Tile (i, j) goes to GPU (i + j) mod G; a GPU's copiers share its tiles. Rows of the results'
 * CSV (bench/bench_util.h): system stage|ring, M the MiB moved to the GPUs, threads, gbs, and
 * for reference memcpy (the copies alone, into pinned tiles) and h2d (pinned tiles to every
 * GPU at once, no copies). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bench/bench_util.h"
#include "bench/bench_cuda.h"

static struct {
	char *host;              /* the caller's array, n x n, column-major, pageable */
	long n, tile, nt;        /* order, tile order, tiles per side */
	int gpus;
	size_t slot_cols;        /* ring: columns of a tile per slot */
	char **pinned;           /* stage: one pinned buffer per tile (j * nt + i) */
	atomic_int *ready;       /* stage: tile filled */
	atomic_long next_tile;   /* stage: next tile to fill, in column order */
	char **dev;              /* per GPU: one tile of device memory (overwritten) */
} S;

static size_t tile_bytes(void) { return (size_t)S.tile * S.tile * sizeof(double); }

/* The GPU tile t (j * nt + i) goes to. */
static int gpu_of(long t) { return (int)((t % S.nt + t / S.nt) % S.gpus); }

/* Columns c0..c1 of tile (i, j) into dst (ld = tile). */
static void copy_columns(char *dst, long i, long j, long c0, long c1)
{
	size_t col = (size_t)S.tile * sizeof(double);
	for (long c = c0; c < c1; c++)
		memcpy(dst + (c - c0) * col,
		       S.host + ((size_t)(j * S.tile + c) * S.n + i * S.tile) * sizeof(double), col);
}

/* --- stage ------------------------------------------------------------------------------ */

static void *stage_copier(void *arg)
{
	(void)arg;
	long t;
	while ((t = atomic_fetch_add(&S.next_tile, 1)) < S.nt * S.nt) {
		copy_columns(S.pinned[t], t % S.nt, t / S.nt, 0, S.tile);
		atomic_store(&S.ready[t], 1);
	}
	return NULL;
}

static void *stage_feeder(void *arg)
{
	int g = (int)(long)arg;
	cudaStream_t stream;
	BENCH_CUDA_CHECK(cudaSetDevice(g));
	BENCH_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
	for (long t = 0; t < S.nt * S.nt; t++) {
		if (gpu_of(t) != g)
			continue;
		while (!atomic_load(&S.ready[t]))
			usleep(20);
		BENCH_CUDA_CHECK(cudaMemcpyAsync(S.dev[g], S.pinned[t], tile_bytes(),
		                                 cudaMemcpyHostToDevice, stream));
	}
	BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
	BENCH_CUDA_CHECK(cudaStreamDestroy(stream));
	return NULL;
}

/* --- ring ------------------------------------------------------------------------------- */

enum { SLOTS = 2 };
static atomic_long *next_chunk; /* per GPU: the next chunk of its tiles */

static void *ring_copier(void *arg)
{
	int id = (int)(long)arg, g = id % S.gpus;
	size_t slot_bytes = S.slot_cols * S.tile * sizeof(double);
	long chunks_per_tile = (S.tile + (long)S.slot_cols - 1) / (long)S.slot_cols;
	char *slot[SLOTS];
	cudaEvent_t done[SLOTS];
	cudaStream_t stream;
	BENCH_CUDA_CHECK(cudaSetDevice(g));
	BENCH_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
	for (int s = 0; s < SLOTS; s++) {
		BENCH_CUDA_CHECK(cudaMallocHost((void **)&slot[s], slot_bytes));
		memset(slot[s], 0, slot_bytes);
		BENCH_CUDA_CHECK(cudaEventCreateWithFlags(&done[s], cudaEventDisableTiming));
		BENCH_CUDA_CHECK(cudaEventRecord(done[s], stream));
	}
	/* The GPU's tiles in column order, each cut in chunks of slot_cols columns. */
	long mine = 0, total = S.nt * S.nt;
	for (long t = 0; t < total; t++)
		mine += gpu_of(t) == g;
	long c, used = 0;
	while ((c = atomic_fetch_add(&next_chunk[g], 1)) < mine * chunks_per_tile) {
		long nth = c / chunks_per_tile, t = -1;
		for (long u = 0, seen = 0; u < total; u++)
			if (gpu_of(u) == g && seen++ == nth) {
				t = u;
				break;
			}
		long c0 = (c % chunks_per_tile) * (long)S.slot_cols;
		long c1 = c0 + (long)S.slot_cols < S.tile ? c0 + (long)S.slot_cols : S.tile;
		int s = (int)(used++ % SLOTS);
		BENCH_CUDA_CHECK(cudaEventSynchronize(done[s]));
		copy_columns(slot[s], t % S.nt, t / S.nt, c0, c1);
		BENCH_CUDA_CHECK(cudaMemcpyAsync(S.dev[g] + c0 * S.tile * sizeof(double), slot[s],
		                                 (size_t)(c1 - c0) * S.tile * sizeof(double),
		                                 cudaMemcpyHostToDevice, stream));
		BENCH_CUDA_CHECK(cudaEventRecord(done[s], stream));
	}
	BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
	for (int s = 0; s < SLOTS; s++) {
		BENCH_CUDA_CHECK(cudaEventDestroy(done[s]));
		BENCH_CUDA_CHECK(cudaFreeHost(slot[s]));
	}
	BENCH_CUDA_CHECK(cudaStreamDestroy(stream));
	return NULL;
}

/* --- runs --------------------------------------------------------------------------------- */

static double run_threads(void *(*fn)(void *), int count, void *(*fn2)(void *), int count2)
{
	pthread_t ids[1024];
	double t0 = bench_now();
	for (int t = 0; t < count; t++)
		pthread_create(&ids[t], NULL, fn, (void *)(long)t);
	for (int t = 0; t < count2; t++)
		pthread_create(&ids[count + t], NULL, fn2, (void *)(long)t);
	for (int t = 0; t < count + count2; t++)
		pthread_join(ids[t], NULL);
	return bench_now() - t0;
}

static void *dma_only(void *arg)
{
	int g = (int)(long)arg;
	cudaStream_t stream;
	BENCH_CUDA_CHECK(cudaSetDevice(g));
	BENCH_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
	for (long t = 0; t < S.nt * S.nt; t++)
		if (gpu_of(t) == g)
			BENCH_CUDA_CHECK(cudaMemcpyAsync(S.dev[g], S.pinned[t], tile_bytes(),
			                                 cudaMemcpyHostToDevice, stream));
	BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
	BENCH_CUDA_CHECK(cudaStreamDestroy(stream));
	return NULL;
}

static void *none(void *arg) { (void)arg; return NULL; }

static void row(const char *system, int threads, double seconds)
{
	size_t bytes = (size_t)S.n * S.n * sizeof(double);
	char fields[200];
	snprintf(fields, sizeof(fields), "system=%s M=%zu memory=pageable gbs=%.2f threads=%d "
	         "ncuda=%d block=%zu", system, bytes >> 20, bytes / seconds / 1e9, threads, S.gpus,
	         strcmp(system, "ring") ? (size_t)0 : S.slot_cols * S.tile * sizeof(double) >> 10);
	bench_print_row(fields);
}

static void usage(FILE *out, const char *program)
{
	fprintf(out, "usage: %s [-n N] [--tile TILE] [--slot-kib KIB] [--gpus G]   (default N 32768, "
	        "TILE 4096, slots of 2048 KiB, every GPU; copiers 4, 8, ... up to the cores)\n",
	        program);
}

int main(int argc, char **argv)
{
	struct bench_run r = { .n = 32768, .niter = 1, .warmup = 0 };
	long slot_kib = 2048, gpus = 0, tile = 4096;
	enum { OPT_SLOT = 256, OPT_GPUS, OPT_TILE };
	static const struct option longopts[] = { BENCH_RUN_LONGOPTS,
		{ "slot-kib", required_argument, NULL, OPT_SLOT },
		{ "tile", required_argument, NULL, OPT_TILE },
		{ "gpus", required_argument, NULL, OPT_GPUS }, { NULL, 0, NULL, 0 } };
	int opt;
	while ((opt = bench_getopt(argc, argv, longopts, &r, usage)) != -1) {
		if (opt == OPT_SLOT)
			slot_kib = bench_int_option(argv[0], "--slot-kib", optarg, 32, 1 << 20);
		else if (opt == OPT_TILE)
			tile = bench_int_option(argv[0], "--tile", optarg, 64, 1 << 16);
		else
			gpus = bench_int_option(argv[0], "--gpus", optarg, 1, 64);
	}
	int visible = 0;
	BENCH_CUDA_CHECK(cudaGetDeviceCount(&visible));
	S.gpus = gpus ? (int)gpus : visible;
	bench_cuda_need_devices(argv[0], "--gpus", S.gpus, S.gpus);
	S.n = r.n;
	S.tile = tile;
	if (S.n % S.tile) {
		fprintf(stderr, "%s: -n %ld is not a multiple of the tile %ld\n", argv[0], S.n, S.tile);
		return 2;
	}
	S.nt = S.n / S.tile;
	S.slot_cols = (size_t)slot_kib * 1024 / ((size_t)S.tile * sizeof(double));
	if (S.slot_cols < 1)
		S.slot_cols = 1;
	size_t bytes = (size_t)S.n * S.n * sizeof(double);
	S.host = malloc(bytes);
	S.pinned = calloc((size_t)(S.nt * S.nt), sizeof(*S.pinned));
	S.ready = calloc((size_t)(S.nt * S.nt), sizeof(*S.ready));
	S.dev = calloc((size_t)S.gpus, sizeof(*S.dev));
	next_chunk = calloc((size_t)S.gpus, sizeof(*next_chunk));
	if (!S.host || !S.pinned || !S.ready || !S.dev || !next_chunk) {
		fprintf(stderr, "%s: out of memory for n = %ld\n", argv[0], S.n);
		return 1;
	}
	memset(S.host, 1, bytes); /* the pages exist, as an application's arrays do */
	for (int g = 0; g < S.gpus; g++) {
		BENCH_CUDA_CHECK(cudaSetDevice(g));
		BENCH_CUDA_CHECK(cudaMalloc((void **)&S.dev[g], tile_bytes()));
	}
	/* The pool as the door's: malloc'ed, faulted in, registered (cudaHostAlloc is slower). */
	char *pool = NULL;
	if (posix_memalign((void **)&pool, 4096, bytes) != 0) {
		fprintf(stderr, "%s: out of memory for the pinned tiles\n", argv[0]);
		return 1;
	}
	memset(pool, 0, bytes);
	BENCH_CUDA_CHECK(cudaHostRegister(pool, bytes, cudaHostRegisterPortable));
	for (long t = 0; t < S.nt * S.nt; t++)
		S.pinned[t] = pool + (size_t)t * tile_bytes();
	row("h2d", 0, run_threads(dma_only, S.gpus, none, 0));
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	int cores = online > 0 ? (int)online : 1;
	for (int threads = S.gpus;; threads *= 2) {
		if (threads > cores)
			threads = cores;
		atomic_store(&S.next_tile, 0);
		row("memcpy", threads, run_threads(stage_copier, threads, none, 0));
		atomic_store(&S.next_tile, 0);
		for (long t = 0; t < S.nt * S.nt; t++)
			atomic_store(&S.ready[t], 0);
		row("stage", threads, run_threads(stage_copier, threads, stage_feeder, S.gpus));
		for (int g = 0; g < S.gpus; g++)
			atomic_store(&next_chunk[g], 0);
		row("ring", threads, run_threads(ring_copier, threads, none, 0));
		if (threads >= cores || threads >= 256)
			break;
	}
	return 0;
}
