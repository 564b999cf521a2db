/* The ScaLAPACK drop-in's moves on one node, overlapped with the product: where every tile is
 * in each process's reach (the grid on one node, the library's tiles in its shared memory),
 * each process's copier threads fill the tiles from its local arrays in the order the
 * product's walk first reads them (compute/walk.h, the product's plan made by the caller)
 * while the product runs, and the product's walk waits for each task's own tiles only
 * (starpu_gemm_opts.before_task); C's tiles go back into the local arrays as the walk finishes
 * them. Before, the whole of A and B moved, then the product ran, then C moved back
 * (doors/redistribute.c, sg_redist_to_tiles): 0.21 + 0.34 + 0.16 s on 4 ranks x 1 H200,
 * n = 32768 (bench/notes-arrays.md).
 *
 * Across processes, a tile is filled when every process that holds a part of it has copied
 * that part: counters in a shared window of the node (MPI_Win_allocate_shared), one per tile,
 * that each holder raises once per slice of columns it copied. C's tiles have a second flag,
 * set by the tile's owner once its last update is done and it is in host memory.
 *
 * Coherence: no task reads a tile before it is filled (the walk submits none), a tile's owner
 * drops its GPUs' copies first (a STARPU_W acquire and release), and the product drops its
 * node peers' stale copies itself (compute/pgemm.c, share_begin). */
#ifndef SG_DOORS_REDISTRIBUTE_FLOW_H
#define SG_DOORS_REDISTRIBUTE_FLOW_H

#include "doors/redistribute.h"

struct sg_redist_flow;

/* Collective over r[0].comm. r and desc: A, B and C, planned and made (doors/scalapack.c); in:
 * how many of them move in (2: A and B; 3: C too); plan: the product's (given to it in
 * opts.plan), whose walk the copies follow; threads: copier threads. The flow, or NULL on
 * every rank where it cannot be used here (a tile out of reach, no shared window, no memory):
 * the caller then moves the operands before and after the product. */
struct sg_redist_flow *sg_redist_flow_start(const struct sg_redist *r,
                                            struct starpu_gemm_desc *const *desc, int in,
                                            char transA, char transB,
                                            const struct starpu_gemm_plan *plan, int threads);
/* starpu_gemm_opts.before_task over the flow. */
void sg_redist_flow_before_task(void *flow, int i, int j, int k);
/* How many copying threads run this rank's moves (on the cores StarPU's threads leave). */
int sg_redist_flow_copiers(const struct sg_redist_flow *f);
/* Collective: after the product (done: it ran on this rank; C goes back where it ran on
 * every rank), the rest of C back into the local arrays, the threads joined, the window
 * freed. Before StarPU's workers are paused: the acquires of C's tiles need them. The seconds
 * the walk waited for tiles, on this rank. */
double sg_redist_flow_finish(struct sg_redist_flow *f, int done);

#endif
