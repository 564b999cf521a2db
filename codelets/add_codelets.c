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
#include "common/errors.h"
#ifdef STARPU_USE_CUDA
#include <starpu_cublas_v2.h>
#endif

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

/* buffers[0] = beta buffers[0] + buffers[1], in C's precision letter. Four items a thread,
 * so that a thread slowed by the copies sharing host memory holds up less of the tile. */
static void add_buffers(void *buffers[], char letter, const void *beta)
{
	struct add_job job = {
		.p = sg_precision(letter),
		.c = (void *)STARPU_MATRIX_GET_PTR(buffers[0]),
		.t = (const void *)STARPU_MATRIX_GET_PTR(buffers[1]),
		.m = STARPU_MATRIX_GET_NX(buffers[0]), .n = STARPU_MATRIX_GET_NY(buffers[0]),
		.ldc = STARPU_MATRIX_GET_LD(buffers[0]), .ldt = STARPU_MATRIX_GET_LD(buffers[1]),
		.beta = beta,
	};
	int helpers[64];
	int nhelpers = sg_helper_cpus(helpers, 64);
	job.items = 4 * (nhelpers + 1);
	if ((size_t)job.items > job.n)
		job.items = (int)job.n;
	sg_run_on_cpus(job.items, helpers, job.items > nhelpers ? nhelpers : job.items - 1,
	               add_item, &job);
}

static void add_tile(void *buffers[], void *cl_arg, char letter)
{
	double complex beta; /* the widest scalar; the codelet's own type is read from it */
	starpu_codelet_unpack_args(cl_arg, &beta);
	add_buffers(buffers, letter, &beta);
}

/* The codelet of table (one per storage of C) that adds in prec's C. */
static struct starpu_codelet *codelet_of_c(struct starpu_codelet *const table[], char prec)
{
	const struct sg_precision *p = sg_precision(prec);
	return p ? table[sg_precision_of_c(p)->format] : NULL;
}

#ifdef STARPU_SIMGRID
/* Simulated: no add is measured on the simulated nodes, and StarPU+SimGrid refuses a task
 * without a model. An add reads C and T and writes C; the rate is an assumption for a node's
 * one CPU worker and its helper threads beside busy host links (not measured): 30 GB/s. */
#define SG_SIM_ADD_BYTES_PER_S 30e9
static double simulated_add_us(struct starpu_task *task, unsigned nimpl)
{
	(void)nimpl;
	starpu_data_handle_t c = STARPU_TASK_GET_HANDLE(task, 0);
	return 3.0 * (double)starpu_data_get_size(c) / SG_SIM_ADD_BYTES_PER_S * 1e6;
}
#define SG_ADD_MODEL(NAME) { .type = STARPU_COMMON, .cost_function = simulated_add_us, \
                             .symbol = NAME }
#else
#define SG_ADD_MODEL(NAME) { .type = STARPU_HISTORY_BASED, .symbol = NAME }
#endif

#define SG_ADD_CODELET(SUFFIX, NAME)                                                        \
	static void cpu_add_##SUFFIX(void *buffers[], void *cl_arg)                              \
	{                                                                                        \
		add_tile(buffers, cl_arg, #SUFFIX[0]);                                           \
	}                                                                                        \
	static struct starpu_perfmodel add_model_##SUFFIX = SG_ADD_MODEL(NAME);                  \
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
	return codelet_of_c(add_codelets, prec);
}

/* The layered schedule's partial tiles (compute/partials.h): C += T on C's GPU, where C
 * stays until the product ends, or on a CPU worker where the rank has none. T crosses to
 * the GPU (one tile over the host link), where the add takes a fraction of a millisecond;
 * added on a CPU worker, c - 1 partials of every C tile came back to the host and went
 * through one worker's adds, which the simulated 64 nodes waited for at the end (2.57 s
 * against 1.30 s with adds made instant; bench/results/sim-layers-20261127.txt).
 *   buffers: C (RW), T (R); no argument. */
static void cpu_accumulate(void *buffers[], void *cl_arg, char letter)
{
	(void)cl_arg;
	double complex one; /* the widest scalar, as add_tile's beta */
	sg_precision(letter)->scalar(&one, 1, 0);
	add_buffers(buffers, letter, &one);
}

#ifdef STARPU_USE_CUDA
/* C = 1 C + 1 T with cuBLAS's geam, in place (C as its first operand, same leading
 * dimension), on the worker's stream (STARPU_CUDA_ASYNC). */
#define SG_CUDA_ACCUMULATE(SUFFIX, TYPE, GEAM, ONE)                                         \
	static void cuda_accumulate_##SUFFIX(void *buffers[], void *cl_arg)                      \
	{                                                                                        \
		(void)cl_arg;                                                                    \
		const TYPE one = ONE;                                                            \
		int m = (int)STARPU_MATRIX_GET_NX(buffers[0]);                                   \
		int n = (int)STARPU_MATRIX_GET_NY(buffers[0]);                                   \
		int ldc = (int)STARPU_MATRIX_GET_LD(buffers[0]);                                 \
		int ldt = (int)STARPU_MATRIX_GET_LD(buffers[1]);                                 \
		TYPE *c = (TYPE *)STARPU_MATRIX_GET_PTR(buffers[0]);                             \
		const TYPE *t = (const TYPE *)STARPU_MATRIX_GET_PTR(buffers[1]);                 \
		cublasStatus_t status = GEAM(starpu_cublas_get_local_handle(), CUBLAS_OP_N,     \
		                             CUBLAS_OP_N, m, n, &one, c, ldc, &one, t, ldt, c,   \
		                             ldc);                                               \
		if (status != CUBLAS_STATUS_SUCCESS)                                             \
			sg_fatal(__FILE__, __LINE__, #GEAM, cublasGetStatusString(status),       \
			         "a partial C tile");                                            \
	}
SG_CUDA_ACCUMULATE(s, float, cublasSgeam, 1.0f)
SG_CUDA_ACCUMULATE(d, double, cublasDgeam, 1.0)
SG_CUDA_ACCUMULATE(c, cuComplex, cublasCgeam, make_cuComplex(1, 0))
SG_CUDA_ACCUMULATE(z, cuDoubleComplex, cublasZgeam, make_cuDoubleComplex(1, 0))
#define SG_ACC_CUDA(SUFFIX) .cuda_funcs = { cuda_accumulate_##SUFFIX },                      \
                            .cuda_flags = { STARPU_CUDA_ASYNC },
#elif defined(STARPU_SIMGRID)
/* Simulated GPUs only need an implementation to exist (codelets/gemm_template.c). */
#define SG_ACC_CUDA(SUFFIX) .cuda_funcs = { cpu_accumulate_##SUFFIX },
#else
#define SG_ACC_CUDA(SUFFIX)
#endif

#ifdef STARPU_SIMGRID
/* Simulated: C and T read, C written, at the GPU's memory rate (an H200 copies at about
 * 2 TB/s) or, on a CPU worker, SG_SIM_ADD_BYTES_PER_S. */
static double simulated_accumulate_us(struct starpu_task *task,
                                      struct starpu_perfmodel_arch *arch, unsigned nimpl)
{
	if (arch->ndevices > 0 && arch->devices[0].type == STARPU_CUDA_WORKER)
		return 3.0 * (double)starpu_data_get_size(STARPU_TASK_GET_HANDLE(task, 0)) / 2e12 * 1e6;
	return simulated_add_us(task, nimpl);
}
#define SG_ACC_MODEL(NAME) { .type = STARPU_PER_ARCH, .arch_cost_function =                  \
                             simulated_accumulate_us, .symbol = NAME }
#else
#define SG_ACC_MODEL(NAME) { .type = STARPU_HISTORY_BASED, .symbol = NAME }
#endif

#define SG_ACCUMULATE_CODELET(SUFFIX, NAME)                                                 \
	static void cpu_accumulate_##SUFFIX(void *buffers[], void *cl_arg)                       \
	{                                                                                        \
		cpu_accumulate(buffers, cl_arg, #SUFFIX[0]);                                     \
	}                                                                                        \
	static struct starpu_perfmodel accumulate_model_##SUFFIX = SG_ACC_MODEL(NAME);           \
	static struct starpu_codelet accumulate_codelet_##SUFFIX = {                             \
		.name = NAME, .cpu_funcs = { cpu_accumulate_##SUFFIX }, SG_ACC_CUDA(SUFFIX)      \
		.nbuffers = 2, .modes = { STARPU_RW, STARPU_R },                                 \
		.model = &accumulate_model_##SUFFIX };

SG_ACCUMULATE_CODELET(s, "starpu_gemm_saccumulate")
SG_ACCUMULATE_CODELET(d, "starpu_gemm_daccumulate")
SG_ACCUMULATE_CODELET(c, "starpu_gemm_caccumulate")
SG_ACCUMULATE_CODELET(z, "starpu_gemm_zaccumulate")

static struct starpu_codelet *const accumulate_codelets[] = {
	[SG_F32] = &accumulate_codelet_s, [SG_F64] = &accumulate_codelet_d,
	[SG_C32] = &accumulate_codelet_c, [SG_C64] = &accumulate_codelet_z };

int sg_insert_accumulate(char prec, starpu_data_handle_t c, starpu_data_handle_t t, int where,
                         int worker, int prio, void (*done)(void *), void *done_arg)
{
	int ret = starpu_task_insert(codelet_of_c(accumulate_codelets, prec), STARPU_RW, c,
	                             STARPU_R, t, STARPU_PRIORITY, prio, STARPU_EXECUTE_ON_WORKER,
	                             worker, STARPU_EXECUTE_WHERE, (unsigned long long)where,
	                             STARPU_CALLBACK_WITH_ARG_NFREE, done, done_arg, 0);
	starpu_data_invalidate_submit(t);
	return ret < 0 ? ret : 0;
}
