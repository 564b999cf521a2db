/* C kept in host memory (starpu_gemm_plan.c_home): no C tile crosses to a GPU.
 *
 * The GPUs accumulate alpha*op(A)*op(B) of a C tile in a scratch tile T that lives on the GPU
 * only: its first update writes it (no copy up), the others add to it. After the tile's last
 * update, a CPU worker computes C = beta*C + T (T crosses down where C would have, with helper
 * threads: codelets/add_codelets.c), and T's copies are dropped. The link then carries A and B
 * up and C's results down, nothing else: on one H200, n = 8192 DGEMM took 26.0 ms with
 * beta = 0, where no C crosses, against 35.1 ms with beta = 1 (bench/notes-gpu.md). Only the
 * rank that owns a C tile has its scratch tile. */
#ifndef SG_C_HOME_H
#define SG_C_HOME_H

#include <stddef.h>
#include <starpu.h>
#include <mpi.h>

struct sg_c_home;

/* For a C of Mt x Nt tiles; comm is the product's communicator (MPI_COMM_NULL for
 * process-local matrices), rank this rank. */
struct sg_c_home *sg_c_home_create(int Mt, int Nt, MPI_Comm comm, int rank);
void sg_c_home_destroy(struct sg_c_home *h);
/* The scratch tile of C(i,j), m x n elements of elemsize bytes: registered by the tile's first
 * update, the same handle for its later ones. */
starpu_data_handle_t sg_c_home_scratch(struct sg_c_home *h, int i, int j, int m, int n,
                                       size_t elemsize);
/* After the last update of C(i,j) is submitted: C = beta * C + T on a CPU worker (C's handle
 * is c_handle), then T's copies are dropped (its handle goes with sg_c_home_destroy). beta is
 * of C's type (beta_size bytes). Returns 0 or the negative error of starpu_task_insert. */
int sg_c_home_add(struct sg_c_home *h, starpu_data_handle_t c_handle, int i, int j, char prec,
                  const void *beta, size_t beta_size, int prio);

/* C's loads spread over a block's chunks (starpu_gemm_plan.c_spread; compute/walk.h,
 * sg_walk_c_chunk) use the same scratch tiles on the GPUs: the updates of C(i,j) before the
 * chunk that loads it accumulate in T, and once its first update there has loaded C (and
 * applied beta), C += T where C is: on worker (-1: where the scheduler puts it) of kind where
 * (STARPU_CUDA, or -1: any), done(done_arg) its callback; then T's copies are dropped. Returns
 * 0 or the negative error of starpu_task_insert. */
int sg_c_home_merge(struct sg_c_home *h, starpu_data_handle_t c_handle, int i, int j, char prec,
                    int where, int worker, int prio, void (*done)(void *), void *done_arg);

#endif
