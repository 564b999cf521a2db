/* The library's own codelet variants, beside the public ones of include/starpu_gemm.h. */
#ifndef SG_GEMM_CODELETS_H
#define SG_GEMM_CODELETS_H

#include <starpu.h>

struct sg_precision;

/* The tile GEMM codelet of p, plain or overwriting (below); NULL for none. */
struct starpu_codelet *sg_gemm_codelet_of(const struct sg_precision *p, int overwrite);


/* starpu_gemm_codelet(prec) with C written, not read (modes R, R, W): for the first update
 * of a C tile when beta = 0, where BLAS does not read C. NULL for an unknown letter. */
struct starpu_codelet *sg_gemm_overwrite_codelet(char prec);

/* C = beta * C + a scratch tile T of the same shape, on a CPU worker, for a product of
 * precision prec (C's precision is what counts): codelets/add_codelets.c. NULL for an unknown
 * letter. */
struct starpu_codelet *sg_add_codelet(char prec);

#endif
