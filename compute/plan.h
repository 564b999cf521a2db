/* The plan (b, c, d, lookahead and what they predict), made once per product from the problem
 * (compute/problem.h) and the agreed resources (compute/resources.h), then followed. The
 * planner itself is a pure function: no MPI, no StarPU call, nothing printed; the edge
 * (compute/plan_make.c) agrees on the resources and prints a refusal once. */
#ifndef SG_PLAN_H
#define SG_PLAN_H

#include <stddef.h>
#include "compute/problem.h"
#include "compute/resources.h"

/* Host memory StarPU 1.4.10 holds per registered tile handle (its replicates on
 * STARPU_MAXNODES = 32 nodes, plus what a first acquire and our descriptor add), per
 * StarPU-MPI registration, and per GEMM task submitted and not yet run (a running job holds
 * more per task than paused workers: counted as 2.6 KB). Measured by bench/starpu_overhead
 * and bench/rss.sh: bench/README.md. */
#define SG_HANDLE_HOST_BYTES 21964.0
#define SG_MPI_ENTRY_HOST_BYTES 233.0
#define SG_TASK_HOST_BYTES 2600.0

/* The planner: plan for pb on res under opts (NULL: automatic). Returns 0, or -EINVAL /
 * -ENOMEM with one sentence in why (negative forced values; the handles or one chunk do not
 * fit). Deterministic: the same inputs give the same plan on every rank. */
int sg_plan_compute(struct starpu_gemm_plan *plan, const struct sg_problem *pb,
                    const struct sg_resources *res, const struct starpu_gemm_opts *opts,
                    char *why, size_t whylen);

/* The planner's layers (compute/plan_layers.c), after plan holds the 2D plan of pb: plan
 * becomes the layered one where opts->layers asks for it (-EINVAL with why where it cannot
 * be had), or automatically where it moves enough less. Pure, as sg_plan_compute. */
int sg_plan_layers(struct starpu_gemm_plan *plan, const struct sg_problem *pb,
                   const struct sg_resources *res, const struct starpu_gemm_opts *opts,
                   char *why, size_t whylen);

/* Whether plan was made for pb (its tiles, grid, kernel and beta), so a product can follow it
 * as given: 0, or -EINVAL with one sentence in why. Pure. */
int sg_plan_conforms(const struct starpu_gemm_plan *plan, const struct sg_problem *pb,
                     int beta_zero, char *why, size_t whylen);

/* The choices plan made, as opts fields (b, c, d, lookahead, memory sizes, throttle, C at
 * home, the GPUs' assignment and relays; the others untouched): what a product planning
 * another problem in the same way (a panel of the caller's) plans with. Pure. */
void sg_plan_choices(const struct starpu_gemm_plan *plan, struct starpu_gemm_opts *opts);

/* The edge: resources agreed over pb->comm (collective), sg_plan_compute, and a refusal
 * printed once (rank 0; every rank returns the same code). */
int sg_plan_make(struct starpu_gemm_plan *plan, const struct sg_problem *pb,
                 const struct starpu_gemm_opts *opts);

#endif
