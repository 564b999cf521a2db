/* compute/plan.h: the pure planner on a table of (problem, resources, options) -> (b, c, d,
 * lookahead, regime, predicted bytes), the paper's regimes of Equation (1) among them, and
 * the refusals; then sg_plan_conforms on a plan and on problems it was not made for. Needs
 * neither MPI nor StarPU: nothing is started. SG_TEST_PLAN_PRINT=1 prints each row as the
 * planner computes it (to add rows). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compute/plan.h"
#include "compute/layers.h"
#include "compute/lower_bound.h"

#define GiB (1024.0 * 1024.0 * 1024.0)

struct row {
	const char *name;
	char prec;                 /* the kernel's letter */
	int64_t M, N, K;
	int tile, P, Q;
	int gpus;                  /* per rank */
	double gpu_gib, host_gib;  /* per GPU, per rank */
	int cpu_workers;
	int b, c, d, lookahead, no_throttle, beta_zero, c_home; /* forced options */
	/* expected */
	int ret;
	int eb, ec, ed, el;
	const char *regime;
	double h2d_gib, mpi_gib;   /* per rank */
};

/* Options: b c d lookahead no_throttle beta_zero c_home */
#define AUTO 0, 0, 0, -1, 0, 0, 0
static const struct row rows[] = {
	/* One GPU per rank, everything fits: regime a (A and B loaded once). */
	{ "d 1 GPU n=32768", 'd', 32768, 32768, 32768, 4096, 1, 1, 1, 80, 100, 1, AUTO,
	  0, 8, 8, 8, 1, "a", 24.000, 0.000 },
	/* Capped GPU memory: A read again for every block column (regime b). */
	{ "d 1 GPU n=32768 8 GiB", 'd', 32768, 32768, 32768, 4096, 1, 1, 1, 8, 100, 1, AUTO,
	  0, 4, 4, 1, 2, "b", 32.000, 0.000 },
	{ "d 1 GPU n=65536 16 GiB", 'd', 65536, 65536, 65536, 4096, 1, 1, 1, 16, 400, 1, AUTO,
	  0, 4, 6, 2, 2, "b", 160.000, 0.000 },
	/* BF16 n = 65536 capped at 16 GiB: b = c = 4, d = 2, 40 GiB loaded (measured so). */
	{ "b 1 GPU n=65536 16 GiB", 'b', 65536, 65536, 65536, 8192, 1, 1, 1, 16, 400, 1, AUTO,
	  0, 4, 4, 2, 2, "b", 40.000, 0.000 },
	/* One block of all of C that does not fit beside its chunks: regime c1, X = Y = 1, so A,
	 * B and C each cross once: 3 x 64 tiles of 32 MiB. */
	{ "d 1 GPU forced whole C 4 GiB", 'd', 16384, 16384, 16384, 2048, 1, 1, 1, 4, 100, 1,
	  8, 8, 0, -1, 0, 0, 0, 0, 8, 8, 1, 1, "c1", 6.000, 0.000 },
	/* Four GPUs of one rank, each owning a 2 x 2 grid's share of C (by default), so each
	 * loads half of A and half of B: (128 + 128 + 64) tiles of 128 MiB per GPU; and a 2x2
	 * grid of ranks of one GPU each. */
	{ "d 4 GPUs n=65536", 'd', 65536, 65536, 65536, 4096, 1, 1, 4, 140, 480, 1, AUTO,
	  0, 16, 16, 4, 1, "a", 160.000, 0.000 },
	/* Each GPU's share of C smaller than Kt x Kt: chunks of max(2, Kt / 4), so a GPU's first
	 * C tile waits for 2d tiles of A and B, not the whole k panel; d forced: kept. */
	{ "d 4 GPUs n=32768", 'd', 32768, 32768, 32768, 4096, 1, 1, 4, 140, 480, 1, AUTO,
	  0, 8, 8, 2, 1, "a", 40.000, 0.000 },
	{ "d 4 GPUs n=32768 d=8", 'd', 32768, 32768, 32768, 4096, 1, 1, 4, 140, 480, 1,
	  0, 0, 8, -1, 0, 0, 0, 0, 8, 8, 8, 1, "a", 40.000, 0.000 },
	/* Ranks of other nodes: chunks of max(P, Q) = 2 k steps (memory allowed 14). */
	{ "d 2x2 ranks n=65536", 'd', 65536, 65536, 65536, 4096, 2, 2, 1, 140, 120, 1, AUTO,
	  0, 8, 8, 2, 1, "a", 40.000, 16.000 },
	/* beta = 0: no C loaded; C at home: only the last shell's. */
	{ "d 1 GPU n=16384 beta=0", 'd', 16384, 16384, 16384, 2048, 1, 1, 1, 80, 100, 1,
	  0, 0, 0, -1, 0, 1, 0, 0, 8, 8, 8, 1, "a", 4.000, 0.000 },
	{ "d 1 GPU n=16384 C home", 'd', 16384, 16384, 16384, 2048, 1, 1, 1, 80, 100, 1,
	  0, 0, 0, -1, 0, 0, 1, 0, 8, 8, 8, 1, "a", 4.469, 0.000 },
	/* CPU ranks: no GPU, regime c1, remote tiles over MPI. */
	{ "d CPU 1 rank n=4096", 'd', 4096, 4096, 4096, 512, 1, 1, 0, 0, 8, 2, AUTO,
	  0, 8, 8, 8, 1, "c1", 0.000, 0.000 },
	/* Kt = 8: 8 chunks would be of 1 k step, from one of the row's 2 owners at a time;
	 * chunks of max(P, Q) = 2 draw from both (compute/plan.c, net_chunk_depth). */
	{ "d CPU 1x2 ranks n=4096", 'd', 4096, 4096, 4096, 512, 1, 2, 0, 0, 8, 1, AUTO,
	  0, 8, 4, 2, 1, "c1", 0.000, 0.0625 },
	/* 3 x 3 ranks, Kt = 32: chunks of max(3, 3) = 3 steps, not the 4 of 8 chunks. */
	{ "d CPU 3x3 ranks n=4096", 'd', 4096, 4096, 4096, 128, 3, 3, 0, 0, 8, 1, AUTO,
	  0, 11, 11, 3, 1, "c1", 0.000, 0.0573 },
	/* 8 x 8 ranks, Kt = 32: chunks of 8, not 4 (no GPU: no layers by themselves). */
	{ "d CPU 8x8 ranks n=4096", 'd', 4096, 4096, 4096, 128, 8, 8, 0, 0, 8, 1, AUTO,
	  0, 4, 4, 8, 1, "c1", 0.000, 0.0273 },
	/* 2 x 3 ranks, Kt = 32: chunks of 3, not lcm(2, 3) = 6 (too few chunks). */
	{ "d CPU 2x3 ranks n=4096", 'd', 4096, 4096, 4096, 128, 2, 3, 0, 0, 8, 1, AUTO,
	  0, 16, 11, 3, 1, "c1", 0.000, 0.0632 },
	{ "z CPU 2x2 ranks n=2048 no throttle", 'z', 2048, 2048, 2048, 256, 2, 2, 0, 0, 8, 1,
	  0, 0, 0, -1, 1, 0, 0, 0, 4, 4, 8, 1, "c1", 0.000, 0.03125 },
	/* Forced values are kept; a forced lookahead beyond Kt - 1 is clamped. */
	{ "d 1 GPU forced b=2 c=3 l=0", 'd', 16384, 16384, 16384, 2048, 1, 1, 1, 80, 100, 1,
	  2, 3, 0, 0, 0, 0, 0, 0, 2, 3, 8, 0, "a", 6.000, 0.000 },
	{ "d 1 GPU forced l=50", 'd', 8192, 8192, 8192, 2048, 1, 1, 1, 80, 100, 1,
	  0, 0, 0, 50, 0, 0, 0, 0, 4, 4, 4, 3, "a", 1.500, 0.000 },
	/* Refusals: handles beyond half the host memory; one chunk beyond a GPU; negatives. */
	{ "refuse handles", 'd', 20000, 20000, 20000, 16, 1, 1, 0, 0, 8, 2, AUTO,
	  -ENOMEM, 0, 0, 0, 0, NULL, 0, 0 },
	{ "refuse chunk", 'd', 65536, 65536, 65536, 16384, 1, 1, 1, 2, 100, 1, AUTO,
	  -ENOMEM, 0, 0, 0, 0, NULL, 0, 0 },
	{ "refuse negative", 'd', 4096, 4096, 4096, 512, 1, 1, 0, 0, 8, 2,
	  -1, 0, 0, -1, 0, 0, 0, -EINVAL, 0, 0, 0, 0, NULL, 0, 0 },
};

static struct sg_problem problem_of(const struct row *r)
{
	struct sg_problem pb = { .prec = r->prec, .transA = 'N', .transB = 'N', .M = r->M,
	                         .N = r->N, .K = r->K, .tile = r->tile, .P = r->P, .Q = r->Q,
	                         .comm = STARPU_GEMM_COMM_LOCAL, .local = r->P * r->Q == 1 };
	pb.Mt = (int)((r->M + r->tile - 1) / r->tile);
	pb.Nt = (int)((r->N + r->tile - 1) / r->tile);
	pb.Kt = (int)((r->K + r->tile - 1) / r->tile);
	return pb;
}

/* Row r planned, its tiles staged by the one call or not; with choices, with that plan's
 * choices forced (sg_plan_choices). */
static int plan_row_staged(const struct row *r, int staged,
                           const struct starpu_gemm_plan *choices,
                           struct starpu_gemm_plan *plan, char *why, size_t whylen)
{
	struct sg_problem pb = problem_of(r);
	pb.staged = staged;
	struct sg_resources res = { .gpus = r->gpus, .gpu_mem = (size_t)(r->gpu_gib * GiB),
	                            .host_mem = (size_t)(r->host_gib * GiB),
	                            .cpu_workers = r->cpu_workers,
	                            .cpu_workers_max = r->cpu_workers };
	struct starpu_gemm_opts opts;
	starpu_gemm_opts_init(&opts);
	opts.b = r->b;
	opts.c = r->c;
	opts.d = r->d;
	opts.lookahead = r->lookahead;
	opts.no_throttle = r->no_throttle;
	opts.beta_zero = r->beta_zero;
	opts.c_home = r->c_home;
	if (choices)
		sg_plan_choices(choices, &opts);
	return sg_plan_compute(plan, &pb, &res, &opts, why, whylen);
}

static int plan_row(const struct row *r, const struct starpu_gemm_plan *choices,
                    struct starpu_gemm_plan *plan, char *why, size_t whylen)
{
	return plan_row_staged(r, 0, choices, plan, why, whylen);
}

/* The GPU chunk rule (compute/plan.c, SG_GPU_CHUNK_DEPTH) and where it does not apply: the
 * chunk depth of variants of row "d 4 GPUs n=32768" (Kt = 8, capped to 2). */
static int check_gpu_chunks(void)
{
	const struct row *base = NULL;
	for (size_t n = 0; n < sizeof(rows) / sizeof(rows[0]); n++)
		if (strcmp(rows[n].name, "d 4 GPUs n=32768") == 0)
			base = &rows[n];
	struct variant {
		const char *name;
		struct row r;
		int staged, want_d;
	} v[8];
	int nv = 0;
	v[nv++] = (struct variant){ "the rule", *base, 0, 2 };
	v[nv] = (struct variant){ "bfloat16 (tensor cores): kept", *base, 0, 8 };
	v[nv].r.prec = 'b';
	v[nv].r.tile = 8192;
	v[nv].r.M = v[nv].r.N = v[nv].r.K = 65536;
	nv++;
	v[nv] = (struct variant){ "lookahead 0 forced: kept", *base, 0, 8 };
	v[nv].r.lookahead = 0;
	nv++;
	v[nv] = (struct variant){ "no throttle: kept", *base, 0, 8 };
	v[nv].r.no_throttle = 1;
	nv++;
	v[nv++] = (struct variant){ "staged by the one call: the rule too", *base, 1, 2 };
	v[nv] = (struct variant){ "Kt = 3: 2", *base, 0, 2 };
	v[nv].r.M = v[nv].r.N = v[nv].r.K = 12288;
	nv++;
	v[nv] = (struct variant){ "1 GPU, C half as wide as tall: kept", *base, 0, 12 };
	v[nv].r.gpus = 1;
	v[nv].r.M = v[nv].r.K = 49152;
	v[nv].r.N = 24576;
	nv++;
	v[nv] = (struct variant){ "CPU only, K 16 x M and N: kept", *base, 0, 64 };
	v[nv].r.gpus = 0;
	v[nv].r.tile = 512;
	v[nv].r.M = v[nv].r.N = 2048;
	v[nv].r.K = 32768;
	nv++;
	int failures = 0;
	for (int n = 0; n < nv; n++) {
		struct starpu_gemm_plan plan;
		char why[512] = "";
		int ret = plan_row_staged(&v[n].r, v[n].staged, NULL, &plan, why, sizeof(why));
		int ok = ret == 0 && plan.d == v[n].want_d;
		/* Regime a keeps every A and B tile a GPU loads: the rule's GPUs end up holding
		 * their 16 C tiles and their halves of A and B, 32 tiles each, whatever d. */
		if (n == 0 && ok && plan.tiles_per_gpu != 80) {
			printf("FAIL GPU chunks, %s: peak tiles per GPU %.1f, expected 80\n", v[n].name,
			       plan.tiles_per_gpu);
			ok = 0;
		}
		printf("%s GPU chunks, %s: ret %d d=%d (expected %d)%s%s\n", ok ? "PASS" : "FAIL",
		       v[n].name, ret, ret ? 0 : plan.d, v[n].want_d, *why ? ": " : "", why);
		failures += !ok;
	}
	return failures;
}

/* C's loads spread over a block's chunks (opts.c_spread): automatic on several GPUs in
 * regime a where C is loaded and a block has several chunks; forced on wherever it can be. */
static int check_c_spread(void)
{
	static const struct {
		const char *row, *name;
		int beta_zero, c_home, asked, d, want; /* d: forced, 0: the row's */
	} v[] = {
		{ "d 4 GPUs n=32768", "4 GPUs, 4 chunks: on", 0, 0, 0, 0, 1 },
		{ "d 4 GPUs n=32768", "4 GPUs, off asked", 0, 0, 2, 0, 0 },
		{ "d 4 GPUs n=32768", "4 GPUs, beta = 0 (no C loaded)", 1, 0, 1, 0, 0 },
		{ "d 4 GPUs n=32768", "4 GPUs, C at home", 0, 1, 1, 0, 0 },
		{ "d 4 GPUs n=32768 d=8", "4 GPUs, one chunk", 0, 0, 1, 0, 0 },
		{ "d 2x2 ranks n=65536", "a GPU each on a 2 x 2 grid: on", 0, 0, 0, 0, 1 },
		{ "d 1 GPU n=32768", "the job's one GPU, d = 2: off", 0, 0, 0, 2, 0 },
		{ "d CPU 1x2 ranks n=4096", "CPU workers alone, d = 1: off", 0, 0, 0, 1, 0 },
		{ "d CPU 1x2 ranks n=4096", "CPU workers alone, on asked", 0, 0, 1, 1, 1 },
		{ "d 1 GPU n=65536 16 GiB", "1 GPU capped (regime b)", 0, 0, 0, 0, 0 },
		{ "d 1 GPU n=65536 16 GiB", "1 GPU capped, on asked", 0, 0, 1, 0, 1 },
	};
	int failures = 0;
	for (size_t n = 0; n < sizeof(v) / sizeof(v[0]); n++) {
		const struct row *r = NULL;
		for (size_t m = 0; m < sizeof(rows) / sizeof(rows[0]); m++)
			if (strcmp(rows[m].name, v[n].row) == 0)
				r = &rows[m];
		struct sg_problem pb = problem_of(r);
		struct sg_resources res = { .gpus = r->gpus, .gpu_mem = (size_t)(r->gpu_gib * GiB),
		                            .host_mem = (size_t)(r->host_gib * GiB),
		                            .cpu_workers = 1, .cpu_workers_max = 1 };
		struct starpu_gemm_opts opts;
		starpu_gemm_opts_init(&opts);
		opts.d = v[n].d ? v[n].d : r->d;
		opts.beta_zero = v[n].beta_zero;
		opts.c_home = v[n].c_home;
		opts.c_spread = v[n].asked;
		struct starpu_gemm_plan plan;
		char why[512] = "";
		int ret = sg_plan_compute(&plan, &pb, &res, &opts, why, sizeof(why));
		/* Its choices give the same plan back (what the one call's panels plan with). */
		struct starpu_gemm_plan again;
		struct starpu_gemm_opts chosen = opts;
		sg_plan_choices(&plan, &chosen);
		int ok = ret == 0 && plan.c_spread == v[n].want &&
		         sg_plan_compute(&again, &pb, &res, &chosen, why, sizeof(why)) == 0 &&
		         memcmp(&plan, &again, sizeof(plan)) == 0;
		printf("%s C's loads spread, %s: ret %d c_spread %d (expected %d), Z = %d\n",
		       ok ? "PASS" : "FAIL", v[n].name, ret, ret ? -1 : plan.c_spread, v[n].want,
		       ret ? 0 : plan.Z);
		failures += !ok;
	}
	return failures;
}

/* Row "d 4 GPUs n=65536" in precision prec, planned with opts.static_gpu and opts.gpu_peers
 * as given, its GPUs' links fast (NVLink) or not. */
static int plan_four_gpus(char prec, int static_gpu, int gpu_peers, int links,
                          struct starpu_gemm_plan *plan)
{
	const struct row *r = NULL;
	for (size_t n = 0; n < sizeof(rows) / sizeof(rows[0]); n++)
		if (strcmp(rows[n].name, "d 4 GPUs n=65536") == 0)
			r = &rows[n];
	struct sg_problem pb = problem_of(r);
	pb.prec = prec;
	struct sg_resources res = { .gpus = r->gpus, .gpu_mem = (size_t)(r->gpu_gib * GiB),
	                            .host_mem = (size_t)(r->host_gib * GiB), .cpu_workers = 1,
	                            .cpu_workers_max = 1, .gpu_links = links };
	struct starpu_gemm_opts opts;
	starpu_gemm_opts_init(&opts);
	opts.static_gpu = static_gpu;
	opts.gpu_peers = gpu_peers;
	char why[512];
	return sg_plan_compute(plan, &pb, &res, &opts, why, sizeof(why));
}

/* The same four GPUs left to dmdas (opts.static_gpu = 2): the paper's model, where every GPU
 * may read all of A: (256 + 64 + 64) tiles each, 192 GiB in all; no relays. */
static int check_dynamic_gpus(void)
{
	struct starpu_gemm_plan plan;
	int ret = plan_four_gpus('d', 2, 0, 1, &plan);
	double h2d = plan.host_to_gpu_bytes / GiB;
	int ok = ret == 0 && !plan.static_gpu && plan.gpu_rows == 1 && plan.gpu_cols == 4 &&
	         fabs(h2d - 192.0) < 5e-4 && !plan.gpu_peers && plan.gpu_to_gpu_bytes == 0;
	printf("%s d 4 GPUs n=65536 dynamic: host->GPU %.3f GiB, GPU grid %dx%d\n",
	       ok ? "PASS" : "FAIL", h2d, plan.gpu_rows, plan.gpu_cols);
	return !ok;
}

/* The four GPUs as 2 x 2 relaying A and B tiles (opts.gpu_peers): each reads 128 tiles of A,
 * 128 of B and loads 64 of C; of a tile of A (B) its grid row's (column's) two GPUs load one
 * copy from the host: in DGEMM 64 + 64 + 64 tiles each over its host link, 96 GiB in all
 * (160 without relays), and 64 GiB between the GPUs; in BF16 (A and B tiles 1/32 GiB, C's
 * 1/16) 32 GiB (48) and 16 GiB. Automatic: on for the tensor-core kernels with fast links
 * only; forced on or off either way. */
static int check_gpu_peers(void)
{
	static const struct { char prec; int asked, links, on; } cases[] = {
		{ 'b', 0, 1, 1 }, { 'b', 0, 0, 0 }, { 'd', 0, 1, 0 }, { 'd', 1, 0, 1 },
		{ 'b', 2, 1, 0 },
	};
	int failures = 0;
	for (size_t n = 0; n < sizeof(cases) / sizeof(cases[0]); n++) {
		struct starpu_gemm_plan plan;
		char prec = cases[n].prec;
		int ret = plan_four_gpus(prec, 0, cases[n].asked, cases[n].links, &plan);
		double h2d = plan.host_to_gpu_bytes / GiB, d2d = plan.gpu_to_gpu_bytes / GiB;
		int on = cases[n].on;
		double want_h2d = prec == 'd' ? (on ? 96.0 : 160.0) : (on ? 32.0 : 48.0);
		double want_d2d = on ? (prec == 'd' ? 64.0 : 16.0) : 0.0;
		int ok = ret == 0 && plan.gpu_peers == on && fabs(h2d - want_h2d) < 5e-4 &&
		         fabs(d2d - want_d2d) < 5e-4;
		printf("%s %c 4 GPUs n=65536 gpu_peers=%d, links %s: relays %s, host->GPU %.3f GiB, "
		       "GPU->GPU %.3f GiB\n", ok ? "PASS" : "FAIL", prec, cases[n].asked,
		       cases[n].links ? "fast" : "slow", plan.gpu_peers ? "on" : "off", h2d, d2d);
		failures += !ok;
	}
	return failures;
}

/* Ranks of four nodes as 2 x 2, 4 GPUs each, relays forced on: only a rank's own A and B
 * tiles are in its reach (half of those it reads; the others come through MPI and are not
 * relayed). Each GPU reads 64 tiles of A and 64 of B and loads 16 of C: 144 per GPU, 72 GiB
 * per rank; relayed half of the half in reach, 16 + 16 tiles per GPU (16 GiB), 56 GiB from
 * the host. Transposed operands: no relays (what is in reach is not counted). */
static int check_gpu_peers_nodes(void)
{
	int failures = 0;
	for (int trans = 0; trans < 2; trans++) {
		struct row r = { "d 2x2 ranks of 4 GPUs", 'd', 65536, 65536, 65536, 4096, 2, 2, 4, 140,
		                 480, 1, AUTO, 0, 0, 0, 0, 0, "", 0, 0 };
		struct sg_problem pb = problem_of(&r);
		pb.transA = trans ? 'T' : 'N';
		struct sg_resources res = { .gpus = 4, .gpu_mem = (size_t)(140 * GiB),
		                            .host_mem = (size_t)(480 * GiB), .cpu_workers = 1,
		                            .cpu_workers_max = 1, .gpu_links = 1 };
		struct starpu_gemm_opts opts;
		starpu_gemm_opts_init(&opts);
		opts.gpu_peers = 1;
		struct starpu_gemm_plan plan;
		char why[512];
		int ret = sg_plan_compute(&plan, &pb, &res, &opts, why, sizeof(why));
		double h2d = plan.host_to_gpu_bytes / GiB, d2d = plan.gpu_to_gpu_bytes / GiB;
		int ok = ret == 0 && plan.gpu_peers == !trans &&
		         fabs(h2d - (trans ? 72.0 : 56.0)) < 5e-4 && fabs(d2d - (trans ? 0 : 16.0)) < 5e-4;
		printf("%s d 2x2 ranks of 4 GPUs, other nodes, relays forced%s: host->GPU %.3f GiB, "
		       "GPU->GPU %.3f GiB\n", ok ? "PASS" : "FAIL", trans ? ", A transposed" : "", h2d,
		       d2d);
		failures += !ok;
	}
	return failures;
}

/* The I/O lower bound between nodes: 16 nodes of one rank, n = 131072 DGEMM on 4 x 4: any
 * schedule moves 3 (n^3/16)^(2/3) - 3 n^2/16 words per node (0.2850 n^2, 39.17 GB), the 2D
 * grid 3/8 n^2 (the A and B tiles of its rows and columns but its own: 51.54 GB, 1.316 x);
 * with 2 ranks of a grid column per node, 8 nodes' bound shared by 2 ranks. */
static int check_lower_bound(void)
{
	int failures = 0;
	struct row r = { "d 16 nodes", 'd', 131072, 131072, 131072, 4096, 4, 4, 4, 140, 512, 1,
	                 AUTO, 0, 0, 0, 0, 0, "", 0, 0 };
	struct sg_problem pb = problem_of(&r);
	struct sg_resources res = { .gpus = 4, .gpu_mem = (size_t)(140 * GiB),
	                            .host_mem = (size_t)(512e9), .cpu_workers = 1,
	                            .cpu_workers_max = 1 };
	struct sg_resources shared = res;
	shared.col_peers = 1; /* 2 ranks of a grid column per node: 8 nodes */
	struct starpu_gemm_plan plan, plan8;
	char why[512];
	int ret = sg_plan_compute(&plan, &pb, &res, NULL, why, sizeof(why));
	ret |= sg_plan_compute(&plan8, &pb, &shared, NULL, why, sizeof(why));
	double n2 = 131072.0 * 131072.0;
	double lb16 = 8 * (3 * pow(n2 * 131072.0 / 16, 2.0 / 3) - 3 * n2 / 16);
	double lb8 = 8 * (3 * pow(n2 * 131072.0 / 8, 2.0 / 3) - 3 * n2 / 8) / 2;
	int ok = ret == 0 && fabs(plan.mpi_lower_bytes / 1e9 - 39.17) < 0.01 &&
	         fabs(plan.mpi_lower_bytes - lb16) < 1 && fabs(plan8.mpi_lower_bytes - lb8) < 1 &&
	         fabs(plan.mpi_recv_bytes / 1e9 - 51.54) < 0.01;
	printf("%s I/O lower bound, 16 nodes n = 131072: %.2f GB per rank (2D moves %.2f GB, "
	       "%.3f x); 8 nodes of 2 ranks: %.2f GB per rank\n", ok ? "PASS" : "FAIL",
	       plan.mpi_lower_bytes / 1e9, plan.mpi_recv_bytes / 1e9,
	       plan.mpi_recv_bytes / plan.mpi_lower_bytes, plan8.mpi_lower_bytes / 1e9);
	failures += !ok;
	/* Flat k (m = n = 65536, k = 256, 4 processors): C's floor mn/p binds, A and B are k
	 * sqrt(mn/p) each; held (mn + 2 mk)/p: 2 k sqrt(mn/p) - 2 mk/p words. */
	double m = 65536, k = 256, p = 4;
	double expect = 2 * k * sqrt(m * m / p) - 2 * m * k / p;
	double got = sg_io_lower_bound_words(65536, 65536, 256, 4);
	int ok2 = fabs(got - expect) < 1 && sg_io_lower_bound_words(100, 100, 100, 1) == 0;
	printf("%s I/O lower bound, k flat (65536 x 65536 x 256 on 4): %.0f words (expected %.0f)\n",
	       ok2 ? "PASS" : "FAIL", got, expect);
	return failures + !ok2;
}

/* The layers (compute/layers.h): 64 nodes of one rank, n = 131072 DGEMM on 8 x 8, at 25 GB/s
 * per node, take 4 layers of 4 x 4 ranks by themselves. Per rank, A and B: 4 ranks of a layer's row (column)
 * read each tile, its owner one of them for a quarter of the tiles, 3.75 x 1024 / 64 = 60 tiles
 * of 128 MiB each, and 3 partials of each of its 16 C tiles: 168 tiles, 21.0 GiB, against
 * 2D's 14/64 n^2 (28.0 GiB). 16 nodes on 4 x 4 stay 2D (check_lower_bound); layers are
 * refused where node peers share tiles, or on one rank, and a split that does not fit. */
static int check_layers(void)
{
	struct sg_problem pb = { .prec = 'd', .transA = 'N', .transB = 'N', .M = 131072,
	                         .N = 131072, .K = 131072, .tile = 4096, .P = 8, .Q = 8,
	                         .Mt = 32, .Nt = 32, .Kt = 32, .comm = STARPU_GEMM_COMM_LOCAL };
	struct sg_resources res = { .gpus = 4, .gpu_mem = (size_t)(140 * GiB),
	                            .host_mem = (size_t)(512e9), .cpu_workers = 1,
	                            .cpu_workers_max = 1, .mpi_rate = 25e9 };
	struct starpu_gemm_opts opts;
	starpu_gemm_opts_init(&opts);
	struct starpu_gemm_plan plan, flat, again, fast, unknown;
	/* At 200 GB/s (4 x 400 Gb/s), or an unknown rate, the network does not bound 2D by
	 * far: no layers by themselves. */
	struct sg_resources r200 = res, r0 = res;
	r200.mpi_rate = 200e9;
	r0.mpi_rate = 0;
	char why0[512];
	int ret0 = sg_plan_compute(&fast, &pb, &r200, &opts, why0, sizeof(why0)) |
	           sg_plan_compute(&unknown, &pb, &r0, &opts, why0, sizeof(why0));
	int ok0 = ret0 == 0 && sg_layers(&fast) == 1 && sg_layers(&unknown) == 1;
	printf("%s layers, 64 nodes n = 131072 at 200 GB/s and at an unknown rate: %d and %d "
	       "layer(s)\n", ok0 ? "PASS" : "FAIL", sg_layers(&fast), sg_layers(&unknown));
	char why[512];
	int ret = sg_plan_compute(&plan, &pb, &res, &opts, why, sizeof(why));
	opts.layers = 1;
	ret |= sg_plan_compute(&flat, &pb, &res, &opts, why, sizeof(why));
	struct starpu_gemm_opts chosen;
	starpu_gemm_opts_init(&chosen);
	sg_plan_choices(&plan, &chosen);
	ret |= sg_plan_compute(&again, &pb, &res, &chosen, why, sizeof(why));
	int ok = ret == 0 && sg_layers(&plan) == 4 && plan.layer_rows == 2 &&
	         fabs(plan.mpi_recv_bytes / GiB - 21.0) < 1e-9 &&
	         fabs(plan.partial_bytes / GiB - 6.0) < 1e-9 && sg_layers(&flat) == 1 &&
	         fabs(flat.mpi_recv_bytes / GiB - 28.0) < 1e-9 && plan.d % 4 == 0 &&
	         memcmp(&plan, &again, sizeof(plan)) == 0 &&
	         sg_plan_conforms(&plan, &pb, 0, why, sizeof(why)) == 0 && !plan.c_spread;
	/* C's loads spread is not the layers': a layered plan that says so is refused. */
	struct starpu_gemm_plan spread = plan;
	spread.c_spread = 1;
	ok = ok && sg_plan_conforms(&spread, &pb, 0, why, sizeof(why)) != 0;
	printf("%s layers, 64 nodes n = 131072: %d layers of %dx%d ranks, MPI %.3f GiB per rank "
	       "(partials %.3f) against 2D's %.3f; d=%d; its choices give it again\n",
	       ok ? "PASS" : "FAIL", sg_layers(&plan), sg_layer_P(&plan), sg_layer_Q(&plan),
	       plan.mpi_recv_bytes / GiB, plan.partial_bytes / GiB, flat.mpi_recv_bytes / GiB,
	       plan.d);
	int failures = !ok + !ok0;
	/* Refusals: node peers reading in place, one rank, 3 layers on 8 x 8, 64 layers of 1. */
	struct {
		const char *name;
		int P, Q, layers, col_peers;
	} refused[] = { { "node peers", 8, 8, 4, 1 }, { "one rank", 1, 1, 2, 0 },
	                { "3 layers on 8 x 8", 8, 8, 3, 0 }, { "layers of one rank", 8, 8, 64, 0 } };
	for (size_t c = 0; c < sizeof(refused) / sizeof(refused[0]); c++) {
		struct sg_problem p = pb;
		p.P = refused[c].P;
		p.Q = refused[c].Q;
		p.local = p.P * p.Q == 1;
		struct sg_resources r = res;
		r.col_peers = refused[c].col_peers;
		opts.layers = refused[c].layers;
		*why = 0;
		int rc = sg_plan_compute(&plan, &p, &r, &opts, why, sizeof(why));
		int good = rc == -EINVAL && strstr(why, "layers") != NULL;
		printf("%s layers refused: %s: %s\n", good ? "PASS" : "FAIL", refused[c].name, why);
		failures += !good;
	}
	return failures;
}

/* A plan conforms to its own problem and beta, and to no other. */
static int check_conformance(void)
{
	const struct row *r = &rows[0];
	struct starpu_gemm_plan plan;
	char why[512];
	plan_row(r, NULL, &plan, why, sizeof(why));
	struct sg_problem pb = problem_of(r), other = pb;
	struct {
		const char *name;
		int ret;
	} cases[8];
	cases[0].name = "its own problem";
	cases[0].ret = sg_plan_conforms(&plan, &pb, 0, why, sizeof(why));
	cases[1].name = "another beta";
	cases[1].ret = !sg_plan_conforms(&plan, &pb, 1, why, sizeof(why));
	other.Kt++;
	cases[2].name = "another K";
	cases[2].ret = !sg_plan_conforms(&plan, &other, 0, why, sizeof(why));
	other = pb;
	other.prec = 's';
	cases[3].name = "another precision";
	cases[3].ret = !sg_plan_conforms(&plan, &other, 0, why, sizeof(why));
	struct starpu_gemm_plan broken = plan;
	broken.d = 0;
	cases[4].name = "a plan with d = 0";
	cases[4].ret = !sg_plan_conforms(&broken, &pb, 0, why, sizeof(why));
	/* The walk indexes GPUs by the plan's grid: one that does not hold G GPUs is refused. */
	broken = plan;
	broken.gpu_cols = broken.G + 1;
	cases[5].name = "a GPU grid of more GPUs than the plan's";
	cases[5].ret = !sg_plan_conforms(&broken, &pb, 0, why, sizeof(why));
	broken = plan;
	broken.gpu_peers = 1;
	broken.static_gpu = 0;
	cases[6].name = "relays without GPUs owning their tiles";
	cases[6].ret = !sg_plan_conforms(&broken, &pb, 0, why, sizeof(why));
	broken = plan;
	broken.c_spread = broken.c_home = 1;
	cases[7].name = "C spread and at home (one scratch tile each)";
	cases[7].ret = !sg_plan_conforms(&broken, &pb, 0, why, sizeof(why));
	int failures = 0;
	for (int c = 0; c < 8; c++) {
		printf("%s conformance: %s\n", cases[c].ret ? "FAIL" : "PASS", cases[c].name);
		failures += cases[c].ret != 0;
	}
	return failures;
}

int main(void)
{
	int failures = 0, print = getenv("SG_TEST_PLAN_PRINT") != NULL;
	for (size_t n = 0; n < sizeof(rows) / sizeof(rows[0]); n++) {
		const struct row *r = &rows[n];
		struct starpu_gemm_plan plan, again;
		char why[512] = "", why2[512] = "";
		int ret = plan_row(r, NULL, &plan, why, sizeof(why));
		/* Pure: the same inputs, the same plan, byte for byte; and its choices forced give
		 * it again (what the one call's panels plan with). */
		int ret2 = plan_row(r, NULL, &again, why2, sizeof(why2));
		struct starpu_gemm_plan forced;
		char why3[512];
		int same_forced = ret || (plan_row(r, &plan, &forced, why3, sizeof(why3)) == 0 &&
		                          memcmp(&plan, &forced, sizeof(plan)) == 0);
		double h2d = plan.host_to_gpu_bytes / GiB, mpi = plan.mpi_recv_bytes / GiB;
		if (print)
			printf("%-36s ret %d b=%d c=%d d=%d l=%d regime %s h2d %.3f GiB mpi %.3f GiB%s%s\n",
			       r->name, ret, plan.b, plan.c, plan.d, plan.lookahead, plan.regime, h2d,
			       mpi, *why ? ": " : "", why);
		int ok = ret == r->ret && ret2 == ret && strcmp(why, why2) == 0 &&
		         (ret || memcmp(&plan, &again, sizeof(plan)) == 0) && same_forced;
		if (ok && ret)
			ok = *why != 0; /* a refusal always says why */
		if (ok && !ret)
			ok = plan.b == r->eb && plan.c == r->ec && plan.d == r->ed &&
			     plan.lookahead == r->el && strcmp(plan.regime, r->regime) == 0 &&
			     fabs(h2d - r->h2d_gib) < 5e-4 && fabs(mpi - r->mpi_gib) < 5e-4;
		printf("%s %s: ret %d b=%d c=%d d=%d lookahead=%d regime %s host->GPU %.3f GiB MPI "
		       "%.3f GiB%s%s\n", ok ? "PASS" : "FAIL", r->name, ret, plan.b, plan.c, plan.d,
		       plan.lookahead, ret ? "-" : plan.regime, h2d, mpi, *why ? ": " : "", why);
		failures += !ok;
	}
	failures += check_conformance();
	failures += check_dynamic_gpus();
	failures += check_gpu_chunks();
	failures += check_c_spread();
	failures += check_gpu_peers();
	failures += check_gpu_peers_nodes();
	failures += check_lower_bound();
	failures += check_layers();
	return failures ? 1 : 0;
}
