#include <errno.h>
#include <pthread.h>
#include "compute/submitter.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t posted = PTHREAD_COND_INITIALIZER, finished = PTHREAD_COND_INITIALIZER;
static struct sg_job *head, *tail;
static int started;

static void *submission_thread(void *unused)
{
	(void)unused;
	pthread_mutex_lock(&lock);
	for (;;) {
		while (!head)
			pthread_cond_wait(&posted, &lock);
		struct sg_job *job = head;
		pthread_mutex_unlock(&lock);
		job->run(job->arg);
		pthread_mutex_lock(&lock);
		head = job->next;
		if (!head)
			tail = NULL;
		job->done = 1;
		pthread_cond_broadcast(&finished);
	}
	return NULL;
}

int sg_submitter_post(struct sg_job *job)
{
	job->done = 0;
	job->next = NULL;
	pthread_mutex_lock(&lock);
	if (!started) {
		pthread_t id;
		/* Detached and never stopped: it sleeps on the condition between products, and
		 * holds nothing a process exit must release. */
		if (pthread_create(&id, NULL, submission_thread, NULL) != 0) {
			pthread_mutex_unlock(&lock);
			return -EAGAIN;
		}
		pthread_detach(id);
		started = 1;
	}
	if (tail)
		tail->next = job;
	else
		head = job;
	tail = job;
	pthread_cond_signal(&posted);
	pthread_mutex_unlock(&lock);
	return 0;
}

void sg_submitter_wait(struct sg_job *job)
{
	pthread_mutex_lock(&lock);
	while (!job->done)
		pthread_cond_wait(&finished, &lock);
	pthread_mutex_unlock(&lock);
}
