#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <complex.h>
#include "test_common.h"
#include "check/check.h"
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
	rng_state = seed * SG_GOLDEN + 1;
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

void sgt_init_local(void)
{
	rng_state = sgt_seed() * SG_GOLDEN + 1;
}

int sgt_finish_local(void)
{
	printf("# %s: %d failure(s)\n", failures ? "FAILED" : "PASSED", failures);
	return failures ? 1 : 0;
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

int sgt_usage(const char *usage)
{
	if (sgt_rank == 0)
		fprintf(stderr, "usage: %s\n", usage);
	sgt_finish();
	return 2;
}

/* Sums of squares of x - ref (of x when ref is NULL) and of ref, over the reals of n elements
 * (complex arrays are pairs of reals); 0 when x has a NaN or Inf. */
static int sums(char prec, int64_t n, const void *x, const void *ref, double *diff,
                double *norm)
{
	const struct sg_precision *p = sg_precision(prec);
	int64_t count = p->is_complex ? 2 * n : n;
	int single = p->elemsize == (p->is_complex ? 2 : 1) * sizeof(float);
	*diff = *norm = 0;
	for (int64_t e = 0; e < count; e++) {
		double a, b = 0;
		if (single) {
			a = ((const float *)x)[e];
			if (ref)
				b = ((const float *)ref)[e];
		} else {
			a = ((const double *)x)[e];
			if (ref)
				b = ((const double *)ref)[e];
		}
		if (!isfinite(a))
			return 0;
		*diff += (a - b) * (a - b);
		*norm += b * b;
	}
	return 1;
}

double sgt_rel_error(char prec, int64_t n, const void *x, const void *ref)
{
	double diff, norm;
	if (!sums(prec, n, x, ref, &diff, &norm))
		return INFINITY;
	return norm > 0 ? sqrt(diff / norm) : sqrt(diff);
}

double sgt_norm(char prec, int64_t n, const void *x, const void *ref)
{
	double diff, norm;
	return sums(prec, n, x, ref, &diff, &norm) ? sqrt(diff) : INFINITY;
}

void sgt_store(char prec, double complex v, void *x, int64_t idx)
{
	const struct sg_precision *p = sg_precision(prec);
	int single = p->elemsize == (p->is_complex ? 2 : 1) * sizeof(float);
	if (p->is_complex && single)
		((float complex *)x)[idx] = (float complex)v;
	else if (p->is_complex)
		((double complex *)x)[idx] = v;
	else if (single)
		((float *)x)[idx] = (float)creal(v);
	else
		((double *)x)[idx] = creal(v);
}

void *sgt_regenerate(char prec, uint64_t seed, int64_t rows, int64_t cols)
{
	size_t es = starpu_gemm_elemsize(prec);
	char *x = malloc((size_t)(rows * cols) * es);
	for (int64_t j = 0; j < cols; j++)
		for (int64_t i = 0; i < rows; i++)
			starpu_gemm_random_element(prec, seed, i, j, x + (size_t)(i + j * rows) * es);
	return x;
}

const char *sgt_dist_name(enum starpu_gemm_dist_kind kind)
{
	static const char *names[] = { "2d", "row", "col", "user" };
	return names[kind];
}

int sgt_user_owner(int i, int j, void *nranks)
{
	return (i * 7 + j * 3) % *(int *)nranks;
}

uint64_t sgt_seed(void)
{
	static uint64_t seed;
	static int done;
	if (!done) {
		const char *env = getenv("SEED");
		seed = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL);
		int mpi = 0;
		MPI_Initialized(&mpi);
		if (mpi)
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
	/* splitmix64, as check/ draws its samples: identical on every rank for the same seed. */
	return lo + (int)(sg_splitmix64(&rng_state) % (uint64_t)(hi - lo + 1));
}

int sgt_rand_divisor(int n)
{
	int d;
	do
		d = sgt_rand_int(1, n);
	while (n % d);
	return d;
}
