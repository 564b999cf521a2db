/* The most square grid of n (rows <= columns): the driver's default P x Q, a rank's GPUs over
 * its C tiles, the grid of nodes StarPU-MPI's sends in flight are counted on. */
#ifndef SG_SQUARE_GRID_H
#define SG_SQUARE_GRID_H

#include <stdint.h>

/* Its rows: the largest divisor of n that is at most its square root (1 for n < 1). */
static inline int sg_square_grid_rows(int n)
{
	int rows = 1;
	for (int r = 1; (int64_t)r * r <= n; r++)
		if (n % r == 0)
			rows = r;
	return rows;
}

#endif
