/* A ScaLAPACK application that knows nothing of starpu-gemm (it links ScaLAPACK only): one
 * PDGEMM on a column-major BLACS grid, through the Fortran interfaces, then its residual
 * against a local DGEMM.
 *   mpirun -np P*Q test_scalapack_app M N K TRANSA TRANSB NB P Q [CALLS]
 * (CALLS times C = alpha op(A) op(B) + beta C, default 1: the later calls of the same shape
 * reuse what the first one set up, in libstarpu_gemm_scalapack).
 * Every element is a function of its global position, so each rank computes the whole
 * reference itself and compares the C elements it holds; rank 0 prints
 *   residual=R (||C - Cref||_F / (||A||_F ||B||_F K eps))
 * and the program exits 1 when R >= 10. tests/scalapack_app.sh runs it with and without
 * libstarpu_gemm_scalapack preloaded. */
#include <float.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

/* ScaLAPACK's Fortran interfaces, called the way a Fortran application calls them: every
 * argument by address, the lengths of the strings after the other arguments. */
void blacs_get_(const int *context, const int *what, int *value);
void blacs_gridinit_(int *context, const char *order, const int *nprow, const int *npcol,
                     size_t order_length);
void blacs_gridinfo_(const int *context, int *nprow, int *npcol, int *myrow, int *mycol);
void blacs_gridexit_(const int *context);
void pdgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
             const double *alpha, const double *a, const int *ia, const int *ja,
             const int *desca, const double *b, const int *ib, const int *jb,
             const int *descb, const double *beta, double *c, const int *ic, const int *jc,
             const int *descc, size_t transa_length, size_t transb_length);
void dgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
            const double *alpha, const double *a, const int *lda, const double *b,
            const int *ldb, const double *beta, double *c, const int *ldc,
            size_t transa_length, size_t transb_length);

static double element(int matrix, int i, int j)
{
	/* Unsigned arithmetic: the sum wraps, as a hash may (int would overflow: UBSan). */
	unsigned h = (unsigned)matrix * 7919u + (unsigned)i * 104729u + (unsigned)j * 1299709u;
	h ^= h >> 13;
	h *= 0x5bd1e995u;
	h ^= h >> 15;
	return (double)(h % 2001) / 1000.0 - 1.0;
}

/* Rows (or columns) of n that process p of nprocs holds, nb at a time from process 0: what
 * ScaLAPACK's NUMROC says, written out as applications often do. */
static int local_count(int n, int nb, int p, int nprocs)
{
	int blocks = n / nb, count = blocks / nprocs * nb, extra = blocks % nprocs;
	if (p < extra)
		count += nb;
	else if (p == extra)
		count += n % nb;
	return count;
}

/* A distributed rows x cols matrix (block nb, source process 0; its descriptor filled by hand,
 * type 1) and its whole copy. */
struct matrix {
	int desc[9];
	double *local, *whole;
	int local_rows, local_cols;
};

static void make(struct matrix *x, int id, int rows, int cols, int nb, int context, int myrow,
                 int mycol, int nprow, int npcol)
{
	x->local_rows = local_count(rows, nb, myrow, nprow);
	x->local_cols = local_count(cols, nb, mycol, npcol);
	int lld = x->local_rows > 1 ? x->local_rows : 1;
	const int desc[9] = { 1, context, rows, cols, nb, nb, 0, 0, lld };
	memcpy(x->desc, desc, sizeof(desc));
	x->local = malloc(sizeof(double) * (size_t)lld * (size_t)(x->local_cols + 1));
	x->whole = malloc(sizeof(double) * (size_t)rows * (size_t)cols);
	if (!x->local || !x->whole) {
		fprintf(stderr, "test_scalapack_app: malloc failed\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	for (int j = 0; j < cols; j++)
		for (int i = 0; i < rows; i++)
			x->whole[i + (size_t)j * rows] = element(id, i, j);
	/* Local (li, lj) is global ((li / nb) * nprow + myrow) * nb + li % nb, and alike. */
	for (int lj = 0; lj < x->local_cols; lj++)
		for (int li = 0; li < x->local_rows; li++)
			x->local[li + (size_t)lj * lld] =
				element(id, ((li / nb) * nprow + myrow) * nb + li % nb,
				        ((lj / nb) * npcol + mycol) * nb + lj % nb);
}

static double norm(const double *x, size_t n)
{
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += x[i] * x[i];
	return sqrt(s);
}

int main(int argc, char **argv)
{
	int provided;
	/* StarPU-MPI, when preloaded, needs MPI_THREAD_SERIALIZED or more. */
	MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
	if (argc != 9 && argc != 10) {
		fprintf(stderr, "usage: %s M N K TRANSA TRANSB NB P Q [CALLS]\n", argv[0]);
		MPI_Finalize();
		return 2;
	}
	int m = atoi(argv[1]), n = atoi(argv[2]), k = atoi(argv[3]), nb = atoi(argv[6]);
	int P = atoi(argv[7]), Q = atoi(argv[8]);
	char ta = argv[4][0], tb = argv[5][0];
	int calls = argc == 10 ? atoi(argv[9]) : 1;
	int context, nprow, npcol, myrow, mycol, rank;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	const int minus_one = -1, zero = 0;
	blacs_get_(&minus_one, &zero, &context);
	blacs_gridinit_(&context, "Col", &P, &Q, 3);
	blacs_gridinfo_(&context, &nprow, &npcol, &myrow, &mycol);
	if (myrow < 0) {
		/* A process the grid leaves out (P x Q < ranks): no call; it only adds nothing to
		 * the residual, as every process does. */
		double nothing = 0, err = 0;
		MPI_Allreduce(&nothing, &err, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		MPI_Finalize();
		return 0;
	}

	int ar = ta == 'N' ? m : k, ac = ta == 'N' ? k : m;
	int br = tb == 'N' ? k : n, bc = tb == 'N' ? n : k;
	struct matrix A, B, C;
	make(&A, 1, ar, ac, nb, context, myrow, mycol, nprow, npcol);
	make(&B, 2, br, bc, nb, context, myrow, mycol, nprow, npcol);
	make(&C, 3, m, n, nb, context, myrow, mycol, nprow, npcol);

	const double alpha = 1.5, beta = -0.5;
	const int one = 1;
	for (int call = 0; call < calls; call++) {
		pdgemm_(&ta, &tb, &m, &n, &k, &alpha, A.local, &one, &one, A.desc, B.local, &one,
		        &one, B.desc, &beta, C.local, &one, &one, C.desc, 1, 1);
		dgemm_(&ta, &tb, &m, &n, &k, &alpha, A.whole, &ar, B.whole, &br, &beta, C.whole, &m,
		       1, 1);
	}

	double local_err = 0, err = 0;
	for (int lj = 0; lj < C.local_cols; lj++) {
		for (int li = 0; li < C.local_rows; li++) {
			int i = ((li / nb) * nprow + myrow) * nb + li % nb;
			int j = ((lj / nb) * npcol + mycol) * nb + lj % nb;
			double d = C.local[li + (size_t)lj * C.desc[8]] - C.whole[i + (size_t)j * m];
			local_err += d * d;
		}
	}
	MPI_Allreduce(&local_err, &err, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	double residual = sqrt(err) / (norm(A.whole, (size_t)ar * ac) *
	                               norm(B.whole, (size_t)br * bc) * k * DBL_EPSILON);
	if (rank == 0)
		printf("M=%d N=%d K=%d op=%c%c nb=%d grid=%dx%d (column-major) calls=%d "
		       "residual=%.3e\n", m, n, k, ta, tb, nb, P, Q, calls, residual);
	free(A.local); free(A.whole); free(B.local); free(B.whole); free(C.local); free(C.whole);
	blacs_gridexit_(&context);
	MPI_Finalize();
	return residual < 10 ? 0 : 1;
}
