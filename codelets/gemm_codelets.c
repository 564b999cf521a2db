/* Tile GEMM codelets of the four BLAS precisions and of the tensor-core ones (b, h, t), from
 * one template (gemm_template.c), and the public accessors. The header documents the task
 * argument: four STARPU_VALUEs (char transA, char transB, T alpha, T beta, T being C's type)
 * and buffers (R A, R B, RW C). */
#include <complex.h>
#include <errno.h>
#include <string.h>
#include <starpu_gemm.h>
#ifdef STARPU_USE_CUDA
#include <cuda_runtime_api.h>
#include <starpu_cublas_v2.h>
#endif
#include "common/blas.h"
#include "common/errors.h"
#include "common/precision.h"
#include "codelets/cublas_mixed.h"
#include "codelets/gemm_codelets.h"

/* Storage for alpha or beta of any precision, aligned for the widest. */
union scalar {
	float s;
	double d;
	float complex c;
	double complex z;
};

/* What one task computes, unpacked from its argument and buffers. */
struct gemm_call {
	const struct sg_precision *p;
	char transA, transB;  /* normalised: 'N','T','C' ('T' for real) */
	union scalar alpha, beta;
	int m, n, k;
	const void *A, *B;
	void *C;
	int lda, ldb, ldc;
	void **buffers;       /* the task's A, B, C: named in error messages */
};

/* "C tile (3,1) 512x512", from the coordinates starpu_gemm_desc_create gives every tile;
 * a tile the user registered without coordinates is named by its address instead. */
static int describe_tile(char *buf, size_t len, const char *name, void *buffers[], int b)
{
	struct starpu_task *task = starpu_task_get_current();
	starpu_data_handle_t handle = task && (int)STARPU_TASK_GET_NBUFFERS(task) > b
	                              ? STARPU_TASK_GET_HANDLE(task, b) : NULL;
	int coords[2];
	int rows = (int)STARPU_MATRIX_GET_NX(buffers[b]), cols = (int)STARPU_MATRIX_GET_NY(buffers[b]);
	if (handle && starpu_data_get_coordinates_array(handle, 2, coords) == 2)
		return snprintf(buf, len, "%s tile (%d,%d) %dx%d", name, coords[0], coords[1], rows,
		                cols);
	return snprintf(buf, len, "%s tile at %p %dx%d", name,
	                (void *)STARPU_MATRIX_GET_PTR(buffers[b]), rows, cols);
}

static void call_failed_at(const char *file, int line, const struct gemm_call *call,
                           const char *what, const char *message)
{
	/* Name the worker and the tile: a failure on one GPU of one rank of many must be
	 * traceable to where it happened. */
	int worker = starpu_worker_get_id();
	char name[64] = "no worker", context[512];
	if (worker >= 0)
		starpu_worker_get_name(worker, name, sizeof(name));
	int n = snprintf(context, sizeof(context),
	                 "%cgemm on worker %d (%s): m %d n %d k %d, op(A) %c, op(B) %c",
	                 call->p->letter, worker, name, call->m, call->n, call->k, call->transA,
	                 call->transB);
	static const char *const names[3] = { "C", "A", "B" };
	for (int b = 0; call->buffers && b < 3 && n > 0 && (size_t)n < sizeof(context); b++) {
		int buffer = b == 0 ? 2 : b - 1;  /* C first: the tile being computed */
		n += snprintf(context + n, sizeof(context) - (size_t)n, ", ");
		if ((size_t)n < sizeof(context))
			n += describe_tile(context + n, sizeof(context) - (size_t)n, names[b], call->buffers,
			                   buffer);
	}
	sg_fatal(file, line, what, message, context);
}
#define call_failed(call, what, message) call_failed_at(__FILE__, __LINE__, call, what, message)

/* starpu_codelet_unpack_args copies each value with the size it was packed with, so an alpha
 * packed with the wrong type would overrun ours: check the four sizes through StarPU's
 * public unpacking API first. Returns NULL when the packing is the documented one. */
static const char *packing_error(struct starpu_task *task, size_t elemsize)
{
	int nargs = 0;
	if (!task || !task->cl_arg || task->cl_arg_size < sizeof(nargs))
		return "the task has no packed argument";
	memcpy(&nargs, task->cl_arg, sizeof(nargs));
	if (nargs != 4)
		return "the argument must be four STARPU_VALUEs: transA, transB, alpha, beta";
	const size_t sizes[4] = { sizeof(char), sizeof(char), elemsize, elemsize };
	struct starpu_codelet_pack_arg_data state;
	starpu_codelet_unpack_arg_init(&state, task->cl_arg, task->cl_arg_size);
	for (int a = 0; a < 4; a++) {
		void *value;
		size_t size;
		starpu_codelet_pick_arg(&state, &value, &size);
		if (size != sizes[a])
			return a < 2 ? "transA and transB must be packed as one char each"
			             : "alpha and beta must be packed with the precision's size";
	}
	return NULL;
}

/* A task's argument, checked first; trans letters normalised. alpha and beta may be NULL
 * (the footprint needs only the letters): unpacking stops at the first NULL. */
static void unpack_args(struct starpu_task *task, const struct sg_precision *p, char *transA,
                        char *transB, union scalar *alpha, union scalar *beta)
{
	const char *error = packing_error(task, sg_precision_of_c(p)->elemsize);
	if (error)
		sg_fatal(__FILE__, __LINE__, "starpu_codelet_unpack_args", error,
		         task && task->cl ? task->cl->name : NULL);
	char ta, tb;
	starpu_codelet_unpack_args(task->cl_arg, &ta, &tb, alpha, beta, 0);
	*transA = sg_trans(p->letter, ta);
	*transB = sg_trans(p->letter, tb);
	if (!*transA || !*transB)
		sg_fatal(__FILE__, __LINE__, "starpu_codelet_unpack_args",
		         "trans letters must be 'N', 'T' or 'C'", task->cl->name);
}

static void unpack_call(struct gemm_call *call, char prec, void *buffers[])
{
	call->p = sg_precision(prec);
	call->buffers = buffers;
	unpack_args(starpu_task_get_current(), call->p, &call->transA, &call->transB, &call->alpha,
	            &call->beta);
	/* Column-major: a matrix interface's nx is the number of rows. */
	call->m = (int)STARPU_MATRIX_GET_NX(buffers[2]);
	call->n = (int)STARPU_MATRIX_GET_NY(buffers[2]);
	call->k = (int)(call->transA == 'N' ? STARPU_MATRIX_GET_NY(buffers[0])
	                                    : STARPU_MATRIX_GET_NX(buffers[0]));
	call->A = (const void *)STARPU_MATRIX_GET_PTR(buffers[0]);
	call->B = (const void *)STARPU_MATRIX_GET_PTR(buffers[1]);
	call->C = (void *)STARPU_MATRIX_GET_PTR(buffers[2]);
	call->lda = (int)STARPU_MATRIX_GET_LD(buffers[0]);
	call->ldb = (int)STARPU_MATRIX_GET_LD(buffers[1]);
	call->ldc = (int)STARPU_MATRIX_GET_LD(buffers[2]);
	/* Users of starpu_gemm_codelet() bypass starpu_gemm_tile_insert's checks: a mismatch here
	 * would read or write outside the tiles. */
	int m_of_A = (int)(call->transA == 'N' ? STARPU_MATRIX_GET_NX(buffers[0])
	                                       : STARPU_MATRIX_GET_NY(buffers[0]));
	int k_of_B = (int)(call->transB == 'N' ? STARPU_MATRIX_GET_NX(buffers[1])
	                                       : STARPU_MATRIX_GET_NY(buffers[1]));
	int n_of_B = (int)(call->transB == 'N' ? STARPU_MATRIX_GET_NY(buffers[1])
	                                       : STARPU_MATRIX_GET_NX(buffers[1]));
	if (m_of_A != call->m || k_of_B != call->k || n_of_B != call->n)
		call_failed(call, "tile shapes", "op(A), op(B) and C do not conform");
	for (int b = 0; b < 3; b++)
		if (STARPU_MATRIX_GET_ELEMSIZE(buffers[b]) !=
		    (b < 2 ? call->p : sg_precision_of_c(call->p))->elemsize)
			call_failed(call, "tile element size", "a tile is not of the precision");
}

/* History key: the product's shape and the trans letters. StarPU's default footprint hashes
 * only the buffer sizes, which cannot tell N from T on square tiles or a tall op(A) from a
 * wide one, whose GEMM speeds differ. */
static uint32_t gemm_footprint(struct starpu_task *task, char prec)
{
	char transA, transB;
	unpack_args(task, sg_precision(prec), &transA, &transB, NULL, NULL);
	starpu_data_handle_t A = STARPU_TASK_GET_HANDLE(task, 0);
	starpu_data_handle_t C = STARPU_TASK_GET_HANDLE(task, 2);
	uint32_t m = starpu_matrix_get_nx(C), n = starpu_matrix_get_ny(C);
	uint32_t k = transA == 'N' ? starpu_matrix_get_ny(A) : starpu_matrix_get_nx(A);
	uint32_t hash = starpu_hash_crc32c_be(m, 0);
	hash = starpu_hash_crc32c_be(n, hash);
	hash = starpu_hash_crc32c_be(k, hash);
	hash = starpu_hash_crc32c_be((uint32_t)transA, hash);
	return starpu_hash_crc32c_be((uint32_t)transB, hash);
}

#ifdef STARPU_USE_CUDA
static cublasOperation_t cublas_op(char trans)
{
	return trans == 'N' ? CUBLAS_OP_N : trans == 'T' ? CUBLAS_OP_T : CUBLAS_OP_C;
}
#endif

#define SG_PASTE_(a, b) a##b
#define SG_PASTE(a, b) SG_PASTE_(a, b)

#define SG_SUFFIX s
#define SG_LETTER 's'
#define SG_NAME "starpu_gemm_sgemm"
#define SG_CUDA_TYPE float
#define SG_CUBLAS_GEMM cublasSgemm
#include "gemm_template.c"

#define SG_SUFFIX d
#define SG_LETTER 'd'
#define SG_NAME "starpu_gemm_dgemm"
#define SG_CUDA_TYPE double
#define SG_CUBLAS_GEMM cublasDgemm
#include "gemm_template.c"

#define SG_SUFFIX c
#define SG_LETTER 'c'
#define SG_NAME "starpu_gemm_cgemm"
#define SG_CUDA_TYPE cuComplex
#define SG_CUBLAS_GEMM cublasCgemm
#include "gemm_template.c"

#define SG_SUFFIX z
#define SG_LETTER 'z'
#define SG_NAME "starpu_gemm_zgemm"
#define SG_CUDA_TYPE cuDoubleComplex
#define SG_CUBLAS_GEMM cublasZgemm
#include "gemm_template.c"

/* The tensor-core kernels (issue 17): float C, alpha and beta; A and B of bfloat16 or half
 * bits ('b', 'h'), or float multiplied in TF32 ('t'). */
#define SG_SUFFIX b
#define SG_LETTER 'b'
#define SG_NAME "starpu_gemm_bgemm"
#define SG_CUDA_TYPE float
#define SG_CUBLAS_GEMM sg_cublas_bgemm
#include "gemm_template.c"

#define SG_SUFFIX h
#define SG_LETTER 'h'
#define SG_NAME "starpu_gemm_hgemm"
#define SG_CUDA_TYPE float
#define SG_CUBLAS_GEMM sg_cublas_hgemm
#include "gemm_template.c"

#define SG_SUFFIX t
#define SG_LETTER 't'
#define SG_NAME "starpu_gemm_tgemm"
#define SG_CUDA_TYPE float
#define SG_CUBLAS_GEMM sg_cublas_tgemm
#include "gemm_template.c"

/* In the table's order (common/precision.c), indexed by sg_precision_index: the table in
 * common/ cannot name these, as common/ is below the codelets room. */
static struct starpu_codelet *const codelets[][2] = {
	{ &codelet_s, &overwrite_codelet_s }, { &codelet_d, &overwrite_codelet_d },
	{ &codelet_c, &overwrite_codelet_c }, { &codelet_z, &overwrite_codelet_z },
	{ &codelet_b, &overwrite_codelet_b }, { &codelet_h, &overwrite_codelet_h },
	{ &codelet_t, &overwrite_codelet_t },
};

struct starpu_codelet *sg_gemm_codelet_of(const struct sg_precision *p, int overwrite)
{
	int i = p ? sg_precision_index(p) : -1;
	if (i < 0 || (size_t)i >= sizeof(codelets) / sizeof(codelets[0]))
		return NULL;
	return codelets[i][overwrite ? 1 : 0];
}

struct starpu_codelet *starpu_gemm_codelet(char prec)
{
	return sg_gemm_codelet_of(sg_precision(prec), 0);
}

struct starpu_codelet *sg_gemm_overwrite_codelet(char prec)
{
	return sg_gemm_codelet_of(sg_precision(prec), 1);
}

double starpu_gemm_tile_flops(char prec, int64_t m, int64_t n, int64_t k)
{
	const struct sg_precision *p = sg_precision(prec);
	return p ? (double)p->flops_per_fma * (double)m * (double)n * (double)k : 0.0;
}

size_t starpu_gemm_elemsize(char prec)
{
	const struct sg_precision *p = sg_precision(prec);
	return p ? p->elemsize : 0;
}
