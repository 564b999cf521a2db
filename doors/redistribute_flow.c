/* The node's moves overlapped with the product: doors/redistribute_flow.h says what and why. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <starpu.h>
#include "doors/redistribute_flow.h"
#include "common/errors.h"
#include "common/stream_copy.h"
#include "common/threads.h"
#include "compute/problem.h"
#include "compute/walk.h"
#include "runtime/env.h"
#include "runtime/starpu_threads.h"

/* Slices of a tile's columns that copiers take at once: a DGEMM tile of 4096 held by one
 * process is 128 MiB, which one thread copies in ~15 ms, and the first task waits for two. */
#define FLOW_SLICES 4

struct item {
	int x, t, slice; /* operand (0 A, 1 B, 2 C), tile j * mt + i, slice of its columns */
};

struct back_ref {
	struct sg_redist_flow *f;
	int t;
	starpu_data_handle_t handle;
};

struct sg_redist_flow {
	const struct sg_redist *r;                  /* A, B, C */
	struct starpu_gemm_desc *desc[3];
	char **ptr[3];                              /* every tile's memory on the node, j * mt + i */
	int64_t *ld[3];
	int *expected[3];                           /* per tile: its counter when filled */
	int *counter[3];                            /* in the window: A's, B's, C's fills */
	int *home;                                  /* in the window: C's tiles back home */
	MPI_Win win;
	int in, Kt, rank;
	char transA, transB;
	struct item *items;                         /* this rank's copies in, in the walk's order */
	int nitems, next_item;
	struct item *back;                          /* C's slices this rank holds, to go back */
	unsigned char *claimed;
	int nback, stop;
	pthread_t *ids;
	int nthreads;
	struct back_ref *refs;                      /* per C tile: its acquire, once posted */
	int posted, fired;
	struct sg_walk_leave leave;                 /* the walk's last task on this rank's C */
	double waited;
};

static int ready(const struct sg_redist_flow *f, int x, int t)
{
	return __atomic_load_n(&f->counter[x][t], __ATOMIC_ACQUIRE) >= f->expected[x][t];
}

static void pause_for(long microseconds)
{
	struct timespec ts = { 0, microseconds * 1000 };
	nanosleep(&ts, NULL);
}

/* Slice s of this rank's part of tile t of operand x, in or back. */
static void move_slice(const struct sg_redist_flow *f, const struct item *it, int to_tile)
{
	const struct sg_redist *r = &f->r[it->x];
	int ti = it->t % r->mt, tj = it->t / r->mt, rows, width;
	starpu_gemm_desc_tile_shape(f->desc[it->x], ti, tj, &rows, &width);
	int c0 = (int)((int64_t)width * it->slice / FLOW_SLICES);
	int c1 = (int)((int64_t)width * (it->slice + 1) / FLOW_SLICES);
	sg_redist_move_tile_part(r, f->ptr[it->x][it->t], f->ld[it->x][it->t], ti, tj, c0, c1,
	                         to_tile);
	sg_stream_fence();
}

/* C's slices back as their tiles come home, in whatever order they come. */
static void copy_back(struct sg_redist_flow *f)
{
	for (;;) {
		int left = 0, took = 0;
		for (int b = 0; b < f->nback; b++) {
			if (__atomic_load_n(&f->claimed[b], __ATOMIC_RELAXED))
				continue;
			left = 1;
			if (!__atomic_load_n(&f->home[f->back[b].t], __ATOMIC_ACQUIRE) ||
			    __atomic_exchange_n(&f->claimed[b], 1, __ATOMIC_ACQ_REL))
				continue;
			move_slice(f, &f->back[b], 0);
			took = 1;
		}
		if (!left || __atomic_load_n(&f->stop, __ATOMIC_ACQUIRE))
			return;
		/* A C tile comes home every few ms (64 of them in 0.34 s on 4 H200): copiers that
		 * found none sleep long enough to leave the cores to StarPU's threads. */
		if (!took)
			pause_for(200);
	}
}

static void *copier(void *arg)
{
	struct sg_redist_flow *f = arg;
	for (int n; (n = __atomic_fetch_add(&f->next_item, 1, __ATOMIC_RELAXED)) < f->nitems;) {
		const struct item *it = &f->items[n];
		move_slice(f, it, 1);
		__atomic_fetch_add(&f->counter[it->x][it->t], 1, __ATOMIC_RELEASE);
	}
	copy_back(f);
	return NULL;
}

/* The tile of operand x that task (i, j, k) reads. */
static int task_tile(const struct sg_redist_flow *f, int x, int i, int j, int k)
{
	int row = i, col = j;
	if (x == 0)
		sg_op_tile(f->transA, i, k, &row, &col);
	else if (x == 1)
		sg_op_tile(f->transB, k, j, &row, &col);
	return col * f->r[x].mt + row;
}

/* Items of this rank's parts of tile (ti, tj) of operand x, one per slice. */
static void add_items(struct item *items, int *n, const struct sg_redist *r, int x, int ti, int tj)
{
	int holders;
	if (ti >= r->mt || tj >= r->nt || !sg_redist_tile_part(r, ti, tj, &holders))
		return;
	for (int s = 0; s < FLOW_SLICES; s++)
		items[(*n)++] = (struct item){ x, tj * r->mt + ti, s };
}

/* The copies in, in the order the product's walk first reads the tiles (compute/walk.h):
 * the walk waits for each task's own tiles, and its first tasks need the first rows of A and
 * columns of B of a chunk's k steps, not the whole k panels (k step by k step, the walk waited
 * 0.23-0.31 s of a 0.53 s product on 4 H200, bench/notes-arrays.md). */
static int list_items(struct sg_redist_flow *f, const struct starpu_gemm_plan *plan)
{
	size_t most = 0, tiles = 0;
	for (int x = 0; x < 3; x++) {
		most += (size_t)f->r[x].mt * f->r[x].nt * FLOW_SLICES;
		tiles += (size_t)f->r[x].mt * f->r[x].nt;
	}
	f->items = malloc(most * sizeof(*f->items));
	f->back = malloc(most * sizeof(*f->back));
	f->claimed = calloc(most ? most : 1, 1);
	unsigned char *listed = calloc(tiles ? tiles : 1, 1);
	if (!f->items || !f->back || !f->claimed || !listed) {
		free(listed);
		return -ENOMEM;
	}
	unsigned char *listed_of[3] = { listed, listed + f->r[0].mt * f->r[0].nt,
	                                listed + f->r[0].mt * f->r[0].nt + f->r[1].mt * f->r[1].nt };
	struct sg_walk w;
	sg_walk_start(&w, plan);
	while (sg_walk_next_chunk(&w)) {
		int i, j, k;
		while (sg_walk_next_task(&w, &i, &j, &k))
			for (int x = 0; x < f->in; x++) {
				int t = task_tile(f, x, i, j, k);
				if (!listed_of[x][t]) {
					listed_of[x][t] = 1;
					add_items(f->items, &f->nitems, &f->r[x], x, t % f->r[x].mt,
					          t / f->r[x].mt);
				}
			}
	}
	free(listed);
	const struct sg_redist *C = &f->r[2];
	for (int t = 0; t < C->mt * C->nt; t++)
		add_items(f->back, &f->nback, C, 2, t % C->mt, t / C->mt);
	return 0;
}

/* Every tile's address on the node and its counter's target; 0 where all are in reach. */
static int map_tiles(struct sg_redist_flow *f)
{
	for (int x = 0; x < 3; x++) {
		const struct sg_redist *r = &f->r[x];
		size_t tiles = (size_t)r->mt * r->nt + 1;
		f->ptr[x] = malloc(tiles * sizeof(*f->ptr[x]));
		f->ld[x] = malloc(tiles * sizeof(*f->ld[x]));
		f->expected[x] = malloc(tiles * sizeof(*f->expected[x]));
		if (!f->ptr[x] || !f->ld[x] || !f->expected[x])
			return -ENOMEM;
		for (int j = 0; j < r->nt; j++)
			for (int i = 0; i < r->mt; i++) {
				int t = j * r->mt + i, holders;
				f->ptr[x][t] = starpu_gemm_desc_tile_in_reach(f->desc[x], i, j, &f->ld[x][t]);
				if (!f->ptr[x][t])
					return -ENOENT;
				sg_redist_tile_part(r, i, j, &holders);
				f->expected[x][t] = holders * FLOW_SLICES;
			}
	}
	return 0;
}

/* The counters, zeroed, in one window of the node (rank 0 of the grid holds its memory). */
static int make_window(struct sg_redist_flow *f, MPI_Comm comm)
{
	MPI_Aint count = (MPI_Aint)f->r[2].mt * f->r[2].nt;
	for (int x = 0; x < 3; x++)
		count += (MPI_Aint)f->r[x].mt * f->r[x].nt;
	int *base;
	if (MPI_Win_allocate_shared(f->rank == 0 ? count * (MPI_Aint)sizeof(int) : 0,
	                            sizeof(int), MPI_INFO_NULL, comm, &base, &f->win) != MPI_SUCCESS)
		return -ENOMEM;
	MPI_Aint size;
	int unit;
	SG_MPI_FATAL(MPI_Win_shared_query(f->win, 0, &size, &unit, &base));
	if (f->rank == 0)
		for (MPI_Aint c = 0; c < count; c++)
			base[c] = 0;
	for (int x = 0; x < 3; x++) {
		f->counter[x] = base;
		base += (size_t)f->r[x].mt * f->r[x].nt;
	}
	f->home = base;
	return 0;
}

/* This rank's tiles that move in: no copy left on its GPUs from an earlier call (a write
 * access in host memory drops them, and moves nothing). Its node peers' are dropped by the
 * product itself (compute/pgemm.c, share_begin) before its first task. */
static void drop_stale_copies(struct sg_redist_flow *f)
{
	for (int x = 0; x < f->in; x++)
		for (int j = 0; j < f->r[x].nt; j++)
			for (int i = 0; i < f->r[x].mt; i++)
				if (starpu_gemm_desc_owner(f->desc[x], i, j) == f->rank) {
					starpu_data_handle_t h = starpu_gemm_desc_handle(f->desc[x], i, j);
					SG_STARPU_FATAL(starpu_data_acquire(h, STARPU_W), "tile to fill");
					starpu_data_release(h);
				}
}

static void flow_free(struct sg_redist_flow *f)
{
	for (int x = 0; x < 3; x++) {
		free(f->ptr[x]);
		free(f->ld[x]);
		free(f->expected[x]);
	}
	free(f->items);
	free(f->back);
	free(f->claimed);
	free(f->ids);
	free(f->refs);
	free(f);
}

struct sg_redist_flow *sg_redist_flow_start(const struct sg_redist *r,
                                            struct starpu_gemm_desc *const *desc, int in,
                                            char transA, char transB,
                                            const struct starpu_gemm_plan *plan, int threads)
{
	MPI_Comm comm = r[0].comm;
	struct sg_redist_flow *f = calloc(1, sizeof(*f));
	int ret = f ? 0 : -ENOMEM;
	if (f) {
		*f = (struct sg_redist_flow){ .r = r, .in = in, .transA = transA, .transB = transB,
		                              .rank = r[0].rank, .leave = { .i = -1 },
		                              .win = MPI_WIN_NULL };
		for (int x = 0; x < 3; x++)
			f->desc[x] = desc[x];
		f->Kt = transA == 'N' ? r[0].nt : r[0].mt;
		f->refs = calloc((size_t)r[2].mt * r[2].nt + 1, sizeof(*f->refs));
		ret = f->refs ? map_tiles(f) : -ENOMEM;
		if (!ret)
			ret = list_items(f, plan);
	}
	/* A shared window is only for a communicator within one node: every tile in reach. */
	int all = 0, ok = ret == 0;
	SG_MPI_FATAL(MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm));
	if (all) {
		ok = make_window(f, comm) == 0;
		SG_MPI_FATAL(MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm));
		if (!all && f->win != MPI_WIN_NULL)
			MPI_Win_free(&f->win);
	}
	if (!all) {
		if (f)
			flow_free(f);
		return NULL;
	}
	drop_stale_copies(f);
	/* Counters zeroed and stale copies gone on every rank before any copy. */
	SG_MPI_FATAL(MPI_Barrier(comm));
	/* The copiers run beside the product: on the rank's cores that no StarPU thread is bound
	 * to (its workers', StarPU-MPI's), as the one call's do (doors/stage.c), as many as those
	 * cores unless STARPU_GEMM_SCALAPACK_THREADS says how many. 4 x H200, 4 ranks x 1 GPU, n =
	 * 49152: 0.823 x the driver's 1 x 4 with 16 copiers on a rank's 16 cores, 0.906 with 13
	 * beside its 3 StarPU threads (bench/notes-arrays.md). */
	cpu_set_t spare;
	int ncpus = sg_copier_cpus(&spare);
	if (ncpus > 0 && threads > ncpus && !sg_env_is_set(SG_ENV_GEMM_SCALAPACK_THREADS))
		threads = ncpus;
	f->ids = malloc((size_t)(threads > 0 ? threads : 1) * sizeof(*f->ids));
	for (int t = 0; f->ids && t < (threads > 0 ? threads : 1); t++)
		f->nthreads += sg_copier_start(&f->ids[f->nthreads], ncpus > 0 ? &spare : NULL, copier,
		                               f) == 0;
	/* Without threads the walk would wait for copies nobody makes: all in now, C back in
	 * sg_redist_flow_finish. */
	for (int n = 0; f->nthreads == 0 && n < f->nitems; n++) {
		move_slice(f, &f->items[n], 1);
		__atomic_fetch_add(&f->counter[f->items[n].x][f->items[n].t], 1, __ATOMIC_RELEASE);
	}
	return f;
}

/* StarPU's callback once C's tile is home after its last update: ready for every holder. */
static void tile_home(void *arg)
{
	struct back_ref *ref = arg;
	__atomic_store_n(&ref->f->home[ref->t], 1, __ATOMIC_RELEASE);
	starpu_data_release(ref->handle);
	__atomic_fetch_add(&ref->f->fired, 1, __ATOMIC_RELEASE);
}

static void post_back(struct sg_redist_flow *f, int i, int j)
{
	int t = j * f->r[2].mt + i;
	struct back_ref *ref = &f->refs[t];
	*ref = (struct back_ref){ f, t, starpu_gemm_desc_handle(f->desc[2], i, j) };
	f->posted++;
	if (starpu_data_acquire_cb(ref->handle, STARPU_R, tile_home, ref) != 0)
		f->posted--; /* ready after the product instead (sg_redist_flow_finish) */
}

void sg_redist_flow_before_task(void *flow, int i, int j, int k)
{
	struct sg_redist_flow *f = flow;
	if (starpu_gemm_desc_owner(f->desc[2], i, j) != f->rank)
		return;
	int li, lj;
	if (sg_walk_leaves_tile(&f->leave, f->Kt, i, j, k, &li, &lj))
		post_back(f, li, lj);
	double t0 = sg_now();
	for (int x = 0; x < f->in; x++)
		while (!ready(f, x, task_tile(f, x, i, j, k)))
			pause_for(20);
	f->waited += sg_now() - t0;
}

int sg_redist_flow_copiers(const struct sg_redist_flow *f)
{
	return f->nthreads;
}

double sg_redist_flow_finish(struct sg_redist_flow *f, int done)
{
	MPI_Comm comm = f->r[0].comm;
	/* Every rank's product ran, or none of C goes back (the caller hands the call on). */
	int all = 0;
	SG_MPI_FATAL(MPI_Allreduce(&done, &all, 1, MPI_INT, MPI_MIN, comm));
	if (all) {
		/* After the product every C tile of this rank is home (starpu_gemm_wait). */
		for (int j = 0; j < f->r[2].nt; j++)
			for (int i = 0; i < f->r[2].mt; i++)
				if (starpu_gemm_desc_owner(f->desc[2], i, j) == f->rank)
					__atomic_store_n(&f->home[j * f->r[2].mt + i], 1, __ATOMIC_RELEASE);
		if (f->nthreads == 0)
			copy_back(f);
	} else {
		__atomic_store_n(&f->stop, 1, __ATOMIC_RELEASE);
	}
	for (int t = 0; t < f->nthreads; t++)
		pthread_join(f->ids[t], NULL);
	/* The acquires' callbacks, which StarPU's workers run (not paused yet). */
	while (__atomic_load_n(&f->fired, __ATOMIC_ACQUIRE) < f->posted)
		pause_for(20);
	/* No rank frees its tiles (the caller's next step) while another still reads them. */
	SG_MPI_FATAL(MPI_Barrier(comm));
	SG_MPI_FATAL(MPI_Win_free(&f->win));
	double waited = f->waited;
	flow_free(f);
	return waited;
}
