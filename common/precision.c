#include <ctype.h>
#include <float.h>
#include <complex.h>
#include "precision.h"
#include <starpu_gemm.h>

static const float one_s = 1.0f;
static const double one_d = 1.0;
static const float complex one_c = 1.0f;
static const double complex one_z = 1.0;

static struct sg_precision table[] = {
	{ 's', "float",          sizeof(float),          0, 2, FLT_EPSILON / 2, 0, &one_s },
	{ 'd', "double",         sizeof(double),         0, 2, DBL_EPSILON / 2, 0, &one_d },
	{ 'c', "float complex",  sizeof(float complex),  1, 8, FLT_EPSILON / 2, 0, &one_c },
	{ 'z', "double complex", sizeof(double complex), 1, 8, DBL_EPSILON / 2, 0, &one_z },
};

const struct sg_precision *sg_precision(char prec)
{
	prec = (char)tolower((unsigned char)prec);
	for (size_t p = 0; p < sizeof(table) / sizeof(table[0]); p++) {
		if (table[p].letter != prec)
			continue;
		/* Open MPI's datatypes are addresses of globals: not usable in a static initialiser
		 * under every MPI, so bind them on first use. */
		if (table[p].mpi_type == 0) {
			MPI_Datatype types[] = { MPI_FLOAT, MPI_DOUBLE, MPI_C_FLOAT_COMPLEX,
			                         MPI_C_DOUBLE_COMPLEX };
			table[p].mpi_type = types[p];
		}
		return &table[p];
	}
	return NULL;
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

int starpu_gemm_prec_is_complex(char prec)
{
	const struct sg_precision *p = sg_precision(prec);
	return p ? p->is_complex : 0;
}

char starpu_gemm_trans(char prec, char trans)
{
	return sg_precision(prec) ? sg_trans(prec, trans) : 0;
}
