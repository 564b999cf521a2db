/* The layered schedule's partial C tiles: compute/partials.h says what and why. */
#include <stdlib.h>
#include <starpu_mpi.h>
#include "compute/partials.h"
#include "compute/layers.h"
#include "codelets/gemm_codelets.h"

struct sg_partials {
	int Mt, Nt, layers;
	char prec;
	MPI_Comm comm;
	int rank;
	int64_t tag_base;             /* + C tile (column-major): its partials' messages */
	starpu_data_handle_t *tiles;  /* Mt x Nt x layers: the partials this rank computes or
	                               * receives; NULL before the first use */
};

struct sg_partials *sg_partials_create(const struct starpu_gemm_plan *plan, MPI_Comm comm,
                                       int rank)
{
	struct sg_partials *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->Mt = plan->Mt;
	p->Nt = plan->Nt;
	p->layers = sg_layers(plan);
	p->prec = plan->prec;
	p->comm = comm;
	p->rank = rank;
	size_t count = (size_t)p->Mt * p->Nt * p->layers;
	p->tiles = calloc(count ? count : 1, sizeof(*p->tiles));
	if (!p->tiles) {
		free(p);
		return NULL;
	}
	/* StarPU-MPI aborts when no tags are left; it refuses only a count of 0. */
	p->tag_base = starpu_mpi_tags_allocate(count ? (int64_t)p->Mt * p->Nt : 1);
	return p;
}

void sg_partials_destroy(struct sg_partials *p)
{
	if (!p)
		return;
	/* After the product: as compute/c_home.c, not right after the add (StarPU 1.4.10 could
	 * still take a handle's mutex that unregister_submit freed). */
	for (size_t t = 0; t < (size_t)p->Mt * p->Nt * p->layers; t++)
		if (p->tiles[t])
			starpu_data_unregister_no_coherency(p->tiles[t]);
	starpu_mpi_tags_free(p->tag_base);
	free(p->tiles);
	free(p);
}

static size_t tile_index(const struct sg_partials *p, int i, int j)
{
	return (size_t)j * p->Mt + i;
}

/* The handle of C(i,j)'s partial of layer l, registered at first use (home node -1: StarPU
 * allocates it where it is first written, a GPU, or the receive's host memory). */
static starpu_data_handle_t *partial(struct sg_partials *p, int i, int j, int l, int m, int n,
                                     size_t elemsize)
{
	starpu_data_handle_t *h = &p->tiles[tile_index(p, i, j) * p->layers + l];
	if (!*h) {
		starpu_matrix_data_register(h, -1, 0, (uint32_t)m, (uint32_t)m, (uint32_t)n, elemsize);
		/* StarPU-MPI runs a task where the data it writes is: this rank (no tag: its
		 * sends and receives name the C tile's). */
		starpu_mpi_data_set_rank_comm(*h, p->rank, p->comm);
	}
	return h;
}

starpu_data_handle_t sg_partials_tile(struct sg_partials *p, int i, int j, int l, int m, int n,
                                      size_t elemsize)
{
	return *partial(p, i, j, l, m, n, elemsize);
}

int sg_partials_send(struct sg_partials *p, int i, int j, int l, int owner, int prio)
{
	starpu_data_handle_t h = p->tiles[tile_index(p, i, j) * p->layers + l];
	int ret = starpu_mpi_isend_detached_prio(h, owner, p->tag_base + (int64_t)tile_index(p, i, j),
	                                         prio, p->comm, NULL, NULL);
	/* Its copies' memory goes back once sent; the handle stays until destroy. */
	starpu_data_invalidate_submit(h);
	return ret < 0 ? ret : 0;
}

int sg_partials_add(struct sg_partials *p, starpu_data_handle_t c_tile, int i, int j, int l,
                    int from, int m, int n, size_t elemsize, int where, int worker, int prio,
                    void (*done)(void *), void *done_arg)
{
	starpu_data_handle_t h = *partial(p, i, j, l, m, n, elemsize);
	int ret = starpu_mpi_irecv_detached_prio(h, from, p->tag_base + (int64_t)tile_index(p, i, j),
	                                         prio, p->comm, NULL, NULL);
	/* Its copies' memory goes back once added; the handle stays until destroy. */
	if (ret < 0) {
		starpu_data_invalidate_submit(h);
		return ret;
	}
	return sg_insert_accumulate(p->prec, c_tile, h, where, worker, prio, done, done_arg);
}
