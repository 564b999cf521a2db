/* A user's program, built only with `mpicc $(pkg-config --cflags --libs starpu-gemm)` against
 * an installed starpu-gemm (tests/install.sh): one tile C = alpha*A*B^T + beta*C through
 * starpu_gemm_tile_insert, checked against a naive triple loop. Prints PASS or FAIL. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <starpu_gemm.h>

enum { M = 13, N = 7, K = 29, LDA = 16, LDB = 9, LDC = 15 };

static int check(int ret, const char *call)
{
	if (ret != 0)
		fprintf(stderr, "FAIL example_pkgconfig: %s returned %d\n", call, ret);
	return ret != 0;
}

int main(int argc, char **argv)
{
	int provided, failed = 0;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	if (check(starpu_mpi_init_conf(&argc, &argv, 0, MPI_COMM_WORLD, &conf),
	          "starpu_mpi_init_conf"))
		MPI_Abort(MPI_COMM_WORLD, 1);
	if (starpu_cuda_worker_get_count() > 0)
		starpu_cublas_init();

	/* A is M x K, B is N x K (used transposed), C is M x N; padded leading dimensions. */
	static double A[LDA * K], B[LDB * K], C[LDC * N], ref[LDC * N];
	for (int j = 0; j < K; j++)
		for (int i = 0; i < LDA; i++)
			A[i + j * LDA] = 1.0 / (1 + i + 2 * j);
	for (int j = 0; j < K; j++)
		for (int i = 0; i < LDB; i++)
			B[i + j * LDB] = 0.25 * ((i * 5 + j * 3) % 11) - 1.125;
	for (int j = 0; j < N; j++)
		for (int i = 0; i < LDC; i++)
			C[i + j * LDC] = ref[i + j * LDC] = 0.5 + i - j;
	double alpha = 1.5, beta = -0.75;
	for (int j = 0; j < N; j++)
		for (int i = 0; i < M; i++) {
			double sum = 0;
			for (int l = 0; l < K; l++)
				sum += A[i + l * LDA] * B[j + l * LDB];
			ref[i + j * LDC] = alpha * sum + beta * ref[i + j * LDC];
		}

	starpu_data_handle_t hA, hB, hC;
	starpu_matrix_data_register(&hA, STARPU_MAIN_RAM, (uintptr_t)A, LDA, M, K, sizeof(double));
	starpu_matrix_data_register(&hB, STARPU_MAIN_RAM, (uintptr_t)B, LDB, N, K, sizeof(double));
	starpu_matrix_data_register(&hC, STARPU_MAIN_RAM, (uintptr_t)C, LDC, M, N, sizeof(double));
	failed |= check(starpu_gemm_tile_insert('d', 'N', 'T', &alpha, hA, hB, &beta, hC),
	                "starpu_gemm_tile_insert");
	failed |= check(starpu_task_wait_for_all(), "starpu_task_wait_for_all");
	starpu_data_unregister(hA);
	starpu_data_unregister(hB);
	starpu_data_unregister(hC); /* brings C back to main memory */

	double err = 0;
	for (int j = 0; j < N; j++)
		for (int i = 0; i < LDC; i++) {
			double d = fabs(C[i + j * LDC] - ref[i + j * LDC]);
			err = d > err || isnan(d) ? d : err;
		}
	failed |= !(err <= 1e-12);
	printf("%s example_pkgconfig: %dx%dx%d dgemm (N,T) through the installed library, max "
	       "error %.3g (version %s)\n", failed ? "FAIL" : "PASS", M, N, K, err,
	       STARPU_GEMM_VERSION);

	if (starpu_cuda_worker_get_count() > 0)
		starpu_cublas_shutdown();
	starpu_mpi_shutdown();
	MPI_Finalize();
	return failed;
}
