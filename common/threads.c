#include <pthread.h>
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

void sg_run_on_threads(int nitems, int threads, void (*fn)(const void *arg, int item),
                           const void *arg)
{
	struct team t = { .fn = fn, .arg = arg, .nitems = nitems };
	atomic_init(&t.next, 0);
	pthread_t *ids = threads > 1 ? malloc((size_t)(threads - 1) * sizeof(*ids)) : NULL;
	int started = 0;
	while (ids && started < threads - 1 &&
	       pthread_create(&ids[started], NULL, team_member, &t) == 0)
		started++;
	team_member(&t);
	for (int k = 0; k < started; k++)
		pthread_join(ids[k], NULL);
	free(ids);
}
