#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "drivers/resources.h"

/* Elements along one dimension of length n cut in tiles of size tile that fall on tiles
 * index with index % stride == offset. */
static double owned_extent(int64_t n, int tile, int stride, int offset)
{
	int64_t ntiles = (n + tile - 1) / tile;
	if (offset >= ntiles)
		return 0;
	int64_t owned = (ntiles - offset + stride - 1) / stride;
	double extent = (double)owned * tile;
	if ((ntiles - 1) % stride == offset) /* the last, possibly short, tile is ours */
		extent -= (double)(ntiles * tile - n);
	return extent;
}

/* Every distribution the driver offers owns a product set of tiles: tile (i,j) belongs to a
 * rank iff i % row_stride == row_offset and j % col_stride == col_offset. */
static double owned_matrix_bytes(const struct sg_driver_options *opts, int rank, int64_t rows,
                                 int64_t cols)
{
	int nranks = opts->P * opts->Q;
	int row_stride = opts->P, col_stride = opts->Q;
	int row_offset = rank / opts->Q, col_offset = rank % opts->Q;
	if (opts->dist == STARPU_GEMM_DIST_1D_ROW_CYCLIC) {
		row_stride = nranks, col_stride = 1, row_offset = rank, col_offset = 0;
	} else if (opts->dist == STARPU_GEMM_DIST_1D_COL_CYCLIC) {
		row_stride = 1, col_stride = nranks, row_offset = 0, col_offset = rank;
	}
	return owned_extent(rows, opts->tile, row_stride, row_offset) *
	       owned_extent(cols, opts->tile, col_stride, col_offset) *
	       (double)starpu_gemm_elemsize(opts->prec);
}

double sg_driver_owned_bytes(const struct sg_driver_options *opts, int rank)
{
	int64_t a_rows = opts->transA == 'N' ? opts->M : opts->K;
	int64_t a_cols = opts->transA == 'N' ? opts->K : opts->M;
	int64_t b_rows = opts->transB == 'N' ? opts->K : opts->N;
	int64_t b_cols = opts->transB == 'N' ? opts->N : opts->K;
	return owned_matrix_bytes(opts, rank, a_rows, a_cols) +
	       owned_matrix_bytes(opts, rank, b_rows, b_cols) +
	       owned_matrix_bytes(opts, rank, opts->M, opts->N);
}

double sg_driver_host_available(const char **source)
{
	FILE *meminfo = fopen("/proc/meminfo", "r");
	if (meminfo) {
		char line[256];
		unsigned long long kib;
		while (fgets(line, sizeof(line), meminfo)) {
			if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1) {
				fclose(meminfo);
				*source = "MemAvailable";
				return (double)kib * 1024.0;
			}
		}
		fclose(meminfo);
	}
	*source = "free physical pages";
	return (double)sysconf(_SC_AVPHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
}

const char *sg_driver_format_bytes(double bytes, char *buf, size_t len)
{
	static const char *units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	size_t u = 0;
	while (bytes >= 1024.0 && u + 1 < sizeof(units) / sizeof(units[0])) {
		bytes /= 1024.0;
		u++;
	}
	snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", bytes, units[u]);
	return buf;
}

int sg_driver_check_host_memory(const struct sg_driver_options *opts, char *err, size_t errlen)
{
	int rank;
	MPI_Comm host;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &host);
	int host_ranks;
	MPI_Comm_size(host, &host_ranks);
	double need = sg_driver_owned_bytes(opts, rank), host_need = 0;
	MPI_Allreduce(&need, &host_need, 1, MPI_DOUBLE, MPI_SUM, host);
	MPI_Comm_free(&host);

	const char *source;
	double available = sg_driver_host_available(&source);
	if (host_need <= available)
		return 0;
	char need_text[32], host_text[32], avail_text[32];
	snprintf(err, errlen, "-M/-N/-K: matrices too large for host memory: rank %d needs %s for "
	         "the A, B and C tiles it owns (%s for the %d rank(s) on its host) but only %s is "
	         "available (%s)", rank, sg_driver_format_bytes(need, need_text, sizeof(need_text)),
	         sg_driver_format_bytes(host_need, host_text, sizeof(host_text)), host_ranks,
	         sg_driver_format_bytes(available, avail_text, sizeof(avail_text)), source);
	return -1;
}
