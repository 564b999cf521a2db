#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <starpu.h>
#include "doors/pin.h"

enum sg_pin_mode sg_pin_mode(void)
{
	const char *mode = getenv("STARPU_GEMM_PIN");
	if (!mode || !*mode || !strcmp(mode, "auto"))
		return SG_PIN_AUTO;
	if (!strcmp(mode, "all"))
		return SG_PIN_ALL;
	if (!strcmp(mode, "none"))
		return SG_PIN_NONE;
	return SG_PIN_PANELS;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uintptr_t page_size(void)
{
	return (uintptr_t)sysconf(_SC_PAGESIZE);
}

/* Byte range [first, end) of the stored columns c0..c1-1 (end: one past their last element). */
static uintptr_t column_address(const struct sg_pin_array *a, int64_t c)
{
	return (uintptr_t)a->base + (uintptr_t)(c * a->ld) * a->elemsize;
}

int sg_pin_array_init(struct sg_pin_array *a, void *base, int64_t rows, int64_t cols,
                      int64_t ld, size_t elemsize, int tile, int panel_cols)
{
	memset(a, 0, sizeof(*a));
	a->base = base;
	a->rows = rows;
	a->cols = cols;
	a->ld = ld;
	a->elemsize = elemsize;
	a->tile = tile;
	a->panel_cols = panel_cols;
	if (!panel_cols)
		return 0;
	a->npanels = (int)((cols + panel_cols - 1) / panel_cols);
	a->state = calloc((size_t)a->npanels + 1, sizeof(*a->state));
	a->bounds = calloc((size_t)a->npanels + 1, sizeof(*a->bounds));
	/* At most one staged tile per panel boundary (the tile rows of its last column panel
	 * that reach past the next panel's first page), and all of a panel's tiles at worst. */
	a->max_staged = (int)((rows + tile - 1) / tile) * a->npanels;
	a->staged = calloc((size_t)a->max_staged + 1, sizeof(*a->staged));
	if (!a->state || !a->bounds || !a->staged)
		return -ENOMEM;
	uintptr_t page = page_size();
	/* A page shared by two panels belongs to the later one: CUDA registers a page once. */
	for (int p = 0; p < a->npanels; p++)
		a->bounds[p] = column_address(a, (int64_t)p * panel_cols) & ~(page - 1);
	uintptr_t end = column_address(a, cols - 1) + (uintptr_t)rows * elemsize;
	a->bounds[a->npanels] = (end + page - 1) & ~(page - 1);
	return 0;
}

int sg_pin_arrays_meet(const struct sg_pin_array *x, const struct sg_pin_array *y)
{
	if (!x->panel_cols || !y->panel_cols)
		return 0;
	return x->bounds[0] < y->bounds[y->npanels] && y->bounds[0] < x->bounds[x->npanels];
}

void *sg_pin_tile_address(int i, int j, int64_t *ld, void *array)
{
	struct sg_pin_array *a = array;
	int64_t r0 = (int64_t)i * a->tile, c0 = (int64_t)j * a->tile;
	int rows = (int)(a->rows - r0 < a->tile ? a->rows - r0 : a->tile);
	int cols = (int)(a->cols - c0 < a->tile ? a->cols - c0 : a->tile);
	char *in_place = a->base + (r0 + c0 * a->ld) * (int64_t)a->elemsize;
	*ld = a->ld;
	if (!a->panel_cols)
		return in_place;
	int p = (int)(c0 / a->panel_cols);
	uintptr_t first = (uintptr_t)in_place;
	uintptr_t end = first + ((uintptr_t)(cols - 1) * a->ld + rows) * a->elemsize;
	if (first >= a->bounds[p] && end <= a->bounds[p + 1] && (c0 + cols - 1) / a->panel_cols == p)
		return in_place;
	if (a->nstaged == a->max_staged)
		return NULL;
	struct sg_staged *s = &a->staged[a->nstaged];
	s->buf = malloc((size_t)rows * cols * a->elemsize);
	if (!s->buf)
		return NULL;
	a->nstaged++;
	s->i = i;
	s->j = j;
	s->rows = rows;
	s->cols = cols;
	*ld = rows;
	return s->buf;
}

/* --- staging copies, spread over a few threads (memory bandwidth, not one core's) ---------- */

struct copy_job {
	struct sg_pin_array *arrays[3];
	int narrays, out;
	int next;                /* next (array, tile) to take, in a flat numbering */
	pthread_mutex_t lock;
};

static void copy_tile(struct sg_pin_array *a, const struct sg_staged *s, int out)
{
	size_t col_bytes = (size_t)s->rows * a->elemsize;
	for (int c = 0; c < s->cols; c++) {
		char *user = a->base + ((int64_t)s->i * a->tile +
		                        ((int64_t)s->j * a->tile + c) * a->ld) * (int64_t)a->elemsize;
		char *staged = s->buf + (size_t)c * col_bytes;
		if (out)
			memcpy(user, staged, col_bytes);
		else
			memcpy(staged, user, col_bytes);
	}
}

static void *copy_worker(void *arg)
{
	struct copy_job *job = arg;
	for (;;) {
		pthread_mutex_lock(&job->lock);
		int w = job->next++;
		pthread_mutex_unlock(&job->lock);
		int x = 0;
		while (x < job->narrays && w >= job->arrays[x]->nstaged)
			w -= job->arrays[x++]->nstaged;
		if (x == job->narrays)
			return NULL;
		copy_tile(job->arrays[x], &job->arrays[x]->staged[w], job->out);
	}
}

static void copy_staged(struct sg_pinner *pinner, struct sg_pin_array **arrays, int narrays,
                        int out)
{
	int total = 0;
	for (int x = 0; x < narrays; x++)
		total += arrays[x]->nstaged;
	if (total == 0)
		return;
	struct copy_job job = { .narrays = narrays, .out = out };
	memcpy(job.arrays, arrays, sizeof(*arrays) * (size_t)narrays);
	pthread_mutex_init(&job.lock, NULL);
	pthread_t ids[32];
	int started = 0;
	while (started < pinner->threads - 1 && started < total - 1 && started < 32 &&
	       pthread_create(&ids[started], NULL, copy_worker, &job) == 0)
		started++;
	copy_worker(&job);
	for (int t = 0; t < started; t++)
		pthread_join(ids[t], NULL);
	pthread_mutex_destroy(&job.lock);
}

int sg_pin_stage_in(struct sg_pinner *pinner, int with_c)
{
	double t0 = now();
	struct sg_pin_array *arrays[3] = { &pinner->A, &pinner->B, &pinner->C };
	copy_staged(pinner, arrays, with_c ? 3 : 2, 0);
	pinner->seconds += now() - t0;
	return 0;
}

void sg_pin_stage_out(struct sg_pinner *pinner)
{
	struct sg_pin_array *c = &pinner->C;
	copy_staged(pinner, &c, 1, 1);
}

/* --- registration ------------------------------------------------------------------------- */

struct sg_pin_work {
	struct sg_pin_array *array;
	int panel;
};

static void pin_panel(struct sg_pin_array *a, int p, int unpin)
{
	void *addr = (void *)a->bounds[p];
	size_t bytes = a->bounds[p + 1] - a->bounds[p];
	if (unpin) {
		if (a->state[p] == 1)
			starpu_memory_unpin(addr, bytes);
		a->state[p] = 0;
	} else if (a->state[p] == 0) {
		a->state[p] = bytes > 0 && starpu_memory_pin(addr, bytes) == 0 ? 1 : -1;
	}
}

/* Calls fn on every panel of a that holds tile columns [c0, c1). */
static int each_panel(struct sg_pin_array *a, int c0, int c1,
                      int (*fn)(struct sg_pin_array *, int, void *), void *arg)
{
	if (!a->panel_cols)
		return 0;
	int stop = 0;
	for (int p = (int)((int64_t)c0 * a->tile / a->panel_cols);
	     !stop && p < a->npanels && (int64_t)p * a->panel_cols < (int64_t)c1 * a->tile; p++)
		stop = fn(a, p, arg);
	return stop;
}

/* The stored panels of op(A)(i0:i1, k0:k1), op(B)(k0:k1, j0:j1) and C(:, j0:j1). */
static int chunk_panels(struct sg_pinner *pn, char ta, char tb, int i0, int i1, int j0, int j1,
                        int k0, int k1, int (*fn)(struct sg_pin_array *, int, void *), void *arg)
{
	return (ta == 'N' ? each_panel(&pn->A, k0, k1, fn, arg) : each_panel(&pn->A, i0, i1, fn, arg)) ||
	       (tb == 'N' ? each_panel(&pn->B, j0, j1, fn, arg) : each_panel(&pn->B, k0, k1, fn, arg)) ||
	       each_panel(&pn->C, j0, j1, fn, arg);
}

/* Building the order: each panel once, at its first use. state is borrowed as "listed" (2) and
 * reset afterwards. */
static int list_panel(struct sg_pin_array *a, int p, void *arg)
{
	struct sg_pinner *pn = arg;
	if (a->state[p] == 0) {
		a->state[p] = 2;
		pn->order[pn->norder++] = (struct sg_pin_work){ a, p };
	}
	return 0;
}

static void *pinning_thread(void *arg)
{
	struct sg_pinner *pn = arg;
	for (int w = 0; w < pn->norder; w++) {
		pthread_mutex_lock(&pn->lock);
		int stop = pn->stop;
		pthread_mutex_unlock(&pn->lock);
		if (stop)
			break;
		double t0 = now();
		struct sg_pin_array *a = pn->order[w].array;
		int p = pn->order[w].panel;
		size_t bytes = a->bounds[p + 1] - a->bounds[p];
		/* The walk reads the state under the lock: registered first, published after. */
		int state = bytes > 0 && starpu_memory_pin((void *)a->bounds[p], bytes) == 0 ? 1 : -1;
		pthread_mutex_lock(&pn->lock);
		a->state[p] = state;
		pn->seconds += now() - t0;
		pn->pinned = w + 1;
		pthread_cond_broadcast(&pn->cond);
		pthread_mutex_unlock(&pn->lock);
	}
	return NULL;
}

int sg_pin_start(struct sg_pinner *pn, const struct starpu_gemm_plan *pl, char ta, char tb)
{
	pthread_mutex_init(&pn->lock, NULL);
	pthread_cond_init(&pn->cond, NULL);
	pn->running = 0;
	int total = pn->A.npanels + pn->B.npanels + pn->C.npanels;
	pn->order = malloc(sizeof(*pn->order) * (size_t)(total + 1));
	if (!pn->order)
		return -ENOMEM;
	/* The walk of compute/pgemm.c, Algorithm 3: y, x, z (one process: P = Q = 1). */
	for (int y = 0; y < pl->Y; y++) {
		int j0 = y * pl->c, j1 = j0 + pl->c < pl->Nt ? j0 + pl->c : pl->Nt;
		for (int x = 0; x < pl->X; x++) {
			int i0 = x * pl->b, i1 = i0 + pl->b < pl->Mt ? i0 + pl->b : pl->Mt;
			for (int z = 0; z < pl->Z; z++) {
				int k0 = z * pl->d, k1 = k0 + pl->d < pl->Kt ? k0 + pl->d : pl->Kt;
				chunk_panels(pn, ta, tb, i0, i1, j0, j1, k0, k1, list_panel, pn);
			}
		}
	}
	for (int w = 0; w < pn->norder; w++)
		pn->order[w].array->state[pn->order[w].panel] = 0;
	if (pthread_create(&pn->thread, NULL, pinning_thread, pn) != 0)
		return -EAGAIN;
	pn->running = 1;
	return 0;
}

/* In the hook: 1 (stop looking) at the first panel not pinned yet. */
static int not_ready(struct sg_pin_array *a, int p, void *arg)
{
	(void)arg;
	return a->state[p] == 0;
}

/* Without the thread (it could not start): pin here. */
static int pin_here(struct sg_pin_array *a, int p, void *arg)
{
	(void)arg;
	pin_panel(a, p, 0);
	return 0;
}

void sg_pin_before_chunk(void *arg, const struct sg_problem *pb, int i0, int i1, int j0,
                         int j1, int k0, int k1)
{
	struct sg_pinner *pn = arg;
	double t0 = now();
	if (!pn->running) {
		chunk_panels(pn, pb->transA, pb->transB, i0, i1, j0, j1, k0, k1, pin_here, NULL);
		pn->seconds += now() - t0;
		return;
	}
	pthread_mutex_lock(&pn->lock);
	while (pn->pinned < pn->norder &&
	       chunk_panels(pn, pb->transA, pb->transB, i0, i1, j0, j1, k0, k1, not_ready, NULL))
		pthread_cond_wait(&pn->cond, &pn->lock);
	pthread_mutex_unlock(&pn->lock);
	pn->waited += now() - t0;
}

void sg_pin_all(struct sg_pinner *pinner)
{
	double t0 = now();
	struct sg_pin_array *arrays[3] = { &pinner->A, &pinner->B, &pinner->C };
	for (int x = 0; x < 3; x++)
		each_panel(arrays[x], 0, (int)((arrays[x]->cols + arrays[x]->tile - 1) /
		                               arrays[x]->tile), pin_here, NULL);
	pinner->seconds += now() - t0;
}

void sg_pin_release(struct sg_pinner *pinner)
{
	if (pinner->running) {
		/* Normally done long before; after a failed product, stop it early. */
		pthread_mutex_lock(&pinner->lock);
		pinner->stop = 1;
		pthread_mutex_unlock(&pinner->lock);
		pthread_join(pinner->thread, NULL);
		pinner->running = 0;
	}
	if (pinner->order) {
		pthread_mutex_destroy(&pinner->lock);
		pthread_cond_destroy(&pinner->cond);
		free(pinner->order);
		pinner->order = NULL;
	}
	struct sg_pin_array *arrays[3] = { &pinner->A, &pinner->B, &pinner->C };
	for (int x = 0; x < 3; x++) {
		struct sg_pin_array *a = arrays[x];
		for (int p = 0; p < a->npanels && a->state; p++)
			pin_panel(a, p, 1);
		for (int s = 0; s < a->nstaged; s++)
			free(a->staged[s].buf);
		free(a->state);
		free(a->bounds);
		free(a->staged);
		memset(a, 0, sizeof(*a));
	}
}
