#include "errors.h"

void sg_fatal(const char *file, int line, const char *call, const char *what, const char *context)
{
	int rank = -1, initialized = 0;
	MPI_Initialized(&initialized);
	if (initialized)
		MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	fprintf(stderr, "starpu_gemm: rank %d: %s failed at %s:%d: %s%s%s\n", rank, call, file,
	        line, what, context ? " (" : "", context ? context : "");
	fflush(stderr);
	if (initialized)
		MPI_Abort(MPI_COMM_WORLD, 1);
	abort();
}
