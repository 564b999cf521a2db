/* What several modules share about threads and time: a team of threads over a list of items
 * (the doors' copies: ScaLAPACK redistribution, staging), and one monotonic clock. */
#ifndef SG_THREADS_H
#define SG_THREADS_H

#include <time.h>

/* Calls fn(arg, item) for every item in [0, nitems) on up to threads threads, the caller's
 * included, each taking the next item left. Threads that cannot start leave their share to
 * the others. */
void sg_run_on_threads(int nitems, int threads, void (*fn)(const void *arg, int item),
                       const void *arg);

/* Seconds on a monotonic clock. */
static inline double sg_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

#endif
