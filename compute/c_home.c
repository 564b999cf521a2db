/* C kept in host memory: compute/c_home.h says what and why. */
#include <stdlib.h>
#include <starpu_mpi.h>
#include "compute/c_home.h"
#include "codelets/gemm_codelets.h"

struct sg_c_home {
	int Mt, Nt;
	MPI_Comm comm;
	int rank;
	starpu_data_handle_t *scratch; /* Mt x Nt, column-major; NULL before a tile's first update */
};

struct sg_c_home *sg_c_home_create(int Mt, int Nt, MPI_Comm comm, int rank)
{
	struct sg_c_home *h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->scratch = calloc((size_t)Mt * Nt > 0 ? (size_t)Mt * Nt : 1, sizeof(*h->scratch));
	if (!h->scratch) {
		free(h);
		return NULL;
	}
	h->Mt = Mt;
	h->Nt = Nt;
	h->comm = comm;
	h->rank = rank;
	return h;
}

void sg_c_home_destroy(struct sg_c_home *h)
{
	if (!h)
		return;
	/* After the product (starpu_gemm_wait): no task or request uses a scratch tile any more,
	 * whose memory its add already gave back. Unregistered here, not right after the add:
	 * starpu_data_unregister_submit frees the handle from whichever thread releases it last,
	 * and in StarPU 1.4.10 a thread finishing a request on it could still take its mutex
	 * (ASan build, 2 ranks: "starpu_pthread_mutex_lock: Invalid argument" in
	 * __starpu_data_check_not_busy). */
	for (size_t t = 0; t < (size_t)h->Mt * h->Nt; t++)
		if (h->scratch[t])
			starpu_data_unregister_no_coherency(h->scratch[t]);
	free(h->scratch);
	free(h);
}

starpu_data_handle_t sg_c_home_scratch(struct sg_c_home *h, int i, int j, int m, int n,
                                       size_t elemsize)
{
	starpu_data_handle_t *T = &h->scratch[(size_t)j * h->Mt + i];
	if (!*T) {
		/* Home node -1: StarPU allocates it where a task first writes it, a GPU. */
		starpu_matrix_data_register(T, -1, 0, (uint32_t)m, (uint32_t)m, (uint32_t)n, elemsize);
		/* StarPU-MPI decides where a task runs from the rank of the data it writes: this
		 * rank. The other ranks name C(i,j), owned here, and agree; no tag, since T never
		 * travels between ranks. */
		if (h->comm != MPI_COMM_NULL)
			starpu_mpi_data_set_rank_comm(*T, h->rank, h->comm);
	}
	return *T;
}

int sg_c_home_add(struct sg_c_home *h, starpu_data_handle_t c_handle, int i, int j, char prec,
                  const void *beta, size_t beta_size, int prio)
{
	starpu_data_handle_t T = h->scratch[(size_t)j * h->Mt + i];
	int ret = starpu_task_insert(sg_add_codelet(prec), STARPU_RW, c_handle, STARPU_R, T,
	                             STARPU_VALUE, beta, beta_size, STARPU_PRIORITY, prio, 0);
	/* Its copies' memory goes back once the add has read it; the handle stays until
	 * sg_c_home_destroy. */
	starpu_data_invalidate_submit(T);
	return ret < 0 ? ret : 0;
}

int sg_c_home_merge(struct sg_c_home *h, starpu_data_handle_t c_handle, int i, int j, char prec,
                    int where, int worker, int prio, void (*done)(void *), void *done_arg)
{
	return sg_insert_accumulate(prec, c_handle, h->scratch[(size_t)j * h->Mt + i], where, worker,
	                            prio, done, done_arg);
}
