/* The partial C tiles of the layered schedule (compute/layers.h). C's owner runs its own
 * layer's updates of C(i,j) on C itself, as in 2D; the rank of each other layer accumulates
 * its updates in a partial tile, which lives where its first update writes it (a GPU) and,
 * complete, goes to C's owner, who adds it into C where C is (its GPU) in the walk's order.
 * The owner's first update comes before any partial is complete (each layer has at least two
 * k steps: the planner's rule), so beta is applied once, by it. One MPI tag per C tile: its
 * c - 1 partials come from c - 1 different ranks. */
#ifndef SG_PARTIALS_H
#define SG_PARTIALS_H

#include <stddef.h>
#include <starpu.h>
#include <mpi.h>
#include <starpu_gemm.h>

struct sg_partials;

/* For plan's C tiles and layers, on comm (collective: the tags are allocated in the same
 * order on every rank). NULL when out of memory. */
struct sg_partials *sg_partials_create(const struct starpu_gemm_plan *plan, MPI_Comm comm,
                                       int rank);
/* After the product: the handles unregistered, the tags given back. */
void sg_partials_destroy(struct sg_partials *p);
/* This rank's partial of C(i,j) in layer l (another rank's C tile), m x n elements of
 * elemsize bytes: registered by its first update, the same handle for the layer's later
 * ones. */
starpu_data_handle_t sg_partials_tile(struct sg_partials *p, int i, int j, int l, int m, int n,
                                      size_t elemsize);
/* The partial of C(i,j) in layer l, complete, to C's owner. 0 or a negative error. */
int sg_partials_send(struct sg_partials *p, int i, int j, int l, int owner, int prio);
/* C(i,j) (c_tile, this rank's) += the partial of layer l that rank from sends, m x n elements
 * of elemsize bytes, on workers of kind where (STARPU_CUDA; -1: any) and on worker (-1:
 * where the scheduler puts it), done(done_arg) its callback (sg_insert_accumulate). 0 or a
 * negative error. */
int sg_partials_add(struct sg_partials *p, starpu_data_handle_t c_tile, int i, int j, int l,
                    int from, int m, int n, size_t elemsize, int where, int worker, int prio,
                    void (*done)(void *), void *done_arg);

#endif
