/* Pinning the caller's pageable arrays panel by panel, as the product reaches them.
 * Copies to a GPU from pageable memory run at ~7 GB/s against ~52 GB/s pinned (H100), and
 * pinning all of an n = 32768 DGEMM's 26 GB first takes as long as the product: so each
 * chunk's column panels are pinned just before the chunk is submitted, on the submission
 * thread, while the chunks already submitted compute (the lookahead window is the run-ahead),
 * and all are unpinned at the end. */
#ifndef SG_DOORS_PIN_H
#define SG_DOORS_PIN_H

#include <stdint.h>
#include "compute/problem.h"

/* One column-major operand, cut in column panels of `tile` columns. */
struct sg_pin_array {
	char *base;
	int64_t rows, cols, ld;
	size_t elemsize;
	int tile, npanels;
	signed char *state;      /* per panel: 0 not yet, 1 pinned by us, -1 not pinnable here
	                          * (pinned by the caller already, or refused) */
	uintptr_t *bounds;       /* npanels+1 page boundaries: panel p pins [bounds[p], bounds[p+1]) */
};

/* How the door treats pageable memory (STARPU_GEMM_PIN): */
enum sg_pin_mode {
	SG_PIN_PANELS,   /* "panels" (default): as each chunk reaches them */
	SG_PIN_ALL,      /* "all": everything before the product starts */
	SG_PIN_NONE      /* "none": StarPU copies from pageable memory */
};
enum sg_pin_mode sg_pin_mode(void);

struct sg_pinner {
	struct sg_pin_array A, B, C;
	int threads;             /* STARPU_GEMM_PIN_THREADS, default 4 */
	double seconds;          /* spent pinning, for STARPU_GEMM_VERBOSE */
};

/* 0 or -ENOMEM. The arrays as the caller stores them (rows x cols, ld). */
int sg_pin_array_init(struct sg_pin_array *a, void *base, int64_t rows, int64_t cols,
                      int64_t ld, size_t elemsize, int tile);
/* The hook that pins a chunk's panels of A, B and C (arg: struct sg_pinner). */
void sg_pin_before_chunk(void *arg, const struct sg_problem *pb, int i0, int i1, int j0,
                         int j1, int k0, int k1);
/* Pin every panel now. */
void sg_pin_all(struct sg_pinner *pinner);
/* Unpin what we pinned and free the bookkeeping. */
void sg_pin_release(struct sg_pinner *pinner);

#endif
