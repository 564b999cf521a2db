/* Staging the caller's pageable arrays through pinned tiles, for the one call on host arrays.
 * Registering the caller's memory (doors/pin.h) stalls the GPU while it runs (the driver's
 * lock), so it cannot hide behind the product. Copying does not: tiles of pinned memory, taken
 * from a pool kept across calls (pinning is paid once per process, not per call), are filled
 * from the caller's arrays by copier threads running ahead in the walk's order while the GPU
 * computes; the walk waits only for each task's own tiles (a task hook); C's tiles are copied
 * back one by one as the walk finishes them, the last one after the product. The pool holds
 * at most STARPU_GEMM_STAGE_MB MiB (default: a quarter of the node's memory); a product whose
 * tiles do not fit pins its operands instead. On a node of several NUMA nodes the copiers are
 * dealt round-robin over them, each bound to its node's cores. */
#ifndef SG_DOORS_STAGE_H
#define SG_DOORS_STAGE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include "common/precision.h"
#include "compute/problem.h"
#include "compute/walk.h"

/* One operand as the caller stores it, and its staged tiles. */
struct sg_stage_array {
	char *base;
	int64_t rows, cols, ld;
	size_t elemsize;
	int tile, mt, nt;
	int staged;              /* 0: used in place (the caller pinned it, or pinning is off) */
	int keep;                /* its buffers outlive the product (A, shared by C's panels):
	                          * given back by sg_stage_array_release */
	char **tiles;            /* staged: mt*nt pool buffers, tile index j*mt + i */
	unsigned char *ready;    /* copied in (or not to be: C with beta = 0, or added back) */
	/* C, staged and not copied in (add_back.p set): the GPUs computed alpha*op(A)*op(B)
	 * alone into its tiles, which go back as caller's C = tile + beta * caller's C. */
	struct sg_add_back add_back;
};

struct sg_stage_job;
struct sg_back_ref;
struct starpu_gemm_desc;

struct sg_stager {
	struct sg_stage_array A, B, C;
	int copy_c;              /* beta != 0: C's tiles are read */
	int threads;             /* copier threads (sg_stage_threads) */
	struct sg_stage_job *order;
	int norder, next, done, stop, nthreads;
	int slices, next_slice;  /* copiers take slices of a tile's columns: order[next]'s next */
	pthread_t *ids;          /* threads of them */
	int numa_nodes;          /* NUMA nodes they are dealt over (0: one) */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	double waited;           /* the walk's wait for tiles */
	/* C's tiles go back while later ones compute: once the walk leaves a C tile after its
	 * last update, the tile is acquired (StarPU calls back when that task is done and the
	 * tile is home), queued, copied back by the copiers and released. */
	struct starpu_gemm_desc *C_desc;   /* set once the descriptors exist */
	struct sg_walk_leave leave;        /* the walk's last task */
	char transA, transB;               /* the product's, and its k steps (sg_stage_start) */
	int Kt;
	int *back, nback, back_next;       /* queue of C tiles to copy back; back_next of them
	                                    * had all their slices taken by copiers */
	int back_slice;                    /* back[back_next]'s next slice */
	unsigned char *copied_back;        /* per C tile: its slices copied back */
	struct sg_back_ref *refs;
};

/* How many threads copy a product's tiles (and fill the pool): STARPU_GEMM_STAGE_THREADS, else
 * the cores the calling thread may run on that no StarPU thread is bound to, at most 16 per
 * GPU of this process (16 without GPUs). While StarPU runs. */
int sg_stage_threads(void);
/* Describe one operand (stage: 0 to use it in place). */
void sg_stage_array_init(struct sg_stage_array *a, char *base, int64_t rows, int64_t cols,
                         int64_t ld, size_t elemsize, int tile, int stage);
/* Bytes of pool buffers the operand needs (0 when it is used in place), and the pool's cap. */
size_t sg_stage_array_bytes(const struct sg_stage_array *a);
size_t sg_stage_pool_cap(void);
/* The most host bytes starpu_gemm_gemm_ex with these arguments holds in the pool's pinned
 * tiles (the pool keeps them past the call): its staged tiles of A, B and C, whole or in
 * panels of C; 0 where its operands are used in place. The tile is opts->plan's when it has
 * one, as the call's is; NULL arrays count as pageable. While StarPU runs. Defined beside the
 * call's choices (doors/gemm.c) and exported by its prefix for the driver, whose memory
 * bound counts what the call stages beside the plan. */
double starpu_gemm_gemm_staged_bytes(char prec, char transA, char transB, int64_t m,
                                     int64_t n, int64_t k, const void *A, int64_t lda,
                                     const void *B, int64_t ldb, const void *C, int64_t ldc,
                                     const struct starpu_gemm_opts *opts);
/* Gives the buffers of an operand that was kept (keep) back to the pool. */
void sg_stage_array_release(struct sg_stage_array *a);
/* Take pinned buffers from the pool for every tile of the staged operands. Returns 0, or
 * -ENOSPC when they would take the pool past its cap (nothing is kept), -ENOMEM. */
int sg_stage_take(struct sg_stager *st);
/* starpu_gemm_tile_addr_fn over a struct sg_stage_array: the tile's pinned buffer, or the
 * tile in place. */
void *sg_stage_tile_address(int i, int j, int64_t *ld, void *array);
/* Start the copier threads on the tiles in the order the walk of plan reads them. */
int sg_stage_start(struct sg_stager *st, const struct starpu_gemm_plan *plan, char transA,
                   char transB);
/* The task hook (arg: struct sg_stager): the walk waits until the tiles the task reads are
 * staged, and a C tile the walk left after its last update goes back. */
void sg_stage_before_task(void *arg, int i, int j, int k);
/* After the descriptors are destroyed: copy C's tiles back (when copy_back), stop the
 * threads, give the buffers back to the pool. */
void sg_stage_finish(struct sg_stager *st, int copy_back);
/* Free the pool (at exit, while StarPU runs). */
void sg_stage_pool_drain(void);

#endif
