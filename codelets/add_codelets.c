/* The host half of a product whose C stays in host memory (compute/c_home.h): a C tile
 * becomes beta * C + T, T being the scratch tile the GPUs accumulated alpha*op(A)*op(B) in.
 * CPU workers only: C never crosses to a GPU. One codelet per precision of C (s, d, c, z; the
 * tensor-core products have float C), from one macro.
 *   buffers: the C tile (RW), the scratch tile T (R)
 *   argument: STARPU_VALUE beta (C's type)
 * The worker splits the tile's columns with helper threads on the cores no StarPU thread is
 * bound to (runtime/node_conf.h, where the add rates that ask for them are): the last tile's
 * add is what a product waits for at its end. */
#include <complex.h>
#include <starpu.h>
#include "codelets/gemm_codelets.h"
#include "runtime/node_conf.h"
#include "common/precision.h"
#include "common/threads.h"

/* One add: its tile and the columns each item of the team takes. */
struct add_job {
	const struct sg_precision *p; /* of C */
	void *c;
	const void *t;
	size_t m, n, ldc, ldt;
	const void *beta;
	int items;
};

/* The precision's own loop (common/precision.h, add), a column at a time. */
static void add_item(const void *arg, int item)
{
	const struct add_job *job = arg;
	size_t j0 = job->n * (size_t)item / (size_t)job->items;
	size_t j1 = job->n * (size_t)(item + 1) / (size_t)job->items;
	size_t es = job->p->elemsize;
	for (size_t j = j0; j < j1; j++)
		job->p->add((char *)job->c + j * job->ldc * es, (const char *)job->t + j * job->ldt * es,
		            (int64_t)job->m, job->beta);
}

/* Four items a thread, so that a thread slowed by the copies sharing host memory holds up
 * less of the tile. */
static void add_tile(void *buffers[], void *cl_arg, char letter)
{
	double complex beta; /* the widest scalar; the codelet's own type is read from it */
	starpu_codelet_unpack_args(cl_arg, &beta);
	struct add_job job = {
		.p = sg_precision(letter),
		.c = (void *)STARPU_MATRIX_GET_PTR(buffers[0]),
		.t = (const void *)STARPU_MATRIX_GET_PTR(buffers[1]),
		.m = STARPU_MATRIX_GET_NX(buffers[0]), .n = STARPU_MATRIX_GET_NY(buffers[0]),
		.ldc = STARPU_MATRIX_GET_LD(buffers[0]), .ldt = STARPU_MATRIX_GET_LD(buffers[1]),
		.beta = &beta,
	};
	int helpers[64];
	int nhelpers = sg_helper_cpus(helpers, 64);
	job.items = 4 * (nhelpers + 1);
	if ((size_t)job.items > job.n)
		job.items = (int)job.n;
	sg_run_on_cpus(job.items, helpers, job.items > nhelpers ? nhelpers : job.items - 1,
	               add_item, &job);
}

#define SG_ADD_CODELET(SUFFIX, NAME)                                                        \
	static void cpu_add_##SUFFIX(void *buffers[], void *cl_arg)                              \
	{                                                                                        \
		add_tile(buffers, cl_arg, #SUFFIX[0]);                                           \
	}                                                                                        \
	static struct starpu_perfmodel add_model_##SUFFIX = { .type = STARPU_HISTORY_BASED,     \
	                                                      .symbol = NAME };                  \
	static struct starpu_codelet add_codelet_##SUFFIX = {                                    \
		.name = NAME, .cpu_funcs = { cpu_add_##SUFFIX }, .nbuffers = 2,                  \
		.modes = { STARPU_RW, STARPU_R }, .model = &add_model_##SUFFIX };

SG_ADD_CODELET(s, "starpu_gemm_sadd")
SG_ADD_CODELET(d, "starpu_gemm_dadd")
SG_ADD_CODELET(c, "starpu_gemm_cadd")
SG_ADD_CODELET(z, "starpu_gemm_zadd")

/* Indexed by the storage of C, a type of which each of the four codelets adds. */
static struct starpu_codelet *const add_codelets[] = {
	[SG_F32] = &add_codelet_s, [SG_F64] = &add_codelet_d, [SG_C32] = &add_codelet_c,
	[SG_C64] = &add_codelet_z };

struct starpu_codelet *sg_add_codelet(char prec)
{
	const struct sg_precision *p = sg_precision(prec);
	return p ? add_codelets[sg_precision_of_c(p)->format] : NULL;
}
