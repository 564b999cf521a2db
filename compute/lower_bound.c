#include <math.h>
#include "compute/lower_bound.h"

/* A processor that does w = mnk/p of the products touches |A_i| + |B_i| + |C_i| elements,
 * where |A_i| |B_i| |C_i| >= w^2 (Loomis-Whitney) and each is at least w over the dimension
 * it misses (an element of A is in n products, of B in m, of C in k). The least sum puts the
 * three equal, but for those whose own floor is higher, which stay there (the paper's three
 * cases: none, one or two of them at their floor). */
double sg_io_lower_bound_words(int64_t m, int64_t n, int64_t k, double p)
{
	if (p <= 1 || m <= 0 || n <= 0 || k <= 0)
		return 0;
	double w = (double)m * n * k / p;
	double floor_of[3] = { w / n, w / m, w / k }; /* A, B, C */
	for (int i = 0; i < 2; i++) /* descending */
		for (int j = 0; j < 2 - i; j++)
			if (floor_of[j] < floor_of[j + 1]) {
				double t = floor_of[j];
				floor_of[j] = floor_of[j + 1];
				floor_of[j + 1] = t;
			}
	double touched = floor_of[0] + floor_of[1] + floor_of[2];
	for (int pinned = 0; pinned < 3; pinned++) {
		double rest = w * w, sum = 0;
		for (int i = 0; i < pinned; i++) {
			rest /= floor_of[i];
			sum += floor_of[i];
		}
		double side = pow(rest, 1.0 / (3 - pinned)); /* the others, equal */
		if (side >= floor_of[pinned]) {
			touched = sum + (3 - pinned) * side;
			break;
		}
	}
	double held = ((double)m * k + (double)k * n + (double)m * n) / p;
	return touched > held ? touched - held : 0;
}
