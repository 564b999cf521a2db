/* Per-precision facts, in one table, so no module switches on 's','d','c','z' itself. */
#ifndef SG_PRECISION_H
#define SG_PRECISION_H

#include <complex.h>
#include <stddef.h>
#include <stdint.h>
#include <mpi.h>

struct sg_precision {
	char letter;            /* 's', 'd', 'c', 'z' */
	const char *name;       /* "float", "double", "float complex", "double complex" */
	size_t elemsize;        /* bytes of one element */
	int is_complex;
	int flops_per_fma;      /* 2 for real, 8 for complex */
	double eps;             /* unit roundoff of the real part's type */
	MPI_Datatype mpi_type;  /* resolved at run time: MPI handles are not constants in every MPI */
	const void *one;        /* the scalar 1 of this type (beta for every update after the first) */
};

/* NULL for an unknown letter. Lower or upper case accepted. */
const struct sg_precision *sg_precision(char prec);

/* Normalise a trans letter: 'N','T','C' (case-insensitive); 'C' becomes 'T' for real
 * precisions. Returns 0 for an invalid letter. */
char sg_trans(char prec, char trans);

/* Element idx of x as a double complex, whatever the precision, so one loop serves all four
 * (imaginary part 0 for real precisions). */
static inline double complex sg_load(const struct sg_precision *p, const void *x, int64_t idx)
{
	if (p->is_complex)
		return p->elemsize == sizeof(float complex) ? ((const float complex *)x)[idx]
		                                            : ((const double complex *)x)[idx];
	return p->elemsize == sizeof(float) ? ((const float *)x)[idx] : ((const double *)x)[idx];
}

/* x[idx] = v, rounded to the precision (the imaginary part dropped for real ones). */
static inline void sg_store(const struct sg_precision *p, void *x, int64_t idx, double complex v)
{
	if (p->is_complex) {
		if (p->elemsize == sizeof(float complex))
			((float complex *)x)[idx] = (float complex)v;
		else
			((double complex *)x)[idx] = v;
	} else if (p->elemsize == sizeof(float)) {
		((float *)x)[idx] = (float)creal(v);
	} else {
		((double *)x)[idx] = creal(v);
	}
}

#endif
