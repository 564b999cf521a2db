#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "runtime/env.h"
#include "drivers/report.h"
#include "compute/layers.h"
#include "drivers/collectives.h"
#include "drivers/resources.h"

/* This rank's GPUs by UUID, one 32-hex-digit word each after a space (" 6b2f... 91c0..."):
 * a UUID names one GPU on any node, and each MIG instance apart, which are not time-sliced
 * against each other. "" without CUDA workers, and under simulation (no real device). */
enum { SG_GPU_UUID_TEXT = 33, SG_GPU_TEXT = 1 + STARPU_MAXCUDADEVS * SG_GPU_UUID_TEXT };
static void gpu_names(char text[SG_GPU_TEXT])
{
	memset(text, 0, SG_GPU_TEXT); /* all of it is gathered */
#if defined(STARPU_USE_CUDA) && !defined(STARPU_SIMGRID)
	size_t len = 0;
	int seen[STARPU_MAXCUDADEVS] = { 0 }; /* several workers may drive one device */
	for (unsigned w = 0; w < starpu_worker_get_count(); w++) {
		int dev = starpu_worker_get_devid((int)w);
		if (starpu_worker_get_type((int)w) != STARPU_CUDA_WORKER || dev < 0 ||
		    dev >= STARPU_MAXCUDADEVS || seen[dev]++)
			continue;
		const struct cudaDeviceProp *p = starpu_cuda_get_device_properties(w);
		if (!p) /* no UUID: all zeros would make unknown GPUs one shared GPU */
			continue;
		text[len++] = ' ';
		for (int b = 0; b < 16; b++, len += 2)
			snprintf(text + len, 3, "%02x", (unsigned char)p->uuid.bytes[b]);
	}
#endif
}

/* Whether the UUID at uuid is one of a rank's gpu_names. */
static int names_uuid(const char *names, const char *uuid)
{
	for (const char *v = names; *v == ' '; v += SG_GPU_UUID_TEXT)
		if (memcmp(uuid, v, SG_GPU_UUID_TEXT) == 0)
			return 1;
	return 0;
}

/* Whether two ranks' gpu_names have a UUID in common. */
static int share_a_gpu(const char *mine, const char *other)
{
	for (const char *u = mine; *u == ' '; u += SG_GPU_UUID_TEXT)
		if (names_uuid(other, u))
			return 1;
	return 0;
}

/* The job's GPUs, each counted once however many ranks drive it (the gpu_names of every
 * rank); a rank whose GPUs have no UUID (simulation) counts its memory nodes, all[3 r + 2]. */
static int distinct_gpus(const char *names, const int *all, int nranks)
{
	int n = 0;
	for (int r = 0; r < nranks; r++) {
		const char *mine = names + SG_GPU_TEXT * r;
		if (*mine != ' ')
			n += all[3 * r + 2];
		for (const char *u = mine; *u == ' '; u += SG_GPU_UUID_TEXT) {
			int before = 0;
			for (int s = 0; s < r && !before; s++)
				before = names_uuid(names + SG_GPU_TEXT * s, u);
			n += !before;
		}
	}
	return n;
}

/* Ranks that share a GPU: said once, with what it costs and what helps (bench/notes-gpu.md):
 * two CUDA contexts time-slice the GPU. */
static void note_shared_gpus(const char *names, int nranks)
{
	for (int r = 0; r < nranks; r++)
		for (int s = r + 1; s < nranks; s++)
			if (share_a_gpu(names + SG_GPU_TEXT * r, names + SG_GPU_TEXT * s)) {
				printf("note: ranks %d and %d share a GPU: 2 ranks on one H100 ran 0.75 x one "
				       "rank's speed, 0.93 x under CUDA MPS with Open MPI's CMA transfers "
				       "(--mca btl_vader_single_copy_mechanism cma); one rank per GPU is "
				       "fastest, and a rank may drive several GPUs\n", r, s);
				return;
			}
}

/* StarPU's global scheduling context, the one starpu_init creates (STARPU_GLOBAL_SCHED_CTX
 * inside StarPU). */
#define SG_GLOBAL_SCHED_CTX 0

static void scheduler_name(char *buf, size_t len)
{
	struct starpu_sched_policy *policy = starpu_sched_ctx_get_sched_policy(SG_GLOBAL_SCHED_CTX);
	snprintf(buf, len, "%s", policy && policy->policy_name ? policy->policy_name : "unknown");
}

/* The logical CPUs (hwloc's numbering, as StarPU's) this rank's workers are bound to, as
 * "0,1": what shows that ranks of one node do not share cores. */
enum { SG_BINDING_TEXT = 48 };
static void workers_binding(char text[SG_BINDING_TEXT])
{
	int len = 0, n = (int)starpu_worker_get_count();
	text[0] = '\0';
	for (int w = 0; w < n && len < SG_BINDING_TEXT - 8; w++)
		len += snprintf(text + len, (size_t)(SG_BINDING_TEXT - len), "%s%d", w ? "," : "",
		                starpu_worker_get_bindid(w));
}

void sg_report_setup(struct sg_report *rep, const struct sg_driver_options *opts)
{
	memset(rep, 0, sizeof(*rep));
	rep->opts = opts;
	MPI_Comm_rank(MPI_COMM_WORLD, &rep->rank);
	MPI_Comm_size(MPI_COMM_WORLD, &rep->nranks);
	scheduler_name(rep->sched, sizeof(rep->sched));

	int mine[3] = { (int)starpu_cpu_worker_get_count(), (int)starpu_cuda_worker_get_count(),
	                (int)starpu_memory_nodes_get_count_by_kind(STARPU_CUDA_RAM) };
	int *all = rep->rank == 0 ? malloc(3 * sizeof(int) * (size_t)rep->nranks) : NULL;
	sg_driver_gather(mine, all, (int)sizeof(mine), MPI_COMM_WORLD);
	char binding[SG_BINDING_TEXT], *bindings = rep->rank == 0 ?
		malloc(SG_BINDING_TEXT * (size_t)rep->nranks) : NULL;
	workers_binding(binding);
	sg_driver_gather(binding, bindings, SG_BINDING_TEXT, MPI_COMM_WORLD);
	char gpus[SG_GPU_TEXT], *all_gpus = rep->rank == 0 ? malloc(SG_GPU_TEXT * (size_t)rep->nranks)
	                                                   : NULL;
	gpu_names(gpus);
	sg_driver_gather(gpus, all_gpus, SG_GPU_TEXT, MPI_COMM_WORLD);
	for (int r = 0; all && r < rep->nranks; r++) {
		rep->ncpu += all[3 * r];
		rep->ncuda += all[3 * r + 1];
	}
	if (all && all_gpus)
		rep->ngpus = distinct_gpus(all_gpus, all, rep->nranks);
	if (rep->rank == 0 && !opts->csv) {
		printf("starpu_gemm %s on StarPU %d.%d.%d, %d rank(s), grid %d x %d, distribution %s\n",
		       STARPU_GEMM_VERSION, STARPU_MAJOR_VERSION, STARPU_MINOR_VERSION,
		       STARPU_RELEASE_VERSION, rep->nranks, opts->P, opts->Q,
		       sg_options_dist_name(opts->dist));
		/* The default is dmdas with CUDA workers, lws without: each run names only its
		 * own, so a CPU-only run says no word of GPUs. */
		printf("scheduler: %s (%s)\n", rep->sched,
		       sg_env_is_set(SG_ENV_SCHED) ? "STARPU_SCHED" :
		       rep->ncuda ? "the library's default with CUDA workers; STARPU_SCHED overrides"
		                  : "the library's default on CPU workers; STARPU_SCHED overrides");
		/* The library chooses it from the job's nodes where the user did not
		 * (runtime/node_conf.c). */
		if (rep->nranks > 1)
			printf("MPI: at most %lld tile sends in flight per rank "
			       "(STARPU_MPI_NDETACHED_SEND)\n",
			       (long long)sg_env_int(SG_ENV_MPI_NDETACHED_SEND));
		for (int r = 0; r < rep->nranks; r++) {
			printf("workers: rank %d: %d CPU", r, all[3 * r]);
			if (all[3 * r + 1] || all[3 * r + 2]) /* CPU-only ranks: no word of GPUs */
				printf(", %d CUDA (%d GPU)", all[3 * r + 1], all[3 * r + 2]);
			printf(", on CPUs %s\n", bindings + SG_BINDING_TEXT * r);
		}
		note_shared_gpus(all_gpus, rep->nranks);
		printf("problem: %cgemm%s transA=%c transB=%c M=%lld N=%lld K=%lld tile=%d, "
		       "alpha=%g%+gi beta=%g%+gi\n", opts->prec,
		       opts->gemm.math == STARPU_GEMM_MATH_TF32 ? " in TF32" : "", opts->transA,
		       opts->transB, (long long)opts->M, (long long)opts->N, (long long)opts->K,
		       opts->gemm.tile, opts->alpha[0], opts->alpha[1], opts->beta[0],
		       opts->beta[1]);
		sg_report_flush();
	}
	free(all);
	free(bindings);
	free(all_gpus);
}

void sg_report_plan(const struct sg_report *rep)
{
	if (rep->rank != 0)
		return;
	static int header_printed; /* one table for every size of the run */
	if (rep->opts->csv && !rep->opts->plan_only) {
		if (!header_printed++)
			printf("%s\n", SG_REPORT_CSV_HEADER);
	} else {
		starpu_gemm_plan_print(stdout, rep->plan);
	}
	sg_report_flush();
}

/* "PASSED (residual 1.2e-02, full)" and, for NaN or Inf, where the first one is: its element
 * and its tile. */
static void format_check(const struct sg_check_result *check, int tile, char *buf, size_t len)
{
	char how[64];
	if (check->samples > 0)
		snprintf(how, sizeof(how), "sampled (%lld entries/rank)", (long long)check->samples);
	else
		snprintf(how, sizeof(how), "full");
	int n = snprintf(buf, len, "check: %s (scaled residual %.3e, bound %.0f, %s)",
	                 check->passed ? "PASSED" : "FAILED", check->residual,
	                 STARPU_GEMM_CHECK_BOUND, how);
	if (!isfinite(check->residual) && check->bad_row >= 0)
		snprintf(buf + n, len - (size_t)n, ": C(%lld,%lld) in tile (%lld,%lld) is NaN or Inf",
		         (long long)check->bad_row, (long long)check->bad_col,
		         (long long)(check->bad_row / tile), (long long)(check->bad_col / tile));
}

/* Collective: measured (SG_TRAFFIC_KINDS values), then the plan's predictions (host -> GPU,
 * GPU -> host, MPI received, GPU -> GPU), summed over ranks on rank 0. */
#define SG_REPORT_BYTES (SG_TRAFFIC_KINDS + 4)
static void sum_bytes(const struct starpu_gemm_plan *pl, const double measured[SG_TRAFFIC_KINDS],
                      double sums[SG_REPORT_BYTES])
{
	double mine[SG_REPORT_BYTES] = { measured[0], measured[1], measured[2], measured[3],
	                                 pl->host_to_gpu_bytes, pl->gpu_to_host_bytes,
	                                 pl->mpi_recv_bytes, pl->gpu_to_gpu_bytes };
	sg_driver_allreduce(mine, sums, SG_REPORT_BYTES, sizeof(double), MPI_DOUBLE, MPI_SUM,
	             MPI_COMM_WORLD);
}

void sg_report_iteration(const struct sg_report *rep, int iter, double seconds,
                         double pin_seconds, const struct sg_check_result *check,
                         const struct sg_traffic *traffic)
{
	const struct sg_driver_options *o = rep->opts;
	const struct starpu_gemm_plan *pl = rep->plan;
	/* The run's bytes, then the predictions, summed over ranks for the CSV row. */
	double bytes[SG_REPORT_BYTES] = { 0 };
	if (o->csv)
		sum_bytes(pl, traffic->last_run, bytes);
	if (rep->rank != 0)
		return;
	double gflops = starpu_gemm_tile_flops(o->prec, o->M, o->N, o->K) / seconds / 1e9;
	char check_text[160] = "";
	if (check->done)
		format_check(check, rep->opts->gemm.tile, check_text, sizeof(check_text));
	if (o->csv) {
		printf("starpu_gemm,%c,%c,%c,%lld,%lld,%lld,%d,%d,%d,%s,%d,%d,%d,%s,%d,%d,%d,%d,%d,%d,"
		       "%.6f,%.3f,", o->prec, o->transA, o->transB, (long long)o->M,
		       (long long)o->N, (long long)o->K, o->gemm.tile, o->P, o->Q,
		       sg_options_dist_name(o->dist), rep->nranks, rep->ncuda, rep->ncpu, rep->sched,
		       pl->b, pl->c, pl->d, pl->lookahead, pl->throttled, iter, seconds, gflops);
		if (check->done)
			printf("%.6e", check->residual);
		else
			printf("-1");
		for (int b = 0; b < SG_REPORT_BYTES - 1; b++)
			printf(",%.0f", bytes[b]);
		/* nb, block, memory, threads, gbs: the peers' columns; gpu: the job's GPUs (a
		 * number: bench/report.py's rooflines count each GPU once); then math */
		printf(",%s,%s,%.6f,,,,,,%d,%s", pl->regime[0] ? pl->regime : "-",
		       sg_options_layout_name(o->layout), pin_seconds, rep->ngpus,
		       o->gemm.math == STARPU_GEMM_MATH_TF32 ? "tf32" : "default");
		printf(",%.0f,%d\n", bytes[SG_REPORT_BYTES - 1], sg_layers(pl)); /* pred_d2d_bytes */
		if (check->done) /* stdout holds only the table */
			fprintf(stderr, "iteration %d: %s\n", iter, check_text);
	} else {
		printf("iteration %d/%d: %.4f s, %.2f GFLOP/s", iter, o->niter, seconds, gflops);
		if (rep->ngpus > 0)
			printf(" (%.2f per GPU)", gflops / rep->ngpus);
		if (o->layout == SG_LAYOUT_LAPACK)
			printf(" (pinning %.3f s)", pin_seconds);
		printf("%s%s\n", check->done ? ", " : "", check_text);
	}
	sg_report_flush();
}

static int flush_errno;

void sg_report_flush(void)
{
	errno = 0;
	if (fflush(stdout) != 0 && !flush_errno)
		flush_errno = errno ? errno : EIO;
}

int sg_report_flush_errno(void)
{
	return flush_errno;
}

/* Set when we turned StarPU-MPI's statistics on and the user had not asked for them. */
static int stats_unasked;

void sg_traffic_enable(struct sg_traffic *traffic)
{
	memset(traffic, 0, sizeof(*traffic));
	starpu_profiling_status_set(STARPU_PROFILING_ENABLE);
	stats_unasked = sg_env_int(SG_ENV_MPI_STATS) <= 0 && sg_env_int(SG_ENV_COMM_STATS) <= 0;
	/* It warns that statistics slow StarPU-MPI down "a bit", once per rank: they count
	 * bytes per message, which our traffic report needs. */
	int saved = stats_unasked ? sg_stderr_mute() : -1;
	starpu_mpi_comm_stats_enable();
	sg_stderr_restore(saved);
}

int sg_stderr_mute(void)
{
	fflush(stderr);
	int saved = dup(STDERR_FILENO);
	int null = open("/dev/null", O_WRONLY);
	if (saved >= 0 && null >= 0)
		dup2(null, STDERR_FILENO);
	if (null >= 0)
		close(null);
	return saved;
}

void sg_stderr_restore(int saved)
{
	if (saved < 0)
		return;
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
}

int sg_traffic_stats_unasked(void)
{
	return stats_unasked;
}

/* Bytes StarPU-MPI sent from this rank since statistics were enabled, to all ranks. */
static double mpi_sent_total(void)
{
	int nranks;
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	size_t *now = calloc((size_t)nranks, sizeof(size_t));
	starpu_mpi_comm_stats_retrieve(now);
	double total = 0;
	for (int r = 0; r < nranks; r++)
		total += (double)now[r];
	free(now);
	return total;
}

void sg_traffic_begin(struct sg_traffic *traffic)
{
	/* Reading a bus's counters resets them: what was moved before this run is dropped. */
	for (int bus = 0; bus < starpu_bus_get_count(); bus++)
		starpu_bus_get_profiling_info(bus, NULL);
	traffic->mpi_sent_before = mpi_sent_total();
}

void sg_traffic_end(struct sg_traffic *traffic)
{
	double *run = traffic->last_run;
	run[0] = run[1] = run[2] = 0;
	for (int bus = 0; bus < starpu_bus_get_count(); bus++) {
		struct starpu_profiling_bus_info info;
		starpu_bus_get_profiling_info(bus, &info);
		enum starpu_node_kind src = starpu_node_get_kind((unsigned)starpu_bus_get_src(bus));
		enum starpu_node_kind dst = starpu_node_get_kind((unsigned)starpu_bus_get_dst(bus));
		double bytes = (double)info.transferred_bytes;
		if (src == STARPU_CPU_RAM && dst == STARPU_CUDA_RAM)
			run[0] += bytes;
		else if (src == STARPU_CUDA_RAM && dst == STARPU_CPU_RAM)
			run[1] += bytes;
		else if (src == STARPU_CUDA_RAM && dst == STARPU_CUDA_RAM)
			run[2] += bytes;
	}
	run[3] = mpi_sent_total() - traffic->mpi_sent_before;
	for (int t = 0; t < SG_TRAFFIC_KINDS; t++)
		traffic->total[t] += run[t];
}

void sg_report_traffic(const struct sg_report *rep, const struct sg_traffic *traffic, int runs)
{
	double sums[SG_REPORT_BYTES];
	sum_bytes(rep->plan, traffic->total, sums);
	/* The network term is the busiest rank's: ranks receive different amounts (transposed
	 * operands, tiles dealt unevenly). */
	double mine = rep->plan ? rep->plan->mpi_recv_bytes : 0, most = 0;
	sg_driver_allreduce(&mine, &most, 1, sizeof(double), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	/* --csv: the rows carried it already. */
	if (rep->rank != 0 || runs <= 0 || rep->opts->csv)
		return;
	char a[32], b[32];
	printf("traffic per run, all ranks (measured: mean of %d run(s)):\n", runs);
	printf("  %-14s %14s %14s\n", "", "measured", "predicted");
	const char *names[] = { "host -> GPU", "GPU -> host", "GPU <-> GPU", "MPI" };
	for (int t = rep->ngpus > 0 ? 0 : 3; t < 4; t++) {
		static const int prediction[] = { 4, 5, 7, 6 }; /* in sums[] */
		const char *predicted = sg_driver_format_bytes(sums[prediction[t]], b, sizeof(b));
		printf("  %-14s %14s %14s\n", names[t],
		       sg_driver_format_bytes(sums[t] / runs, a, sizeof(a)), predicted);
	}
	printf("  (MPI measured: bytes StarPU-MPI sent; predicted: A and B tiles received from other "
	       "nodes)\n");
	const struct starpu_gemm_plan *pl = rep->plan;
	if (pl && pl->mpi_rate > 0 && most > 0) {
		double term = most / pl->mpi_rate;
		printf("  network term %.6g s per run (%.6g GB, the most a rank receives from other "
		       "nodes, at %.6g GB/s, STARPU_GEMM_MPI_GBPS): the runs took %.2f x it\n", term,
		       most / 1e9, pl->mpi_rate / 1e9, traffic->seconds / runs / term);
	}
	sg_report_flush();
}

void sg_report_timeline(const struct sg_report *rep, const struct starpu_gemm_stats *stats)
{
	if (rep->rank != 0 || rep->opts->csv || rep->opts->quiet || stats->last_task_s <= 0)
		return;
	printf("  timeline on rank 0 from submission: first task done %.1f ms, half of them %.1f ms, "
	       "last %.1f ms, C home %.1f ms\n", stats->first_task_s * 1e3,
	       stats->half_tasks_s * 1e3, stats->last_task_s * 1e3, stats->c_home_s * 1e3);
	const struct starpu_gemm_plan *pl = &stats->plan;
	printf("  submission on rank 0: %lld tasks inserted of the product's %.0f (%lld run here), "
	       "%lld tiles sent, %.1f ms inserting and sending; %lld tile handles of the %.0f\n",
	       (long long)stats->tasks_inserted, (double)pl->Mt * pl->Nt * pl->Kt,
	       (long long)stats->tasks, (long long)stats->tiles_sent, stats->insert_seconds * 1e3,
	       (long long)stats->handles,
	       (double)pl->Mt * pl->Kt + (double)pl->Kt * pl->Nt + (double)pl->Mt * pl->Nt);
}
