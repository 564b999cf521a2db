/* The library's own codelet variants, beside the public ones of include/starpu_gemm.h. */
#ifndef SG_GEMM_CODELETS_H
#define SG_GEMM_CODELETS_H

#include <starpu.h>
#include <mpi.h>

struct sg_precision;

/* The tile GEMM codelet of p, plain or overwriting (below); NULL for none. */
struct starpu_codelet *sg_gemm_codelet_of(const struct sg_precision *p, int overwrite);

/* One tile GEMM task as the library's algorithms insert it (Chameleon's INSERT_TASK_zgemm
 * shape): C = alpha op(A) op(B) + beta C, C written without being read when overwrite. */
struct sg_gemm_task {
	const struct sg_precision *p;  /* the product's; alpha and beta are of its C's type */
	char transA, transB;           /* normalised */
	const void *alpha, *beta;
	starpu_data_handle_t A, B, C;
	int overwrite;
	int m, n, k;                   /* the tile product's shape, for STARPU_FLOPS */
	void (*callback)(void *);      /* STARPU_CALLBACK_WITH_ARG_NFREE, or NULL */
	void *callback_arg;
	int priority, worker;          /* worker -1: any */
	unsigned long long where;      /* STARPU_EXECUTE_WHERE */
};

/* Inserts t through StarPU-MPI on comm, or through StarPU alone when local (process-local
 * matrices). Returns what the insertion returned. */
int sg_insert_gemm_task(const struct sg_gemm_task *t, int local, MPI_Comm comm);

/* starpu_gemm_codelet(prec) with C written, not read (modes R, R, W): for the first update
 * of a C tile when beta = 0, where BLAS does not read C. NULL for an unknown letter. */
struct starpu_codelet *sg_gemm_overwrite_codelet(char prec);

/* C = beta * C + a scratch tile T of the same shape, on a CPU worker, for a product of
 * precision prec (C's precision is what counts): codelets/add_codelets.c. NULL for an unknown
 * letter. */
struct starpu_codelet *sg_add_codelet(char prec);
/* Inserts C += T, C's type that of prec's C, on a GPU (cuBLAS geam) or a CPU worker: on
 * worker (-1: where the scheduler puts it) of kind where (STARPU_CUDA; -1: any), at prio; then
 * T's copies are dropped once the add has read them (its handle stays registered). The
 * layered schedule's partial tiles added into C where it is (compute/partials.h), and C's
 * loads spread: the scratch tile of a C tile's earlier updates (compute/c_home.h). 0 or the
 * negative error of starpu_task_insert. done(done_arg) is the task's callback (none where
 * done is NULL): what waits for it waits for the callbacks its end runs first, such as a
 * starpu_data_wont_use of C granted when it releases C. */
int sg_insert_accumulate(char prec, starpu_data_handle_t c, starpu_data_handle_t t, int where,
                         int worker, int prio, void (*done)(void *), void *done_arg);

#endif
