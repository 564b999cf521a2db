/* Peer: ScaLAPACK PDGEMM C = A*B + C on n x n random matrices, 2D block-cyclic with nb x nb
 * blocks on a P x Q BLACS grid (one MPI rank per grid cell). The time of one run is the
 * slowest rank's, between two barriers; rank 0 prints rows of the results' CSV
 * (bench/bench_util.h), system scalapack, P, Q, nb, ranks. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
#include "bench/bench_util.h"

/* libscalapack-openmpi ships no C header: the BLACS C interface and the Fortran-named
 * routines we call. PBLAS's pdgemm_ is C code taking char pointers, so no hidden Fortran
 * string lengths follow. */
void Cblacs_pinfo(int *mypnum, int *nprocs);
void Cblacs_get(int context, int request, int *value);
void Cblacs_gridinit(int *context, const char *order, int nprow, int npcol);
void Cblacs_gridinfo(int context, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_gridexit(int context);
void Cblacs_exit(int notdone);
int numroc_(const int *n, const int *nb, const int *iproc, const int *isrcproc,
            const int *nprocs);
void descinit_(int *desc, const int *m, const int *n, const int *mb, const int *nb,
               const int *irsrc, const int *icsrc, const int *ictxt, const int *lld, int *info);
void pdgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
             const double *alpha, const double *a, const int *ia, const int *ja,
             const int *desca, const double *b, const int *ib, const int *jb,
             const int *descb, const double *beta, double *c, const int *ic, const int *jc,
             const int *descc);

static void usage(FILE *out, const char *program)
{
	fprintf(out, "usage: mpirun -np P*Q %s [-n N] [-P P] [-Q Q] [--nb NB] [--niter I] "
	        "[--warmup W]\n"
	        "  -n, --n N      matrix order (default 4096)\n"
	        "  -P, -Q         process grid (default 1 x ranks)\n"
	        "  --nb NB        block size of the block-cyclic layout (default 256)\n"
	        "  --niter I      timed runs, the median is reported (default 3)\n"
	        "  --warmup W     untimed runs first (default 1)\n", program);
}

/* A run-time failure on some ranks: stop every rank, since one that returns alone leaves the
 * others waiting in a collective. */
static void fail(const char *program, const char *message) __attribute__((noreturn));
static void fail(const char *program, const char *message)
{
	fprintf(stderr, "%s: %s\n", program, message);
	MPI_Abort(MPI_COMM_WORLD, 1);
	exit(1);
}

/* Bad input, seen alike by every rank: rank 0 says so once, all leave cleanly with 2. */
static void input_error(int rank, const char *program, const char *message)
	__attribute__((noreturn));
static void input_error(int rank, const char *program, const char *message)
{
	if (rank == 0 && message)
		fprintf(stderr, "%s: %s\n", program, message);
	MPI_Finalize();
	exit(2);
}

/* An integer option in [lo, hi]; every rank parses the same text, so all stop together. */
static int int_option(int rank, const char *program, const char *option, const char *text,
                      long long lo, long long hi)
{
	long long v = 0;
	if (bench_parse_int(text, lo, hi, &v) != 0) {
		char message[160];
		snprintf(message, sizeof(message), "%s needs an integer from %lld to %lld, not '%s'",
		         option, lo, hi, text);
		input_error(rank, program, message);
	}
	return (int)v;
}

int main(int argc, char **argv)
{
	/* Threads allowed, as in hybrid applications: the preloaded drop-in (StarPU-MPI) needs
	 * MPI_THREAD_SERIALIZED or more; ScaLAPACK itself does not care. */
	int provided;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	int rank = 0, nranks = 1;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);

	int n = 4096, P = 0, Q = 0, nb = 256, niter = 3, warmup = 1;
	enum { OPT_NB = 256, OPT_NITER, OPT_WARMUP };
	static const struct option longopts[] = {
		{ "n", required_argument, NULL, 'n' }, { "N", required_argument, NULL, 'n' },
		{ "P", required_argument, NULL, 'P' }, { "Q", required_argument, NULL, 'Q' },
		{ "nb", required_argument, NULL, OPT_NB },
		{ "niter", required_argument, NULL, OPT_NITER },
		{ "warmup", required_argument, NULL, OPT_WARMUP },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 }
	};
	int opt;
	while ((opt = getopt_long(argc, argv, "n:N:P:Q:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'n': n = int_option(rank, argv[0], "-n", optarg, 1, 1 << 20); break;
		case 'P': P = int_option(rank, argv[0], "-P", optarg, 1, 1 << 16); break;
		case 'Q': Q = int_option(rank, argv[0], "-Q", optarg, 1, 1 << 16); break;
		case OPT_NB: nb = int_option(rank, argv[0], "--nb", optarg, 1, 1 << 16); break;
		case OPT_NITER: niter = int_option(rank, argv[0], "--niter", optarg, 1, 1000); break;
		case OPT_WARMUP: warmup = int_option(rank, argv[0], "--warmup", optarg, 0, 1000); break;
		case 'h':
			if (rank == 0)
				usage(stdout, argv[0]);
			MPI_Finalize();
			return 0;
		default:
			if (rank == 0)
				usage(stderr, argv[0]);
			input_error(rank, argv[0], NULL);
		}
	}
	if (P == 0 && Q == 0)
		P = 1;
	if (P == 0)
		P = nranks / Q;
	if (Q == 0)
		Q = nranks / P;
	if (P < 1 || Q < 1 || P * Q != nranks) {
		char message[160];
		snprintf(message, sizeof(message), "grid %d x %d does not match the %d MPI ranks "
		         "(start P*Q ranks)", P, Q, nranks);
		input_error(rank, argv[0], message);
	}

	int context = 0, myrow = 0, mycol = 0, nprow = 0, npcol = 0, blacs_rank = 0, blacs_n = 0;
	Cblacs_pinfo(&blacs_rank, &blacs_n);
	Cblacs_get(-1, 0, &context);
	Cblacs_gridinit(&context, "Row", P, Q);
	Cblacs_gridinfo(context, &nprow, &npcol, &myrow, &mycol);
	if (nprow != P || npcol != Q)
		fail(argv[0], "Cblacs_gridinit did not make the requested grid");

	const int zero = 0, one = 1;
	int local_rows = numroc_(&n, &nb, &myrow, &zero, &P);
	int local_cols = numroc_(&n, &nb, &mycol, &zero, &Q);
	int lld = local_rows > 1 ? local_rows : 1;
	int desc[9], info = 0;
	descinit_(desc, &n, &n, &nb, &nb, &zero, &zero, &context, &lld, &info);
	if (info != 0) {
		char message[80];
		snprintf(message, sizeof(message), "descinit_ rejected argument %d", -info);
		fail(argv[0], message);
	}

	size_t count = (size_t)lld * (size_t)(local_cols > 0 ? local_cols : 1);
	double *A = malloc(count * sizeof(double)), *B = malloc(count * sizeof(double)),
	       *C = malloc(count * sizeof(double));
	double *times = malloc((size_t)niter * sizeof(double));
	if (!A || !B || !C || !times)
		fail(argv[0], "cannot allocate the local blocks");
	bench_fill_random(A, count, 3 * (uint64_t)rank + 1);
	bench_fill_random(B, count, 3 * (uint64_t)rank + 2);
	bench_fill_random(C, count, 3 * (uint64_t)rank + 3);

	const double alpha = 1.0, beta = 1.0;
	for (int it = 0; it < warmup + niter; it++) {
		MPI_Barrier(MPI_COMM_WORLD);
		double t0 = MPI_Wtime();
		pdgemm_("N", "N", &n, &n, &n, &alpha, A, &one, &one, desc, B, &one, &one, desc, &beta,
		        C, &one, &one, desc);
		double t = MPI_Wtime() - t0, slowest = 0;
		MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
		if (it >= warmup)
			times[it - warmup] = slowest;
	}

	if (rank == 0) {
		char extra[96];
		snprintf(extra, sizeof(extra), "P=%d Q=%d nb=%d ranks=%d threads=1", P, Q, nb, nranks);
		bench_print_rows("scalapack", n, bench_dgemm_flops(n), times, niter, extra);
	}
	free(A);
	free(B);
	free(C);
	free(times);
	Cblacs_gridexit(context);
	Cblacs_exit(1); /* 1: MPI stays up, we finalize it ourselves */
	MPI_Finalize();
	return 0;
}
