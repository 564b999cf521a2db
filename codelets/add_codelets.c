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
	void *c;
	const void *t;
	size_t m, n, ldc, ldt;
	const void *beta;
	int items;
	void (*columns)(const struct add_job *job, size_t j0, size_t j1);
};

/* Memory-bound: the compiler vectorises the real loops; complex products are written out,
 * since C's complex multiplication calls a library routine per element for its NaN rules. */
#define SG_ADD_LOOP(TYPE, ...)                                                              \
	TYPE *c = (TYPE *)job->c + j0 * job->ldc;                                                \
	const TYPE *t = (const TYPE *)job->t + j0 * job->ldt;                                    \
	for (size_t j = j0; j < j1; j++, c += job->ldc, t += job->ldt)                           \
		for (size_t i = 0; i < job->m; i++)                                              \
			__VA_ARGS__;

/* With beta = 1, C + T without a multiplication, as BLAS does (reference BLAS and OpenBLAS
 * skip it): a complex C of Inf + 0i times 1 + 0i would turn its imaginary part into NaN. */
#define SG_ADD_REAL(SUFFIX, TYPE)                                                           \
	static void add_columns_##SUFFIX(const struct add_job *job, size_t j0, size_t j1)        \
	{                                                                                        \
		TYPE beta = *(const TYPE *)job->beta;                                            \
		if (beta == 1) {                                                                 \
			SG_ADD_LOOP(TYPE, c[i] += t[i])                                          \
		} else {                                                                         \
			SG_ADD_LOOP(TYPE, c[i] = beta * c[i] + t[i])                             \
		}                                                                                \
	}

#define SG_ADD_COMPLEX(SUFFIX, TYPE, PART, RE, IM, MAKE)                                    \
	static void add_columns_##SUFFIX(const struct add_job *job, size_t j0, size_t j1)        \
	{                                                                                        \
		TYPE beta = *(const TYPE *)job->beta;                                            \
		PART br = RE(beta), bi = IM(beta);                                               \
		if (br == 1 && bi == 0) {                                                        \
			SG_ADD_LOOP(TYPE, c[i] = MAKE(RE(c[i]) + RE(t[i]), IM(c[i]) + IM(t[i])))  \
			return;                                                                  \
		}                                                                                \
		SG_ADD_LOOP(TYPE, {                                                              \
			PART cr = RE(c[i]), ci = IM(c[i]);                                       \
			c[i] = MAKE(br * cr - bi * ci + RE(t[i]), br * ci + bi * cr + IM(t[i])); \
		})                                                                               \
	}

SG_ADD_REAL(s, float)
SG_ADD_REAL(d, double)
SG_ADD_COMPLEX(c, float complex, float, crealf, cimagf, CMPLXF)
SG_ADD_COMPLEX(z, double complex, double, creal, cimag, CMPLX)

static void add_item(const void *arg, int item)
{
	const struct add_job *job = arg;
	size_t j0 = job->n * (size_t)item / (size_t)job->items;
	size_t j1 = job->n * (size_t)(item + 1) / (size_t)job->items;
	if (j1 > j0)
		job->columns(job, j0, j1);
}

/* Four items a thread, so that a thread slowed by the copies sharing host memory holds up
 * less of the tile. */
static void add_tile(void *buffers[], void *cl_arg,
                     void (*columns)(const struct add_job *job, size_t j0, size_t j1))
{
	double complex beta; /* the widest scalar; the codelet's own type is read from it */
	starpu_codelet_unpack_args(cl_arg, &beta);
	struct add_job job = {
		.c = (void *)STARPU_MATRIX_GET_PTR(buffers[0]),
		.t = (const void *)STARPU_MATRIX_GET_PTR(buffers[1]),
		.m = STARPU_MATRIX_GET_NX(buffers[0]), .n = STARPU_MATRIX_GET_NY(buffers[0]),
		.ldc = STARPU_MATRIX_GET_LD(buffers[0]), .ldt = STARPU_MATRIX_GET_LD(buffers[1]),
		.beta = &beta, .columns = columns,
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
		add_tile(buffers, cl_arg, add_columns_##SUFFIX);                                 \
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

void sg_add_tile(char prec, void *c, size_t ldc, const void *t, size_t ldt, size_t m, size_t n,
                 const void *beta)
{
	static void (*const columns[])(const struct add_job *, size_t, size_t) = {
		[SG_F32] = add_columns_s, [SG_F64] = add_columns_d, [SG_C32] = add_columns_c,
		[SG_C64] = add_columns_z };
	struct add_job job = { .c = c, .t = t, .m = m, .n = n, .ldc = ldc, .ldt = ldt,
	                       .beta = beta };
	columns[sg_precision_of_c(sg_precision(prec))->format](&job, 0, n);
}
