/* The library's tiles of one node's ranks in shared memory (a file per rank in
 * STARPU_GEMM_SHM_DIR, /dev/shm by default, mapped by every rank of the node), so that a rank reads its node peers' A and B tiles
 * in place, from
 * its own GPUs or CPU workers, instead of receiving copies through MPI (between processes of
 * a node Open MPI moves 3-5 GB/s per rank, against 55 GB/s host links: docs/node-sharing.md).
 *
 * Each rank allocates its own tiles in its segment (reserved with posix_fallocate, so a full
 * /dev/shm is an error at creation, not a SIGBUS in a task; first touched by the owner, so near
 * its cores), in index order; every rank of the node finds every node peer's tile at the same
 * offset, computed from the owners alone. The objects are unlinked once every rank has mapped
 * them: nothing outlives the job (but a rank killed in between: the next job removes what it
 * left, remove_stale_segments), and a segment stays valid while any rank still maps it, so
 * destroying a descriptor is no collective. A peer's tile gets a second StarPU handle here (the
 * "reach" handle) over that memory, registered with StarPU-MPI as this rank's own: tasks this
 * rank runs read it with no message. The products (compute/pgemm.c) keep the two processes'
 * views coherent: owners bring their A and B tiles home before the node's ranks read them,
 * readers drop stale copies of the reach handles, and no owner writes its tiles again before
 * its peers' tasks are done (a node barrier at each end). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "distrib/desc.h"
#include "runtime/comm.h"
#include "common/errors.h"
#include "runtime/env.h"

/* 64 bytes: a cache line, and the alignment cuBLAS and the CPU kernels like. */
#define TILE_ALIGN 64

struct sg_node_share {
	int node_size;
	void **bases;   /* per node rank: its segment, as mapped here (NULL when empty) */
	size_t *sizes;
	int *pinned;
};

static size_t aligned(size_t bytes)
{
	return (bytes + TILE_ALIGN - 1) / TILE_ALIGN * TILE_ALIGN;
}

int sg_node_share_wanted(void)
{
	/* STARPU_GEMM_SHARE_NODE=0: every rank its own node (the multi-node path, measurable on
	 * one machine). */
	return sg_env_int(SG_ENV_GEMM_SHARE_NODE) != 0;
}

/* Collective over node: whether the node's ranks share this descriptor's tiles (more than
 * one rank on the node, and every one of them wants it), and the node rank of each rank of
 * d->comm (-1 off the node). */
static int decide(struct starpu_gemm_desc *d, MPI_Comm node, int *node_of_rank)
{
	int node_size, all_want;
	int *ranks = malloc((size_t)d->nranks * sizeof(int));
	/* -1: no memory here, which the node's ranks agree on with the wish. */
	int wanted = ranks ? sg_node_share_wanted() : -1;
	MPI_Comm_size(node, &node_size);
	SG_MPI_FATAL(MPI_Allreduce(&wanted, &all_want, 1, MPI_INT, MPI_MIN, node));
	if (node_size < 2 || all_want <= 0) {
		free(ranks);
		return all_want < 0 ? -ENOMEM : 0;
	}
	for (int r = 0; r < d->nranks; r++)
		ranks[r] = r;
	sg_node_ranks(d->comm, d->nranks, ranks, node_of_rank);
	free(ranks);
	return 1;
}

void sg_node_share_free(struct starpu_gemm_desc *d)
{
	struct sg_node_share *s = d->share;
	if (!s)
		return;
	for (int r = 0; s->bases && r < s->node_size; r++) {
		if (!s->bases[r])
			continue;
		if (s->pinned[r])
			starpu_memory_unpin(s->bases[r], s->sizes[r]);
		munmap(s->bases[r], s->sizes[r]);
	}
	free(s->bases);
	free(s->sizes);
	free(s->pinned);
	free(s);
	d->share = NULL;
	d->shared = 0;
}

/* The name of a rank's segment of one descriptor: its process id and its own count of
 * segments made, which its peers learn from it. */
static void segment_name(char *name, size_t len, long pid, unsigned long serial)
{
	snprintf(name, len, "%s/starpu_gemm.%ld.%lu", sg_env_choice(SG_ENV_GEMM_SHM_DIR), pid,
	         serial);
}

/* Segments a job left behind: a rank killed, or stuck, between making its segment and the
 * node's unlinking it (map_node) leaves its peers' and its own names in the folder, whose
 * memory then stays taken until someone removes them. Every process removes, once, the ones of
 * processes that no longer exist, if older than SG_STALE_SEGMENT_SECONDS: a live job's name
 * lasts only as long as its creation's collectives, and one taken for stale by mistake (a
 * process of another PID namespace) costs that job its sharing (its peers cannot map it: one
 * notice, MPI), not its result. */
#define SG_STALE_SEGMENT_SECONDS 600
static void remove_stale_segments(void)
{
	static int done;
	if (done)
		return;
	done = 1;
	const char *dir = sg_env_choice(SG_ENV_GEMM_SHM_DIR);
	DIR *d = opendir(dir);
	if (!d)
		return;
	time_t now = time(NULL);
	for (struct dirent *e; (e = readdir(d));) {
		long pid;
		unsigned long serial;
		char end;
		if (sscanf(e->d_name, "starpu_gemm.%ld.%lu%c", &pid, &serial, &end) != 2 || pid <= 0 ||
		    pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		char path[4200];
		struct stat st;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
		    difftime(now, st.st_mtime) > SG_STALE_SEGMENT_SECONDS)
			unlink(path);
	}
	closedir(d);
}

/* This rank's segment: made, reserved and mapped; 0 or -errno. */
static int make_segment(const char *name, size_t bytes, void **base)
{
	*base = NULL;
	if (!bytes)
		return 0;
	int fd = open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		return -errno;
	int ret = posix_fallocate(fd, 0, (off_t)bytes);
	if (!ret) {
		*base = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		ret = *base == MAP_FAILED ? errno : 0;
		if (ret)
			*base = NULL;
	}
	close(fd);
	if (ret)
		unlink(name);
	return -ret;
}

static int map_segment(const char *name, size_t bytes, void **base)
{
	*base = NULL;
	if (!bytes)
		return 0;
	int fd = open(name, O_RDWR);
	if (fd < 0)
		return -errno;
	*base = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	int ret = *base == MAP_FAILED ? -errno : 0;
	if (ret)
		*base = NULL;
	close(fd);
	return ret;
}

/* Collective over node: every rank's segment made, then mapped by all; unlinked after.
 * -ENOSPC when a rank failed, *reason then the largest errno of the node's failures (the same
 * on every rank: what the one notice names). */
static int map_node(struct sg_node_share *s, MPI_Comm node, size_t mine, int *reason)
{
	static unsigned long serial;
	int me;
	MPI_Comm_rank(node, &me);
	struct { long pid; unsigned long serial; unsigned long long bytes; }
		self = { (long)getpid(), serial++, mine },
		*all = malloc((size_t)s->node_size * sizeof(*all));
	char name[4200];
	remove_stale_segments();
	segment_name(name, sizeof(name), self.pid, self.serial);
	int ret = all ? make_segment(name, mine, &s->bases[me]) : -ENOMEM;
	s->sizes[me] = mine;
	int failed = -ret, any_failed; /* an errno, 0 if none */
	SG_MPI_FATAL(MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, node));
	if (!any_failed)
		SG_MPI_FATAL(MPI_Allgather(&self, sizeof(self), MPI_BYTE, all, sizeof(self), MPI_BYTE,
		                           node));
	for (int nr = 0; !any_failed && nr < s->node_size; nr++) {
		if (nr == me)
			continue;
		char peer[4200];
		segment_name(peer, sizeof(peer), all[nr].pid, all[nr].serial);
		s->sizes[nr] = (size_t)all[nr].bytes;
		int mapped = map_segment(peer, s->sizes[nr], &s->bases[nr]);
		if (mapped && !failed)
			failed = -mapped;
	}
	/* Mapped everywhere (or given up): the name can go, the memory stays while mapped. */
	SG_MPI_FATAL(MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, node));
	if (mine && s->bases[me])
		unlink(name);
	free(all);
	*reason = any_failed;
	return any_failed ? -ENOSPC : 0;
}

int sg_node_share_alloc(struct starpu_gemm_desc *d, int *reason)
{
	*reason = 0;
	MPI_Comm node = sg_node_comm(d->comm);
	int *node_of_rank = malloc((size_t)d->nranks * sizeof(int));
	int ret = node_of_rank ? 0 : -ENOMEM, all_ret;
	SG_MPI_FATAL(MPI_Allreduce(&ret, &all_ret, 1, MPI_INT, MPI_MIN, node));
	if (!all_ret)
		all_ret = decide(d, node, node_of_rank);
	if (all_ret <= 0) {
		free(node_of_rank);
		return all_ret;
	}
	int node_size;
	MPI_Comm_size(node, &node_size);
	struct sg_node_share *s = calloc(1, sizeof(*s));
	if (s) {
		s->node_size = node_size;
		s->bases = calloc((size_t)node_size, sizeof(*s->bases));
		s->sizes = calloc((size_t)node_size, sizeof(*s->sizes));
		s->pinned = calloc((size_t)node_size, sizeof(*s->pinned));
	}
	d->share = s;
	d->peer = calloc((size_t)d->mt * d->nt, sizeof(*d->peer));
	d->on_node = calloc((size_t)d->nranks, 1);
	d->reach = calloc((size_t)d->mt * d->nt, sizeof(*d->reach));
	size_t *offset = calloc((size_t)d->nranks, sizeof(*offset));
	/* The mapping is collective over the node: every rank goes on to it, or none does. */
	int ok = s && s->bases && s->sizes && s->pinned && d->peer && d->on_node && d->reach &&
	         offset, all_ok;
	SG_MPI_FATAL(MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, node));
	if (all_ok) {
		for (int64_t t = 0; t < (int64_t)d->mt * d->nt; t++)
			if (d->owners[t] == d->rank)
				offset[d->rank] += aligned(sg_desc_tile_bytes(d, t));
		ret = map_node(s, node, offset[d->rank], reason);
	} else {
		ret = -ENOMEM;
	}
	if (ret) {
		free(offset);
		free(node_of_rank);
		return ret;
	}
	/* Every tile of the node at its place in its owner's segment. */
	memset(offset, 0, (size_t)d->nranks * sizeof(*offset));
	for (int64_t t = 0; t < (int64_t)d->mt * d->nt; t++) {
		int o = d->owners[t], nr = node_of_rank[o];
		if (nr < 0)
			continue;
		char *at = (char *)s->bases[nr] + offset[o];
		offset[o] += aligned(sg_desc_tile_bytes(d, t));
		if (o == d->rank) {
			d->tiles[t] = at;
			d->lds[t] = sg_desc_extent(d->m, d->tile, (int)(t % d->mt));
		} else {
			d->peer[t] = at;
		}
	}
	for (int r = 0; r < d->nranks; r++)
		d->on_node[r] = node_of_rank[r] >= 0 && r != d->rank;
	free(offset);
	free(node_of_rank);
	/* The GPUs read every segment of the node by DMA: pinned in this process too (where
	 * pinning fails, transfers are slower, results the same). */
	for (int nr = 0; starpu_cuda_worker_get_count() > 0 && nr < node_size; nr++)
		if (s->bases[nr])
			s->pinned[nr] = starpu_memory_pin(s->bases[nr], s->sizes[nr]) == 0;
	d->shared = 1;
	return 0;
}
