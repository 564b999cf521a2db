#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <complex.h>
#include "test_common.h"
#include "common/precision.h"

int sgt_rank, sgt_size;
static int failures;
static uint64_t rng_state;

void sgt_init(int *argc, char ***argv)
{
	int provided;
	MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &sgt_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &sgt_size);
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	int ret = starpu_mpi_init_conf(argc, argv, 0, MPI_COMM_WORLD, &conf);
	if (ret != 0) {
		fprintf(stderr, "rank %d: starpu_mpi_init_conf failed: %d\n", sgt_rank, ret);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	int ncuda = (int)starpu_cuda_worker_get_count();
	if (ncuda > 0)
		starpu_cublas_init();
	const char *need_gpu = getenv("SG_TEST_REQUIRE_GPU");
	if (need_gpu && atoi(need_gpu) && ncuda == 0) {
		fprintf(stderr, "FAIL rank %d: SG_TEST_REQUIRE_GPU=1 but StarPU found no CUDA worker\n",
		        sgt_rank);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	if (sgt_rank == 0)
		printf("# %d rank(s), %u CPU and %d CUDA worker(s) per rank\n", sgt_size,
		       starpu_cpu_worker_get_count(), ncuda);
	uint64_t seed = sgt_seed();
	rng_state = seed * 0x9E3779B97F4A7C15ULL + 1;
}

int sgt_finish(void)
{
	starpu_task_wait_for_all();
	if (starpu_cuda_worker_get_count() > 0)
		starpu_cublas_shutdown();
	int total = 0;
	MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	starpu_mpi_shutdown();
	if (sgt_rank == 0)
		printf("# %s: %d failure(s)\n", total ? "FAILED" : "PASSED", total);
	MPI_Finalize();
	return total ? 1 : 0;
}

void sgt_expect(int ok, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("%s [rank %d] ", ok ? "PASS" : "FAIL", sgt_rank);
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
	va_end(ap);
	if (!ok)
		failures++;
}

double sgt_rel_error(char prec, int64_t n, const void *x, const void *ref)
{
	const struct sg_precision *p = sg_precision(prec);
	/* Complex arrays are pairs of reals: compare as 2n reals. */
	int64_t count = p->is_complex ? 2 * n : n;
	double diff = 0, norm = 0;
	for (int64_t e = 0; e < count; e++) {
		double a, b;
		if (p->elemsize / (p->is_complex ? 2 : 1) == sizeof(float)) {
			a = ((const float *)x)[e];
			b = ((const float *)ref)[e];
		} else {
			a = ((const double *)x)[e];
			b = ((const double *)ref)[e];
		}
		if (!isfinite(a))
			return INFINITY;
		diff += (a - b) * (a - b);
		norm += b * b;
	}
	return norm > 0 ? sqrt(diff / norm) : sqrt(diff);
}

uint64_t sgt_seed(void)
{
	static uint64_t seed;
	static int done;
	if (!done) {
		const char *env = getenv("SEED");
		seed = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL);
		MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
		if (sgt_rank == 0)
			printf("# seed %llu (replay with SEED=%llu)\n", (unsigned long long)seed,
			       (unsigned long long)seed);
		done = 1;
	}
	return seed;
}

int sgt_rand_int(int lo, int hi)
{
	/* splitmix64: tiny, and identical on every rank for the same seed. */
	uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	z ^= z >> 31;
	return lo + (int)(z % (uint64_t)(hi - lo + 1));
}
