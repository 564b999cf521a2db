#include "errors.h"

void sg_fatal(const char *file, int line, const char *call, const char *what, const char *context)
{
	int rank = -1, initialized = 0;
	MPI_Initialized(&initialized);
	if (initialized)
		MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	fprintf(stderr, "starpu_gemm: rank %d: %s failed at %s:%d: %s%s%s%s\n", rank, call, file,
	        line, what, context ? " (" : "", context ? context : "", context ? ")" : "");
	fflush(stderr);
	if (initialized)
		MPI_Abort(MPI_COMM_WORLD, 1);
	abort();
}

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
/* Sanitizer builds only (configure --enable-sanitizers), through MPI's profiling interface.
 * Open MPI loads plugins in MPI_Init and unloads them (some at once, the rest in MPI_Finalize);
 * the stack frames of their leaks then have no name (or the name of whatever was mapped at
 * their addresses later), and no suppression could tell them from ours. So:
 *   - what MPI_Init allocates on the calling thread is Open MPI's, none of ours: LeakSanitizer
 *     ignores it;
 *   - LeakSanitizer checks at MPI_Finalize instead of at exit: StarPU is shut down by then and
 *     all our memory must be freed, while Open MPI's plugins are still loaded. The check runs
 *     once; the one at exit is then skipped.
 * What remains, PMIx's own leaks on its progress thread, is suppressed in tests/lsan.supp. */
int MPI_Init(int *argc, char ***argv)
{
	__lsan_disable();
	int ret = PMPI_Init(argc, argv);
	__lsan_enable();
	return ret;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	__lsan_disable();
	int ret = PMPI_Init_thread(argc, argv, required, provided);
	__lsan_enable();
	return ret;
}

int MPI_Finalize(void)
{
	__lsan_do_leak_check();
	return PMPI_Finalize();
}
#endif
