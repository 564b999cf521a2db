/* What the driver prints: the set-up, one line (or CSV row) per timed iteration, and the data
 * movement measured by StarPU next to what the plan predicted. Rank 0 prints; every function
 * here that gathers is collective over MPI_COMM_WORLD. */
#ifndef SG_DRIVER_REPORT_H
#define SG_DRIVER_REPORT_H

#include "drivers/options.h"

/* --csv: the results' header (common/results_csv.h), then one row per timed run. The bytes
 * columns are that run's, summed over ranks: measured host->GPU, GPU->host, GPU<->GPU (StarPU
 * bus profiling) and sent by StarPU-MPI; then the plan's predictions: tiles loaded onto GPUs
 * from the host (Equation 1; with plan.gpu_peers less the tiles relayed between GPUs, the
 * last column, pred_d2d_bytes: compare with d2d_bytes), C written back, remote A and B tiles
 * received; and the plan's Equation 1 case (a, b, c1, c2). */
#include "common/results_csv.h"
#define SG_REPORT_CSV_HEADER SG_RESULTS_CSV_HEADER

/* The run's setting, gathered once after StarPU starts. */
struct sg_report {
	const struct sg_driver_options *opts;
	int rank, nranks;
	int ncpu, ncuda, ngpus;              /* totals over all ranks, on rank 0 (a GPU that
	                                      * several ranks drive counts once) */
	char sched[64];                      /* the policy StarPU runs */
	const struct starpu_gemm_plan *plan; /* what every rank will run */
};

/* Collective: gathers the workers of every rank; prints them (non-CSV) with the scheduler. */
void sg_report_setup(struct sg_report *rep, const struct sg_driver_options *opts);
/* Rank 0: rep->plan's summary (non-CSV), or the CSV header. */
void sg_report_plan(const struct sg_report *rep);

/* The result of one check, for the iteration line. */
struct sg_check_result {
	int done;           /* 0: not checked */
	int passed;
	double residual;
	int64_t samples;    /* 0: full check */
	int64_t bad_row, bad_col;
};

/* Data moved by pgemm calls, on this rank: host -> GPU, GPU -> host, GPU <-> GPU (StarPU bus
 * profiling), then bytes sent by StarPU-MPI (its communication statistics). */
enum { SG_TRAFFIC_KINDS = 4 };
struct sg_traffic {
	double total[SG_TRAFFIC_KINDS];    /* over every measured run */
	double last_run[SG_TRAFFIC_KINDS]; /* the last measured run alone */
	double mpi_sent_before;            /* StarPU-MPI's total at sg_traffic_begin */
	double seconds;                    /* the measured runs' time, summed (the caller's) */
};

/* Rank 0: one line or CSV row for timed iteration iter (1-based). With --csv it is collective
 * (the row carries traffic->last_run summed over ranks, and the plan's predictions).
 * pin_seconds: the part of seconds spent pinning the arrays (--layout lapack). */
void sg_report_iteration(const struct sg_report *rep, int iter, double seconds,
                         double pin_seconds, const struct sg_check_result *check,
                         const struct sg_traffic *traffic);

/* Turn on StarPU's bus profiling and StarPU-MPI's statistics (which StarPU-MPI prints at
 * shutdown on its own, on stderr, rank by rank). */
void sg_traffic_enable(struct sg_traffic *traffic);
/* 1 when sg_traffic_enable turned on StarPU-MPI's statistics without the user asking
 * (STARPU_MPI_STATS): their dump at shutdown, on every rank, is then noise. */
int sg_traffic_stats_unasked(void);

/* StarPU-MPI's notes about statistics nobody asked for ("executed with STARPU_MPI_STATS=1"
 * when they are turned on, the dump at shutdown) go nowhere: stderr points at /dev/null until
 * sg_stderr_restore(the returned descriptor). Nothing else is run muted. */
int sg_stderr_mute(void);
void sg_stderr_restore(int saved);
/* Around each measured pgemm call. */
void sg_traffic_begin(struct sg_traffic *traffic);
void sg_traffic_end(struct sg_traffic *traffic);
/* Collective: rank 0 prints the traffic of one run (summed over ranks, mean over the runs
 * measured) next to the plan's predictions summed over ranks; nothing with --csv. */
void sg_report_traffic(const struct sg_report *rep, const struct sg_traffic *traffic, int runs);
/* fflush(stdout), for everything the driver prints there, keeping why the first flush
 * failed (a full disk): stdio then drops the buffer and keeps only that one failed, and errno
 * is long overwritten when the run ends and the driver reports it. */
void sg_report_flush(void);
/* The errno of the first failed sg_report_flush, 0 if none. */
int sg_report_flush_errno(void);
/* Rank 0, not in CSV: where the run's time went on rank 0 (starpu_gemm_stats' timeline). */
void sg_report_timeline(const struct sg_report *rep, const struct starpu_gemm_stats *stats);

#endif
