#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <hwloc.h>
#include <hwloc/glibc-sched.h>
#include <starpu.h>
#include <starpu_gemm.h>
#include "runtime/env.h"
#include "runtime/starpu_threads.h"
#include "common/threads.h"
#include "common/stream_copy.h"
#include "compute/problem.h"
#include "compute/walk.h"
#include "doors/stage.h"

/* --- the pool of pinned buffers, kept across calls --------------------------------------------- */

struct buffer {
	char *ptr;
	size_t bytes;
};

static struct {
	struct buffer *free;     /* buffers not in use */
	int nfree, capacity;
	size_t total;            /* bytes allocated, in use or not */
	size_t cap;
} pool;

size_t sg_stage_pool_cap(void)
{
	double mb = sg_env_real(SG_ENV_GEMM_STAGE_MB); /* -1 when unset */
	if (mb >= 0) /* fractions too: the tests make small products need panels */
		return (size_t)(mb * (1 << 20));
	return (size_t)sysconf(_SC_PHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE) / 4;
}

/* malloc + registration: cudaHostAlloc (starpu_malloc) took 17.7 s for the 26 GB of an
 * n = 32768 DGEMM's tiles on an H100 node, registration pins at ~24 GB/s. Without a GPU the
 * registration fails and the buffer stays pageable, which is all the CPU tests need. */
/* Whole pages: a buffer registered with a page it shares with other memory (the caller's
 * arrays, say) would leave that memory partly registered, and CUDA refuses copies across a
 * registration's edge. */
static size_t whole_pages(size_t bytes)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	return (bytes + page - 1) / page * page;
}

static char *buffer_alloc(size_t bytes)
{
	void *ptr = NULL;
	if (posix_memalign(&ptr, (size_t)sysconf(_SC_PAGESIZE), whole_pages(bytes)) != 0)
		return NULL;
	return ptr;
}

/* New buffers (a product's tiles: A's and B's, and C's, which for 'b' and 'h' products are of
 * another size) are pinned once all are taken (pin_fresh):
 * registering fresh memory faults its pages in on one thread, where a first call spent most
 * of its time filling the pool, not in the registration proper; so the pages are faulted in
 * by a team of threads first, then registered, which does not scale with threads
 * (bench/notes-arrays.md has both measurements). */
static struct {
	struct buffer *buf;
	int count, capacity;
} fresh;

static int remember_fresh(char *ptr, size_t bytes)
{
	if (fresh.count == fresh.capacity) {
		int capacity = fresh.capacity ? 2 * fresh.capacity : 64;
		struct buffer *grown = realloc(fresh.buf, sizeof(*grown) * (size_t)capacity);
		if (!grown)
			return -ENOMEM;
		fresh.buf = grown;
		fresh.capacity = capacity;
	}
	fresh.buf[fresh.count++] = (struct buffer){ ptr, bytes };
	return 0;
}

static void touch_fresh(const void *arg, int b)
{
	(void)arg;
	memset(fresh.buf[b].ptr, 0, whole_pages(fresh.buf[b].bytes));
}

static void pin_fresh(int threads)
{
	sg_run_on_threads(fresh.count, threads, touch_fresh, NULL);
	for (int b = 0; b < fresh.count; b++)
		starpu_memory_pin(fresh.buf[b].ptr, whole_pages(fresh.buf[b].bytes));
	fresh.count = 0;
}

static void buffer_free(char *ptr, size_t bytes)
{
	starpu_memory_unpin(ptr, whole_pages(bytes));
	free(ptr);
}

static void pool_release(char *ptr, size_t bytes)
{
	if (pool.nfree == pool.capacity) {
		int capacity = pool.capacity ? 2 * pool.capacity : 64;
		struct buffer *grown = realloc(pool.free, sizeof(*grown) * (size_t)capacity);
		if (!grown) {
			buffer_free(ptr, bytes);
			pool.total -= bytes;
			return;
		}
		pool.free = grown;
		pool.capacity = capacity;
	}
	pool.free[pool.nfree++] = (struct buffer){ ptr, bytes };
}

/* A buffer of exactly bytes: a free one, else a new one if the cap allows (after freeing
 * buffers of other sizes, left by products of another tile or precision). */
static char *pool_take(size_t bytes)
{
	for (int b = 0; b < pool.nfree; b++)
		if (pool.free[b].bytes == bytes) {
			char *ptr = pool.free[b].ptr;
			pool.free[b] = pool.free[--pool.nfree];
			return ptr;
		}
	for (int b = 0; b < pool.nfree && pool.total + bytes > pool.cap;) {
		if (pool.free[b].bytes != bytes) {
			buffer_free(pool.free[b].ptr, pool.free[b].bytes);
			pool.total -= pool.free[b].bytes;
			pool.free[b] = pool.free[--pool.nfree];
		} else {
			b++;
		}
	}
	char *ptr = pool.total + bytes > pool.cap ? NULL : buffer_alloc(bytes);
	if (ptr && remember_fresh(ptr, bytes)) {
		free(ptr);
		ptr = NULL;
	}
	if (!ptr)
		return NULL;
	pool.total += bytes;
	return ptr;
}

void sg_stage_pool_drain(void)
{
	for (int b = 0; b < pool.nfree; b++)
		buffer_free(pool.free[b].ptr, pool.free[b].bytes);
	pool.total = 0;
	pool.nfree = 0;
	free(pool.free);
	pool.free = NULL;
	pool.capacity = 0;
}

/* --- how many copiers ------------------------------------------------------------------------- */

/* 16 copiers per GPU: on one H100 (16 cores) memcpy into pinned memory flattened at 16 threads
 * (55 GB/s with 8, 65 with 16) and 16 ran the n = 32768 DGEMM 5% faster than 8, but 4 GPUs eat
 * host data 4 times as fast and on the 64-core 4 x H200 node 16 threads copy only ~33 GB/s:
 * the door reached 0.757 x the driver there (bench/notes-arrays.md, "Four GPUs"). The cores
 * are the calling thread's (sched_getaffinity, not the node's) less those of StarPU's threads
 * (copier_cpus): a rank bound to a few cores does not start more copiers than it has cores. */
#define SG_STAGE_THREADS_PER_GPU 16

/* The CPUs the copiers run on (runtime/starpu_threads.h, sg_copier_cpus): the caller's, less
 * those StarPU's threads are bound to. Into *set; returns how many (the online count when the
 * affinity is unknown, *set then empty). */
static int copier_cpus(cpu_set_t *set)
{
	int n = sg_copier_cpus(set);
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? n : online > 0 ? (int)online : 1;
}

int sg_stage_threads(void)
{
	int64_t setting = sg_env_int(SG_ENV_GEMM_STAGE_THREADS);
	if (setting > 0)
		return (int)setting;
	int gpus = (int)starpu_memory_nodes_get_count_by_kind(STARPU_CUDA_RAM);
	int most = SG_STAGE_THREADS_PER_GPU * (gpus > 1 ? gpus : 1);
	cpu_set_t set;
	int cores = copier_cpus(&set);
	return cores < most ? cores : most;
}

/* --- where the copiers run -------------------------------------------------------------------- */

/* The copiers run on the caller's cores that no StarPU thread is bound to (copier_cpus). On a
 * node of several NUMA nodes they are dealt over them in proportion to those cores, each bound
 * to its node's share, so that every node's cores and memory controllers copy, whatever the
 * scheduler does. The simple version: a tile is not copied by a thread near the GPU that
 * reads it, nor near its memory (bench/notes-arrays.md, "Four GPUs"). */
static struct {
	pthread_once_t once;
	int count;               /* NUMA nodes with CPUs */
	cpu_set_t *cpus;         /* their CPUs */
} numa = { PTHREAD_ONCE_INIT, 0, NULL };

static void numa_find(void)
{
	hwloc_topology_t topology;
	if (hwloc_topology_init(&topology) != 0)
		return;
	int nodes = hwloc_topology_load(topology) == 0
	            ? hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_NUMANODE) : 0;
	if (nodes > 1)
		numa.cpus = calloc((size_t)nodes, sizeof(*numa.cpus));
	for (int n = 0; numa.cpus && n < nodes; n++) {
		hwloc_obj_t node = hwloc_get_obj_by_type(topology, HWLOC_OBJ_NUMANODE, (unsigned)n);
		if (node && node->cpuset && /* memory-only nodes have no CPU */
		    hwloc_cpuset_to_glibc_sched_affinity(topology, node->cpuset, &numa.cpus[numa.count],
		                                         sizeof(cpu_set_t)) == 0 &&
		    CPU_COUNT(&numa.cpus[numa.count]) > 0)
			numa.count++;
	}
	hwloc_topology_destroy(topology);
}

/* The CPUs each copier is bound to, in groups (group_of deals the copiers over them): one per
 * NUMA node that holds some of the copiers' CPUs (copier_cpus) where there are several, else
 * one, all of them.
 * Returns how many groups (0 where the CPUs are unknown: the copiers then run unbound), *groups
 * to free, and in *numa_nodes the NUMA nodes dealt over (0 for one group). */
static int copier_groups(cpu_set_t **groups, int *numa_nodes)
{
	*groups = NULL;
	*numa_nodes = 0;
	cpu_set_t spare;
	copier_cpus(&spare);
	pthread_once(&numa.once, numa_find);
	int most = numa.count > 1 ? numa.count : 1;
	if (CPU_COUNT(&spare) == 0 || !(*groups = calloc((size_t)most, sizeof(**groups))))
		return 0;
	int count = 0;
	for (int n = 0; numa.count > 1 && n < numa.count; n++) {
		CPU_AND(&(*groups)[count], &numa.cpus[n], &spare);
		if (CPU_COUNT(&(*groups)[count]) > 0)
			count++;
	}
	if (count > 1) {
		*numa_nodes = count;
		return count;
	}
	(*groups)[0] = spare;
	return 1;
}

/* The group of copier t of threads: each group takes a share of the copiers in proportion to
 * its CPUs (a NUMA node whose cores StarPU's threads mostly hold gets few). */
static int group_of(const cpu_set_t *groups, int ngroups, int t, int threads)
{
	int total = 0;
	for (int g = 0; g < ngroups; g++)
		total += CPU_COUNT(&groups[g]);
	long at = (long)t * total / (threads > 0 ? threads : 1), seen = 0;
	for (int g = 0; g < ngroups; g++) {
		seen += CPU_COUNT(&groups[g]);
		if (at < seen)
			return g;
	}
	return ngroups - 1;
}

/* --- operands ---------------------------------------------------------------------------------- */

void sg_stage_array_init(struct sg_stage_array *a, char *base, int64_t rows, int64_t cols,
                         int64_t ld, size_t elemsize, int tile, int stage)
{
	*a = (struct sg_stage_array){
		.base = base, .rows = rows, .cols = cols, .ld = ld, .elemsize = elemsize,
		.tile = tile, .mt = (int)((rows + tile - 1) / tile),
		.nt = (int)((cols + tile - 1) / tile), .staged = stage,
	};
}

static size_t buffer_bytes(const struct sg_stage_array *a)
{
	return (size_t)a->tile * a->tile * a->elemsize;
}

size_t sg_stage_array_bytes(const struct sg_stage_array *a)
{
	return a->staged ? (size_t)a->mt * a->nt * buffer_bytes(a) : 0;
}

void sg_stage_array_release(struct sg_stage_array *a)
{
	if (a->tiles) {
		for (int t = 0; t < a->mt * a->nt; t++)
			if (a->tiles[t])
				pool_release(a->tiles[t], buffer_bytes(a));
		free(a->tiles);
	}
	a->tiles = NULL;
}

static void give_back(struct sg_stage_array *a)
{
	if (!a->keep)
		sg_stage_array_release(a);
	free(a->ready);
	a->tiles = NULL;
	a->ready = NULL;
}

static int take(struct sg_stage_array *a)
{
	int ntiles = a->mt * a->nt;
	a->ready = calloc((size_t)ntiles + 1, 1);
	if (!a->staged) { /* in place: nothing to wait for */
		if (a->ready)
			memset(a->ready, 1, (size_t)ntiles);
		return a->ready ? 0 : -ENOMEM;
	}
	a->tiles = calloc((size_t)ntiles, sizeof(*a->tiles));
	if (!a->tiles || !a->ready)
		return -ENOMEM;
	for (int t = 0; t < ntiles; t++)
		if (!(a->tiles[t] = pool_take(buffer_bytes(a))))
			return -ENOSPC;
	return 0;
}

int sg_stage_take(struct sg_stager *st)
{
	pool.cap = sg_stage_pool_cap();
	/* Decided before taking anything: a product that does not fit must not fill the pool
	 * (and pin its memory) for nothing. */
	struct sg_stage_array *arrays[3] = { &st->A, &st->B, &st->C };
	size_t needed = 0;
	for (int x = 0; x < 3; x++)
		needed += sg_stage_array_bytes(arrays[x]);
	if (needed > pool.cap)
		return -ENOSPC;
	int ret = take(&st->A);
	if (!ret)
		ret = take(&st->B);
	if (!ret)
		ret = take(&st->C);
	pin_fresh(st->threads);
	if (!ret && !st->copy_c && st->C.tiles)
		memset(st->C.ready, 1, (size_t)st->C.mt * st->C.nt); /* beta = 0: C is not read */
	if (ret) {
		give_back(&st->A);
		give_back(&st->B);
		give_back(&st->C);
	}
	return ret;
}

void *sg_stage_tile_address(int i, int j, int64_t *ld, void *array)
{
	struct sg_stage_array *a = array;
	if (a->tiles) {
		*ld = a->rows - (int64_t)i * a->tile < a->tile ? a->rows - (int64_t)i * a->tile : a->tile;
		return a->tiles[(int64_t)j * a->mt + i];
	}
	*ld = a->ld;
	return a->base + ((int64_t)i * a->tile + (int64_t)j * a->tile * a->ld) * (int64_t)a->elemsize;
}

/* Slice s of n of tile t's columns between the caller's array and its buffer (ld = its
 * rows); out: back into the caller's array, added to beta times it where the GPUs computed
 * the product alone. */
static void copy_slice(struct sg_stage_array *a, int t, int s, int n, int out)
{
	int i = t % a->mt, j = t / a->mt;
	int64_t r0 = (int64_t)i * a->tile, c0 = (int64_t)j * a->tile;
	int rows = (int)(a->rows - r0 < a->tile ? a->rows - r0 : a->tile);
	int width = (int)(a->cols - c0 < a->tile ? a->cols - c0 : a->tile);
	int first = (int)((int64_t)width * s / n), cols = (int)((int64_t)width * (s + 1) / n) - first;
	size_t col_bytes = (size_t)rows * a->elemsize;
	c0 += first;
	char *buffer = a->tiles[t] + (size_t)first * col_bytes;
	if (out && a->add_back.p) {
		for (int c = 0; c < cols; c++)
			sg_add_back(&a->add_back, a->base + (r0 + (c0 + c) * a->ld) * (int64_t)a->elemsize,
			            buffer + (size_t)c * col_bytes, rows);
		return;
	}
	for (int c = 0; c < cols; c++) {
		char *user = a->base + (r0 + (c0 + c) * a->ld) * (int64_t)a->elemsize;
		char *staged = buffer + (size_t)c * col_bytes;
		if (out)
			sg_stream_copy(user, staged, col_bytes);
		else
			sg_stream_copy(staged, user, col_bytes);
	}
	sg_stream_fence();
}

static void copy_tile(struct sg_stage_array *a, int t, int out)
{
	copy_slice(a, t, 0, 1, out);
}

/* --- the copier threads, in the walk's order --------------------------------------------------- */

/* At most this many slices a tile (4 MiB each of a DGEMM tile of 4096). */
#define SG_STAGE_MAX_SLICES 32
_Static_assert(SG_STAGE_MAX_SLICES <= UCHAR_MAX, "copied_back counts a tile's slices");

struct sg_stage_job {
	struct sg_stage_array *array;
	int tile;
	int slices_done;         /* of the stager's slices of the tile, copied in */
};

/* Calls fn on the tiles (as stored) that GEMM(i, j, k) reads, A(i,k), B(k,j), C(i,j) of the
 * operations, until fn returns nonzero. */
static int task_tiles(struct sg_stager *st, char ta, char tb, int i, int j, int k,
                      int (*fn)(struct sg_stage_array *, int, void *), void *arg)
{
	int ar, ac, br, bc;
	sg_op_tile(ta, i, k, &ar, &ac);
	sg_op_tile(tb, k, j, &br, &bc);
	return fn(&st->A, ac * st->A.mt + ar, arg) || fn(&st->B, bc * st->B.mt + br, arg) ||
	       fn(&st->C, j * st->C.mt + i, arg);
}

/* Building the order: each tile not ready once, at its first use (ready borrowed as a mark). */
static int list_tile(struct sg_stage_array *a, int t, void *arg)
{
	struct sg_stager *st = arg;
	if (a->ready[t] == 0) {
		a->ready[t] = 2;
		st->order[st->norder++] = (struct sg_stage_job){ a, t, 0 };
	}
	return 0;
}

struct sg_back_ref {
	struct sg_stager *st;
	int tile;
};

static starpu_data_handle_t c_handle(const struct sg_stager *st, int t)
{
	return starpu_gemm_desc_handle(st->C_desc, t % st->C.mt, t / st->C.mt);
}

/* StarPU's callback once a finished C tile is home: queue it. */
static void tile_home(void *arg)
{
	struct sg_back_ref *ref = arg;
	struct sg_stager *st = ref->st;
	pthread_mutex_lock(&st->lock);
	st->back[st->nback++] = ref->tile;
	pthread_cond_broadcast(&st->cond);
	pthread_mutex_unlock(&st->lock);
}

/* Copies in, in the walk's order, first (the walk waits for them); then C's tiles back as they
 * are queued; until sg_stage_finish stops them (no tile is queued by then: destroying the
 * descriptors waited for every acquired tile to be released). */
static void *copier(void *arg)
{
	struct sg_stager *st = arg;
	pthread_mutex_lock(&st->lock);
	for (;;) {
		if (!st->stop && st->next < st->norder) {
			int w = st->next, s = st->next_slice++;
			if (st->next_slice == st->slices) {
				st->next++;
				st->next_slice = 0;
			}
			struct sg_stage_job job = st->order[w];
			pthread_mutex_unlock(&st->lock);
			copy_slice(job.array, job.tile, s, st->slices, 0);
			pthread_mutex_lock(&st->lock);
			if (++st->order[w].slices_done == st->slices) {
				job.array->ready[job.tile] = 1;
				st->done++;
				pthread_cond_broadcast(&st->cond);
			}
		} else if (st->back_next < st->nback) {
			/* In slices too: the last tiles come home together at the product's end, and
			 * one copier a tile held that end 0.13-0.15 s at n = 49152 on 4 H200s. */
			int t = st->back[st->back_next], s = st->back_slice++;
			if (st->back_slice == st->slices) {
				st->back_next++;
				st->back_slice = 0;
			}
			pthread_mutex_unlock(&st->lock);
			copy_slice(&st->C, t, s, st->slices, 1);
			pthread_mutex_lock(&st->lock);
			if (++st->copied_back[t] == st->slices) {
				pthread_mutex_unlock(&st->lock);
				starpu_data_release(c_handle(st, t));
				pthread_mutex_lock(&st->lock);
			}
		} else if (st->stop) {
			break;
		} else {
			pthread_cond_wait(&st->cond, &st->lock);
		}
	}
	pthread_mutex_unlock(&st->lock);
	return NULL;
}

/* A C tile's last update was submitted: once it is done and the tile is home, StarPU calls
 * tile_home, which queues it for the copiers. */
static void send_back(struct sg_stager *st, int t)
{
	st->refs[t] = (struct sg_back_ref){ st, t };
	if (starpu_data_acquire_cb(c_handle(st, t), STARPU_R, tile_home, &st->refs[t]) != 0)
		st->refs[t].st = NULL; /* copied after the product instead */
}

int sg_stage_start(struct sg_stager *st, const struct starpu_gemm_plan *pl, char ta, char tb)
{
	pthread_mutex_init(&st->lock, NULL);
	pthread_cond_init(&st->cond, NULL);
	int total = st->A.mt * st->A.nt + st->B.mt * st->B.nt + st->C.mt * st->C.nt;
	st->order = malloc(sizeof(*st->order) * (size_t)(total + 1));
	if (!st->order)
		return -ENOMEM;
	/* The walk's own order (compute/walk.h), task by task: the walk waits for a task's own
	 * tiles, not for its chunk's, so the GPU starts as soon as the first three are staged
	 * (waiting for the first chunk, all of A when the chunk spans k, held the walk 0.43 s
	 * at n = 32768 on an H100). */
	struct sg_walk w;
	sg_walk_start(&w, pl);
	while (sg_walk_next_chunk(&w)) {
		int i, j, k;
		while (sg_walk_next_task(&w, &i, &j, &k))
			task_tiles(st, ta, tb, i, j, k, list_tile, st);
	}
	for (int w = 0; w < st->norder; w++)
		st->order[w].array->ready[st->order[w].tile] = 0;
	st->leave = (struct sg_walk_leave){ .i = -1 };
	st->transA = ta;
	st->transB = tb;
	st->Kt = pl->Kt;
	if (st->C.tiles) {
		size_t ntiles = (size_t)st->C.mt * st->C.nt;
		st->back = malloc(sizeof(*st->back) * ntiles);
		st->copied_back = calloc(ntiles, 1);
		st->refs = calloc(ntiles, sizeof(*st->refs));
		if (!st->back || !st->copied_back || !st->refs) { /* all back after the product */
			free(st->back);
			st->back = NULL;
		}
	}
	int threads = st->threads < 1 ? 1 : st->threads;
	/* Each tile is cut in slices of its columns that several copiers take at once, so that
	 * tiles are ready one after another in the walk's order, not as many together as there
	 * are copiers after that many tiles' worth of copying: about four tiles in flight. On
	 * 2 H200s (32 copiers), n = 32768, the wait for staged tiles went from 0.14-0.31 s to
	 * 0.11-0.15 and the call from 0.80-0.92 s to 0.77-0.79 (bench/notes-arrays.md). */
	st->slices = sg_max(1, sg_min(threads / 4, SG_STAGE_MAX_SLICES));
	st->next_slice = 0;
	cpu_set_t *near;
	int groups = copier_groups(&near, &st->numa_nodes);
	st->ids = malloc(sizeof(*st->ids) * (size_t)threads);
	for (st->nthreads = 0; st->ids && st->nthreads < threads; st->nthreads++) {
		const cpu_set_t *cpus = groups ? &near[group_of(near, groups, st->nthreads, threads)]
		                               : NULL;
		if (sg_copier_start(&st->ids[st->nthreads], cpus, copier, st) != 0)
			break;
	}
	free(near);
	if (st->nthreads == 0) { /* copy here, all of it, and C back after the product */
		free(st->back);
		st->back = NULL;
		for (int w = 0; w < st->norder; w++) {
			copy_tile(st->order[w].array, st->order[w].tile, 0);
			st->order[w].array->ready[st->order[w].tile] = 1;
		}
		st->next = st->done = st->norder;
	}
	return 0;
}

static int not_ready(struct sg_stage_array *a, int t, void *arg)
{
	(void)arg;
	return a->ready[t] == 0;
}

void sg_stage_before_task(void *arg, int i, int j, int k)
{
	struct sg_stager *st = arg;
	int li, lj;
	if (sg_walk_leaves_tile(&st->leave, st->Kt, i, j, k, &li, &lj) && st->C_desc &&
	    st->C.tiles && st->back)
		send_back(st, lj * st->C.mt + li);
	double t0 = sg_now();
	pthread_mutex_lock(&st->lock);
	while (task_tiles(st, st->transA, st->transB, i, j, k, not_ready, NULL))
		pthread_cond_wait(&st->cond, &st->lock);
	pthread_mutex_unlock(&st->lock);
	st->waited += sg_now() - t0;
}

/* C's tiles back into the caller's array, the ones not sent back during the product, slice
 * by slice (item = tile * slices + slice). */
static void copy_back_slice(const void *arg, int item)
{
	struct sg_stager *st = (struct sg_stager *)arg;
	int slices = sg_max(1, st->slices), t = item / slices;
	if (!st->back || !st->copied_back[t])
		copy_slice(&st->C, t, item % slices, slices, 1);
}

void sg_stage_finish(struct sg_stager *st, int copy_back)
{
	if (st->order) {
		pthread_mutex_lock(&st->lock);
		st->stop = 1;
		pthread_cond_broadcast(&st->cond); /* copiers waiting for tiles to send back */
		pthread_mutex_unlock(&st->lock);
		for (int t = 0; t < st->nthreads; t++)
			pthread_join(st->ids[t], NULL);
		free(st->ids);
		st->ids = NULL;
		pthread_mutex_destroy(&st->lock);
		pthread_cond_destroy(&st->cond);
		free(st->order);
		st->order = NULL;
	}
	if (copy_back && st->C.tiles)
		sg_run_on_threads(st->C.mt * st->C.nt * sg_max(1, st->slices), st->threads,
		                  copy_back_slice, st);
	free(st->back);
	free(st->copied_back);
	free(st->refs);
	st->back = NULL;
	st->copied_back = NULL;
	st->refs = NULL;
	give_back(&st->A);
	give_back(&st->B);
	give_back(&st->C);
}
