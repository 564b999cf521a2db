/* What several modules share about threads and time: a team of threads over a list of items
 * (the doors' copies: ScaLAPACK redistribution, staging), and one monotonic clock. */
#ifndef SG_THREADS_H
#define SG_THREADS_H

#include <time.h>
#include <starpu_config.h>
#ifdef STARPU_SIMGRID
#include <starpu.h>
#endif

/* Calls fn(arg, item) for every item in [0, nitems) on up to threads threads, the caller's
 * included, each taking the next item left. Threads that cannot start leave their share to
 * the others. */
void sg_run_on_threads(int nitems, int threads, void (*fn)(const void *arg, int item),
                       const void *arg);

/* The same on the caller and one thread bound to each of the ncpus CPUs (OS numbers) in
 * cpus, for work that must stay off the cores StarPU's threads are bound to. */
void sg_run_on_cpus(int nitems, const int *cpus, int ncpus,
                    void (*fn)(const void *arg, int item), const void *arg);

/* Seconds on a monotonic clock. Under StarPU+SimGrid, the simulated clock: every duration
 * the library and the driver measure or wait for is then the simulated machine's. */
static inline double sg_now(void)
{
#ifdef STARPU_SIMGRID
	return starpu_timing_now() * 1e-6;
#else
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
#endif
}

/* The absolute time, seconds from now, that starpu_pthread_cond_timedwait takes: on the
 * simulated clock under SimGrid (StarPU compares it with that), else CLOCK_REALTIME (the
 * default clock of a pthread condition). */
static inline struct timespec sg_deadline(double seconds)
{
	struct timespec ts;
#ifdef STARPU_SIMGRID
	double at = sg_now() + seconds;
	ts.tv_sec = (time_t)at;
	ts.tv_nsec = (long)((at - (double)ts.tv_sec) * 1e9);
#else
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += (long)(seconds * 1e9);
	ts.tv_sec += ts.tv_nsec / 1000000000;
	ts.tv_nsec %= 1000000000;
#endif
	return ts;
}

#endif
