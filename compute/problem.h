/* The shape of one C = alpha*op(A)*op(B) + beta*C, in tiles, shared by the planner and the
 * submission loop. */
#ifndef SG_PROBLEM_H
#define SG_PROBLEM_H

#include <starpu_gemm.h>

struct sg_problem {
	char prec, transA, transB;   /* normalised letters; prec is the kernel's (sg_kernel): A's
	                              * precision, or 't' for 's' in TF32 */
	int64_t M, N, K;             /* elements */
	int Mt, Nt, Kt, tile;        /* tiles */
	int P, Q;                    /* C's effective process grid: blocks span b*P x c*Q tiles */
	int user_owners;             /* the owners come from a user function, not the grid */
	int rank;
	int local;                   /* STARPU_GEMM_COMM_LOCAL: no MPI */
	int share;                   /* node peers read A's and B's tiles in place (their
	                              * descriptors are shared, or from sizes: sharing is asked) */
	int staged;                  /* the one call stages the caller's arrays through these
	                              * descriptors' tiles (doors/stage.c): set by the door */
	MPI_Comm comm;
};

/* Checks that A, B, C conform (precisions, tile size and communicator, op(A) M x K,
 * op(B) K x N, C M x N) and that math (enum starpu_gemm_math) applies to them, and fills pb.
 * Returns 0 or -EINVAL with one line on stderr. */
int sg_problem_make(struct sg_problem *pb, char transA, char transB,
                    const struct starpu_gemm_desc *A, const struct starpu_gemm_desc *B,
                    const struct starpu_gemm_desc *C, int math);

/* The problem descriptors of these sizes would make (starpu_gemm_plan_sizes), checked as
 * their constructors and sg_desc_conform check them, with nothing allocated. Returns 0 or
 * -EINVAL with one line on stderr from rank 0. */
int sg_problem_of_sizes(struct sg_problem *pb, char prec, char transA, char transB,
                        int64_t M, int64_t N, int64_t K, int tile,
                        const struct starpu_gemm_dist *dist, MPI_Comm comm, int math);


/* Tile (row, column) of op(X) at (i, k): the stored tile is transposed when trans != 'N'. */
static inline void sg_op_tile(char trans, int i, int k, int *row, int *col)
{
	*row = trans == 'N' ? i : k;
	*col = trans == 'N' ? k : i;
}

static inline int sg_min(int a, int b) { return a < b ? a : b; }
static inline int sg_max(int a, int b) { return a > b ? a : b; }
static inline int sg_ceil_div(int a, int b) { return (a + b - 1) / b; }

#endif
