/* Tiled, distributed matrices: creation (validation, owned tiles allocated or found in the
 * caller's memory, StarPU-MPI registration of every tile, or StarPU's alone for local ones),
 * destruction and the accessors of include/starpu_gemm.h. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include "distrib/desc.h"
#include <pthread.h>
#include "common/errors.h"
#include "runtime/comm.h"
#include "runtime/env.h"

int sg_desc_validate(char prec, int64_t m, int64_t n, int tile,
                     const struct starpu_gemm_dist *dist, int nranks, int verbose)
{
	const struct sg_precision *p = sg_precision(prec);
	if (!p || p->stored != p->letter) {
		/* 't' is a way to multiply float matrices, not a kind of matrix. */
		if (verbose)
			fprintf(stderr, "starpu_gemm: unknown matrix precision '%c' (use s, d, c, z, b "
			        "or h)\n", prec);
		return -EINVAL;
	}
	if (m < 1 || n < 1 || tile < 1) {
		if (verbose)
			fprintf(stderr, "starpu_gemm: bad matrix shape %lld x %lld with tile %d (all "
			        "must be >= 1)\n", (long long)m, (long long)n, tile);
		return -EINVAL;
	}
	/* Tile indices are ints in the API: the tile counts must be too. */
	if (m / tile + (m % tile != 0) > INT_MAX || n / tile + (n % tile != 0) > INT_MAX) {
		if (verbose)
			fprintf(stderr, "starpu_gemm: %lld x %lld with tile %d has more than INT_MAX "
			        "tiles in a dimension\n", (long long)m, (long long)n, tile);
		return -EINVAL;
	}
	return sg_dist_validate(dist, nranks, verbose);
}

const struct starpu_gemm_dist *sg_desc_dist_of(const struct starpu_gemm_dist *dist,
                                               MPI_Comm comm)
{
	static const struct starpu_gemm_dist one_process = { .kind = STARPU_GEMM_DIST_2D_BLOCK_CYCLIC,
	                                                     .P = 1, .Q = 1 };
	return sg_comm_is_local(comm) ? &one_process : dist;
}

/* Where the owned tiles' memory comes from. */
struct tile_source {
	enum { SOURCE_ALLOC, SOURCE_ARRAY, SOURCE_CALLBACK } kind;
	char *array;                    /* SOURCE_ARRAY: column-major, element (r,c) at r + c*ld */
	int64_t ld;
	starpu_gemm_tile_addr_fn addr;  /* SOURCE_CALLBACK */
	void *addr_arg;
};

/* Tiles the library allocates are pinned (transfers to GPUs are asynchronous DMA). Under
 * StarPU+SimGrid no result is computed: they are folded (every tile maps the same few physical
 * pages), so a simulated node of any size fits in this machine's memory. */
#ifdef STARPU_SIMGRID
#define TILE_MALLOC_FLAGS (STARPU_MALLOC_PINNED | STARPU_MALLOC_SIMULATION_FOLDED)
#else
#define TILE_MALLOC_FLAGS STARPU_MALLOC_PINNED
#endif

static void free_desc(struct starpu_gemm_desc *d)
{
	if (!d)
		return;
	if (d->tiles && !d->user_memory && !d->shared) {
		for (int64_t t = 0; t < (int64_t)d->mt * d->nt; t++)
			if (d->tiles[t])
				starpu_free_flags(d->tiles[t], sg_desc_tile_bytes(d, t), TILE_MALLOC_FLAGS);
	}
	sg_node_share_free(d); /* unmapped here; a peer's mapping keeps the memory */
	free(d->peer);
	free(d->on_node);
	free(d->reach);
	free(d->tiles);
	free(d->lds);
	free(d->handles);
	free(d->owners);
	free(d);
}

/* Owners of every tile, and the user owner's answers checked against the communicator. */
static int compute_owners(struct starpu_gemm_desc *d)
{
	for (int j = 0; j < d->nt; j++) {
		for (int i = 0; i < d->mt; i++) {
			int owner = d->local ? 0 : sg_dist_owner(&d->dist, i, j);
			if (owner < 0 || owner >= d->nranks) {
				if (d->rank == 0)
					fprintf(stderr, "starpu_gemm: owner function gives rank %d for tile "
					        "(%d,%d), outside [0, %d)\n", owner, i, j, d->nranks);
				return -EINVAL;
			}
			d->owners[sg_desc_index(d, i, j)] = owner;
		}
	}
	return 0;
}

/* The memory of owned tile t: allocated (TILE_MALLOC_FLAGS), a sub-block of the caller's
 * array, or the caller callback's answer. */
static int locate_tile(struct starpu_gemm_desc *d, const struct tile_source *src, int64_t t)
{
	int i = (int)(t % d->mt), j = (int)(t / d->mt);
	int rows = sg_desc_extent(d->m, d->tile, i);
	size_t bytes = sg_desc_tile_bytes(d, t);
	switch (src->kind) {
	case SOURCE_ALLOC:
		d->lds[t] = rows;
		if (starpu_malloc_flags(&d->tiles[t], bytes, TILE_MALLOC_FLAGS) != 0 || !d->tiles[t]) {
			d->tiles[t] = NULL;
			fprintf(stderr, "starpu_gemm: rank %d cannot allocate tile (%d,%d) (%zu bytes)\n",
			        d->rank, i, j, bytes);
			return -ENOMEM;
		}
		return 0;
	case SOURCE_ARRAY:
		d->lds[t] = src->ld;
		d->tiles[t] = src->array + ((int64_t)i * d->tile + (int64_t)j * d->tile * src->ld) *
		                           (int64_t)d->p->elemsize;
		return 0;
	case SOURCE_CALLBACK:
		d->lds[t] = 0;
		d->tiles[t] = src->addr(i, j, &d->lds[t], src->addr_arg);
		/* StarPU registers an ld of 32 bits and the kernels take an int. */
		if (!d->tiles[t] || d->lds[t] < rows || d->lds[t] > INT_MAX) {
			fprintf(stderr, "starpu_gemm: rank %d: the tile address callback gives %s for "
			        "tile (%d,%d) (%d rows)\n", d->rank, !d->tiles[t] ? "NULL"
			        : d->lds[t] < rows ? "too small an ld" : "an ld above INT_MAX", i, j, rows);
			d->tiles[t] = NULL;
			return -EINVAL;
		}
		return 0;
	}
	return -EINVAL;
}

static int locate_local_tiles(struct starpu_gemm_desc *d, const struct tile_source *src)
{
	if (src->kind == SOURCE_ARRAY && d->m > 0 && src->ld < d->m) {
		fprintf(stderr, "starpu_gemm: leading dimension %lld is smaller than the %lld rows\n",
		        (long long)src->ld, (long long)d->m);
		return -EINVAL;
	}
	if (src->kind == SOURCE_ARRAY && src->ld > INT_MAX) {
		/* StarPU registers an ld of 32 bits and the kernels take an int. */
		fprintf(stderr, "starpu_gemm: leading dimension %lld is above INT_MAX\n",
		        (long long)src->ld);
		return -EINVAL;
	}
	SG_DESC_FOR_LOCAL(d, t) {
		if (src->kind == SOURCE_ARRAY && !src->array) {
			fprintf(stderr, "starpu_gemm: rank %d owns tiles but gave a NULL array\n",
			        d->rank);
			return -EINVAL;
		}
		/* Tiles in the node's shared memory are placed already. */
		int ret = d->shared ? 0 : locate_tile(d, src, t);
		if (ret)
			return ret;
		d->local_tiles++;
		d->local_bytes += sg_desc_tile_bytes(d, t);
	}
	return 0;
}

/* Everything that can fail, before anything is registered: then one reduction tells every
 * rank whether any rank failed, so all return the same error and none waits for the others. */
static int build_local(struct starpu_gemm_desc **out, char prec, int64_t m, int64_t n, int tile,
                       const struct starpu_gemm_dist *dist, MPI_Comm comm, int rank, int nranks,
                       const struct tile_source *src)
{
	int local = sg_comm_is_local(comm);
	dist = sg_desc_dist_of(dist, comm);
	int ret = sg_desc_validate(prec, m, n, tile, dist, nranks, rank == 0);
	if (ret)
		return ret;
	struct starpu_gemm_desc *d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	*out = d;
	d->p = sg_precision(prec);
	d->prec = d->p->letter;
	d->m = m;
	d->n = n;
	d->tile = tile;
	d->mt = (int)(m / tile + (m % tile != 0));
	d->nt = (int)(n / tile + (n % tile != 0));
	d->dist = *dist;
	d->comm = comm;
	d->local = local;
	d->rank = rank;
	d->nranks = nranks;
	d->user_memory = src->kind != SOURCE_ALLOC;
	size_t ntiles = (size_t)d->mt * (size_t)d->nt;
	/* calloc: it checks ntiles * size for overflow. */
	d->owners = calloc(ntiles, sizeof(*d->owners));
	d->handles = calloc(ntiles, sizeof(*d->handles));
	d->tiles = calloc(ntiles, sizeof(*d->tiles));
	d->lds = calloc(ntiles, sizeof(*d->lds));
	if (!d->owners || !d->handles || !d->tiles || !d->lds)
		return -ENOMEM;
	return compute_owners(d);
}

/* Collective over comm: this rank's tiles located (in the node's shared memory when the
 * library allocates them and the node has several ranks, else each on its own). */
static int place_tiles(struct starpu_gemm_desc *d, const struct tile_source *src)
{
	int ret = 0;
	if (src->kind == SOURCE_ALLOC && !d->local) {
		int reason;
		ret = sg_node_share_alloc(d, &reason);
		if (ret == -ENOSPC) {
			/* Once per process: every later descriptor would say the same. */
			static int said;
			int node_rank;
			MPI_Comm_rank(sg_node_comm(d->comm), &node_rank); /* one line per node */
			if (node_rank == 0 && !said++)
				fprintf(stderr, "starpu_gemm: notice: the ranks of a node could not share "
				        "their tiles in %s (STARPU_GEMM_SHM_DIR): %s; they exchange them "
				        "through MPI, unlike the plan's prediction\n",
				        sg_env_choice(SG_ENV_GEMM_SHM_DIR), strerror(reason));
			sg_node_share_free(d);
			ret = 0;
		}
	}
	return ret ? ret : locate_local_tiles(d, src);
}

/* StarPU-MPI asserts that a communicator is registered before it takes a rank in it
 * (starpu_mpi_comm_rank), and registering twice adds a duplicate entry: register each
 * communicator other than the one StarPU-MPI was started with once. */
static void register_comm(MPI_Comm comm)
{
	static MPI_Comm registered[16];
	static int nregistered;
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	if (comm == MPI_COMM_WORLD)
		return;
	pthread_mutex_lock(&lock);
	int known = 0;
	for (int c = 0; c < nregistered; c++)
		known |= registered[c] == comm;
	if (!known) {
		SG_STARPU_FATAL(starpu_mpi_comm_register(comm), "registering the matrix communicator");
		if (nregistered < (int)(sizeof(registered) / sizeof(registered[0])))
			registered[nregistered++] = comm;
	}
	pthread_mutex_unlock(&lock);
}

/* Tile t's handle. A tile of another rank has no home node (-1): memory appears only when a
 * copy arrives, so a rank's memory follows what it owns. */
static void register_tile(struct starpu_gemm_desc *d, int64_t t)
{
	int i = (int)(t % d->mt), j = (int)(t / d->mt);
	uint32_t rows = (uint32_t)sg_desc_extent(d->m, d->tile, i);
	uint32_t cols = (uint32_t)sg_desc_extent(d->n, d->tile, j);
	int home = d->tiles[t] ? STARPU_MAIN_RAM : -1;
	uint32_t ld = d->tiles[t] ? (uint32_t)d->lds[t] : rows;
	starpu_data_handle_t h;
	starpu_matrix_data_register(&h, home, (uintptr_t)d->tiles[t], ld, rows, cols,
	                            d->p->elemsize);
	/* So that a failing task can name its tiles (codelets/) and traces show them. */
	starpu_data_set_coordinates(h, 2, i, j);
	if (!d->local)
		starpu_mpi_data_register_comm(h, d->tag_base + t, d->owners[t], d->comm);
	__atomic_store_n(&d->handles[t], h, __ATOMIC_RELEASE);
}

/* Tiles of other ranks are registered at first use, by the ranks that use them (the runner
 * of a task reading them, the root of a gather): registered up front, every rank held a
 * handle for every tile of the product, StarPU's state growing with the whole problem, where
 * one touches its own and its rows' and columns' (docs/node-sharing.md: the 64-node figures).
 * The submission thread and the caller's thread may both ask: one lock for the rare first
 * time. */
static pthread_mutex_t first_use = PTHREAD_MUTEX_INITIALIZER;

starpu_data_handle_t sg_desc_handle(const struct starpu_gemm_desc *d, int64_t t)
{
	starpu_data_handle_t h = __atomic_load_n(&d->handles[t], __ATOMIC_ACQUIRE);
	if (h)
		return h;
	pthread_mutex_lock(&first_use);
	if (!d->handles[t])
		register_tile((struct starpu_gemm_desc *)d, t);
	h = d->handles[t];
	pthread_mutex_unlock(&first_use);
	return h;
}

starpu_data_handle_t sg_desc_handle_if_used(const struct starpu_gemm_desc *d, int64_t t)
{
	return __atomic_load_n(&d->handles[t], __ATOMIC_ACQUIRE);
}

int64_t sg_desc_handles_used(const struct starpu_gemm_desc *d)
{
	int64_t used = 0;
	for (int64_t t = 0; t < (int64_t)d->mt * d->nt; t++)
		used += (sg_desc_handle_if_used(d, t) != NULL) + (d->reach && d->reach[t]);
	return used;
}

static void register_tiles(struct starpu_gemm_desc *d)
{
	if (!d->local) {
		register_comm(d->comm);
		/* Every rank allocates the same range: creation is collective and in order. Twice
		 * the tiles: the second half tags the reach handles of node peers' tiles. */
		d->tag_base = starpu_mpi_tags_allocate(2 * (int64_t)d->mt * d->nt);
		if (d->tag_base < 0)
			sg_fatal(__FILE__, __LINE__, "starpu_mpi_tags_allocate", "no tags left", NULL);
	}
	for (int j = 0; j < d->nt; j++) {
		for (int i = 0; i < d->mt; i++) {
			int64_t t = sg_desc_index(d, i, j);
			uint32_t rows = (uint32_t)sg_desc_extent(d->m, d->tile, i);
			uint32_t cols = (uint32_t)sg_desc_extent(d->n, d->tile, j);
			/* Another rank's tile: at first use (sg_desc_handle). */
			if (d->tiles[t])
				register_tile(d, t);
			if (d->shared && d->peer[t]) {
				/* A node peer's tile, read in place: this rank's own for StarPU-MPI,
				 * which then never moves it. */
				starpu_matrix_data_register(&d->reach[t], STARPU_MAIN_RAM,
				                            (uintptr_t)d->peer[t], rows, rows, cols,
				                            d->p->elemsize);
				starpu_data_set_coordinates(d->reach[t], 2, i, j);
				starpu_mpi_data_register_comm(d->reach[t],
				                              d->tag_base + (int64_t)d->mt * d->nt + t,
				                              d->rank, d->comm);
			}
		}
	}
}

/* The three constructors' common body: collective over comm, or local. */
static int create(struct starpu_gemm_desc **desc, char prec, int64_t m, int64_t n, int tile,
                  const struct starpu_gemm_dist *dist, MPI_Comm comm,
                  const struct tile_source *src)
{
	if (desc)
		*desc = NULL;
#ifdef STARPU_SIMGRID
	/* The copies StarPU makes in host memory (tiles received from other ranks) are folded
	 * too: StarPU's default flags for main memory, plus folding, which runtime/sim_fold.c
	 * makes lazily. */
	starpu_malloc_on_node_set_default_flags(STARPU_MAIN_RAM, STARPU_MALLOC_PINNED |
	                                        STARPU_MALLOC_COUNT | STARPU_MALLOC_SIMULATION_FOLDED);
	sg_sim_fold_memory();
#endif
	int rank = 0, nranks = 1;
	if (!sg_comm_is_local(comm)) {
		SG_MPI_FATAL(MPI_Comm_rank(comm, &rank));
		SG_MPI_FATAL(MPI_Comm_size(comm, &nranks));
	}
	struct starpu_gemm_desc *d = NULL;
	int ret = -EINVAL;
	if (desc)
		ret = build_local(&d, prec, m, n, tile, dist, comm, rank, nranks, src);
	else if (rank == 0)
		fprintf(stderr, "starpu_gemm: NULL descriptor pointer\n");
	ret = sg_agree(ret, comm);
	if (ret == 0)
		ret = sg_agree(place_tiles(d, src), comm);
	if (ret != 0) {
		free_desc(d);
		return ret;
	}
	register_tiles(d);
	*desc = d;
	return 0;
}

int starpu_gemm_desc_create(struct starpu_gemm_desc **desc, char prec, int64_t m, int64_t n,
                            int tile, const struct starpu_gemm_dist *dist, MPI_Comm comm)
{
	struct tile_source src = { .kind = SOURCE_ALLOC };
	return create(desc, prec, m, n, tile, dist, comm, &src);
}

int starpu_gemm_desc_create_lapack(struct starpu_gemm_desc **desc, char prec, int64_t m,
                                   int64_t n, int tile, void *array, int64_t ld,
                                   const struct starpu_gemm_dist *dist, MPI_Comm comm)
{
	struct tile_source src = { .kind = SOURCE_ARRAY, .array = array, .ld = ld };
	return create(desc, prec, m, n, tile, dist, comm, &src);
}

int starpu_gemm_desc_create_user(struct starpu_gemm_desc **desc, char prec, int64_t m,
                                 int64_t n, int tile, starpu_gemm_tile_addr_fn addr,
                                 void *addr_arg, const struct starpu_gemm_dist *dist,
                                 MPI_Comm comm)
{
	struct tile_source src = { .kind = SOURCE_CALLBACK, .addr = addr, .addr_arg = addr_arg };
	if (!addr) {
		fprintf(stderr, "starpu_gemm: NULL tile address callback\n");
		return -EINVAL;
	}
	return create(desc, prec, m, n, tile, dist, comm, &src);
}

void starpu_gemm_desc_destroy(struct starpu_gemm_desc *desc)
{
	if (!desc)
		return;
	for (int64_t t = 0; t < (int64_t)desc->mt * desc->nt; t++) {
		/* Both wait for the tasks and communications on the tile. An owned tile's latest
		 * value goes home (for caller memory: into the caller's array); a remote tile has
		 * no home to write a copy back to: drop it. Another rank's tile this rank never
		 * used has no handle (sg_desc_handle). */
		if (desc->tiles[t])
			starpu_data_unregister(desc->handles[t]);
		else if (desc->handles[t])
			starpu_data_unregister_no_coherency(desc->handles[t]);
		/* A node peer's memory: never written from here. */
		if (desc->reach && desc->reach[t])
			starpu_data_unregister_no_coherency(desc->reach[t]);
	}
	if (!desc->local)
		starpu_mpi_tags_free(desc->tag_base);
	free_desc(desc);
}

char starpu_gemm_desc_prec(const struct starpu_gemm_desc *desc) { return desc->prec; }
int64_t starpu_gemm_desc_rows(const struct starpu_gemm_desc *desc) { return desc->m; }
int64_t starpu_gemm_desc_cols(const struct starpu_gemm_desc *desc) { return desc->n; }
int starpu_gemm_desc_tile_size(const struct starpu_gemm_desc *desc) { return desc->tile; }
int starpu_gemm_desc_tile_rows(const struct starpu_gemm_desc *desc) { return desc->mt; }
int starpu_gemm_desc_tile_cols(const struct starpu_gemm_desc *desc) { return desc->nt; }
MPI_Comm starpu_gemm_desc_comm(const struct starpu_gemm_desc *desc) { return desc->comm; }

int64_t starpu_gemm_desc_local_tiles(const struct starpu_gemm_desc *desc)
{
	return desc->local_tiles;
}

size_t starpu_gemm_desc_local_bytes(const struct starpu_gemm_desc *desc)
{
	return desc->local_bytes;
}

const struct starpu_gemm_dist *starpu_gemm_desc_dist(const struct starpu_gemm_desc *desc)
{
	return &desc->dist;
}

static int in_range(const struct starpu_gemm_desc *desc, int i, int j)
{
	return i >= 0 && i < desc->mt && j >= 0 && j < desc->nt;
}

int starpu_gemm_desc_owner(const struct starpu_gemm_desc *desc, int i, int j)
{
	return in_range(desc, i, j) ? desc->owners[sg_desc_index(desc, i, j)] : -1;
}

starpu_data_handle_t starpu_gemm_desc_handle(const struct starpu_gemm_desc *desc, int i, int j)
{
	return in_range(desc, i, j) ? sg_desc_handle(desc, sg_desc_index(desc, i, j)) : NULL;
}

void *starpu_gemm_desc_tile_in_reach(const struct starpu_gemm_desc *desc, int i, int j,
                                     int64_t *ld)
{
	if (!in_range(desc, i, j))
		return NULL;
	int64_t t = sg_desc_index(desc, i, j);
	starpu_data_handle_t own = desc->owners[t] == desc->rank ? desc->handles[t] : NULL;
	void *at = own ? (void *)starpu_matrix_get_local_ptr(own)
	           : desc->shared && desc->on_node[desc->owners[t]] ? desc->peer[t] : NULL;
	if (at && ld) /* a peer's shared tile is contiguous: its rows apart */
		*ld = own ? (int64_t)starpu_matrix_get_local_ld(own)
		          : sg_desc_extent(desc->m, desc->tile, i);
	return at;
}

void starpu_gemm_desc_tile_shape(const struct starpu_gemm_desc *desc, int i, int j,
                                 int *rows, int *cols)
{
	int ok = in_range(desc, i, j);
	if (rows)
		*rows = ok ? sg_desc_extent(desc->m, desc->tile, i) : 0;
	if (cols)
		*cols = ok ? sg_desc_extent(desc->n, desc->tile, j) : 0;
}
