/* A user's program built from a new shell against an installed starpu-gemm, with nothing but
 * `cc $(pkg-config --cflags --libs starpu-gemm)` or CMake's find_package(starpu_gemm)
 * (tests/install.sh): the one call on column-major host arrays, no MPI, C = alpha*A*B^T +
 * beta*C with padded leading dimensions, checked against a naive triple loop. Prints PASS or
 * FAIL. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <starpu_gemm.h>

enum { M = 70, N = 45, K = 93, LDA = 73, LDB = 50, LDC = 71 };

int main(void)
{
	double *A = malloc(sizeof(double) * LDA * K), *B = malloc(sizeof(double) * LDB * K);
	double *C = malloc(sizeof(double) * LDC * N), *R = malloc(sizeof(double) * LDC * N);
	const double alpha = 1.5, beta = -0.5;
	if (!A || !B || !C || !R) {
		fprintf(stderr, "FAIL example_gemm: out of memory\n");
		return 1;
	}
	srand(7);
	for (int i = 0; i < LDA * K; i++)
		A[i] = rand() / (double)RAND_MAX - 0.5;
	for (int i = 0; i < LDB * K; i++)
		B[i] = rand() / (double)RAND_MAX - 0.5;
	for (int i = 0; i < LDC * N; i++)
		C[i] = R[i] = rand() / (double)RAND_MAX - 0.5;

	int ret = starpu_gemm_gemm('d', 'N', 'T', M, N, K, &alpha, A, LDA, B, LDB, &beta, C, LDC);
	if (ret != 0) {
		fprintf(stderr, "FAIL example_gemm: starpu_gemm_gemm returned %d\n", ret);
		return 1;
	}
	double err = 0;
	for (int j = 0; j < N; j++)
		for (int i = 0; i < M; i++) {
			double s = 0;
			for (int l = 0; l < K; l++)
				s += A[i + l * LDA] * B[j + l * LDB];
			err = fmax(err, fabs(C[i + j * LDC] - (alpha * s + beta * R[i + j * LDC])));
		}
	int ok = err <= 1e-12;
	printf("%s example_gemm: starpu_gemm_gemm %dx%dx%d, max error %.3g against a naive loop\n",
	       ok ? "PASS" : "FAIL", M, N, K, err);
	free(A);
	free(B);
	free(C);
	free(R);
	return ok ? 0 : 1;
}
