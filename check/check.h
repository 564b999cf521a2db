/* Internal to check/: what the verification of one rank's C tiles needs and returns. */
#ifndef SG_CHECK_H
#define SG_CHECK_H

#include <complex.h>
#include "distrib/desc.h"

struct sg_check {
	const struct sg_precision *p;        /* the product's kernel (sg_kernel) */
	const struct sg_precision *pc;       /* C's, alpha's and beta's */
	const struct sg_precision *pr;       /* the reference's (p->ref_letter) */
	int math;
	char transA, transB;                 /* normalised */
	const void *alpha, *beta;
	const struct starpu_gemm_desc *A, *B, *C;
	uint64_t seedA, seedB, seedC0;
	int64_t K;
	/* Results on this rank: */
	double diff2;                        /* ||C - Cref||_F^2 over this rank's C (estimated
	                                      * from the samples in sampled mode) */
	double ref2;                         /* ||Cref||_F^2 + ||beta C0||_F^2, same entries */
	int64_t first_nonfinite;             /* col*M + row of the first NaN/Inf, INT64_MAX if none */
};

/* splitmix64: the sample positions of a rank, reproducible from the seeds. */
static inline uint64_t sg_splitmix64(uint64_t *state)
{
	return sg_mix64(*state += SG_GOLDEN);
}

/* Every C tile this rank owns against a CBLAS reference built panel by panel. */
int sg_check_full(struct sg_check *ck);
/* samples random entries of this rank's C tiles against dot products; every entry is still
 * scanned for NaN/Inf. */
int sg_check_sampled(struct sg_check *ck, int64_t samples);
/* The host memory each of them allocates at once, from the same sizes as its allocations. */
double sg_check_full_bytes(const struct sg_check *ck);
double sg_check_sampled_bytes(const struct sg_check *ck, int64_t samples);

#endif
