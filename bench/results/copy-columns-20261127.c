/* The one call's staging copies on the CPU alone: tiles of T x T doubles copied column by
 * column out of an N x N column-major array (as doors/stage.c copies a caller's array into
 * its pinned tiles), with memcpy and with doors/stage.c's copy_column (non-temporal stores
 * past 256 bytes), THREADS threads dealing the tiles. Prints GB/s of each, 3 rounds.
 *   gcc -O2 -o copy-columns copy-columns-20261127.c -lpthread && ./copy-columns [THREADS] */
#include <emmintrin.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { N = 16384, T = 4096 };
static double *src, *dst;
static int streaming, nthreads;

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* doors/stage.c's, as it is */
static void copy_column(char *d, const char *s, size_t bytes)
{
	size_t head = (16 - ((uintptr_t)d & 15)) & 15;
	if (bytes >= 256) {
		memcpy(d, s, head);
		d += head;
		s += head;
		bytes -= head;
		size_t n = bytes / 16;
		for (size_t i = 0; i < n; i++)
			_mm_stream_si128((__m128i *)d + i, _mm_loadu_si128((const __m128i *)s + i));
		d += 16 * n;
		s += 16 * n;
		bytes -= 16 * n;
	}
	memcpy(d, s, bytes);
}

static void *work(void *arg)
{
	int tiles = (N / T) * (N / T);
	for (int t = (int)(long)arg; t < tiles; t += nthreads) {
		int i = t % (N / T), j = t / (N / T);
		double *buf = dst + (size_t)t * T * T;
		for (int c = 0; c < T; c++) {
			const double *s = src + (size_t)(j * T + c) * N + (size_t)i * T;
			if (streaming)
				copy_column((char *)(buf + (size_t)c * T), (const char *)s, T * 8);
			else
				memcpy(buf + (size_t)c * T, s, T * 8);
		}
	}
	_mm_sfence();
	return NULL;
}

int main(int argc, char **argv)
{
	nthreads = argc > 1 ? atoi(argv[1]) : 2;
	if (nthreads < 1 || nthreads > 256)
		return 2;
	size_t bytes = (size_t)N * N * 8;
	src = malloc(bytes);
	if (!src || posix_memalign((void **)&dst, 4096, bytes))
		return 1;
	memset(src, 1, bytes);
	memset(dst, 0, bytes);
	for (int round = 0; round < 3; round++)
		for (streaming = 0; streaming < 2; streaming++) {
			pthread_t th[256];
			double t0 = now();
			for (long k = 0; k < nthreads; k++)
				pthread_create(&th[k], NULL, work, (void *)k);
			for (int k = 0; k < nthreads; k++)
				pthread_join(th[k], NULL);
			printf("%s, %d thread(s): %.2f GB/s\n", streaming ? "copy_column" : "memcpy",
			       nthreads, bytes / (now() - t0) / 1e9);
		}
	return 0;
}
