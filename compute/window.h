/* The lookahead window: never more than lookahead+1 chunks submitted and unfinished on this
 * rank. Each local task's callback counts its chunk down; the submission thread waits for
 * chunk z-lookahead-1 before submitting chunk z (a local wait, never a global barrier). */
#ifndef SG_WINDOW_H
#define SG_WINDOW_H

#include <stdint.h>

struct sg_window;

/* Called by the submission thread while it waits (at most every millisecond), e.g. to
 * sample memory. */
typedef void (*sg_window_sampler)(void *arg);

/* expected_tasks: local tasks of the whole product, for the progress line (printed to stderr
 * at most once a second when progress is set). */
struct sg_window *sg_window_create(int lookahead, int progress, int64_t expected_tasks,
                                   sg_window_sampler sampler, void *sampler_arg);
void sg_window_destroy(struct sg_window *w);

/* Wait until chunk index-lookahead-1 (and every older one) has finished; returns the
 * callback argument that the local tasks of chunk `index` must carry. */
void *sg_window_begin_chunk(struct sg_window *w, int64_t index);
/* A local task of the current chunk is about to be submitted. */
void sg_window_add_task(struct sg_window *w);
/* The callback of every local task (STARPU_CALLBACK_WITH_ARG_NFREE, its argument). */
void sg_window_task_done(void *chunk_ref);
/* A task beside the chunks' (C += a scratch or partial tile) is about to be submitted: not
 * counted in its chunk nor in the timeline, only waited for by the drain. Its callback is
 * sg_window_side_done(w). */
void sg_window_add_side(struct sg_window *w);
void sg_window_side_done(void *w);
/* Wait for every local task submitted so far, the side ones too: their callbacks have run,
 * and with them what their ends ran first (StarPU runs a task's callback after the
 * dependencies its end releases: a starpu_data_wont_use acquire of C granted then has run its
 * own callback, which still reads C's handle after releasing it; the caller may unregister C
 * once the product returns). */
void sg_window_drain(struct sg_window *w);
int64_t sg_window_tasks(const struct sg_window *w);
/* Seconds from the window's creation to the first local task's end, to the end of half of
 * the tasks expected, of the last one, and to now (0 for the first three before any ends). */
void sg_window_timeline(struct sg_window *w, double *first, double *half, double *last,
                        double *now);

#endif
