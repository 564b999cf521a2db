/* Pinning the caller's pageable arrays for the one call on host arrays. Measured on an H100
 * (bench/notes-arrays.md; docs/performance.md, "What pinning costs"): copies to the GPU run
 * several times faster from pinned memory than from pageable; cudaHostRegister pins no faster
 * with more threads; and registering while the GPU computes stalls the computation (it takes
 * the driver's lock), so pinning panel by panel behind the computation came out slower than
 * pinning each operand whole first. So: each operand is registered whole before the
 * product and unregistered after it; operands whose page ranges meet (small arrays side by side
 * on the heap, views of one array, A = B) are registered as one range, since CUDA registers a
 * page once and refuses a copy that spans two registrations. */
#ifndef SG_DOORS_PIN_H
#define SG_DOORS_PIN_H

#include <stddef.h>
#include <stdint.h>

/* STARPU_GEMM_PIN: how the one call treats pageable operands (the caller's pinned memory is
 * always used in place). */
enum sg_pin_mode {
	SG_PIN_AUTO,     /* unset or "auto": stage with GPUs from SG_PIN_MIN_BYTES of operands */
	SG_PIN_STAGE,    /* "stage": copy them through pinned tiles (doors/stage.h); "all" when
	                  * the tiles do not fit the staging pool */
	SG_PIN_ALL,      /* "all": pin the operands before the product */
	SG_PIN_NONE      /* "none": StarPU copies from pageable memory */
};
/* Below this, copies from pageable memory cost less than pinning or staging. */
#define SG_PIN_MIN_BYTES ((double)(256 << 20))
enum sg_pin_mode sg_pin_mode(void);

/* Up to three page ranges, disjoint once added, and whether we registered each. */
struct sg_pin_set {
	uintptr_t lo[3], hi[3];
	signed char pinned[3];   /* 1: registered by us; 0: not (the caller had pinned it) */
	int n;
	double seconds;          /* spent registering */
};

/* Add the pages of a rows x cols column-major operand (leading dimension ld). */
void sg_pin_set_add(struct sg_pin_set *set, const void *base, int64_t rows, int64_t cols,
                    int64_t ld, size_t elemsize);
void sg_pin_set_pin(struct sg_pin_set *set);
void sg_pin_set_unpin(struct sg_pin_set *set);

#endif
