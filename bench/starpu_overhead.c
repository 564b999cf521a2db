/* bench/starpu_overhead [HANDLES [B C D]]: host memory StarPU 1.4.10 holds, per rank, for what
 * the planner counts (compute/plan.c, issue 14): per registered 1 x 1 tile handle, per
 * StarPU-MPI registration of it, and per tile GEMM task submitted and not yet run (workers
 * paused, tasks inserted as compute/pgemm.c inserts them: a b x c block of C, d steps of k).
 * Each figure is the growth of VmRSS over the step divided by its count. With several ranks,
 * each rank owns the C tiles of its own block and the A and B tiles it reads, so every task
 * runs where it is inserted and nothing travels. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include <starpu_mpi.h>
#include <starpu_gemm.h>

static double rss_bytes(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	double kib = 0;
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "VmRSS:", 6) == 0)
			kib = atof(line + 6);
	if (f)
		fclose(f);
	return kib * 1024.0;
}

static void nothing(void *arg)
{
	(void)arg;
}

int main(int argc, char **argv)
{
	int provided, rank, nranks;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	int handles = argc > 1 ? atoi(argv[1]) : 60000;
	int b = argc > 2 ? atoi(argv[2]) : 100, c = argc > 3 ? atoi(argv[3]) : 100;
	int d = argc > 4 ? atoi(argv[4]) : 10;
	if (starpu_mpi_init_conf(&argc, &argv, 0, MPI_COMM_WORLD, NULL)) {
		fprintf(stderr, "starpu_overhead: StarPU did not start\n");
		return 1;
	}
	/* The tiles of the tasks first (A b x d, B d x c, C b x c), then more up to HANDLES. */
	int ntask_tiles = b * d + d * c + b * c;
	if (handles < ntask_tiles)
		handles = ntask_tiles;
	double *data = calloc((size_t)handles, sizeof(double));
	starpu_data_handle_t *h = calloc((size_t)handles, sizeof(*h));
	double before = rss_bytes();
	for (int t = 0; t < handles; t++)
		starpu_matrix_data_register(&h[t], STARPU_MAIN_RAM, (uintptr_t)&data[t], 1, 1, 1,
		                            sizeof(double));
	double registered = rss_bytes();
	int64_t tag_base = (int64_t)rank * handles;
	for (int t = 0; t < handles; t++)
		starpu_mpi_data_register(h[t], tag_base + t, rank);
	double mpi_registered = rss_bytes();

	starpu_pause();
	char trans = 'N';
	double one = 1.0;
	starpu_data_handle_t *A = h, *B = h + b * d, *C = h + b * d + d * c;
	for (int i = 0; i < b; i++)
		for (int j = 0; j < c; j++)
			for (int k = 0; k < d; k++)
				starpu_mpi_task_insert(MPI_COMM_WORLD, starpu_gemm_codelet('d'),
				        STARPU_VALUE, &trans, sizeof(char), STARPU_VALUE, &trans, sizeof(char),
				        STARPU_VALUE, &one, sizeof(double), STARPU_VALUE, &one, sizeof(double),
				        STARPU_R, A[i * d + k], STARPU_R, B[k * c + j],
				        STARPU_RW, C[i * c + j], STARPU_FLOPS, 2.0,
				        STARPU_CALLBACK_WITH_ARG_NFREE, nothing, NULL, STARPU_PRIORITY, 0, 0);
	double submitted = rss_bytes();
	starpu_resume();
	starpu_task_wait_for_all();
	double tasks = (double)b * c * d;
	printf("starpu_overhead: rank %d of %d: %.0f bytes per handle (%d), %.0f per StarPU-MPI "
	       "registration, %.0f per task held (%.0f tasks, b=%d c=%d d=%d)\n", rank, nranks,
	       (registered - before) / handles, handles, (mpi_registered - registered) / handles,
	       (submitted - mpi_registered) / tasks, tasks, b, c, d);
	for (int t = 0; t < handles; t++)
		starpu_data_unregister(h[t]);
	starpu_mpi_shutdown();
	MPI_Finalize();
	free(h);
	free(data);
	return 0;
}
