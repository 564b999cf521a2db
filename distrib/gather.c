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

/* Tiles [first, last) in column-major tile order: every rank posts its part of the moves to
 * root (only root and the owners do anything), root copies, and every rank flushes the
 * StarPU-MPI cache of those tiles at the same point, as starpu_mpi_cache_flush requires,
 * so root drops its copies and the owners will send again next time. */
static int gather_window(struct starpu_gemm_desc *d, int64_t first, int64_t last, char *dst,
                         int root)
{
	for (int64_t t = first; t < last; t++)
		if (d->owners[t] != root)
			SG_STARPU_CHECK(starpu_mpi_get_data_on_node_detached(d->comm, d->handles[t],
			                                                     root, NULL, NULL));
	if (d->rank == root) {
		for (int64_t t = first; t < last; t++) {
			SG_STARPU_CHECK(starpu_data_acquire(d->handles[t], STARPU_R));
			const void *tile = starpu_data_get_local_ptr(d->handles[t]);
			copy_tile(d, (int)(t % d->mt), (int)(t / d->mt), tile,
			          starpu_matrix_get_local_ld(d->handles[t]), dst);
			starpu_data_release(d->handles[t]);
		}
	}
	for (int64_t t = first; t < last; t++) {
		if (d->owners[t] == root)
			continue;
		starpu_mpi_cache_flush(d->comm, d->handles[t]);
		/* Without the cache, the flush does not drop root's copy: drop it here. */
		if (d->rank == root && !starpu_mpi_cache_is_enabled())
			starpu_data_invalidate_submit(d->handles[t]);
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
