#include <errno.h>
#include <starpu.h>
#ifdef STARPU_SIMGRID
#include <simgrid/actor.h>
#endif
#include "compute/submitter.h"

/* StarPU's thread API: under StarPU+SimGrid the submission thread must be a simulated actor
 * (a real thread could not submit tasks to simulated workers); elsewhere, plain pthreads. */
static starpu_pthread_mutex_t lock = STARPU_PTHREAD_MUTEX_INITIALIZER;
static starpu_pthread_cond_t posted = STARPU_PTHREAD_COND_INITIALIZER,
                             finished = STARPU_PTHREAD_COND_INITIALIZER;
static struct sg_job *head, *tail;
static int started;

static void *submission_thread(void *unused)
{
	(void)unused;
#ifdef STARPU_SIMGRID
	/* Never stopped: SimGrid must not wait for it when the simulated process ends. */
	sg_actor_daemonize(sg_actor_self());
#endif
	starpu_pthread_mutex_lock(&lock);
	for (;;) {
		while (!head)
			starpu_pthread_cond_wait(&posted, &lock);
		struct sg_job *job = head;
		starpu_pthread_mutex_unlock(&lock);
		job->run(job->arg);
		starpu_pthread_mutex_lock(&lock);
		head = job->next;
		if (!head)
			tail = NULL;
		job->done = 1;
		starpu_pthread_cond_broadcast(&finished);
	}
	return NULL;
}

int sg_submitter_start(void)
{
	int ret = 0;
	starpu_pthread_mutex_lock(&lock);
	if (!started) {
		starpu_pthread_t id;
		/* Detached and never stopped: it sleeps on the condition between products, and
		 * holds nothing a process exit must release. */
		if (starpu_pthread_create(&id, NULL, submission_thread, NULL) != 0) {
			ret = -EAGAIN;
		} else {
			starpu_pthread_detach(id);
			started = 1;
		}
	}
	starpu_pthread_mutex_unlock(&lock);
	return ret;
}

void sg_submitter_post(struct sg_job *job)
{
	job->done = 0;
	job->next = NULL;
	starpu_pthread_mutex_lock(&lock);
	if (tail)
		tail->next = job;
	else
		head = job;
	tail = job;
	starpu_pthread_cond_signal(&posted);
	starpu_pthread_mutex_unlock(&lock);
}

void sg_submitter_wait(struct sg_job *job)
{
	starpu_pthread_mutex_lock(&lock);
	while (!job->done)
		starpu_pthread_cond_wait(&finished, &lock);
	starpu_pthread_mutex_unlock(&lock);
}
