/* Command line of the starpu_gemm driver: parsing and every check that needs neither StarPU
 * nor the other ranks. Every rank parses the same argv, so every rank reaches the same verdict
 * and they can all stop without talking to each other. */
#ifndef SG_DRIVER_OPTIONS_H
#define SG_DRIVER_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <starpu_gemm.h>

/* Full check (every C entry against a CBLAS reference) while M*N*K stays under this. */
#define SG_DRIVER_FULL_CHECK_MAX_MNK (1LL << 33)
/* Untimed runs are for warming caches and calibrating: a few do it; more is a typo. */
#define SG_DRIVER_MAX_WARMUP 1000
/* Entries per rank compared by a sampled check, unless --check-samples says otherwise. */
#define SG_DRIVER_DEFAULT_SAMPLES 1000

/* Where the matrices live and which call multiplies them. */
enum sg_layout {
	SG_LAYOUT_TILE,          /* the library's pinned tiles, starpu_gemm_pgemm */
	SG_LAYOUT_LAPACK,        /* whole column-major arrays from malloc (pageable, as an
	                          * application's), starpu_gemm_gemm_ex: wrapped in place and
	                          * pinned as the product reaches them, all of it timed */
	SG_LAYOUT_LAPACK_PINNED  /* the same arrays allocated pinned (starpu_malloc) */
};

/* Products one run may measure (--sizes, -M/-N/-K lists). */
#define SG_DRIVER_MAX_SIZES 64

struct sg_driver_options {
	int64_t M, N, K;           /* the product measured now (the first of sizes once parsed) */
	int nsizes;                /* products to measure in turn, in one StarPU start */
	int64_t sizes[SG_DRIVER_MAX_SIZES][3]; /* M, N, K of each */
	int nlist[3];              /* values given to -M, -N, -K (0: default, 1: every product) */
	int by_sizes;              /* the sizes came from --sizes (not -M/-N/-K) */
	int P, Q;                  /* process grid, P*Q == ranks once parsed */
	char prec;                 /* 's','d','c','z','b','h' (A's and B's; C's: prec_of_c) */
	char transA, transB;       /* 'N','T','C', normalised (C becomes T for real precisions) */
	double alpha[2], beta[2];  /* real and imaginary parts */
	enum starpu_gemm_dist_kind dist;
	/* The product's options, as the library takes them (-b, -c, -d, -l, --no-throttle,
	 * --static-gpu, --c-home, --math; progress unless -q or --csv). tile: 0 until chosen
	 * after StarPU starts (starpu_gemm_default_tile). */
	struct starpu_gemm_opts gemm;
	int niter, warmup;
	int check;
	int64_t check_samples;     /* -1: automatic; 0: full; > 0: that many entries per rank */
	int csv, plan_only, quiet;
	const char *csv_path;      /* --csv FILE: rank 0 writes stdout's table there (NULL: stdout) */
	enum sg_layout layout;
};

enum { SG_OPTIONS_OK = 0, SG_OPTIONS_HELP = 1, SG_OPTIONS_HELP_ENV = 2, SG_OPTIONS_ERROR = -1 };

/* Parse argv for a run on nranks ranks. Returns SG_OPTIONS_OK, SG_OPTIONS_HELP (--help),
 * SG_OPTIONS_HELP_ENV (--help-env), or SG_OPTIONS_ERROR with one sentence, naming the
 * option, in err. */
int sg_options_parse(int argc, char **argv, int nranks, struct sg_driver_options *opts,
                     char *err, size_t errlen);
void sg_options_usage(FILE *out, const char *program);

/* The driver's one-sentence error messages: printf into err (errlen bytes). */
void sg_driver_error(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));


/* alpha or beta in C's type, written to value (room for a double complex). */
void sg_options_scalar(char prec, const double parts[2], void *value);

const char *sg_options_dist_name(enum starpu_gemm_dist_kind dist);
const char *sg_options_layout_name(enum sg_layout layout);
/* Rows and columns of A, B or C (x = 0, 1, 2) as stored (op(A) is M x K, op(B) is K x N): the
 * rows are the leading dimension of a column-major array of it. */
int64_t sg_options_stored_rows(const struct sg_driver_options *o, int x);
int64_t sg_options_stored_cols(const struct sg_driver_options *o, int x);

#endif
