/* Host memory of simulated ranks (StarPU+SimGrid), where no result is computed: tiles, and
 * the copies StarPU makes of them in host memory, are address ranges that every rank can
 * pass around but nothing needs to fill. StarPU's own folding (STARPU_MALLOC_SIMULATION_FOLDED
 * under SMPI) maps SMPI's shared file over them with MAP_POPULATE: a page-table entry for
 * every 4 KiB of every tile of every simulated rank, gigabytes of page tables and most of an
 * hour of kernel time for large clusters (bench/results/sim-notes.md). Here the same
 * fold is made lazily: one file block of FOLD_BLOCK bytes, mapped over each allocation
 * without populating it, costs nothing until written, and whatever writes it (nothing in the
 * product does) shares those few pages. Allocations smaller than FOLD_MIN (the simulated
 * collectives' messages, which carry real values) get memory of their own. Compiled empty in
 * real builds. */
#include <starpu_config.h>
#ifdef STARPU_SIMGRID
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include <starpu.h>
#include "runtime/comm.h"

#define FOLD_BLOCK ((size_t)256 << 20)
#define FOLD_MIN ((size_t)1 << 20)

static int fold_fd = -1; /* one per simulated rank (SMPI privatises this file's globals) */

static int folded(size_t dim, int flags)
{
	return (flags & STARPU_MALLOC_SIMULATION_FOLDED) && dim >= FOLD_MIN;
}

static int fold_malloc(unsigned node, void **ptr, size_t dim, int flags)
{
	(void)node;
	if (!folded(dim, flags))
		return posix_memalign(ptr, 64, dim) == 0 ? 0 : -ENOMEM;
	if (fold_fd < 0) {
		int fd = memfd_create("starpu_gemm-fold", MFD_CLOEXEC);
		if (fd < 0 || ftruncate(fd, (off_t)FOLD_BLOCK) != 0) {
			if (fd >= 0)
				close(fd);
			return -ENOMEM;
		}
		fold_fd = fd;
	}
	char *p = mmap(NULL, dim, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
	               MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -ENOMEM;
	for (size_t off = 0; off < dim; off += FOLD_BLOCK) {
		size_t len = dim - off < FOLD_BLOCK ? dim - off : FOLD_BLOCK;
		if (mmap(p + off, len, PROT_READ | PROT_WRITE, MAP_FIXED | MAP_SHARED, fold_fd, 0) ==
		    MAP_FAILED) {
			munmap(p, dim);
			return -ENOMEM;
		}
	}
	*ptr = p;
	return 0;
}

static int fold_free(unsigned node, void *ptr, size_t dim, int flags)
{
	(void)node;
	if (folded(dim, flags))
		munmap(ptr, dim);
	else
		free(ptr);
	return 0;
}

void sg_sim_fold_memory(void)
{
	starpu_malloc_set_hooks(fold_malloc, fold_free);
}
#endif
