/* The process's submission thread: products submitted with starpu_gemm_pgemm_submit are walked
 * there, one after the other in the order they were posted, so the caller's thread returns at
 * once while the walk waits on its lookahead window. One thread for all of them keeps every
 * rank's sequence of StarPU-MPI insertions in the order the ranks posted them. */
#ifndef SG_SUBMITTER_H
#define SG_SUBMITTER_H

struct sg_job {
	void (*run)(void *arg);
	void *arg;
	int done;               /* set by the submission thread once run returned */
	struct sg_job *next;
};

/* Start the thread if it is not running: 0, or -EAGAIN when it cannot start. Apart from
 * sg_submitter_post, so that the ranks agree on it before any of them posts a walk (a rank
 * that could not walk would leave the others waiting for its sends). */
int sg_submitter_start(void);
/* Queue job (its run and arg set), after sg_submitter_start returned 0: cannot fail. */
void sg_submitter_post(struct sg_job *job);
/* Wait until job has run. */
void sg_submitter_wait(struct sg_job *job);

#endif
