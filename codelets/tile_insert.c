/* starpu_gemm_tile_insert: the checked way to submit one tile GEMM on this process; and
 * sg_insert_gemm_task, the library's own insertion of one. */
#include <errno.h>
#include <limits.h>
#include <starpu_mpi.h>
#include <starpu_gemm.h>
#include "common/precision.h"
#include "codelets/gemm_codelets.h"

/* Rows and columns of op(X) for a registered matrix handle of the precision; 0 if the handle
 * is not such a matrix (a vector or a tile of another precision would be misread). */
static int op_shape(starpu_data_handle_t X, char trans, size_t elemsize, uint32_t *rows,
                    uint32_t *cols)
{
	if (starpu_data_get_interface_id(X) != STARPU_MATRIX_INTERFACE_ID ||
	    starpu_matrix_get_elemsize(X) != elemsize)
		return 0;
	uint32_t nx = starpu_matrix_get_nx(X), ny = starpu_matrix_get_ny(X);
	/* BLAS dimensions are int. */
	if (nx > INT_MAX || ny > INT_MAX)
		return 0;
	*rows = trans == 'N' ? nx : ny;
	*cols = trans == 'N' ? ny : nx;
	return 1;
}

int starpu_gemm_tile_insert(char prec, char transA, char transB, const void *alpha,
                            starpu_data_handle_t A, starpu_data_handle_t B,
                            const void *beta, starpu_data_handle_t C)
{
	const struct sg_precision *p = sg_precision(prec);
	char ta = p ? sg_trans(prec, transA) : 0, tb = p ? sg_trans(prec, transB) : 0;
	if (!ta || !tb || !alpha || !beta || !A || !B || !C)
		return -EINVAL;
	uint32_t am, ak, bk, bn, cm, cn;
	size_t c_size = sg_precision_of_c(p)->elemsize;
	if (!op_shape(A, ta, p->elemsize, &am, &ak) || !op_shape(B, tb, p->elemsize, &bk, &bn) ||
	    !op_shape(C, 'N', c_size, &cm, &cn))
		return -EINVAL;
	if (am != cm || bn != cn || ak != bk)
		return -EINVAL;
	/* Normalised letters: tasks of 'n' and 'N' then share one performance history. */
	return starpu_task_insert(starpu_gemm_codelet(p->letter),
		STARPU_VALUE, &ta, sizeof(char), STARPU_VALUE, &tb, sizeof(char),
		STARPU_VALUE, alpha, c_size, STARPU_VALUE, beta, c_size,
		STARPU_R, A, STARPU_R, B, STARPU_RW, C,
		STARPU_FLOPS, starpu_gemm_tile_flops(p->letter, cm, cn, ak), 0);
}

int sg_insert_gemm_task(const struct sg_gemm_task *t, int local, MPI_Comm comm)
{
	size_t size = sg_precision_of_c(t->p)->elemsize; /* alpha's, beta's */
	double flops = (double)t->p->flops_per_fma * (double)t->m * (double)t->n * (double)t->k;
	/* The same arguments for StarPU-MPI and, on process-local matrices, StarPU alone. */
#define GEMM_TASK_ARGS sg_gemm_codelet_of(t->p, t->overwrite),                                 \
		STARPU_VALUE, &t->transA, sizeof(char), STARPU_VALUE, &t->transB, sizeof(char),   \
		STARPU_VALUE, t->alpha, size, STARPU_VALUE, t->beta, size,                        \
		STARPU_R, t->A, STARPU_R, t->B, t->overwrite ? STARPU_W : STARPU_RW, t->C,          \
		STARPU_FLOPS, flops,                                                             \
		STARPU_CALLBACK_WITH_ARG_NFREE, t->callback, t->callback_arg,                    \
		STARPU_PRIORITY, t->priority, STARPU_EXECUTE_ON_WORKER, t->worker,               \
		STARPU_EXECUTE_WHERE, t->where, 0
	int ret = local ? starpu_task_insert(GEMM_TASK_ARGS)
	                : starpu_mpi_task_insert(comm, GEMM_TASK_ARGS);
#undef GEMM_TASK_ARGS
	return ret;
}
