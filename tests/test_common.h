/* What every test program shares: start-up/shut-down of MPI + StarPU(-MPI) the way users do it,
 * a CBLAS-backed comparison, and one line per comparison that says what was compared. */
#ifndef SG_TEST_COMMON_H
#define SG_TEST_COMMON_H

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

/* Record a result: prints "PASS|FAIL <what>" (rank-tagged) and remembers failures. */
void sgt_expect(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ||x - ref||_F / ||ref||_F over n elements of precision prec; +Inf if x has NaN/Inf. */
double sgt_rel_error(char prec, int64_t n, const void *x, const void *ref);

/* Seed from SEED in the environment, else from the clock; printed once by rank 0 so any run
 * can be replayed with SEED=<value>. Same value on every rank. */
uint64_t sgt_seed(void);

/* Uniform integer in [lo, hi] from a per-test generator seeded by sgt_seed(). */
int sgt_rand_int(int lo, int hi);

#endif
