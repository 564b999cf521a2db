#include <ctype.h>
#include <float.h>
#include <string.h>
#include <complex.h>
#include "precision.h"
#include <starpu_gemm.h>

static const float one_s = 1.0f;
static const double one_d = 1.0;
static const float complex one_c = 1.0f;
static const double complex one_z = 1.0;
static const double complex zero_all = 0; /* 0 in every precision's bits */

/* The scaling, the add and the scalar of each type of C, written once for the four. A complex
 * product is written out as BLAS computes it: C's own multiplication recovers infinities from
 * NaN parts (C99 Annex G), so that Inf + Inf i times 2 gave Inf + Inf i where BLAS gives NaN;
 * and with beta = 1 the add multiplies nothing, as BLAS (a complex C of Inf + 0i times 1 + 0i
 * would get a NaN imaginary part). Memory-bound: the compiler vectorises the real loops. */
#define SG_C_SCALAR(X, T, MAKE)                                                                \
	static void scalar_##X(void *value, double re, double im)                              \
	{                                                                                      \
		(void)im;                                                                      \
		*(T *)value = MAKE;                                                            \
	}
#define SG_C_REAL(X, T)                                                                        \
	static void scale_##X(void *x, int64_t count, const void *beta)                        \
	{                                                                                      \
		if (*(const T *)beta == 0)                                                     \
			memset(x, 0, (size_t)count * sizeof(T));                               \
		else                                                                           \
			for (int64_t i = 0; i < count; i++)                                    \
				((T *)x)[i] *= *(const T *)beta;                               \
	}                                                                                      \
	static void add_##X(void *c, const void *t, int64_t count, const void *beta)           \
	{                                                                                      \
		T b = *(const T *)beta, *y = c;                                                \
		const T *x = t;                                                                \
		if (b == 1)                                                                    \
			for (int64_t i = 0; i < count; i++)                                    \
				y[i] += x[i];                                                  \
		else if (b == 0) /* BLAS: C not read */                                        \
			memcpy(y, x, (size_t)count * sizeof(T));                               \
		else                                                                           \
			for (int64_t i = 0; i < count; i++)                                    \
				y[i] = b * y[i] + x[i];                                        \
	}                                                                                      \
	SG_C_SCALAR(X, T, (T)re)
#define SG_C_COMPLEX(X, T, PART, RE, IM, MAKE)                                                 \
	static void scale_##X(void *x, int64_t count, const void *beta)                        \
	{                                                                                      \
		PART br = RE(*(const T *)beta), bi = IM(*(const T *)beta);                     \
		if (br == 0 && bi == 0) {                                                      \
			memset(x, 0, (size_t)count * sizeof(T));                               \
			return;                                                                \
		}                                                                              \
		for (int64_t i = 0; i < count; i++) {                                          \
			PART xr = RE(((T *)x)[i]), xi = IM(((T *)x)[i]);                       \
			((T *)x)[i] = MAKE(br * xr - bi * xi, br * xi + bi * xr);              \
		}                                                                              \
	}                                                                                      \
	static void add_##X(void *c, const void *t, int64_t count, const void *beta)           \
	{                                                                                      \
		PART br = RE(*(const T *)beta), bi = IM(*(const T *)beta);                     \
		T *y = c;                                                                      \
		const T *x = t;                                                                \
		if (br == 1 && bi == 0)                                                        \
			for (int64_t i = 0; i < count; i++)                                    \
				y[i] = MAKE(RE(y[i]) + RE(x[i]), IM(y[i]) + IM(x[i]));         \
		else if (br == 0 && bi == 0) /* BLAS: C not read */                            \
			memcpy(y, x, (size_t)count * sizeof(T));                               \
		else                                                                           \
			for (int64_t i = 0; i < count; i++) {                                  \
				PART yr = RE(y[i]), yi = IM(y[i]);                             \
				y[i] = MAKE(br * yr - bi * yi + RE(x[i]),                      \
				            br * yi + bi * yr + IM(x[i]));                     \
			}                                                                      \
	}                                                                                      \
	SG_C_SCALAR(X, T, MAKE((PART)re, (PART)im))
SG_C_REAL(s, float)
SG_C_REAL(d, double)
SG_C_COMPLEX(c, float complex, float, crealf, cimagf, CMPLXF)
SG_C_COMPLEX(z, double complex, double, creal, cimag, CMPLX)
#undef SG_C_REAL
#undef SG_C_COMPLEX
#undef SG_C_SCALAR
#define C_OF(x) .zero = &zero_all, .scale = scale_##x, .add = add_##x, .scalar = scalar_##x

#define REAL(l, n, f, size, st, c, e, in, ref, o, cx) \
	{ .letter = l, .name = n, .format = f, .elemsize = size, .stored = st, .c_letter = c, \
	  .is_complex = 0, .flops_per_fma = 2, .eps = e, .input_eps = in, .ref_letter = ref, \
	  .one = o, C_OF(cx) }
static struct sg_precision table[] = {
	REAL('s', "float", SG_F32, sizeof(float), 's', 's', FLT_EPSILON / 2, 0, 's', &one_s, s),
	REAL('d', "double", SG_F64, sizeof(double), 'd', 'd', DBL_EPSILON / 2, 0, 'd', &one_d, d),
	{ .letter = 'c', .name = "float complex", .format = SG_C32, .elemsize = sizeof(float complex),
	  .stored = 'c', .c_letter = 'c', .is_complex = 1, .flops_per_fma = 8,
	  .eps = FLT_EPSILON / 2, .ref_letter = 'c', .one = &one_c, C_OF(c) },
	{ .letter = 'z', .name = "double complex", .format = SG_C64,
	  .elemsize = sizeof(double complex), .stored = 'z', .c_letter = 'z', .is_complex = 1,
	  .flops_per_fma = 8, .eps = DBL_EPSILON / 2, .ref_letter = 'z', .one = &one_z, C_OF(z) },
	/* Products of two bfloat16 or two halves are exact in float: the only rounding is the
	 * float accumulation's. */
	REAL('b', "bfloat16 x bfloat16 -> float", SG_BF16, sizeof(uint16_t), 'b', 's',
	     FLT_EPSILON / 2, 0, 'd', &one_s, s),
	REAL('h', "half x half -> float", SG_F16, sizeof(uint16_t), 'h', 's', FLT_EPSILON / 2, 0,
	     'd', &one_s, s),
	REAL('t', "float in TF32", SG_F32, sizeof(float), 's', 's', FLT_EPSILON / 2, 0x1p-10, 'd',
	     &one_s, s),
};
#undef REAL
#undef C_OF
#define NPREC (sizeof(table) / sizeof(table[0]))

/* Open MPI's datatypes are addresses of globals: not usable in a static initialiser under
 * every MPI, so each entry's is bound on first use, from its storage. bfloat16 and half
 * travel as bits. */
static MPI_Datatype mpi_type_of(enum sg_format format)
{
	switch (format) {
	case SG_F32: return MPI_FLOAT;
	case SG_F64: return MPI_DOUBLE;
	case SG_C32: return MPI_C_FLOAT_COMPLEX;
	case SG_C64: return MPI_C_DOUBLE_COMPLEX;
	case SG_BF16: case SG_F16: return MPI_UINT16_T;
	}
	return MPI_DATATYPE_NULL;
}

const struct sg_precision *sg_precision(char prec)
{
	prec = (char)tolower((unsigned char)prec);
	for (size_t p = 0; p < NPREC; p++) {
		if (table[p].letter != prec)
			continue;
		if (table[p].mpi_type == 0)
			table[p].mpi_type = mpi_type_of(table[p].format);
		return &table[p];
	}
	return NULL;
}

int sg_precision_index(const struct sg_precision *p)
{
	return (int)(p - table);
}

const struct sg_precision *sg_precision_of_c(const struct sg_precision *p)
{
	return p ? sg_precision(p->c_letter) : NULL;
}

char sg_kernel(char prec, int math)
{
	const struct sg_precision *p = sg_precision(prec);
	if (!p || p->stored != p->letter)
		return 0;
	if (math == STARPU_GEMM_MATH_DEFAULT)
		return p->letter;
	return math == STARPU_GEMM_MATH_TF32 && p->letter == 's' ? 't' : 0;
}

char sg_trans(char prec, char trans)
{
	const struct sg_precision *p = sg_precision(prec);
	trans = (char)toupper((unsigned char)trans);
	if (!p || (trans != 'N' && trans != 'T' && trans != 'C'))
		return 0;
	return (trans == 'C' && !p->is_complex) ? 'T' : trans;
}

char starpu_gemm_prec_letter(char prec)
{
	const struct sg_precision *p = sg_precision(prec);
	return p ? p->letter : 0;
}

char starpu_gemm_prec_of_c(char prec)
{
	const struct sg_precision *p = sg_precision(prec);
	return p ? p->c_letter : 0;
}

int starpu_gemm_prec_is_complex(char prec)
{
	const struct sg_precision *p = sg_precision(prec);
	return p ? p->is_complex : 0;
}

void starpu_gemm_scalar(char prec, double re, double im, void *value)
{
	const struct sg_precision *p = sg_precision(prec);
	if (p)
		sg_precision_of_c(p)->scalar(value, re, im);
}

char starpu_gemm_trans(char prec, char trans)
{
	return sg_precision(prec) ? sg_trans(prec, trans) : 0;
}
