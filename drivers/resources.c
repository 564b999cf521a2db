#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "drivers/resources.h"
#include "drivers/collectives.h"
#include "runtime/env.h"
#include <starpu_gemm.h>

/* Every distribution the driver offers owns a product set of tiles that repeats every nranks
 * tiles along each dimension: rank owns (i,j) iff it owns (i,j0) and (i0,j), for any tile
 * (i0,j0) it owns. Elements of the dimension of length n that fall on tiles the rank owns,
 * the other coordinate fixed at other. */
static double owned_extent(const struct starpu_gemm_dist *dist, int rank, int along_rows,
                           int other, int64_t n, int tile)
{
	int period = dist->P * dist->Q;
	int64_t ntiles = (n + tile - 1) / tile;
	double extent = 0;
	for (int k = 0; k < period && k < ntiles; k++) {
		int owner = along_rows ? starpu_gemm_dist_owner(dist, k, other) : starpu_gemm_dist_owner(dist, other, k);
		if (owner != rank)
			continue;
		extent += (double)((ntiles - 1 - k) / period + 1) * tile; /* tiles k, k+period, ... */
		if ((ntiles - 1) % period == k) /* the last, possibly short, tile is ours */
			extent -= (double)(ntiles * tile - n);
	}
	return extent;
}

static double owned_matrix_bytes(const struct sg_driver_options *opts, int rank, int64_t rows,
                                 int64_t cols, char prec)
{
	struct starpu_gemm_dist dist = { .kind = opts->dist, .P = opts->P, .Q = opts->Q };
	int nranks = opts->P * opts->Q, tile = opts->gemm.tile;
	int64_t mt = (rows + tile - 1) / tile, nt = (cols + tile - 1) / tile;
	for (int i = 0; i < mt && i < nranks; i++)
		for (int j = 0; j < nt && j < nranks; j++)
			if (starpu_gemm_dist_owner(&dist, i, j) == rank)
				return owned_extent(&dist, rank, 1, j, rows, tile) *
				       owned_extent(&dist, rank, 0, i, cols, tile) *
				       (double)starpu_gemm_elemsize(prec);
	return 0;
}

double sg_driver_owned_bytes(const struct sg_driver_options *opts, int rank)
{
	double bytes = 0;
	for (int x = 0; x < 3; x++)
		bytes += owned_matrix_bytes(opts, rank, sg_options_stored_rows(opts, x),
		                            sg_options_stored_cols(opts, x),
		                            x == 2 ? starpu_gemm_prec_of_c(opts->prec) : opts->prec);
	return bytes;
}

const char *sg_driver_format_bytes_to(double bytes, int gb_decimals, char *buf, size_t len)
{
	/* Decimal, as the plan's bytes and every rate (GB/s) are: one unit for bytes in all the
	 * driver prints. */
	static const char *units[] = { "B", "kB", "MB", "GB", "TB", "PB", "EB" };
	size_t u = 0;
	while (bytes >= 1000.0 && u + 1 < sizeof(units) / sizeof(units[0])) {
		bytes /= 1000.0;
		u++;
	}
	snprintf(buf, len, "%.*f %s", u == 0 ? 0 : u >= 3 ? gb_decimals : 1, bytes, units[u]);
	return buf;
}

const char *sg_driver_format_bytes(double bytes, char *buf, size_t len)
{
	return sg_driver_format_bytes_to(bytes, 1, buf, len);
}

int sg_driver_check_host_memory(const struct sg_driver_options *opts,
                                const struct starpu_gemm_plan *plan, MPI_Comm host, char *err,
                                size_t errlen)
{
	int rank, host_ranks;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(host, &host_ranks);
	double beside = plan ? plan->host_bytes : 0;
	double need = sg_driver_owned_bytes(opts, rank) + beside, host_need = 0;
	sg_driver_allreduce(&need, &host_need, 1, sizeof(double), MPI_DOUBLE, MPI_SUM, host);

	/* A per-process limit (STARPU_LIMIT_CPU_MEM) bounds each rank; otherwise the node's ranks
	 * share its available memory, however unevenly they own tiles. */
	const char *source;
	double per_rank = starpu_gemm_host_memory(host_ranks, &source);
	double available = per_rank * host_ranks;
	int per_process = strcmp(source, "STARPU_LIMIT_CPU_MEM") == 0;
	if (per_process ? need <= per_rank : host_need <= available)
		return 0;
	char need_text[32], host_text[32], avail_text[32], bytes[32], beside_text[128] = "";
	char source_text[64];
	if (plan)
		snprintf(beside_text, sizeof(beside_text), " and %s of StarPU handles, tasks and "
		         "tiles in flight", sg_driver_format_bytes(beside, bytes, sizeof(bytes)));
	/* StarPU reads its limit in MiB and we print decimal units: say the value as given. */
	if (per_process)
		snprintf(source_text, sizeof(source_text), "%s=%lld MiB, per rank", source,
		         (long long)sg_env_int(SG_ENV_LIMIT_CPU_MEM));
	else
		snprintf(source_text, sizeof(source_text), "%s", source);
	snprintf(err, errlen, "-M/-N/-K: matrices too large for host memory: rank %d needs %s for "
	         "the A, B and C tiles it owns%s (%s for the %d rank(s) on its host) but only %s is "
	         "available (%s)", rank,
	         sg_driver_format_bytes(need - beside, need_text, sizeof(need_text)),
	         beside_text, sg_driver_format_bytes(host_need, host_text, sizeof(host_text)),
	         host_ranks, sg_driver_format_bytes(per_process ? per_rank : available, avail_text,
	                                            sizeof(avail_text)), source_text);
	return -1;
}

/* The value of key ("VmHWM:") in /proc/self/status, in bytes. */
static double status_bytes(const char *key)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	double kib = 0;
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, key, strlen(key)) == 0)
			kib = atof(line + strlen(key));
	if (f)
		fclose(f);
	return kib * 1024.0;
}

double sg_driver_peak_rss(void)
{
	return status_bytes("VmHWM:");
}

double sg_driver_rss(void)
{
	return status_bytes("VmRSS:");
}
