/* Per-precision facts, in one table, so no module switches on 's','d','c','z' itself. */
#ifndef SG_PRECISION_H
#define SG_PRECISION_H

#include <stddef.h>
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

#endif
