#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include "common/threads.h"

/* Calls fn(arg, item) for every item in [0, nitems) on up to threads threads, this one
 * included, each taking the next item left. Threads that cannot start leave their share to
 * the others. */
struct team {
	void (*fn)(const void *arg, int item);
	const void *arg;
	int nitems;
	atomic_int next;
};

static void *team_member(void *team)
{
	struct team *t = team;
	for (int item; (item = atomic_fetch_add(&t->next, 1)) < t->nitems;)
		t->fn(t->arg, item);
	return NULL;
}

/* Starts `helpers` threads (each bound to cpus[h] when cpus is given), works with them, joins
 * them. Threads that cannot start leave their share to the others. */
static void run_team(struct team *t, int helpers, const int *cpus)
{
	atomic_init(&t->next, 0);
	pthread_t *ids = helpers > 0 ? malloc((size_t)helpers * sizeof(*ids)) : NULL;
	int started = 0;
	for (int h = 0; ids && h < helpers; h++) {
		pthread_attr_t attr;
		if (pthread_attr_init(&attr) != 0)
			break;
		int ok = 1;
		if (cpus) {
			/* Bound before it starts: created by a StarPU worker, it would otherwise inherit
			 * that worker's single core. */
			cpu_set_t one;
			CPU_ZERO(&one);
			CPU_SET(cpus[h], &one);
			ok = pthread_attr_setaffinity_np(&attr, sizeof(one), &one) == 0;
		}
		if (ok && pthread_create(&ids[started], &attr, team_member, t) == 0)
			started++;
		pthread_attr_destroy(&attr);
	}
	team_member(t);
	for (int k = 0; k < started; k++)
		pthread_join(ids[k], NULL);
	free(ids);
}

void sg_run_on_threads(int nitems, int threads, void (*fn)(const void *arg, int item),
                       const void *arg)
{
	struct team t = { .fn = fn, .arg = arg, .nitems = nitems };
	run_team(&t, threads - 1, NULL);
}

void sg_run_on_cpus(int nitems, const int *cpus, int ncpus,
                    void (*fn)(const void *arg, int item), const void *arg)
{
	struct team t = { .fn = fn, .arg = arg, .nitems = nitems };
	run_team(&t, ncpus, cpus);
}
