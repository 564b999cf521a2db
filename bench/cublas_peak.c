/* Peer: the single-GPU ceiling. cuBLAS GEMM C = A*B + C on n x n random matrices already in
 * GPU memory, each run timed with CUDA events; one row of the results' CSV per timed run
 * (bench/bench_util.h), system cublas_peak, with the GPU's name (the reporter's table shows
 * the fastest run, what the seed paper calls the practical peak; its rooflines divide by the
 * median run). --prec d (cublasDgemm, the
 * default), s (cublasSgemm), or the tensor-core modes through cublasGemmEx as the library's
 * codelets call it: b (bfloat16 A, B, float C, COMPUTE_32F), h (half A, B), t (float in
 * TF32, COMPUTE_32F_FAST_TF32).
 * --link MiB instead measures the pinned host<->GPU copy rates (what a GEMM from host memory
 * is bound by): rows of systems h2d, d2h and both (each way at once), memory pinned, block
 * the size of each copy (--piece), the best of --niter transfers. With --gpus G (> 1), the
 * same on GPUs 0..G-1 copying at once (each its own pinned buffer, copies issued in turn):
 * systems h2d-node, d2h-node and both-node, ncuda G, the rate one GPU gets while all copy
 * (the sum over G): several GPUs share the node's memory and PCIe switches, and a 4-GPU
 * product's links do not each run at the rate one GPU alone gets (docs/node-sharing.md). */
#include <string.h>
#include "common/half.h"
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <cublas_v2.h>
#include "bench/bench_util.h"
#include "bench/bench_cuda.h"

static void usage(FILE *out, const char *program)
{
	fprintf(out, "usage: %s [-n N] [--prec d|s|b|h|t] [--link MiB [--piece MiB] [--gpus G]]\n"
	        "       [--device D] [--niter I] [--warmup W]\n"
	        "  -n, --n N      matrix order (default 16384); needs 3 n^2 elements of GPU memory\n"
	        "  --prec P       d, s, b (bfloat16 -> float), h (half -> float), t (TF32) (default d)\n"
	        "  --link MiB     measure pinned host->GPU and GPU->host copies of MiB instead\n"
	        "  --piece MiB    with --link: in copies of MiB each, back to back (default: one)\n"
	        "  --gpus G       with --link: GPUs 0..G-1 copying at once (default 1: --device)\n"
	        "  --device D     CUDA device (default 0)\n"
	        "  --niter I      timed runs, the median is reported (default 5)\n"
	        "  --warmup W     untimed runs first, lasting 2 s at least when W > 0 (default 1)\n",
	        program);
}

/* Fill a device matrix from one random host chunk copied over and over, at a shift that is
 * not a multiple of the column length: generating n^2 values on the host would take longer
 * than the benchmark, and GEMM's speed does not depend on the values (but its power draw,
 * hence its clock, may: the chunk holds real values of the type, never random bits). */
static void fill_device(char *dst, size_t count, size_t elemsize, const char *chunk,
                        size_t chunk_len, size_t shift)
{
	for (size_t done = 0; done < count;) {
		size_t offset = (done + shift) % chunk_len;
		size_t len = chunk_len - offset;
		if (len > count - done)
			len = count - done;
		BENCH_CUDA_CHECK(cudaMemcpy(dst + done * elemsize, chunk + offset * elemsize,
		                            len * elemsize, cudaMemcpyHostToDevice));
		done += len;
	}
}

/* One precision's types, as the library's codelets use them. */
struct mode {
	char letter;
	size_t ab_size, c_size;
	cudaDataType ab_type, c_type;
	cublasComputeType_t compute;
};
static const struct mode modes[] = {
	{ 'd', sizeof(double), sizeof(double), CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F },
	{ 's', sizeof(float), sizeof(float), CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F },
	{ 'b', 2, sizeof(float), CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F },
	{ 'h', 2, sizeof(float), CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_32F },
	{ 't', sizeof(float), sizeof(float), CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32 },
};

/* The random doubles of chunk (in [0, 1)) as elements of the mode's A/B (ab = 1) or C type,
 * centred on 0, in place (doubles stay as they are). */
static void convert_chunk(const struct mode *m, int ab, double *chunk, size_t len)
{
	size_t size = ab ? m->ab_size : m->c_size;
	for (size_t e = 0; e < len; e++) {
		float v = (float)(chunk[e] - 0.5);
		if (size == sizeof(double))
			continue; /* as DGEMM's ceiling was always measured */
		if (size == sizeof(float))
			memcpy((char *)chunk + e * size, &v, size);
		else {
			uint16_t bits = m->letter == 'b' ? sg_float_to_bf16(v) : sg_float_to_half(v);
			memcpy((char *)chunk + e * size, &bits, size);
		}
	}
}

/* One GPU's side of a copy test: its pinned host buffer, its device buffer (2 x the bytes
 * each: host->GPU uses the first half, GPU->host the second) and a stream per way. */
struct link_end {
	int device;
	char *host, *dev;
	cudaStream_t streams[2];
};

/* Seconds to move bytes between each end's host and device buffers in copies of piece bytes,
 * issued back to back on one stream per way (the way a runtime moves tiles); ways: 1
 * host->GPU, 2 GPU->host, 3 both at once, each on its own stream, the ways' and the ends'
 * copies issued in turn so that all start at once. */
static double copy_pieces(struct link_end *ends, int nends, size_t bytes, size_t piece, int ways)
{
	double t0 = bench_now();
	for (size_t off = 0; off < bytes; off += piece)
		for (int e = 0; e < nends; e++)
			for (int way = 0; way < 2; way++) {
				if (!(ways & (1 << way)))
					continue;
				size_t len = bytes - off < piece ? bytes - off : piece;
				size_t at = way * bytes + off;
				char *host = ends[e].host, *dev = ends[e].dev;
				BENCH_CUDA_CHECK(cudaSetDevice(ends[e].device));
				BENCH_CUDA_CHECK(cudaMemcpyAsync(way ? host + at : dev + at,
				                                 way ? dev + at : host + at, len,
				                                 way ? cudaMemcpyDeviceToHost
				                                     : cudaMemcpyHostToDevice,
				                                 ends[e].streams[way]));
			}
	for (int e = 0; e < nends; e++)
		for (int way = 0; way < 2; way++)
			BENCH_CUDA_CHECK(cudaStreamSynchronize(ends[e].streams[way]));
	return bench_now() - t0;
}

/* The best of niter pinned transfers of mib MiB each way, in copies of piece_mib MiB (0: one
 * copy), on device first (gpus 1) or on devices 0..gpus-1 at once: alone (systems h2d, d2h),
 * then both ways at once (both: the bytes of one way over the time both took); with several
 * GPUs the rate one of them gets while all copy (systems *-node). Tile-sized copies and the
 * two ways at once are what a GEMM from host memory moves; one large copy is the link's best
 * case. */
static void link_rates(long long mib, long long piece_mib, int niter, int first, int gpus)
{
	size_t bytes = (size_t)mib << 20, piece = piece_mib ? (size_t)piece_mib << 20 : bytes;
	struct link_end ends[64];
	for (int e = 0; e < gpus; e++) {
		ends[e].device = gpus > 1 ? e : first;
		BENCH_CUDA_CHECK(cudaSetDevice(ends[e].device));
		BENCH_CUDA_CHECK(cudaMallocHost((void **)&ends[e].host, 2 * bytes));
		BENCH_CUDA_CHECK(cudaMalloc((void **)&ends[e].dev, 2 * bytes));
		for (int way = 0; way < 2; way++)
			BENCH_CUDA_CHECK(cudaStreamCreateWithFlags(&ends[e].streams[way],
			                                           cudaStreamNonBlocking));
		memset(ends[e].host, 1, 2 * bytes);
	}
	double best[3] = { 0, 0, 0 }; /* h2d, d2h alone, both at once */
	for (int it = 0; it < niter + 1; it++)
		for (int ways = 1; ways <= 3; ways++) {
			double gbs = (double)bytes / copy_pieces(ends, gpus, bytes, piece, ways) / 1e9;
			if (it > 0 && gbs > best[ways - 1]) /* the first pass warms up */
				best[ways - 1] = gbs;
		}
	static const char *systems[] = { "h2d", "d2h", "both" };
	for (int r = 0; r < 3; r++) {
		char fields[200];
		snprintf(fields, sizeof(fields), "system=%s%s M=%lld memory=pinned gbs=%.2f ncuda=%d "
		         "block=%lld", systems[r], gpus > 1 ? "-node" : "", mib, best[r], gpus,
		         piece_mib ? piece_mib : mib);
		bench_print_row(fields);
	}
	for (int e = 0; e < gpus; e++) {
		BENCH_CUDA_CHECK(cudaSetDevice(ends[e].device));
		for (int way = 0; way < 2; way++)
			BENCH_CUDA_CHECK(cudaStreamDestroy(ends[e].streams[way]));
		BENCH_CUDA_CHECK(cudaFreeHost(ends[e].host));
		BENCH_CUDA_CHECK(cudaFree(ends[e].dev));
	}
}

/* One product on the GPU's matrices, in the mode's cuBLAS call. */
struct gemm {
	const struct mode *mode;
	cublasHandle_t handle;
	char *A, *B, *C;
	int dim;
};

/* Seconds one run of g takes, timed with CUDA events. */
static double run_gemm(const struct gemm *g, cudaEvent_t start, cudaEvent_t stop)
{
	const double alpha = 1.0, beta = 1.0;
	const float alpha_f = 1.0f, beta_f = 1.0f;
	int d = g->dim;
	BENCH_CUDA_CHECK(cudaEventRecord(start, 0));
	if (g->mode->letter == 'd')
		BENCH_CUBLAS_CHECK(cublasDgemm(g->handle, CUBLAS_OP_N, CUBLAS_OP_N, d, d, d, &alpha,
		                               (double *)g->A, d, (double *)g->B, d, &beta,
		                               (double *)g->C, d));
	else if (g->mode->letter == 's')
		BENCH_CUBLAS_CHECK(cublasSgemm(g->handle, CUBLAS_OP_N, CUBLAS_OP_N, d, d, d, &alpha_f,
		                               (float *)g->A, d, (float *)g->B, d, &beta_f,
		                               (float *)g->C, d));
	else
		BENCH_CUBLAS_CHECK(cublasGemmEx(g->handle, CUBLAS_OP_N, CUBLAS_OP_N, d, d, d, &alpha_f,
		                                g->A, g->mode->ab_type, d, g->B, g->mode->ab_type, d,
		                                &beta_f, g->C, g->mode->c_type, d, g->mode->compute,
		                                CUBLAS_GEMM_DEFAULT));
	BENCH_CUDA_CHECK(cudaEventRecord(stop, 0));
	BENCH_CUDA_CHECK(cudaEventSynchronize(stop));
	float ms = 0;
	BENCH_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
	return 1e-3 * ms;
}

int main(int argc, char **argv)
{
	struct bench_run run = { .n = 16384, .niter = 5, .warmup = 1 };
	int device = 0;
	long long link_mib = 0, piece_mib = 0, gpus = 1;
	const struct mode *mode = &modes[0];
	enum { OPT_DEVICE = 256, OPT_PREC, OPT_LINK, OPT_PIECE, OPT_GPUS };
	static const struct option longopts[] = {
		BENCH_RUN_LONGOPTS, { "device", required_argument, NULL, OPT_DEVICE },
		{ "prec", required_argument, NULL, OPT_PREC },
		{ "link", required_argument, NULL, OPT_LINK },
		{ "piece", required_argument, NULL, OPT_PIECE },
		{ "gpus", required_argument, NULL, OPT_GPUS }, { NULL, 0, NULL, 0 }
	};
	int opt;
	while ((opt = bench_getopt(argc, argv, longopts, &run, usage)) != -1) {
		if (opt == OPT_DEVICE)
			device = (int)bench_int_option(argv[0], "--device", optarg, 0, 1023);
		else if (opt == OPT_LINK)
			link_mib = bench_int_option(argv[0], "--link", optarg, 1, 1 << 20);
		else if (opt == OPT_PIECE)
			piece_mib = bench_int_option(argv[0], "--piece", optarg, 1, 1 << 20);
		else if (opt == OPT_GPUS)
			gpus = bench_int_option(argv[0], "--gpus", optarg, 1, 64);
		else if (opt == OPT_PREC) {
			mode = NULL;
			for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++)
				if (strlen(optarg) == 1 && optarg[0] == modes[m].letter)
					mode = &modes[m];
			if (!mode) {
				fprintf(stderr, "%s: --prec: unknown '%s' (expected d, s, b, h or t)\n",
				        argv[0], optarg);
				return 2;
			}
		}
	}
	long long n = run.n;
	int niter = run.niter, warmup = run.warmup;

	if ((piece_mib && (!link_mib || piece_mib > link_mib)) || (gpus > 1 && !link_mib)) {
		fprintf(stderr, "%s: --piece and --gpus need --link, --piece at most its MiB\n",
		        argv[0]);
		return 2;
	}
	if (gpus > 1)
		bench_cuda_need_devices(argv[0], "--gpus", (int)gpus, (int)gpus);
	else
		bench_cuda_need_devices(argv[0], "--device", device, device + 1);
	BENCH_CUDA_CHECK(cudaSetDevice(device));
	if (link_mib) {
		link_rates(link_mib, piece_mib, niter, device, (int)gpus);
		return 0;
	}
	size_t count = (size_t)n * (size_t)n, free_bytes = 0, total_bytes = 0;
	size_t need = count * (2 * mode->ab_size + mode->c_size);
	BENCH_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
	if (need > free_bytes) {
		fprintf(stderr, "%s: n=%lld needs %.1f GB of GPU memory, device %d has %.1f GB free\n",
		        argv[0], n, (double)need / 1e9, device, (double)free_bytes / 1e9);
		return 1;
	}

	char *A = NULL, *B = NULL, *C = NULL;
	double *chunk = NULL, *c_chunk = NULL;
	size_t chunk_len = ((size_t)1 << 24) - 3; /* 128 MB, odd so rows do not line up */
	BENCH_CUDA_CHECK(cudaMalloc((void **)&A, count * mode->ab_size));
	BENCH_CUDA_CHECK(cudaMalloc((void **)&B, count * mode->ab_size));
	BENCH_CUDA_CHECK(cudaMalloc((void **)&C, count * mode->c_size));
	BENCH_CUDA_CHECK(cudaMallocHost((void **)&chunk, chunk_len * sizeof(double)));
	BENCH_CUDA_CHECK(cudaMallocHost((void **)&c_chunk, chunk_len * sizeof(double)));
	bench_fill_random(chunk, chunk_len, 42);
	memcpy(c_chunk, chunk, chunk_len * sizeof(double));
	convert_chunk(mode, 1, chunk, chunk_len);
	convert_chunk(mode, 0, c_chunk, chunk_len);
	fill_device(A, count, mode->ab_size, (char *)chunk, chunk_len, 0);
	fill_device(B, count, mode->ab_size, (char *)chunk, chunk_len, chunk_len / 3);
	fill_device(C, count, mode->c_size, (char *)c_chunk, chunk_len, 2 * (chunk_len / 3));
	BENCH_CUDA_CHECK(cudaFreeHost(chunk));
	BENCH_CUDA_CHECK(cudaFreeHost(c_chunk));

	cublasHandle_t handle;
	BENCH_CUBLAS_CHECK(cublasCreate(&handle));
	cudaEvent_t start, stop;
	BENCH_CUDA_CHECK(cudaEventCreate(&start));
	BENCH_CUDA_CHECK(cudaEventCreate(&stop));
	double *times = malloc((size_t)niter * sizeof(double));
	if (!times) {
		perror(argv[0]);
		return 1;
	}
	struct gemm g = { mode, handle, A, B, C, (int)n };
	/* Warm-up: the W runs asked for, lasting WARM_SECONDS at least when W > 0. The GPU's clock
	 * falls under sustained load; a product from host memory runs at that clock, and its
	 * ceiling must be measured there, not in the first burst after idle (bench/notes-gpu.md). */
	const double WARM_SECONDS = 2.0;
	double warm_start = bench_now();
	for (int done = 0; done < warmup || (warmup > 0 && bench_now() - warm_start < WARM_SECONDS);
	     done++)
		run_gemm(&g, start, stop);
	for (int it = 0; it < niter; it++)
		times[it] = run_gemm(&g, start, stop);

	char name[256], extra[300];
	bench_cuda_device_name(device, name, sizeof(name));
	snprintf(extra, sizeof(extra), "ncuda=1 ranks=1 gpu=%s prec=%c", name, mode->letter);
	bench_print_rows("cublas_peak", n, bench_dgemm_flops(n), times, niter, extra);

	free(times);
	BENCH_CUDA_CHECK(cudaEventDestroy(start));
	BENCH_CUDA_CHECK(cudaEventDestroy(stop));
	BENCH_CUBLAS_CHECK(cublasDestroy(handle));
	BENCH_CUDA_CHECK(cudaFree(A));
	BENCH_CUDA_CHECK(cudaFree(B));
	BENCH_CUDA_CHECK(cudaFree(C));
	return 0;
}
