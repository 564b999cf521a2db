#include <stdio.h>
#include <stdlib.h>
#include <starpu.h>
#include "common/threads.h"
#include "compute/window.h"

struct chunk_ref {
	struct sg_window *w;
	int64_t pending;     /* local tasks of this chunk not finished yet */
};

/* StarPU's thread API: real pthreads, or SimGrid's under simulation, where the submission
 * thread is a simulated actor and its waits take simulated time. */
struct sg_window {
	starpu_pthread_mutex_t lock;
	starpu_pthread_cond_t cond;
	int lookahead, nslots, progress;
	struct chunk_ref *slots; /* chunk z uses slot z mod nslots */
	int64_t current;         /* index of the chunk being submitted */
	int64_t submitted, done; /* local tasks */
	int64_t side_submitted, side_done; /* sg_window_add_side's */
	int64_t expected;
	double last_progress;
	double t0, t_first, t_half, t_last; /* starpu_timing_now (simulated time under SimGrid) */
	sg_window_sampler sampler;
	void *sampler_arg;
};

struct sg_window *sg_window_create(int lookahead, int progress, int64_t expected_tasks,
                                   sg_window_sampler sampler, void *sampler_arg)
{
	struct sg_window *w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->lookahead = lookahead;
	/* One slot per chunk that may be in flight, plus the one being submitted. */
	w->nslots = lookahead + 2;
	w->slots = calloc((size_t)w->nslots, sizeof(*w->slots));
	if (!w->slots) {
		free(w);
		return NULL;
	}
	for (int s = 0; s < w->nslots; s++)
		w->slots[s].w = w;
	starpu_pthread_mutex_init(&w->lock, NULL);
	starpu_pthread_cond_init(&w->cond, NULL);
	w->progress = progress;
	w->expected = expected_tasks;
	w->sampler = sampler;
	w->sampler_arg = sampler_arg;
	w->current = -1;
	w->last_progress = sg_now();
	w->t0 = starpu_timing_now();
	return w;
}

void sg_window_destroy(struct sg_window *w)
{
	if (!w)
		return;
	starpu_pthread_mutex_destroy(&w->lock);
	starpu_pthread_cond_destroy(&w->cond);
	free(w->slots);
	free(w);
}

/* Called with the lock held: sleep until woken by a task end, sampling and reporting on the
 * way. */
static void wait_a_little(struct sg_window *w)
{
	if (w->sampler) {
		starpu_pthread_mutex_unlock(&w->lock);
		w->sampler(w->sampler_arg);
		starpu_pthread_mutex_lock(&w->lock);
	}
#ifdef STARPU_SIMGRID
	/* Every task end broadcasts, so an untimed wait still samples and reports at each. Timed
	 * waits here made SimGrid 3.32 declare a deadlock mid-product (seen on a 1-GPU run). */
	starpu_pthread_cond_wait(&w->cond, &w->lock);
#else
	struct timespec deadline = sg_deadline(w->sampler ? 1e-3 : 0.1);
	starpu_pthread_cond_timedwait(&w->cond, &w->lock, &deadline);
#endif
	if (w->progress && w->expected > 0 && sg_now() - w->last_progress >= 1.0) {
		fprintf(stderr, "starpu_gemm: progress %5.1f%% (%lld of %lld tasks on rank 0)\n",
		        100.0 * w->done / w->expected, (long long)w->done, (long long)w->expected);
		w->last_progress = sg_now();
	}
}

void *sg_window_begin_chunk(struct sg_window *w, int64_t index)
{
	starpu_pthread_mutex_lock(&w->lock);
	/* Chunks up to index-lookahead-1 must be done; chunk index-nslots shares our slot, and
	 * is older, so it is covered. */
	for (int64_t old = index - w->lookahead - 1; old >= 0 && old >= index - w->nslots; old--)
		while (w->slots[old % w->nslots].pending > 0)
			wait_a_little(w);
	w->current = index;
	struct chunk_ref *ref = &w->slots[index % w->nslots];
	starpu_pthread_mutex_unlock(&w->lock);
	return ref;
}

void sg_window_add_task(struct sg_window *w)
{
	starpu_pthread_mutex_lock(&w->lock);
	w->slots[w->current % w->nslots].pending++;
	w->submitted++;
	starpu_pthread_mutex_unlock(&w->lock);
}

void sg_window_task_done(void *chunk_ref)
{
	struct chunk_ref *ref = chunk_ref;
	struct sg_window *w = ref->w;
	starpu_pthread_mutex_lock(&w->lock);
	ref->pending--;
	w->done++;
	w->t_last = starpu_timing_now();
	if (w->done == 1)
		w->t_first = w->t_last;
	if (w->done == (w->expected + 1) / 2)
		w->t_half = w->t_last;
	starpu_pthread_cond_broadcast(&w->cond);
	starpu_pthread_mutex_unlock(&w->lock);
}

void sg_window_add_side(struct sg_window *w)
{
	starpu_pthread_mutex_lock(&w->lock);
	w->side_submitted++;
	starpu_pthread_mutex_unlock(&w->lock);
}

void sg_window_side_done(void *arg)
{
	struct sg_window *w = arg;
	starpu_pthread_mutex_lock(&w->lock);
	w->side_done++;
	starpu_pthread_cond_broadcast(&w->cond);
	starpu_pthread_mutex_unlock(&w->lock);
}

void sg_window_drain(struct sg_window *w)
{
	starpu_pthread_mutex_lock(&w->lock);
	while (w->done < w->submitted || w->side_done < w->side_submitted)
		wait_a_little(w);
	starpu_pthread_mutex_unlock(&w->lock);
}

int64_t sg_window_tasks(const struct sg_window *w)
{
	return w->submitted;
}

void sg_window_timeline(struct sg_window *w, double *first, double *half, double *last,
                        double *now)
{
	starpu_pthread_mutex_lock(&w->lock);
	*first = w->done ? (w->t_first - w->t0) / 1e6 : 0;
	*half = w->done ? (w->t_half - w->t0) / 1e6 : 0;
	*last = w->done ? (w->t_last - w->t0) / 1e6 : 0;
	*now = (starpu_timing_now() - w->t0) / 1e6;
	starpu_pthread_mutex_unlock(&w->lock);
}
