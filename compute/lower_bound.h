/* How many words any schedule must move into one of p processors (nodes) that share a GEMM's
 * work evenly: the memory-independent lower bound of Al Daas, Ballard, Grigori, Kumar and
 * Rouse ("Tight memory-independent parallel matrix multiplication communication lower
 * bounds", SPAA 2022), the one COSMA and CA3DMM print their volumes against. Pure. */
#ifndef SG_LOWER_BOUND_H
#define SG_LOWER_BOUND_H

#include <stdint.h>

/* Words of A, B and C a processor must receive or send, at least, for C (m x n) += A (m x k)
 * B (k x n) on p processors each doing 1/p of the m n k products, beyond the 1/p of each
 * matrix it may hold at the start. 0 for p <= 1. */
double sg_io_lower_bound_words(int64_t m, int64_t n, int64_t k, double p);

#endif
