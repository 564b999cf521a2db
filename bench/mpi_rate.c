/* The MPI rate between the ranks of a job as tiles move: every rank sends a tile-sized
 * message to every other rank and receives one from each, all pairs at once (Isend/Irecv,
 * then Waitall), as the ranks of one node exchange A and B tiles when they do not share them
 * in place. A warm-up round, then --rounds timed rounds. Rows of the results' CSV
 * (bench/bench_util.h), rank 0 prints them: system mpi_rate, one row per rank (P its rank,
 * ranks the job's size, gbs the GB/s it received over all rounds, block the message's bytes,
 * iter the rounds), then system mpi_rate_min and mpi_rate_median over the ranks (P empty).
 * The bound of the driver's roofline divides pred_mpi_bytes by a rank's received rate. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench/bench_util.h"

#define MPI_CHECK(call)                                                                     \
	do {                                                                                \
		int mpi_rc_ = (call);                                                       \
		if (mpi_rc_ != MPI_SUCCESS) {                                               \
			fprintf(stderr, "mpi_rate: %s failed (%d) at %s:%d\n", #call, mpi_rc_, \
			        __FILE__, __LINE__);                                        \
			MPI_Abort(MPI_COMM_WORLD, 1);                                       \
		}                                                                           \
	} while (0)

static void usage(FILE *out, const char *program)
{
	fprintf(out,
	        "usage: mpirun -np R %s [--bytes B] [--rounds N]\n"
	        "  every rank sends B bytes (default 134217728 = a 4096x4096 double tile) to every\n"
	        "  other rank and receives as much from each, all pairs at once, N rounds (default 5)\n"
	        "  after one warm-up round; rank 0 prints each rank's received GB/s, then the min\n"
	        "  and the median (CSV, common/results_csv.h)\n",
	        program);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* One round: every pair at once. Messages over INT_MAX bytes go as MPI_DOUBLE counts. */
static void round_all_pairs(char *send, char *recv, long long bytes, int rank, int ranks)
{
	MPI_Request *req = malloc(2 * (size_t)ranks * sizeof(*req));
	int nreq = 0, count = (int)(bytes / 8);
	for (int step = 1; step < ranks; step++) {
		int from = (rank - step + ranks) % ranks, to = (rank + step) % ranks;
		MPI_CHECK(MPI_Irecv(recv + (size_t)(step - 1) * (size_t)bytes, count, MPI_DOUBLE,
		                    from, 0, MPI_COMM_WORLD, &req[nreq++]));
		MPI_CHECK(MPI_Isend(send, count, MPI_DOUBLE, to, 0, MPI_COMM_WORLD, &req[nreq++]));
	}
	MPI_CHECK(MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
	free(req);
}

int main(int argc, char **argv)
{
	long long bytes = 134217728, rounds = 5;
	MPI_CHECK(MPI_Init(&argc, &argv));
	int rank, ranks;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &ranks);
	enum { OPT_BYTES = 256, OPT_ROUNDS };
	static const struct option longopts[] = { { "bytes", required_argument, NULL, OPT_BYTES },
		{ "rounds", required_argument, NULL, OPT_ROUNDS },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 } };
	int opt;
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (opt == OPT_BYTES)
			bytes = bench_int_option(argv[0], "--bytes", optarg, 8, 1LL << 34);
		else if (opt == OPT_ROUNDS)
			rounds = bench_int_option(argv[0], "--rounds", optarg, 1, 1000);
		else {
			if (rank == 0)
				usage(opt == 'h' ? stdout : stderr, argv[0]);
			MPI_Finalize();
			return opt == 'h' ? 0 : 2;
		}
	}
	if (bytes % 8 || bytes / 8 > 2147483647LL) {
		if (rank == 0)
			fprintf(stderr, "mpi_rate: --bytes must be a multiple of 8, at most 16 GiB\n");
		MPI_Finalize();
		return 2;
	}
	if (ranks < 2) {
		if (rank == 0)
			fprintf(stderr, "mpi_rate: needs at least 2 ranks (mpirun -np R)\n");
		MPI_Finalize();
		return 2;
	}
	char *send = malloc((size_t)bytes), *recv = malloc((size_t)bytes * (size_t)(ranks - 1));
	if (!send || !recv) {
		fprintf(stderr, "mpi_rate: rank %d cannot allocate %lld MiB\n", rank,
		        bytes * ranks >> 20);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	memset(send, rank + 1, (size_t)bytes); /* touched: the pages exist, as tiles' do */
	memset(recv, 0, (size_t)bytes * (size_t)(ranks - 1));
	round_all_pairs(send, recv, bytes, rank, ranks); /* warm-up: connections, registration */
	MPI_Barrier(MPI_COMM_WORLD);
	double t0 = bench_now();
	for (long long r = 0; r < rounds; r++)
		round_all_pairs(send, recv, bytes, rank, ranks);
	double seconds = bench_now() - t0;
	double gbs = (double)bytes * (ranks - 1) * (double)rounds / seconds / 1e9;
	double *all = rank == 0 ? malloc((size_t)ranks * sizeof(*all)) : NULL;
	MPI_CHECK(MPI_Gather(&gbs, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
	if (rank == 0) {
		char fields[200];
		for (int r = 0; r < ranks; r++) {
			snprintf(fields, sizeof(fields),
			         "system=mpi_rate P=%d ranks=%d iter=%lld block=%lld gbs=%.3f", r, ranks,
			         rounds, bytes, all[r]);
			bench_print_row(fields);
		}
		qsort(all, (size_t)ranks, sizeof(*all), cmp_double);
		double median = ranks % 2 ? all[ranks / 2] : (all[ranks / 2 - 1] + all[ranks / 2]) / 2;
		snprintf(fields, sizeof(fields),
		         "system=mpi_rate_min ranks=%d iter=%lld block=%lld gbs=%.3f", ranks, rounds,
		         bytes, all[0]);
		bench_print_row(fields);
		snprintf(fields, sizeof(fields),
		         "system=mpi_rate_median ranks=%d iter=%lld block=%lld gbs=%.3f", ranks, rounds,
		         bytes, median);
		bench_print_row(fields);
		free(all);
	}
	free(send);
	free(recv);
	MPI_Finalize();
	return 0;
}
