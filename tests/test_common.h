/* What every test program shares: start-up/shut-down of MPI + StarPU(-MPI) the way users do it,
 * a CBLAS-backed comparison, and one line per comparison that says what was compared. */
#ifndef SG_TEST_COMMON_H
#define SG_TEST_COMMON_H

#include <complex.h>
#include <stdint.h>
#include <starpu_gemm.h>

extern int sgt_rank, sgt_size;

/* MPI_Init_thread(MPI_THREAD_MULTIPLE) then starpu_mpi_init_conf(initialize_mpi=0), and
 * starpu_cublas_init() when CUDA workers exist. If SG_TEST_REQUIRE_GPU=1 and there is no
 * CUDA worker, the test fails (GPU tests are never silently skipped). */
void sgt_init(int *argc, char ***argv);
/* Shuts down StarPU-MPI, StarPU, MPI; returns the exit code for main (0 iff no failure on any
 * rank). */
int sgt_finish(void);

/* For programs without MPI (the one call on host arrays): the seed and generator only; StarPU
 * is the library's business. sgt_finish_local prints the summary and returns main's code. */
void sgt_init_local(void);
int sgt_finish_local(void);

/* Record a result: prints "PASS|FAIL <what>" (rank-tagged) and remembers failures. */
void sgt_expect(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* For main on bad arguments: rank 0 prints usage on stderr, everything is shut down; returns
 * the exit code 2. */
int sgt_usage(const char *usage);

/* ||x - ref||_F / ||ref||_F over n elements of precision prec (||x - ref||_F when ref is 0);
 * +Inf if x has NaN/Inf. */
double sgt_rel_error(char prec, int64_t n, const void *x, const void *ref);
/* ||x - ref||_F (||x||_F when ref is NULL) over n elements; +Inf if x has NaN/Inf. */
double sgt_norm(char prec, int64_t n, const void *x, const void *ref);

/* Element idx of x (precision prec) set to v; the imaginary part is dropped for real ones.
 * Reading one back: sg_load in check/check.h. */
void sgt_store(char prec, double complex v, void *x, int64_t idx);
/* A rows x cols column-major matrix of starpu_gemm_random_element(prec, seed, ...): the whole
 * of what starpu_gemm_desc_fill_random(seed) spreads over the tiles. malloc'ed. */
void *sgt_regenerate(char prec, uint64_t seed, int64_t rows, int64_t cols);
/* "2d", "row", "col" or "user", as the driver's --dist names them. */
const char *sgt_dist_name(enum starpu_gemm_dist_kind kind);
/* The tests' user ownership function: tile (i,j) -> (7i + 3j) mod *(int *)nranks. */
int sgt_user_owner(int i, int j, void *nranks);

/* Seed from SEED in the environment, else from the clock; printed once by rank 0 so any run
 * can be replayed with SEED=<value>. Same value on every rank. */
uint64_t sgt_seed(void);

/* Uniform integer in [lo, hi] from a per-test generator seeded by sgt_seed(). */
int sgt_rand_int(int lo, int hi);
/* A random divisor of n (a grid's P for n ranks), from the same generator. */
int sgt_rand_divisor(int n);

#endif
