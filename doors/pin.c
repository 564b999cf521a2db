#include <string.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <starpu.h>
#include "runtime/env.h"
#include "common/threads.h"
#include "doors/pin.h"

enum sg_pin_mode sg_pin_mode(void)
{
	const char *mode = sg_env_choice(SG_ENV_GEMM_PIN);
	if (!strcmp(mode, "all"))
		return SG_PIN_ALL;
	if (!strcmp(mode, "stage"))
		return SG_PIN_STAGE;
	if (!strcmp(mode, "none"))
		return SG_PIN_NONE;
	return SG_PIN_AUTO;
}

void sg_pin_set_add(struct sg_pin_set *set, const void *base, int64_t rows, int64_t cols,
                    int64_t ld, size_t elemsize)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = (uintptr_t)base & ~(page - 1);
	uintptr_t end = (uintptr_t)base + ((uintptr_t)(cols - 1) * ld + rows) * elemsize;
	uintptr_t hi = (end + page - 1) & ~(page - 1);
	/* Merge with every range it meets; merging may make two earlier ones meet, so restart. */
	for (int r = 0; r < set->n; r++) {
		if (lo < set->hi[r] && set->lo[r] < hi) {
			lo = lo < set->lo[r] ? lo : set->lo[r];
			hi = hi > set->hi[r] ? hi : set->hi[r];
			set->lo[r] = set->lo[--set->n];
			set->hi[r] = set->hi[set->n];
			r = -1;
		}
	}
	set->lo[set->n] = lo;
	set->hi[set->n] = hi;
	set->pinned[set->n++] = 0;
}

void sg_pin_set_pin(struct sg_pin_set *set)
{
	double t0 = sg_now();
	/* A refusal leaves the range as it was: memory the caller pinned is used as it is. */
	for (int r = 0; r < set->n; r++)
		set->pinned[r] = starpu_memory_pin((void *)set->lo[r], set->hi[r] - set->lo[r]) == 0;
	set->seconds += sg_now() - t0;
}

void sg_pin_set_unpin(struct sg_pin_set *set)
{
	for (int r = 0; r < set->n; r++)
		if (set->pinned[r])
			starpu_memory_unpin((void *)set->lo[r], set->hi[r] - set->lo[r]);
	set->n = 0;
}
