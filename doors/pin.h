/* Pinning the caller's pageable arrays as the product reaches them (measured on an H100,
 * bench/results/pins-*.log: pageable copies to the GPU run at 7 GB/s against 55 GB/s pinned;
 * cudaHostRegister pins at 20-27 GB/s whatever the number of threads, unregistering runs at
 * ~60 GB/s; pinning all of an n = 32768 DGEMM's 26 GB first takes as long as the product).
 * So each operand is registered in column panels by a thread of its own, in the order the
 * blocked, chunked walk first reads them, while the GPU computes; before submitting a chunk the
 * walk waits for that chunk's panels only. Everything is unregistered at the end.
 * CUDA refuses a copy whose host range spans two registrations (or a registered and an
 * unregistered range): "invalid argument". Contiguous panels share a page wherever a panel
 * does not start on a page boundary, so the tile of a panel that reaches into the next panel's
 * first page is staged instead: a pinned copy the descriptor points at, copied in before the
 * product and, for C, back after it. That is one tile per panel. Operands that share a page
 * (small arrays side by side on the heap, views of one array) are not pinned at all. */
#ifndef SG_DOORS_PIN_H
#define SG_DOORS_PIN_H

#include <pthread.h>
#include <stdint.h>
#include "compute/problem.h"

/* STARPU_GEMM_PIN: */
enum sg_pin_mode {
	SG_PIN_AUTO,     /* unset or "auto": panels from SG_PIN_MIN_BYTES of operands, else none */
	SG_PIN_PANELS,   /* "panels": each column panel as the chunks reach it */
	SG_PIN_ALL,      /* "all": each operand whole, before the product */
	SG_PIN_NONE      /* "none": StarPU copies from pageable memory */
};
#define SG_PIN_MIN_BYTES ((double)(256 << 20))
enum sg_pin_mode sg_pin_mode(void);

/* A tile staged in pinned memory because it spans two registrations. */
struct sg_staged {
	int i, j, rows, cols;
	char *buf;               /* rows x cols, leading dimension rows */
};

/* One column-major operand as the caller stores it. */
struct sg_pin_array {
	char *base;
	int64_t rows, cols, ld;
	size_t elemsize;
	int tile;                /* the descriptor's tile size */
	int panel_cols;          /* columns per registration; 0: this operand is not pinned */
	int npanels;
	signed char *state;      /* per panel: 0 not yet, 1 pinned by us, -1 not pinnable here
	                          * (the caller pinned it already, or CUDA refused) */
	uintptr_t *bounds;       /* npanels+1 page boundaries: panel p is [bounds[p], bounds[p+1]) */
	struct sg_staged *staged;
	int nstaged, max_staged;
};

struct sg_pin_work;

struct sg_pinner {
	struct sg_pin_array A, B, C;
	int threads;             /* for staging copies (STARPU_GEMM_PIN_THREADS, default 8) */
	double seconds;          /* spent pinning and staging in, for stats and the verbose line */
	double waited;           /* the walk's wait for panels, for the verbose line */
	/* The pinning thread (panels mode): */
	struct sg_pin_work *order;
	int norder, pinned;      /* panels in the order of first use; how many are done */
	int stop, running;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

/* panel_cols = 0: not pinned (tiles in place, pageable). 0 or -ENOMEM. */
int sg_pin_array_init(struct sg_pin_array *a, void *base, int64_t rows, int64_t cols,
                      int64_t ld, size_t elemsize, int tile, int panel_cols);
/* 1 when the page ranges of x and y meet (registering both would fail). */
int sg_pin_arrays_meet(const struct sg_pin_array *x, const struct sg_pin_array *y);
/* starpu_gemm_tile_addr_fn over a struct sg_pin_array: the tile in place, or its staged copy
 * (allocated here, pinned). */
void *sg_pin_tile_address(int i, int j, int64_t *ld, void *array);
/* Copy the staged tiles of A and B (and of C when with_c) in from the caller's arrays. */
int sg_pin_stage_in(struct sg_pinner *pinner, int with_c);
/* Copy C's staged tiles back into the caller's C (after the descriptors are destroyed). */
void sg_pin_stage_out(struct sg_pinner *pinner);
/* Start the pinning thread on the panels in the order the walk of plan reads them. 0, or
 * -ENOMEM / -EAGAIN (then nothing is pinned ahead, and the hook pins what it waits for). */
int sg_pin_start(struct sg_pinner *pinner, const struct starpu_gemm_plan *plan, char transA,
                 char transB);
/* The hook: wait until a chunk's panels of A, B and C are pinned (arg: struct sg_pinner). */
void sg_pin_before_chunk(void *arg, const struct sg_problem *pb, int i0, int i1, int j0,
                         int j1, int k0, int k1);
/* Pin every panel now. */
void sg_pin_all(struct sg_pinner *pinner);
/* Unpin what we pinned, free the staged tiles and the bookkeeping. */
void sg_pin_release(struct sg_pinner *pinner);

#endif
