/* Per-precision facts, in one table, so no module switches on the letters itself.
 *
 * A letter names a product's kernel: 's','d','c','z' (A, B and C of one type), 'b' and 'h'
 * (bfloat16 or half A and B, float C and alpha/beta, float accumulation) and 't' (float A, B
 * and C multiplied on tensor cores in TF32: cuBLAS's CUBLAS_COMPUTE_32F_FAST_TF32). Matrices
 * (descriptors, random elements, gathers) are of the letters that are their own storage
 * (stored == letter): all but 't', whose operands are 's' matrices. */
#ifndef SG_PRECISION_H
#define SG_PRECISION_H

#include <complex.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <mpi.h>
#include "common/half.h"

/* How one element of a matrix of the letter is stored. */
enum sg_format { SG_F32, SG_F64, SG_C32, SG_C64, SG_BF16, SG_F16 };

struct sg_precision {
	char letter;            /* 's','d','c','z','b','h','t' */
	const char *name;       /* "float", ..., "bfloat16 x bfloat16 -> float", ... */
	enum sg_format format;  /* storage of A and B (of any matrix of this letter) */
	size_t elemsize;        /* bytes of one element of A and B */
	char stored;            /* letter of A's and B's matrices: itself, 's' for 't' */
	char c_letter;          /* letter of C, alpha and beta: itself, 's' for 'b','h','t' */
	int is_complex;
	int flops_per_fma;      /* 2 for real, 8 for complex */
	double eps;             /* unit roundoff of the accumulation and of C */
	double input_eps;       /* what the kernel's rounding of A and B can cost, relative (TF32
	                         * keeps 10 of float's 23 mantissa bits: 2^-10, covering
	                         * truncation); 0 when they are multiplied as stored */
	char ref_letter;        /* what check/ computes its reference in: itself for s/d/c/z,
	                         * 'd' for the mixed ones (their inputs are exact in double) */
	MPI_Datatype mpi_type;  /* resolved at run time: MPI handles are not constants in every MPI */
	const void *one;        /* the scalar 1 of C's type (beta for every update after the first) */
	const void *zero;       /* the scalar 0 of C's type */
	/* Entry points, so that no layer switches on the letter. Only those that need nothing
	 * but C live here: this file is compiled into the ScaLAPACK door too, without BLAS. Rooms
	 * with their own dependencies keep their kernels beside them, indexed by the entry
	 * (sg_precision_index: codelets/gemm_codelets.c) or by its format (common/blas.c,
	 * codelets/add_codelets.c), as common/ may not include codelets/. */
	/* x[i] *= *beta for count elements of C's type (p a precision of C: s/d/c/z); with
	 * beta = 0, zeros written without reading x, as BLAS does. */
	void (*scale)(void *x, int64_t count, const void *beta);
	/* c[i] = *beta * c[i] + t[i] for count elements of C's type (p a precision of C); with
	 * beta = 0, c[i] = t[i], c not read (a NaN there stays out, as BLAS). */
	void (*add)(void *c, const void *t, int64_t count, const void *beta);
	/* *value = re + i im in C's type (p a precision of C). */
	void (*scalar)(void *value, double re, double im);
};

/* A C going back to the caller's memory as C = T + beta*C, T holding alpha*op(A)*op(B) alone
 * (the doors' product with beta = 0, beta added on the way back: doors/stage.c,
 * doors/redistribute.c). p NULL: T is copied over C. */
struct sg_add_back {
	const struct sg_precision *p; /* of C */
	_Alignas(16) unsigned char beta[16]; /* of C's type, aligned as the add reads it */
};
/* Sets a to add beta (of pc's type) on the way back. */
static inline void sg_add_back_set(struct sg_add_back *a, const struct sg_precision *pc,
                                   const void *beta)
{
	a->p = pc;
	memcpy(a->beta, beta, pc->elemsize);
}
/* C = T + beta*C over count elements as a says (a->p set). */
static inline void sg_add_back(const struct sg_add_back *a, void *c, const void *t,
                               int64_t count)
{
	a->p->add(c, t, count, a->beta);
}

/* NULL for an unknown letter. Lower or upper case accepted. */
const struct sg_precision *sg_precision(char prec);
/* p's position in the table: what a room above common/ indexes its own per-precision table
 * with (in the table's order). */
int sg_precision_index(const struct sg_precision *p);
/* The precision of C (and alpha, beta) of a product of p: p itself for s/d/c/z. */
const struct sg_precision *sg_precision_of_c(const struct sg_precision *p);
/* A product's kernel letter from its operands' letter and a math mode
 * (STARPU_GEMM_MATH_*): 't' for 's' with TF32; 0 when the mode does not apply. */
char sg_kernel(char prec, int math);

/* Normalise a trans letter: 'N','T','C' (case-insensitive); 'C' becomes 'T' for real
 * precisions. Returns 0 for an invalid letter. */
char sg_trans(char prec, char trans);

/* Element idx of x as a double complex, whatever the precision, so one loop serves all of
 * them (imaginary part 0 for real precisions). p describes x's storage (A's and B's). */
static inline double complex sg_load(const struct sg_precision *p, const void *x, int64_t idx)
{
	switch (p->format) {
	case SG_F32: return ((const float *)x)[idx];
	case SG_F64: return ((const double *)x)[idx];
	case SG_C32: return ((const float complex *)x)[idx];
	case SG_C64: return ((const double complex *)x)[idx];
	case SG_BF16: return sg_bf16_to_float(((const uint16_t *)x)[idx]);
	case SG_F16: return sg_half_to_float(((const uint16_t *)x)[idx]);
	}
	return 0;
}

/* x[idx] = v, rounded to the precision (the imaginary part dropped for real ones; bfloat16
 * and half through float, as the GPUs round). */
static inline void sg_store(const struct sg_precision *p, void *x, int64_t idx, double complex v)
{
	switch (p->format) {
	case SG_F32: ((float *)x)[idx] = (float)creal(v); break;
	case SG_F64: ((double *)x)[idx] = creal(v); break;
	case SG_C32: ((float complex *)x)[idx] = (float complex)v; break;
	case SG_C64: ((double complex *)x)[idx] = v; break;
	case SG_BF16: ((uint16_t *)x)[idx] = sg_float_to_bf16((float)creal(v)); break;
	case SG_F16: ((uint16_t *)x)[idx] = sg_float_to_half((float)creal(v)); break;
	}
}

#endif
