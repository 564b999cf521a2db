/* The one conformance check of C = alpha*op(A)*op(B) + beta*C on descriptors: the planner,
 * the submission and the verification all ask it. (BLAS-order arguments have theirs in
 * common/blas.c, starpu_gemm_gemm_check.) */
#include <errno.h>
#include <stdio.h>
#include "distrib/desc.h"

static int same_comm(MPI_Comm a, MPI_Comm b)
{
	if (a == STARPU_GEMM_COMM_LOCAL || b == STARPU_GEMM_COMM_LOCAL)
		return a == b;
	int cmp;
	MPI_Comm_compare(a, b, &cmp);
	return cmp == MPI_IDENT || cmp == MPI_CONGRUENT;
}

int sg_desc_conform(char transA, char transB, const struct starpu_gemm_desc *A,
                    const struct starpu_gemm_desc *B, const struct starpu_gemm_desc *C,
                    char *ta, char *tb, int64_t *K, char *msg, size_t len)
{
	if (!A || !B || !C) {
		snprintf(msg, len, "NULL matrix descriptor");
		return -EINVAL;
	}
	*ta = sg_trans(C->prec, transA);
	*tb = sg_trans(C->prec, transB);
	if (!*ta || !*tb) {
		snprintf(msg, len, "transA/transB must be N, T or C (got %c, %c)", transA, transB);
		return -EINVAL;
	}
	/* C of the precision the product of A's and B's precision writes: the same, or float
	 * for bfloat16 and half ones. */
	if (A->prec != B->prec || C->prec != A->p->c_letter) {
		if (A->p->c_letter != A->prec)
			snprintf(msg, len, "A and B of precision %c need B of %c and C of %c (got %c and "
			         "%c)", A->prec, A->prec, A->p->c_letter, B->prec, C->prec);
		else
			snprintf(msg, len, "A, B and C must have the same precision");
		return -EINVAL;
	}
	if (A->tile != C->tile || B->tile != C->tile) {
		snprintf(msg, len, "A, B and C must have the same tile size");
		return -EINVAL;
	}
	if (!same_comm(A->comm, C->comm) || !same_comm(B->comm, C->comm)) {
		snprintf(msg, len, "A, B and C must live on the same communicator");
		return -EINVAL;
	}
	int64_t opa_rows = *ta == 'N' ? A->m : A->n, opa_cols = *ta == 'N' ? A->n : A->m;
	int64_t opb_rows = *tb == 'N' ? B->m : B->n, opb_cols = *tb == 'N' ? B->n : B->m;
	if (opa_rows != C->m || opb_cols != C->n || opa_cols != opb_rows) {
		snprintf(msg, len, "shapes do not conform: op(A) is %lldx%lld, op(B) is %lldx%lld, "
		         "C is %lldx%lld", (long long)opa_rows, (long long)opa_cols,
		         (long long)opb_rows, (long long)opb_cols, (long long)C->m, (long long)C->n);
		return -EINVAL;
	}
	*K = opa_cols;
	return 0;
}
