/* Gather a whole distributed matrix on one rank, through StarPU-MPI itself: the tiles keep
 * their sequential consistency (a send waits for the tasks writing the tile) and no message
 * of ours can be confused with StarPU-MPI's own on the communicator. */
#include <errno.h>
#include <string.h>
#include "distrib/desc.h"
#include "common/errors.h"

/* Tiles in flight at once: enough to pipeline the transfers, few enough that root holds
 * about this many bytes of received copies besides dst. */
#define GATHER_WINDOW_BYTES ((size_t)64 << 20)

static void copy_tile(const struct starpu_gemm_desc *d, int i, int j, const void *tile,
                      int64_t ld, char *dst)
{
	size_t es = d->p->elemsize;
	int rows = sg_desc_extent(d->m, d->tile, i), cols = sg_desc_extent(d->n, d->tile, j);
	for (int c = 0; c < cols; c++) {
		size_t offset = ((size_t)i * d->tile + ((size_t)j * d->tile + c) * (size_t)d->m) * es;
		memcpy(dst + offset, (const char *)tile + (size_t)c * ld * es, (size_t)rows * es);
	}
}

/* Tiles [first, last) in column-major tile order: root and the owners post the moves to root,
 * root copies, and every rank that registered those tiles flushes their StarPU-MPI cache at
 * the same point, as starpu_mpi_cache_flush requires (of the ranks where a handle is
 * registered), so root drops its copies and the owners will send again next time. */
static int gather_window(struct starpu_gemm_desc *d, int64_t first, int64_t last, char *dst,
                         int root)
{
	/* Only root and a tile's owner take part in its move (and register it: sg_desc_handle). */
	for (int64_t t = first; t < last; t++)
		if (d->owners[t] != root && (d->rank == root || d->rank == d->owners[t]))
			SG_STARPU_CHECK(starpu_mpi_get_data_on_node_detached(d->comm,
			                                                     sg_desc_handle(d, t),
			                                                     root, NULL, NULL));
	if (d->rank == root) {
		for (int64_t t = first; t < last; t++) {
			starpu_data_handle_t h = sg_desc_handle(d, t);
			SG_STARPU_CHECK(starpu_data_acquire(h, STARPU_R));
			const void *tile = starpu_data_get_local_ptr(h);
			copy_tile(d, (int)(t % d->mt), (int)(t / d->mt), tile,
			          starpu_matrix_get_local_ld(h), dst);
			starpu_data_release(h);
		}
	}
	for (int64_t t = first; t < last; t++) {
		starpu_data_handle_t h = sg_desc_handle_if_used(d, t);
		if (d->owners[t] == root || !h)
			continue;
		starpu_mpi_cache_flush(d->comm, h);
		/* Without the cache, the flush does not drop root's copy: drop it here. */
		if (d->rank == root && !starpu_mpi_cache_is_enabled())
			starpu_data_invalidate_submit(h);
	}
	return 0;
}

int starpu_gemm_desc_gather(struct starpu_gemm_desc *desc, void *dst, int root)
{
	if (!desc || root < 0 || root >= desc->nranks)
		return -EINVAL;
	/* Only root knows whether its dst is usable: tell the others before any tile moves, so
	 * that a bad call fails everywhere instead of leaving sends without receivers. */
	int ok = desc->rank != root || dst != NULL;
	if (!desc->local)
		SG_MPI_FATAL(MPI_Bcast(&ok, 1, MPI_INT, root, desc->comm));
	if (!ok) {
		if (desc->rank == root)
			fprintf(stderr, "starpu_gemm: gather to rank %d with a NULL buffer\n", root);
		return -EINVAL;
	}
	int64_t ntiles = (int64_t)desc->mt * desc->nt;
	int64_t first = 0;
	while (first < ntiles) {
		/* Every rank computes the same windows: they depend only on the shape. */
		int64_t last = first + 1;
		size_t bytes = sg_desc_tile_bytes(desc, first);
		while (last < ntiles && bytes + sg_desc_tile_bytes(desc, last) <= GATHER_WINDOW_BYTES)
			bytes += sg_desc_tile_bytes(desc, last++);
		int ret = gather_window(desc, first, last, dst, root);
		if (ret)
			return ret;
		first = last;
	}
	return 0;
}
