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
	if (mode && !strcmp(mode, "all"))
		return SG_PIN_ALL;
	if (mode && !strcmp(mode, "none"))
		return SG_PIN_NONE;
	return SG_PIN_PANELS;
}

/* Panels share no page: a page shared by two panels belongs to the later one, so each
 * registration covers whole pages that no other panel of this array registers (CUDA refuses
 * to register a page twice). */
int sg_pin_array_init(struct sg_pin_array *a, void *base, int64_t rows, int64_t cols,
                      int64_t ld, size_t elemsize, int tile)
{
	memset(a, 0, sizeof(*a));
	a->base = base;
	a->rows = rows;
	a->cols = cols;
	a->ld = ld;
	a->elemsize = elemsize;
	a->tile = tile;
	a->npanels = (int)((cols + tile - 1) / tile);
	a->state = calloc((size_t)a->npanels + 1, sizeof(*a->state));
	a->bounds = calloc((size_t)a->npanels + 1, sizeof(*a->bounds));
	if (!a->state || !a->bounds)
		return -ENOMEM;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = (uintptr_t)base;
	for (int p = 0; p < a->npanels; p++)
		a->bounds[p] = (start + (uintptr_t)p * tile * ld * elemsize) & ~(page - 1);
	uintptr_t end = start + ((uintptr_t)(cols - 1) * ld + rows) * elemsize;
	a->bounds[a->npanels] = (end + page - 1) & ~(page - 1);
	return 0;
}

struct pin_work {
	struct sg_pin_array *array;
	int panel;
};

struct pin_batch {
	struct pin_work *work;
	int count, next, unpin;
	pthread_mutex_t lock;
};

static void pin_one(struct sg_pin_array *a, int p, int unpin)
{
	void *addr = (void *)a->bounds[p];
	size_t bytes = a->bounds[p + 1] - a->bounds[p];
	if (unpin) {
		if (a->state[p] == 1)
			starpu_memory_unpin(addr, bytes);
		a->state[p] = 0;
		return;
	}
	if (bytes == 0)
		a->state[p] = -1;
	else
		a->state[p] = starpu_memory_pin(addr, bytes) == 0 ? 1 : -1;
}

static void *pin_worker(void *arg)
{
	struct pin_batch *b = arg;
	for (;;) {
		pthread_mutex_lock(&b->lock);
		int w = b->next++;
		pthread_mutex_unlock(&b->lock);
		if (w >= b->count)
			return NULL;
		pin_one(b->work[w].array, b->work[w].panel, b->unpin);
	}
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Registration takes the driver's locks page by page: a few threads overlap the page walks. */
static void run_batch(struct sg_pinner *pinner, struct pin_work *work, int count, int unpin)
{
	if (count == 0)
		return;
	double t0 = now();
	struct pin_batch b = { .work = work, .count = count, .unpin = unpin };
	pthread_mutex_init(&b.lock, NULL);
	int threads = pinner->threads < count ? pinner->threads : count;
	pthread_t ids[16];
	int started = 0;
	for (; started < threads - 1 && started < 16; started++)
		if (pthread_create(&ids[started], NULL, pin_worker, &b) != 0)
			break;
	pin_worker(&b);
	for (int t = 0; t < started; t++)
		pthread_join(ids[t], NULL);
	pthread_mutex_destroy(&b.lock);
	pinner->seconds += now() - t0;
}

/* Panels [p0,p1) of a not pinned yet, appended to work. */
static int want(struct pin_work *work, int count, struct sg_pin_array *a, int p0, int p1)
{
	for (int p = p0; p < p1 && p < a->npanels; p++)
		if (a->state[p] == 0)
			work[count++] = (struct pin_work){ a, p };
	return count;
}

void sg_pin_before_chunk(void *arg, const struct sg_problem *pb, int i0, int i1, int j0,
                         int j1, int k0, int k1)
{
	struct sg_pinner *pinner = arg;
	struct pin_work *work = malloc(sizeof(*work) * (size_t)(pinner->A.npanels +
	                               pinner->B.npanels + pinner->C.npanels));
	if (!work)
		return; /* unpinned panels are only slower */
	int n = 0;
	/* The stored panels of op(A)(i0:i1, k0:k1), op(B)(k0:k1, j0:j1) and C(:, j0:j1). */
	n = pb->transA == 'N' ? want(work, n, &pinner->A, k0, k1) : want(work, n, &pinner->A, i0, i1);
	n = pb->transB == 'N' ? want(work, n, &pinner->B, j0, j1) : want(work, n, &pinner->B, k0, k1);
	n = want(work, n, &pinner->C, j0, j1);
	run_batch(pinner, work, n, 0);
	free(work);
}

static void every_panel(struct sg_pinner *pinner, int unpin)
{
	struct sg_pin_array *arrays[3] = { &pinner->A, &pinner->B, &pinner->C };
	int total = 0;
	for (int x = 0; x < 3; x++)
		total += arrays[x]->npanels;
	struct pin_work *work = malloc(sizeof(*work) * (size_t)(total + 1));
	if (!work)
		return;
	int n = 0;
	for (int x = 0; x < 3; x++)
		for (int p = 0; p < arrays[x]->npanels; p++)
			if (arrays[x]->state && (unpin ? arrays[x]->state[p] == 1 : arrays[x]->state[p] == 0))
				work[n++] = (struct pin_work){ arrays[x], p };
	run_batch(pinner, work, n, unpin);
	free(work);
}

void sg_pin_all(struct sg_pinner *pinner)
{
	every_panel(pinner, 0);
}

void sg_pin_release(struct sg_pinner *pinner)
{
	every_panel(pinner, 1);
	struct sg_pin_array *arrays[3] = { &pinner->A, &pinner->B, &pinner->C };
	for (int x = 0; x < 3; x++) {
		free(arrays[x]->state);
		free(arrays[x]->bounds);
		arrays[x]->state = NULL;
		arrays[x]->bounds = NULL;
	}
}
