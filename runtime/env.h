/* The environment variables the project reads: one table (runtime/env.c) of each STARPU_GEMM_*
 * variable and each STARPU_* one that we document, read or rely on, with its kind, range,
 * default and a one-line description. The preflight checks values against it before StarPU
 * starts, the code reads them through its typed getters, and the driver's --help and
 * --help-env (docs/environment.md) print it. */
#ifndef SG_ENV_H
#define SG_ENV_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum sg_env_var {
	/* StarPU's, documented by the driver's --help. */
	SG_ENV_SCHED, SG_ENV_NCUDA, SG_ENV_NCPU, SG_ENV_LIMIT_CUDA_MEM, SG_ENV_LIMIT_CPU_MEM,
	SG_ENV_HOME,
	/* StarPU's, read by the driver and the doors to choose their defaults, or set by the
	 * tests: checked before StarPU starts. */
	SG_ENV_RESERVE_NCPU, SG_ENV_MPI_THREAD_CPUID, SG_ENV_MPI_THREAD_COREID,
	SG_ENV_WORKERS_CPUID, SG_ENV_WORKERS_COREID, SG_ENV_WORKERS_GETBIND,
	SG_ENV_WORKERS_NOBIND, SG_ENV_MPI_NOBIND, SG_ENV_SILENT, SG_ENV_NOPENCL,
	SG_ENV_NWORKER_PER_CUDA, SG_ENV_CALIBRATE, SG_ENV_MPI_STATS, SG_ENV_MPI_NDETACHED_SEND,
	SG_ENV_COMM_STATS,
	SG_ENV_SCHED_LIB, SG_ENV_PERF_MODEL_DIR,
	/* The library's own. */
	SG_ENV_GEMM_PIN, SG_ENV_GEMM_TILE, SG_ENV_GEMM_STAGE_MB, SG_ENV_GEMM_STAGE_THREADS,
	SG_ENV_GEMM_STAGE_C,
	SG_ENV_GEMM_VERBOSE, SG_ENV_GEMM_BLAS_THRESHOLD, SG_ENV_GEMM_SCALAPACK_THRESHOLD,
	SG_ENV_GEMM_SCALAPACK_KEEP, SG_ENV_GEMM_SCALAPACK_TILE, SG_ENV_GEMM_SCALAPACK_THREADS,
	SG_ENV_GEMM_SCALAPACK_OVERLAP,
	SG_ENV_GEMM_SHARE_NODE, SG_ENV_GEMM_SHM_DIR, SG_ENV_GEMM_MPI_GBPS,
	SG_ENV_COUNT
};

/* The getters read the environment each time (the preflight may set STARPU_HOME and
 * STARPU_PERF_MODEL_DIR). Unset gives the table's default, and so does set but empty, except
 * for StarPU's numbers, which StarPU reads as 0 (so do the getters); so does a value
 * the table refuses, which the preflight has already reported, except for the variables read
 * by an interposer before any preflight (STARPU_GEMM_BLAS_THRESHOLD, STARPU_GEMM_SCALAPACK_*):
 * there the getter names the bad value on stderr, once per call, and uses the default. */
int64_t sg_env_int(enum sg_env_var var);
double sg_env_real(enum sg_env_var var);
/* One of the variable's choices (or a scheduler's name), else its default. */
const char *sg_env_choice(enum sg_env_var var);
/* The value as set, unchecked (NULL when unset): paths, lists, and messages that echo it. */
const char *sg_env_text(enum sg_env_var var);
/* Set and not empty. */
int sg_env_is_set(enum sg_env_var var);
const char *sg_env_name(enum sg_env_var var);

/* A variable that is not ours nor StarPU's (HOME, TMPDIR, the launcher's OMPI_*, PMI_*,
 * SLURM_*): read as the system or the launcher set it, with no rule. The one getenv of the
 * library besides the table's getters. */
const char *sg_env_outside(const char *name);

/* Every variable of the table that is set: 0, or -1 with one sentence in err naming the first
 * bad variable, its value (non-printable bytes escaped) and what it must be. The variables read
 * by an interposer (above) are not checked here: a bad one must not fail the program's own
 * call. */
int sg_env_check(char *err, size_t errlen);

/* text with every byte outside printable ASCII written \xNN, truncated to fit out (len
 * bytes); returns out. For echoing user input in messages. */
const char *sg_printable(const char *text, char *out, size_t len);

/* The variables the driver's --help documents, one per entry, wrapped to 100 columns. */
void sg_env_usage(FILE *out);
/* The whole table as a markdown list (starpu_gemm --help-env, docs/environment.md). */
void sg_env_markdown(FILE *out);

#endif
