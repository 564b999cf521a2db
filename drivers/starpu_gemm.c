/* starpu_gemm: mpirun -np R starpu_gemm [options] runs C = alpha*op(A)*op(B) + beta*C on
 * random matrices with starpu_gemm_pgemm, times it, optionally checks it, and reports.
 *
 * Bad input never hangs or aborts the job: what argv alone can tell is rejected before StarPU
 * starts (every rank parses the same argv, so they all stop together); what needs StarPU or
 * the other ranks is agreed on with an MPI_Allreduce, then every rank shuts down cleanly.
 * Rank 0 prints the one error line. */
#define _GNU_SOURCE
#include <sched.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cblas.h>
#include <hwloc.h>
#include "runtime/env.h"
#include "drivers/options.h"
#include "drivers/report.h"
#include "drivers/resources.h"
#include "drivers/collectives.h"
#include "common/threads.h"
#include "compute/plan.h"
#include "doors/stage.h"

enum { EXIT_OK = 0, EXIT_FAILED = 1, EXIT_BAD_INPUT = 2 };

/* Seeds of A, B and C0: C is refilled with C0's before every run, so each can be checked. */
static const uint64_t seedA = 1, seedB = 2, seedC0 = 3;

static int rank, nranks;

/* Collective: 0 when no rank has text; else 1 on every rank, and rank 0 prints the text of
 * the lowest rank that has one, as "starpu_gemm: <kind>: text". text is NULL or empty where
 * this rank has nothing to say. */
static int say_first(const char *text, const char *kind)
{
	char message[512] = "";
	int mine = text && *text ? rank : nranks, first;
	sg_driver_allreduce(&mine, &first, 1, sizeof(int), MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (first == nranks)
		return 0;
	if (rank == first)
		snprintf(message, sizeof(message), "%s", text);
	sg_driver_bcast(message, (int)sizeof(message), first, MPI_COMM_WORLD);
	if (rank == 0) {
		fprintf(stderr, "starpu_gemm: %s: %s\n", kind, message);
		fflush(stderr);
	}
	return 1;
}

/* Collective: 0 when no rank has an error; else 1 on every rank, and rank 0 prints the
 * message of the lowest failing rank. error is NULL or empty where this rank is fine. */
static int agree_on_error(const char *error)
{
	return say_first(error, "error");
}

/* --csv FILE: rank 0's stdout becomes FILE, written by rank 0 itself. Under mpirun a rank's
 * stdout is a pipe to mpirun, which drops what it cannot write (a full disk) and tells no
 * rank, so --csv > file cannot fail the run; a file of our own can. Opened before StarPU
 * starts, so a bad path costs nothing; text says why it failed, for the ranks to agree on
 * once StarPU runs (their collectives need it under simulation). */
static void open_csv_file(const char *path, char *text, size_t len)
{
	if (rank != 0 || !path)
		return;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0) {
		char shown[96];
		sg_driver_error(text, len, "--csv: cannot write '%s': %s",
		                sg_printable(path, shown, sizeof(shown)), strerror(errno));
	}
	if (fd > STDOUT_FILENO)
		close(fd);
}

/* Rank 0: whether all it printed on stdout got there (rows lost to a full disk or a closed
 * pipe: --csv > file, --csv FILE), and for --csv FILE whether closing it did too (NFS reports
 * some errors only then); stdout is /dev/null afterwards. text says what failed. */
static void finish_output(const char *path, char *text, size_t len)
{
	if (rank != 0)
		return;
	sg_report_flush();
	int why = sg_report_flush_errno(), failed = why || ferror(stdout);
	if (!failed && path) {
		errno = 0;
		failed = close(STDOUT_FILENO) != 0;
		why = errno;
		int null = open("/dev/null", O_WRONLY); /* the lowest free descriptor: 1 */
		if (null > STDOUT_FILENO) {
			dup2(null, STDOUT_FILENO);
			close(null);
		}
	}
	char shown[96] = "standard output";
	if (path)
		sg_printable(path, shown, sizeof(shown));
	if (failed)
		sg_driver_error(text, len, "writing the results to %s failed: %s", shown,
		                why ? strerror(why) : "an earlier write failed");
}

/* One BLAS thread per call: every StarPU CPU worker already owns a core, and a threaded
 * OpenBLAS would start its own threads on all of them from each worker's tile GEMM, so n
 * workers would run n x n threads on n cores. This is the program's choice, made here and not
 * in libstarpu_gemm: the library never changes the BLAS threading of the application that
 * links it (an application may run other BLAS calls of its own, outside StarPU's workers).
 * Other CBLAS libraries have their own knob (e.g. OMP_NUM_THREADS, MKL_NUM_THREADS). */
static void single_threaded_blas(void)
{
#ifdef OPENBLAS_VERSION
	openblas_set_num_threads(1);
#endif
}

/* How many CPUs (hardware threads) this process is bound to, and how many its node allows
 * (hwloc's allowed set: the node, or the cgroup of a Slurm allocation or a container, where
 * sysconf would count CPUs no rank may use). Read before StarPU starts: the library then
 * narrows the calling thread to its share of the node. */
struct binding {
	int bound, allowed;
};

static struct binding read_binding(void)
{
	struct binding b = { 0, (int)sysconf(_SC_NPROCESSORS_ONLN) };
	cpu_set_t mine;
	b.bound = sched_getaffinity(0, sizeof(mine), &mine) == 0 ? CPU_COUNT(&mine) : b.allowed;
	hwloc_topology_t topology;
	if (hwloc_topology_init(&topology) == 0) {
		int allowed = hwloc_topology_load(topology) == 0
		              ? hwloc_bitmap_weight(hwloc_topology_get_allowed_cpuset(topology)) : 0;
		if (allowed > 0)
			b.allowed = allowed;
		hwloc_topology_destroy(topology);
	}
	return b;
}

/* "0", "0 and 2", "0, 2 and 5", at most 8 named then "and N more": the ranks flagged. */
static void rank_list(const int *flagged, int n, char *text, size_t len)
{
	int total = 0, named = 0;
	size_t used = 0;
	for (int r = 0; r < n; r++)
		total += flagged[r];
	text[0] = '\0';
	for (int r = 0; r < n && named < 8; r++) {
		if (!flagged[r])
			continue;
		named++;
		const char *sep = named == 1 ? "" : named == total ? " and " : ", ";
		used += (size_t)snprintf(text + used, used < len ? len - used : 0, "%s%d", sep, r);
	}
	if (named < total && used < len)
		snprintf(text + used, len - used, " and %d more", total - named);
}

/* Collective: one note, from rank 0, when ranks are bound to fewer CPUs than their share of
 * their node (its allowed CPUs over its ranks): mpirun binds each rank to one core when it
 * starts 2 or fewer, and the library then has that core to work on, whatever the node has.
 * A note, never an error: the user may want it so. */
static void note_binding(const struct binding *mine, MPI_Comm host)
{
#ifdef STARPU_SIMGRID
	return; /* simulated ranks are threads of one process, on no core of their own */
#endif
	int host_ranks;
	MPI_Comm_size(host, &host_ranks);
	int share = mine->allowed / (host_ranks > 0 ? host_ranks : 1);
	int facts[3] = { mine->bound, mine->allowed, share };
	int *all = rank == 0 ? malloc(sizeof(facts) * (size_t)nranks) : NULL;
	int *flagged = rank == 0 ? calloc((size_t)nranks, sizeof(int)) : NULL;
	sg_driver_gather(facts, all, (int)sizeof(facts), MPI_COMM_WORLD);
	int first = -1, count = 0;
	for (int r = 0; all && flagged && r < nranks; r++)
		if (all[3 * r] < all[3 * r + 2]) {
			flagged[r] = 1;
			count++;
			if (first < 0)
				first = r;
		}
	if (count == 1) {
		fprintf(stderr, "starpu_gemm: note: rank %d is bound to %d of its node's %d CPUs, "
		        "fewer than its share (%d): run mpirun with --bind-to none, and the library "
		        "splits the node's cores among its ranks\n", first, all[3 * first],
		        all[3 * first + 1], all[3 * first + 2]);
	} else if (count > 1) {
		char ranks[160];
		rank_list(flagged, nranks, ranks, sizeof(ranks));
		fprintf(stderr, "starpu_gemm: note: ranks %s are bound to fewer CPUs than their share "
		        "of their node (rank %d: %d of %d CPUs, share %d): run mpirun with --bind-to "
		        "none, and the library splits each node's cores among its ranks\n", ranks,
		        first, all[3 * first], all[3 * first + 1], all[3 * first + 2]);
	}
	fflush(stderr);
	free(all);
	free(flagged);
}

static void stop_starpu(void)
{
	/* StarPU-MPI dumps its statistics on stderr at shutdown, several lines per rank, once
	 * they are on; we already reported them, so drop that dump unless the user asked for
	 * it. Nothing else goes to /dev/null: the exit status still tells a failed shutdown. */
	int saved_stderr = sg_traffic_stats_unasked() ? sg_stderr_mute() : -1;
	starpu_gemm_runtime_stop();
	sg_stderr_restore(saved_stderr);
}

/* Every rank must cut the matrices the same way: GPU tiles only if every rank has GPUs, CPU
 * tiles by the job's CPU workers. */
static void settle_tile(struct sg_driver_options *opts)
{
	int ncuda = (int)starpu_cuda_worker_get_count(), fewest = ncuda;
	int ncpu = (int)starpu_cpu_worker_get_count(), cpus = ncpu;
	if (!opts->gemm.tile) {
		sg_driver_allreduce(&ncuda, &fewest, 1, sizeof(int), MPI_INT, MPI_MIN,
		                    MPI_COMM_WORLD);
		sg_driver_allreduce(&ncpu, &cpus, 1, sizeof(int), MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	}
	opts->gemm.tile = starpu_gemm_tile_rule(opts->prec, opts->M, opts->N, opts->K, fewest,
	                                        cpus, opts->gemm.tile);
}

struct matrices {
	struct starpu_gemm_desc *A, *B, *C;
	void *array[3];           /* --layout lapack*: A, B, C as whole column-major arrays */
	int64_t ld[3];
	size_t bytes[3];
	int pinned;
};

/* --layout lapack*: the arrays the descriptors wrap (leading dimension = rows). */
static int alloc_array(const struct sg_driver_options *o, struct matrices *m, int x,
                       int64_t rows, int64_t cols)
{
	m->ld[x] = rows;
	char prec = x == 2 ? starpu_gemm_prec_of_c(o->prec) : o->prec;
	m->bytes[x] = (size_t)rows * (size_t)cols * starpu_gemm_elemsize(prec);
	m->pinned = o->layout == SG_LAYOUT_LAPACK_PINNED;
	if (m->pinned)
		return starpu_malloc(&m->array[x], m->bytes[x]) == 0 && m->array[x] ? 0 : -ENOMEM;
	m->array[x] = malloc(m->bytes[x]);
	return m->array[x] ? 0 : -ENOMEM;
}

static void free_arrays(struct matrices *m)
{
	for (int x = 0; x < 3; x++) {
		if (m->array[x] && m->pinned)
			starpu_free_noflag(m->array[x], m->bytes[x]);
		else
			free(m->array[x]);
		m->array[x] = NULL;
	}
}

/* Collective. On failure, err names the matrix; every descriptor created is destroyed. */
static int create_matrices(const struct sg_driver_options *o, struct matrices *m, char *err,
                           size_t errlen)
{
	struct starpu_gemm_dist dist = { .kind = o->dist, .P = o->P, .Q = o->Q };
	struct starpu_gemm_desc **desc[3] = { &m->A, &m->B, &m->C };
	memset(m, 0, sizeof(*m));
	for (int x = 0; x < 3; x++) {
		char local[256] = "";
		int ret;
		char prec = x == 2 ? starpu_gemm_prec_of_c(o->prec) : o->prec; /* C: float for b, h */
		int64_t rows = sg_options_stored_rows(o, x), cols = sg_options_stored_cols(o, x);
		if (o->layout == SG_LAYOUT_TILE)
			ret = starpu_gemm_desc_create(desc[x], prec, rows, cols, o->gemm.tile, &dist,
			                              MPI_COMM_WORLD);
		else if (!(ret = alloc_array(o, m, x, rows, cols)))
			ret = starpu_gemm_desc_create_lapack(desc[x], prec, rows, cols, o->gemm.tile,
			                                     m->array[x], m->ld[x], &dist,
			                                     MPI_COMM_WORLD);
		if (ret)
			sg_driver_error(local, sizeof(local), "creating %c (%lld x %lld, tile %d) failed: "
			             "%s", "ABC"[x], (long long)rows, (long long)cols, o->gemm.tile,
			             strerror(-ret));
		if (agree_on_error(local)) {
			snprintf(err, errlen, "%s", local);
			/* Destroy is collective: only what every rank created. */
			for (int y = 0; y < x; y++)
				starpu_gemm_desc_destroy(*desc[y]);
			free_arrays(m);
			return -1;
		}
	}
	return 0;
}

static void destroy_matrices(struct matrices *m)
{
	starpu_gemm_desc_destroy(m->A);
	starpu_gemm_desc_destroy(m->B);
	starpu_gemm_desc_destroy(m->C);
	free_arrays(m);
}

/* One product: on the library's tiles, or on the arrays through the one call on host arrays
 * (which wraps them again in its own descriptors: the driver's only fill and check them). */
static int multiply(const struct sg_driver_options *o, const struct starpu_gemm_opts *gemm_opts,
                    struct matrices *m, const void *alpha, const void *beta,
                    struct starpu_gemm_stats *stats)
{
	if (o->layout == SG_LAYOUT_TILE)
		return starpu_gemm_pgemm(o->transA, o->transB, alpha, m->A, m->B, beta, m->C,
		                         gemm_opts, stats);
	return starpu_gemm_gemm_ex(o->prec, o->transA, o->transB, o->M, o->N, o->K, alpha,
	                           m->array[0], m->ld[0], m->array[1], m->ld[1], beta, m->array[2],
	                           m->ld[2], gemm_opts, stats);
}

/* Full check for small products, sampled beyond, unless --check-samples chose. */
static int64_t check_samples(const struct sg_driver_options *o)
{
	if (o->check_samples >= 0)
		return o->check_samples;
	double mnk = (double)o->M * (double)o->N * (double)o->K;
	return mnk <= (double)SG_DRIVER_FULL_CHECK_MAX_MNK ? 0 : SG_DRIVER_DEFAULT_SAMPLES;
}

/* Warm-up runs, then timed runs each followed by its check. Returns the exit status. */
static int run(const struct sg_driver_options *o, const struct starpu_gemm_opts *gemm_opts,
               struct matrices *m, struct sg_report *rep)
{
	double alpha[2], beta[2]; /* room for a double complex */
	sg_options_scalar(o->prec, o->alpha, alpha);
	sg_options_scalar(o->prec, o->beta, beta);

	if (o->check && rank == 0 && !o->csv)
		starpu_gemm_check_describe(stdout, o->prec, o->gemm.math);
	/* Also with --csv: each row carries its run's traffic. */
	struct sg_traffic traffic = { 0 };
	sg_traffic_enable(&traffic);

	int status = EXIT_OK;
	for (int iter = 1 - o->warmup; iter <= o->niter; iter++) {
		/* Inputs are rewritten in host memory before each run: no copy left on a GPU by the
		 * previous run shortens this one, and C holds C0 again for the check. */
		char err[256] = "";
		int ret = starpu_gemm_desc_fill_random(m->A, seedA);
		if (!ret)
			ret = starpu_gemm_desc_fill_random(m->B, seedB);
		if (!ret)
			ret = starpu_gemm_desc_fill_random(m->C, seedC0);
		if (ret)
			sg_driver_error(err, sizeof(err), "filling the matrices failed: %s", strerror(-ret));
		if (agree_on_error(err))
			return EXIT_FAILED;

		int timed = iter >= 1;
		if (timed)
			sg_traffic_begin(&traffic);
		sg_driver_barrier(MPI_COMM_WORLD);
		double start = sg_now();
		struct starpu_gemm_stats stats = { 0 };
		ret = multiply(o, gemm_opts, m, alpha, beta, &stats);
		sg_driver_barrier(MPI_COMM_WORLD);
		double seconds = sg_now() - start;
		if (timed) {
			sg_traffic_end(&traffic);
			traffic.seconds += seconds;
		}
		if (ret)
			sg_driver_error(err, sizeof(err), "starpu_gemm_pgemm failed: %s", strerror(-ret));
		if (agree_on_error(err))
			return EXIT_FAILED;
		if (!timed) {
			/* More than one warm-up run: say how far they are, they print nothing else. */
			if (o->warmup > 1 && rank == 0 && !o->quiet && !o->csv)
				printf("warm-up %d/%d: %.4f s\n", iter + o->warmup, o->warmup, seconds);
			continue;
		}

		struct sg_check_result check = { 0 };
		if (o->check) {
			check.done = 1;
			check.samples = check_samples(o);
			ret = starpu_gemm_check_math(o->gemm.math, o->transA, o->transB, alpha, m->A,
			                             seedA, m->B, seedB, beta, m->C, seedC0,
			                             check.samples, &check.residual, &check.bad_row,
			                             &check.bad_col);
			if (ret)
				sg_driver_error(err, sizeof(err), "starpu_gemm_check failed: %s",
				             strerror(-ret));
			if (agree_on_error(err))
				return EXIT_FAILED;
			/* NaN compares false: a NaN residual fails too. */
			check.passed = check.residual <= STARPU_GEMM_CHECK_BOUND;
			if (!check.passed)
				status = EXIT_FAILED;
		}
		sg_report_iteration(rep, iter, seconds, stats.pin_seconds, &check, &traffic);
		sg_report_timeline(rep, &stats);
	}
	sg_report_traffic(rep, &traffic, o->niter);
	return status;
}

/* Rank 0, not in CSV: the host memory bound of the largest rank, and what it reached (peak:
 * the largest VmHWM, 0 before a run; a process's peak covers the sizes before this one). */
static void report_memory(const struct sg_driver_options *o, double bound, double peak)
{
	if (rank != 0 || o->csv)
		return;
	char b[32], p[32];
#ifdef STARPU_SIMGRID
	/* Simulated ranks are threads of one process with folded tiles: its peak is no rank's. */
	printf("memory: bound per rank %s (simulated: no rank's peak is measured)\n",
	       sg_driver_format_bytes_to(bound, 3, b, sizeof(b)));
	(void)p;
	(void)peak;
	sg_report_flush();
	return;
#endif
	/* GB to three decimals: peak and bound are compared to the percent (bench/rss.sh),
	 * where "5.8 GB" would say little. */
	if (peak > 0)
		printf("memory: peak resident per rank %s, bound %s%s\n",
		       sg_driver_format_bytes_to(peak, 3, p, sizeof(p)),
		       sg_driver_format_bytes_to(bound, 3, b, sizeof(b)),
		       o->check ? " (with --check's reference buffers)" : "");
	else /* --plan: no matrix, so nothing to size the check's buffers from */
		printf("memory: resident per rank <= %s (the process now, its own tiles, the plan's%s)\n",
		       sg_driver_format_bytes(bound, b, sizeof(b)),
		       o->check ? "; not --check's reference buffers" : "");
	sg_report_flush();
}

/* Collective: the largest of the ranks' host memory bounds. */
static double largest(double mine)
{
	double bound;
	sg_driver_allreduce(&mine, &bound, 1, sizeof(double), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	return bound;
}

/* --layout lapack*: beside the plan, the pinned tiles the one call stages pageable arrays
 * through (its pool keeps them past the call), and the handles of the driver's own
 * descriptors over the arrays: the plan counts the call's, every tile of the one rank's A, B
 * and C, and these are as many again. m NULL (--plan): the arrays are not allocated yet;
 * pageable ones count as such, pinned ones are used in place. */
static double lapack_bytes(const struct sg_driver_options *o, const struct starpu_gemm_plan *plan,
                           const struct matrices *m, struct starpu_gemm_opts gemm_opts)
{
	if (o->layout == SG_LAYOUT_TILE)
		return 0;
	double handles = plan->handles * SG_HANDLE_HOST_BYTES;
	if (!m && o->layout == SG_LAYOUT_LAPACK_PINNED)
		return handles;
	gemm_opts.plan = plan;
	const void *array[3] = { NULL, NULL, NULL };
	for (int x = 0; m && x < 3; x++)
		array[x] = m->array[x];
	return handles + starpu_gemm_gemm_staged_bytes(
	                     o->prec, o->transA, o->transB, o->M, o->N, o->K, array[0],
	                     sg_options_stored_rows(o, 0), array[1], sg_options_stored_rows(o, 1),
	                     array[2], sg_options_stored_rows(o, 2), &gemm_opts);
}

/* What the first products on CUDA workers add after the bound's sample, where this rank has
 * some. Counted for every size: a later one's sample holds it already, by as much too high. */
static double cuda_bytes(void)
{
#ifdef STARPU_SIMGRID
	return 0; /* simulated workers call no cuBLAS */
#else
	return starpu_cuda_worker_get_count() > 0 ? SG_DRIVER_CUDA_FIRST_GEMM_HOST_BYTES : 0;
#endif
}

/* Node sharing can fail where the plan from the sizes assumed it (a missing or full
 * STARPU_GEMM_SHM_DIR: the descriptors' notice says why), and the node peers' tiles then go
 * through MPI: the plan's traffic and host memory are made again from the descriptors, with
 * the plan's own choices, and said, so that the run is measured against what it does.
 * Collective. Returns the change of this rank's host memory bound, in bytes. */
static double replan_unshared(struct starpu_gemm_plan *plan, const struct matrices *m,
                              const struct sg_driver_options *opts,
                              struct starpu_gemm_opts gemm_opts)
{
	int assumed = plan->node_read_bytes > 0 || plan->node_mapped_bytes > 0, any = 0;
	sg_driver_allreduce(&assumed, &any, 1, sizeof(int), MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (!any)
		return 0;
	struct starpu_gemm_plan again;
	gemm_opts.plan = NULL;
	gemm_opts.b = plan->b;
	gemm_opts.c = plan->c;
	gemm_opts.d = plan->d;
	gemm_opts.lookahead = plan->lookahead;
	/* Agreed on every rank (the plan is collective): on a refusal the printed plan stays. */
	if (starpu_gemm_plan_make(&again, opts->transA, opts->transB, m->A, m->B, m->C, &gemm_opts))
		return 0;
	int changed = again.mpi_recv_bytes != plan->mpi_recv_bytes, any_changed = 0;
	sg_driver_allreduce(&changed, &any_changed, 1, sizeof(int), MPI_INT, MPI_MAX,
	                    MPI_COMM_WORLD);
	if (!any_changed)
		return 0;
	double delta = again.host_bytes + again.node_mapped_bytes - plan->host_bytes -
	               plan->node_mapped_bytes;
	plan->mpi_recv_bytes = again.mpi_recv_bytes;
	plan->node_read_bytes = again.node_read_bytes;
	plan->node_mapped_bytes = again.node_mapped_bytes;
	plan->host_bytes = again.host_bytes;
	if (rank == 0)
		printf("plan: the ranks of a node do not share their tiles (the notice above): "
		       "predicted per rank now MPI received %.3f GB, node peers' tiles read in place "
		       "%.3f GB, host memory beyond its own tiles <= %.3f GB\n",
		       plan->mpi_recv_bytes / 1e9, plan->node_read_bytes / 1e9,
		       plan->host_bytes / 1e9);
	return delta;
}

/* One product size, from the tile to the report. Collective. Returns the exit status. The
 * plan comes from the sizes alone and every refusal before anything is allocated: --plan costs
 * the same at any size, and allocates nothing. */
static int run_size(struct sg_driver_options *opts, MPI_Comm host)
{
	char err[512] = "";
	settle_tile(opts);
	/* Do this rank's tiles fit on its host? Then, once planned, with what the plan holds? */
	sg_driver_check_host_memory(opts, NULL, host, err, sizeof(err));
	if (agree_on_error(err))
		return EXIT_BAD_INPUT;

	struct starpu_gemm_opts gemm_opts = opts->gemm;
	gemm_opts.beta_zero = opts->beta[0] == 0 && opts->beta[1] == 0;
	/* --layout lapack: the one call may run its product with beta = 0 and add beta*C on the
	 * way back; the plan is made for the product it runs, so that it follows this one. */
	if (opts->layout == SG_LAYOUT_LAPACK && !gemm_opts.beta_zero) {
		double beta[2]; /* room for a double complex */
		sg_options_scalar(opts->prec, opts->beta, beta);
		gemm_opts.beta_zero = starpu_gemm_gemm_adds_beta_back(opts->prec, opts->M, opts->N,
		                                                      opts->K, beta);
	}
	struct starpu_gemm_dist dist = { .kind = opts->dist, .P = opts->P, .Q = opts->Q };
	struct starpu_gemm_plan plan;
	int ret = starpu_gemm_plan_sizes(&plan, opts->prec, opts->transA, opts->transB, opts->M,
	                                 opts->N, opts->K, opts->gemm.tile, &dist, MPI_COMM_WORLD,
	                                 &gemm_opts);
	/* Every rank gets the same answer (the plan agrees on the memory first), and the library
	 * has said why, once. */
	if (ret)
		return EXIT_BAD_INPUT;
	sg_driver_check_host_memory(opts, &plan, host, err, sizeof(err));
	if (agree_on_error(err))
		return EXIT_BAD_INPUT;
	if (rank == 0 && opts->gemm.lookahead > plan.lookahead)
		fprintf(stderr, "starpu_gemm: notice: -l %d: k has %d tile(s), so at most %d "
		        "chunk(s) can follow the current one; lookahead %d\n", opts->gemm.lookahead,
		        plan.Kt, plan.lookahead, plan.lookahead);
	struct sg_report rep;
	sg_report_setup(&rep, opts);
	rep.plan = &plan;
	sg_report_plan(&rep);
	/* What this process holds now (StarPU, MPI, the libraries) and what cuBLAS adds on the
	 * first products, its tiles, the plan's, and its node peers' tiles it reads in place
	 * (their pages are resident here too). */
	double mine = sg_driver_rss() + cuda_bytes() + sg_driver_owned_bytes(opts, rank) +
	              plan.host_bytes + plan.node_mapped_bytes;
	if (opts->plan_only) {
		report_memory(opts, largest(mine + lapack_bytes(opts, &plan, NULL, gemm_opts)), 0);
		return EXIT_OK;
	}

	/* The run follows the plan printed, as it is: planning again would read the host
	 * memory less the matrices and handles now allocated. */
	gemm_opts.plan = &plan;
	struct matrices m;
	if (create_matrices(opts, &m, err, sizeof(err)))
		return EXIT_BAD_INPUT;
	mine += replan_unshared(&plan, &m, opts, gemm_opts);
	mine += lapack_bytes(opts, &plan, &m, gemm_opts);
	/* The check runs with the product's tiles still resident: its buffers come on top. */
	if (opts->check)
		mine += starpu_gemm_check_host_bytes(opts->gemm.math, opts->transA, opts->transB,
		                                     m.A, m.B, m.C, check_samples(opts));
	double bound = largest(mine);
	int status = run(opts, &gemm_opts, &m, &rep);
	destroy_matrices(&m);
	double peak, my_peak = sg_driver_peak_rss();
	sg_driver_allreduce(&my_peak, &peak, 1, sizeof(double), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	report_memory(opts, bound, peak);
	return status;
}

/* MPI is the driver's to start and to end, except under SMPI (StarPU+SimGrid), where
 * StarPU-MPI's thread initialised it before this main started as a simulated actor, and
 * starpu_mpi_shutdown finalises it. Returns the thread level. */
static int start_mpi(int *argc, char ***argv)
{
	int provided = MPI_THREAD_MULTIPLE;
#ifdef STARPU_SIMGRID
	/* This actor then answers MPI_Comm_rank and MPI_Comm_size as its rank; its collectives
	 * go through StarPU-MPI (runtime/comm.h). */
	SMPI_thread_create();
#else
	MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
#endif
	return provided;
}

static void end_mpi(void)
{
#ifndef STARPU_SIMGRID
	MPI_Finalize();
#endif
}

int main(int argc, char **argv)
{
	/* --version before MPI starts, so it answers without mpirun (help2man runs it). */
	for (int a = 1; a < argc; a++)
		if (!strcmp(argv[a], "--version")) {
			int major, minor, release;
			starpu_get_version(&major, &minor, &release);
			printf("starpu_gemm %s (StarPU %d.%d.%d)\n", PACKAGE_VERSION, major, minor, release);
			return EXIT_OK;
		}
	int provided = start_mpi(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);

	struct sg_driver_options opts;
	char err[512] = "";
	switch (sg_options_parse(argc, argv, nranks, &opts, err, sizeof(err))) {
	case SG_OPTIONS_HELP:
		if (rank == 0)
			sg_options_usage(stdout, "starpu_gemm");
		end_mpi();
		return EXIT_OK;
	case SG_OPTIONS_HELP_ENV:
		if (rank == 0)
			sg_env_markdown(stdout);
		end_mpi();
		return EXIT_OK;
	case SG_OPTIONS_ERROR:
		if (rank == 0)
			fprintf(stderr, "starpu_gemm: error: %s\n", err);
		end_mpi();
		return EXIT_BAD_INPUT;
	}
	if (provided < MPI_THREAD_SERIALIZED && rank == 0)
		fprintf(stderr, "starpu_gemm: warning: MPI gives thread level %d, StarPU-MPI needs "
		        "at least MPI_THREAD_SERIALIZED\n", provided);

#ifdef STARPU_SIMGRID
	/* StarPU+SimGrid charges each task its model's time and computes nothing. */
	if (opts.check && rank == 0)
		fprintf(stderr, "starpu_gemm: simulated run (StarPU+SimGrid): no result is computed, "
		        "--check skipped\n");
	opts.check = 0;
#endif
	single_threaded_blas();
	struct binding binding = read_binding();
	char csv_err[256] = "";
	open_csv_file(opts.csv_path, csv_err, sizeof(csv_err));
	/* StarPU-MPI on MPI_COMM_WORLD, which we initialised ourselves; every rank starts, or
	 * none does, and all say the same. */
	char notice[512];
	struct starpu_gemm_runtime want = { .mpi = 1, .comm = MPI_COMM_WORLD,
	                                    .together = MPI_COMM_WORLD, .argc = &argc,
	                                    .argv = &argv };
	if (starpu_gemm_runtime_start(&want, notice, sizeof(notice), err, sizeof(err))) {
		if (rank == 0)
			fprintf(stderr, "starpu_gemm: error: %s\n", err);
		end_mpi();
		return EXIT_BAD_INPUT;
	}
	say_first(notice, "notice");
	if (agree_on_error(csv_err)) {
		stop_starpu();
		end_mpi();
		return EXIT_BAD_INPUT;
	}
	/* The library's node communicator: what node sharing and the plan see as a node. */
	MPI_Comm host = starpu_gemm_node_comm(MPI_COMM_WORLD);
	note_binding(&binding, host);
	/* Every size in one StarPU start (--sizes, -M a,b,...): starting StarPU costs seconds. A
	 * size that fails is reported and the next one still runs; the worst status is kept. */
	int status = EXIT_OK;
	for (int s = 0; s < opts.nsizes; s++) {
		struct sg_driver_options one = opts;
		one.M = opts.sizes[s][0];
		one.N = opts.sizes[s][1];
		one.K = opts.sizes[s][2];
		int size_status = run_size(&one, host);
		if (size_status > status)
			status = size_status;
	}
	/* Results that did not reach their file fail the run, on every rank. */
	char output_err[256] = "";
	finish_output(opts.csv_path, output_err, sizeof(output_err));
	if (agree_on_error(output_err) && status < EXIT_FAILED)
		status = EXIT_FAILED;
	stop_starpu();
	end_mpi();
	return status;
}
