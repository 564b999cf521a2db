#include <complex.h>
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/env.h"
#include "drivers/options.h"
#include "drivers/report.h"
#include "common/square_grid.h"

/* One table drives getopt_long, the parser and --help, so they cannot disagree. The driver's
 * own options are parsed by the switch in sg_options_parse; those of struct starpu_gemm_opts
 * are written into opts->gemm by the table alone (its field, its range), so that a new one
 * touches the public header, this table and the code that reads it. Options without a short
 * form get a code above the char range: the driver's an OPT_*, the others one from their row
 * (code_of). */
enum {
	OPT_PREC = 256, OPT_TRANSA, OPT_TRANSB, OPT_ALPHA, OPT_BETA, OPT_DIST, OPT_NITER,
	OPT_WARMUP, OPT_CHECK, OPT_CHECK_SAMPLES, OPT_CSV, OPT_PLAN, OPT_LAYOUT, OPT_SIZES,
	OPT_HELP_ENV, OPT_ROW = 1000
};

enum arg_kind {
	ARG_DRIVER,       /* the driver's own: the switch in sg_options_parse */
	ARG_GEMM_INT,     /* an integer in [lo, hi] into the int field of opts->gemm */
	ARG_GEMM_FLAG,    /* 1 into the int field */
	ARG_GEMM_CHOICE   /* the rank of the word among the metavar's '|'-separated ones */
};

struct option_doc {
	const char *name;     /* long form */
	int code;             /* short letter, or OPT_*, or 0 (a struct starpu_gemm_opts field's) */
	const char *metavar;  /* NULL: a flag; "[...]": an optional value */
	const char *help;     /* with its default */
	enum arg_kind kind;
	size_t field;         /* offsetof(struct starpu_gemm_opts, the int it sets) */
	long long lo, hi;     /* ARG_GEMM_INT's range */
};

#define OPT(name, code, metavar, help) { name, code, metavar, help, ARG_DRIVER, 0, 0, 0 }
#define GEMM_INT(name, code, metavar, field, lo, hi, help) \
	{ name, code, metavar, help, ARG_GEMM_INT, offsetof(struct starpu_gemm_opts, field), lo, \
	  hi }
#define GEMM_FLAG(name, code, field, help) \
	{ name, code, NULL, help, ARG_GEMM_FLAG, offsetof(struct starpu_gemm_opts, field), 0, 1 }
#define GEMM_CHOICE(name, code, words, field, help) \
	{ name, code, words, help, ARG_GEMM_CHOICE, offsetof(struct starpu_gemm_opts, field), 0, 0 }

static const struct option_doc docs[] = {
	OPT("M", 'M', "INT[,INT...]", "rows of op(A) and C (default 1024); a list: one product "
	                              "per value, all in one StarPU start"),
	OPT("N", 'N', "INT[,INT...]", "columns of op(B) and C (default 1024); a list as long as "
	                              "-M's, or one value for all"),
	OPT("K", 'K', "INT[,INT...]", "columns of op(A), rows of op(B) (default 1024); as -N"),
	OPT("sizes", OPT_SIZES, "INT[,INT...]", "square products M = N = K of each value, in turn, "
	                                        "in one StarPU start"),
	GEMM_INT("tile", 't', "INT", tile, 1, 32768, "tile size (default with CUDA workers 4096 if M, N, K >= 32768 in d and z, >= 16384 in the others, else 2048, and 8192 for b and h from 65536; CPU only: 2048, 1024 or 512, the largest that deals every CPU worker of the job 2 or more C tiles evenly)"),
	OPT("P", 'P', "INT", "process grid rows (default: most square P x Q = ranks, P <= Q)"),
	OPT("Q", 'Q', "INT", "process grid columns (default: ranks / P)"),
	OPT("prec", OPT_PREC, "s|d|c|z|b|h", "precision; b, h: bfloat16 or half A and B, float C "
	                                     "(default d)"),
	/* The words in enum starpu_gemm_math's order. */
	GEMM_CHOICE("math", 0, "default|tf32", math, "tf32: s on tensor cores in TF32 (default "
	                                             "default)"),
	OPT("transA", OPT_TRANSA, "N|T|C", "op(A): none, transpose, conjugate transpose "
	                                   "(default N)"),
	OPT("transB", OPT_TRANSB, "N|T|C", "op(B) (default N)"),
	OPT("alpha", OPT_ALPHA, "RE[,IM]", "alpha; IM only for c and z; nan or inf gives a "
	                                   "non-finite C, which --check must report (default 1)"),
	OPT("beta", OPT_BETA, "RE[,IM]", "beta; IM only for c and z (default 1)"),
	OPT("dist", OPT_DIST, "2d|row|col", "ownership: 2D block-cyclic, 1D cyclic by tile rows or "
	                                    "columns (default 2d)"),
	GEMM_INT("block-rows", 'b', "INT", b, 1, INT_MAX, "b: C block rows, in tiles (default "
	                                                   "automatic)"),
	GEMM_INT("block-cols", 'c', "INT", c, 1, INT_MAX, "c: C block columns, in tiles (default "
	                                                  "automatic)"),
	GEMM_INT("chunk", 'd', "INT", d, 1, INT_MAX, "d: chunk depth in k, in tiles (default "
	                                             "automatic)"),
	GEMM_INT("lookahead", 'l', "INT", lookahead, 0, INT_MAX, "chunks in flight beyond the "
	                                                         "current one, >= 0 (default "
	                                                         "automatic)"),
	OPT("layout", OPT_LAYOUT, "tile|lapack|lapack-pinned", "tile: the library's tiles and "
	  "starpu_gemm_pgemm; lapack: column-major arrays from malloc multiplied by "
	  "starpu_gemm_gemm, which wraps them in place and pins them as it goes (timed); "
	  "lapack-pinned: the arrays allocated pinned; lapack layouts need 1 rank (default tile)"),
	GEMM_INT("layers", 0, "INT", layers, 0, INT_MAX, "the communication-avoiding schedule: "
	         "the grid as INT layers, each computing the updates of 1/INT of the k steps "
	         "into partial tiles that C's owners add; 1: the 2D schedule (default 0, "
	         "automatic: layers where they cut the MPI bytes per rank by a sixth or more and "
	         "the network, STARPU_GEMM_MPI_GBPS, bounds the 2D schedule by far)"),
	GEMM_FLAG("no-throttle", 0, no_throttle, "submit every task at once (un-chunked baseline)"),
	/* The words in starpu_gemm_opts.static_gpu's order. */
	GEMM_CHOICE("gpu-assign", 0, "auto|static|dynamic", static_gpu, "how a rank's GPUs share "
	            "its C tiles: static: each GPU owns a grid's share, its tiles prefetched to "
	            "it; dynamic: dmdas picks each task's GPU (default auto: static with several "
	            "GPUs)"),
	GEMM_FLAG("static-gpu", 0, static_gpu, "--gpu-assign static"),
	/* The words in starpu_gemm_opts.gpu_peers's order. */
	GEMM_CHOICE("gpu-peers", 0, "auto|on|off", gpu_peers, "with static: A and B tiles that "
	            "several GPUs of a rank read cross the host link once, to one of them, and the "
	            "others copy them from it (default auto: on for --prec b, h and --math tf32 "
	            "where StarPU's bus calibration gives GPU-to-GPU copies twice the host link's "
	            "rate, NVLink)"),
	GEMM_FLAG("c-home", 0, c_home, "keep C in host memory: the GPUs accumulate "
	  "alpha*op(A)*op(B) in scratch tiles and a CPU worker adds them to beta*C, so no C tile "
	  "but the last few crosses to a GPU (default: C loaded onto the GPUs)"),
	/* The words in starpu_gemm_opts.c_spread's order. */
	GEMM_CHOICE("c-spread", 0, "auto|on|off", c_spread, "C's loads onto the GPUs spread over "
	            "a block's chunks, the updates before a tile's load accumulated in a scratch "
	            "tile on its GPU (default auto: on where the job has several GPUs whose shares "
	            "stay on them, C is loaded and a block has several chunks); off: every C tile "
	            "loaded in its block's first chunk"),
	OPT("niter", OPT_NITER, "INT", "timed iterations (default 3)"),
	OPT("warmup", OPT_WARMUP, "INT", "untimed iterations first, at most 1000 (default 1)"),
	OPT("check", OPT_CHECK, NULL, "check C after each timed run (full if M*N*K <= 2^33, else "
	                              "sampled)"),
	OPT("check-samples", OPT_CHECK_SAMPLES, "INT", "--check with 0: full, N > 0: N entries per "
	                                                "rank (default 1000)"),
	OPT("csv", OPT_CSV, "[FILE]", "stdout, or FILE: a CSV header and one row per timed run, "
	                              "nothing else (rank 0 writes FILE itself: a row it cannot "
	                              "write, a full disk, fails the run, also under mpirun)"),
	OPT("plan", OPT_PLAN, NULL, "print the plan and exit"),
	OPT("quiet", 'q', NULL, "no progress messages"),
	OPT("help", 'h', NULL, "this help"),
	OPT("help-env", OPT_HELP_ENV, NULL, "every environment variable read, as markdown "
	                                    "(docs/environment.md)"),
};
#define NDOCS (sizeof(docs) / sizeof(docs[0]))

static int code_of(size_t o)
{
	return docs[o].code ? docs[o].code : OPT_ROW + (int)o;
}

static const struct option_doc *row_of(int code)
{
	for (size_t o = 0; o < NDOCS; o++)
		if (code_of(o) == code)
			return &docs[o];
	return NULL;
}

void sg_options_usage(FILE *out, const char *program)
{
	fprintf(out, "usage: mpirun -np R %s [options]\n"
	        "Distributed C = alpha*op(A)*op(B) + beta*C on random matrices with StarPU-MPI.\n\n",
	        program);
	for (size_t o = 0; o < NDOCS; o++) {
		char left[64];
		int len = 0;
		if (code_of(o) < 256)
			len = snprintf(left, sizeof(left), "-%c, ", docs[o].code);
		else
			len = snprintf(left, sizeof(left), "    ");
		snprintf(left + len, sizeof(left) - (size_t)len, "--%s%s%s", docs[o].name,
		         docs[o].metavar ? " " : "", docs[o].metavar ? docs[o].metavar : "");
		fprintf(out, "  %-26s %s\n", left, docs[o].help);
	}
	fprintf(out, "  %-26s %s\n", "    --version", "print the version and StarPU's, and exit");
	fprintf(out, "\nCSV columns: %s\n  (ncuda and ncpu: workers over all ranks; residual -1: "
	        "not checked)\n", SG_REPORT_CSV_HEADER);
	fprintf(out, "Environment (StarPU's, each overriding the driver's default; --help-env "
	        "lists all):\n");
	sg_env_usage(out);
	fprintf(out, "Each STARPU_* variable is checked before StarPU starts: a bad value is an "
	        "error (exit 2).\n"
	        "Ranks of a node never share cores, however mpirun bound them: ranks allowed the "
	        "same CPUs\n(--bind-to none) split them (starpu_gemm_conf_defaults). Exit status: 0 "
	        "ok, 1 check failed\nor run error, 2 invalid input.\n");
}

void sg_driver_error(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* "-M/--M" or "--prec": how the user would type the option. */
static const char *option_label(int code)
{
	static char label[64];
	for (size_t o = 0; o < NDOCS; o++) {
		if (code_of(o) != code)
			continue;
		if (code < 256)
			snprintf(label, sizeof(label), "-%c/--%s", code, docs[o].name);
		else
			snprintf(label, sizeof(label), "--%s", docs[o].name);
		return label;
	}
	return "?";
}

/* getopt_long's '?': word is the argument it stopped at. optopt is the short letter it did
 * not know, or the code of a flag given a value (--check=yes: OPT_CHECK, not a character), or
 * 0 for an unknown long option. User bytes are escaped: never raw control bytes on stderr. */
static void unknown_option(const char *word, int optopt, char *err, size_t errlen)
{
	char shown[96];
	sg_printable(word, shown, sizeof(shown));
	if (optopt > 0 && !strncmp(word, "--", 2) && strchr(word, '=')) {
		sg_driver_error(err, errlen, "%s takes no value (got '%s')", option_label(optopt),
		                shown);
		return;
	}
	if (optopt > 0 && optopt < 256 && word[0] == '-' && word[1] != '-') {
		char letter[2] = { (char)optopt, 0 }, shown_letter[8], in_word[112] = "";
		if (strlen(word) > 2) /* -qx: say where the x was */
			snprintf(in_word, sizeof(in_word), " in '%s'", shown);
		sg_driver_error(err, errlen, "unknown option '-%s'%s (see --help)",
		                sg_printable(letter, shown_letter, sizeof(shown_letter)), in_word);
		return;
	}
	sg_driver_error(err, errlen, "unknown option '%s' (see --help)", shown);
}

/* An integer in [lo, hi], the whole string and nothing else. */
static int parse_int(int code, const char *text, int64_t lo, int64_t hi, int64_t *value,
                     char *err, size_t errlen)
{
	char *end = NULL;
	errno = 0;
	long long v = strtoll(text, &end, 10);
	if (end == text || *end != '\0') {
		sg_driver_error(err, errlen, "%s: '%s' is not an integer", option_label(code), text);
		return -1;
	}
	if (errno == ERANGE || v > hi) {
		sg_driver_error(err, errlen, "%s: %s is too large (at most %lld)", option_label(code), text,
		          (long long)hi);
		return -1;
	}
	if (v < lo) {
		const char *what = lo == 1 ? "positive" : lo == 0 ? "non-negative" : "in range";
		sg_driver_error(err, errlen, "%s: %s must be %s", option_label(code), text, what);
		return -1;
	}
	*value = v;
	return 0;
}

/* A comma-separated list of sizes for dimension dim (0, 1, 2: M, N, K; 3: all three). */
static int parse_sizes(int code, const char *text, int dim, struct sg_driver_options *opts,
                       char *err, size_t errlen)
{
	char item[32];
	int count = 0;
	/* --sizes and -M/-N/-K set the same dimensions: given together, the later would
	 * silently win (an option given twice wins the second time, as usual). */
	for (int d = 0; d < 3; d++)
		if ((dim == 3 || d == dim) && opts->nlist[d] && (dim == 3) != opts->by_sizes) {
			sg_driver_error(err, errlen, "%s: %s is set by %s too: give --sizes, or -M/-N/-K",
			                option_label(code), d == 0 ? "M" : d == 1 ? "N" : "K",
			                dim == 3 ? "-M/-N/-K" : "--sizes");
			return -1;
		}
	opts->by_sizes = dim == 3;
	for (const char *p = text;; p++) {
		size_t len = strcspn(p, ",");
		if (len >= sizeof(item))
			len = sizeof(item) - 1;
		memcpy(item, p, len);
		item[len] = '\0';
		int64_t v;
		if (count == SG_DRIVER_MAX_SIZES) {
			sg_driver_error(err, errlen, "%s: more than %d sizes", option_label(code),
			                SG_DRIVER_MAX_SIZES);
			return -1;
		}
		if (parse_int(code, item, 1, INT_MAX, &v, err, errlen))
			return -1;
		for (int d = 0; d < 3; d++)
			if (dim == 3 || d == dim)
				opts->sizes[count][d] = v;
		count++;
		p = strchr(p, ',');
		if (!p)
			break;
	}
	for (int d = 0; d < 3; d++)
		if (dim == 3 || d == dim)
			opts->nlist[d] = count;
	return 0;
}

/* Every product's M, N and K: the lists given are as long as each other, or one value (or
 * none: 1024) for every product. */
static int settle_sizes(struct sg_driver_options *opts, char *err, size_t errlen)
{
	static const char names[3] = { 'M', 'N', 'K' };
	opts->nsizes = 1;
	for (int d = 0; d < 3; d++)
		if (opts->nlist[d] > 1)
			opts->nsizes = opts->nlist[d];
	for (int d = 0; d < 3; d++) {
		if (opts->nlist[d] > 1 && opts->nlist[d] != opts->nsizes) {
			sg_driver_error(err, errlen, "-%c/--%c: %d sizes, but another dimension has %d "
			                "(give as many, or one for all)", names[d], names[d],
			                opts->nlist[d], opts->nsizes);
			return -1;
		}
		for (int s = 0; s < opts->nsizes; s++)
			if (opts->nlist[d] <= 1)
				opts->sizes[s][d] = opts->nlist[d] ? opts->sizes[0][d] : 1024;
	}
	opts->M = opts->sizes[0][0];
	opts->N = opts->sizes[0][1];
	opts->K = opts->sizes[0][2];
	return 0;
}

/* "RE" or "RE,IM". nan and inf are accepted on purpose: they are the way to see --check
 * fail on a non-finite result. */
static int parse_scalar(int code, const char *text, double parts[2], char *err, size_t errlen)
{
	char *end = NULL, shown[96];
	errno = 0;
	parts[0] = strtod(text, &end);
	int overflow = errno == ERANGE && isinf(parts[0]);
	parts[1] = 0;
	if (end != text && *end == ',') {
		const char *im = end + 1;
		errno = 0;
		parts[1] = strtod(im, &end);
		overflow |= errno == ERANGE && isinf(parts[1]);
		if (end == im)
			end = (char *)im - 1; /* report the whole text below */
	}
	if (end == text || *end != '\0') {
		sg_driver_error(err, errlen, "%s: '%s' is not a number or RE,IM pair",
		          option_label(code), sg_printable(text, shown, sizeof(shown)));
		return -1;
	}
	/* 1e400 is not inf by intent ("inf" is): strtod rounds it there and says ERANGE. */
	if (overflow) {
		sg_driver_error(err, errlen, "%s: %s overflows a double (largest %g; write inf for "
		                "an infinite scalar)", option_label(code), text, DBL_MAX);
		return -1;
	}
	return 0;
}

static int parse_trans(int code, const char *text, char *trans, char *err, size_t errlen)
{
	if (strlen(text) != 1 || !strchr("NTCntc", text[0])) {
		sg_driver_error(err, errlen, "%s: unknown transpose '%s' (expected N, T or C)",
		          option_label(code), text);
		return -1;
	}
	*trans = text[0];
	return 0;
}

/* An option of struct starpu_gemm_opts, into its field as its row says. */
static int parse_gemm(const struct option_doc *row, int code, const char *text,
                      struct starpu_gemm_opts *gemm, char *err, size_t errlen)
{
	int *field = (int *)((char *)gemm + row->field);
	int64_t v;
	if (row->kind == ARG_GEMM_FLAG) {
		*field = 1;
		return 0;
	}
	if (row->kind == ARG_GEMM_INT) {
		if (parse_int(code, text, row->lo, row->hi, &v, err, errlen))
			return -1;
		*field = (int)v;
		return 0;
	}
	size_t n = strlen(text);
	int rank = 0;
	for (const char *w = row->metavar; *w; rank++) {
		size_t len = strcspn(w, "|");
		if (len == n && !strncmp(w, text, n)) {
			*field = rank;
			return 0;
		}
		w += len + (w[len] == '|');
	}
	char shown[96];
	sg_driver_error(err, errlen, "%s: unknown value '%s' (expected one of %s)",
	                option_label(code), sg_printable(text, shown, sizeof(shown)), row->metavar);
	return -1;
}

static void set_defaults(struct sg_driver_options *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->M = opts->N = opts->K = 1024;
	opts->prec = 'd';
	opts->transA = opts->transB = 'N';
	opts->alpha[0] = 1.0;
	opts->beta[0] = 1.0;
	opts->dist = STARPU_GEMM_DIST_2D_BLOCK_CYCLIC;
	starpu_gemm_opts_init(&opts->gemm);
	opts->niter = 3;
	opts->warmup = 1;
	opts->check_samples = -1;
}

static int settle_grid(struct sg_driver_options *opts, int nranks, char *err, size_t errlen)
{
	if (opts->P == 0 && opts->Q == 0) {
		opts->P = sg_square_grid_rows(nranks);
		opts->Q = nranks / opts->P;
		return 0;
	}
	if (opts->P && opts->Q) {
		if ((int64_t)opts->P * opts->Q != nranks) {
			sg_driver_error(err, errlen, "-P/-Q: grid %d x %d has %lld processes but the job has "
			          "%d rank(s)", opts->P, opts->Q, (long long)opts->P * opts->Q, nranks);
			return -1;
		}
		return 0;
	}
	int given = opts->P ? opts->P : opts->Q;
	if (nranks % given != 0) {
		sg_driver_error(err, errlen, "%s: %d does not divide the job's %d rank(s)",
		          opts->P ? "-P/--P" : "-Q/--Q", given, nranks);
		return -1;
	}
	if (opts->P)
		opts->Q = nranks / opts->P;
	else
		opts->P = nranks / opts->Q;
	return 0;
}

/* Checks that need every option parsed first (letters that depend on the precision). */
static int settle(struct sg_driver_options *opts, int nranks, char *err, size_t errlen)
{
	int is_complex = starpu_gemm_prec_is_complex(opts->prec);
	opts->transA = starpu_gemm_trans(opts->prec, opts->transA);
	opts->transB = starpu_gemm_trans(opts->prec, opts->transB);
	if (!is_complex && (opts->alpha[1] != 0 || opts->beta[1] != 0)) {
		sg_driver_error(err, errlen, "%s: an imaginary part needs a complex precision (c or z), "
		          "not %c", opts->alpha[1] != 0 ? "--alpha" : "--beta", opts->prec);
		return -1;
	}
	if (opts->gemm.math == STARPU_GEMM_MATH_TF32 && opts->prec != 's') {
		sg_driver_error(err, errlen, "--math tf32: TF32 multiplies float matrices: use it "
		                "with --prec s, not %c", opts->prec);
		return -1;
	}
	/* alpha and beta are of C's type. */
	char c_prec = starpu_gemm_prec_of_c(opts->prec);
	int single = starpu_gemm_elemsize(c_prec) / (is_complex ? 2 : 1) == sizeof(float);
	for (int s = 0; s < 4 && single; s++) {
		double part = s < 2 ? opts->alpha[s] : opts->beta[s - 2];
		if (isfinite(part) && fabs(part) > FLT_MAX) {
			sg_driver_error(err, errlen, "%s: %g overflows the precision %c (float)",
			          s < 2 ? "--alpha" : "--beta", part, opts->prec);
			return -1;
		}
	}
	if (opts->check_samples >= 0)
		opts->check = 1;
	opts->gemm.progress = !opts->quiet && !opts->csv;
	if (opts->layout != SG_LAYOUT_TILE && nranks != 1) {
		sg_driver_error(err, errlen, "--layout %s: the matrices are whole arrays of one "
		                "process; run it on 1 rank, not %d", sg_options_layout_name(opts->layout),
		                nranks);
		return -1;
	}
	return settle_sizes(opts, err, errlen) ? -1 : settle_grid(opts, nranks, err, errlen);
}

int sg_options_parse(int argc, char **argv, int nranks, struct sg_driver_options *opts,
                     char *err, size_t errlen)
{
	struct option longopts[NDOCS + 1];
	char shortopts[2 * NDOCS + 2];
	size_t ns = 0;
	shortopts[ns++] = ':'; /* report a missing argument as ':' rather than '?' */
	for (size_t o = 0; o < NDOCS; o++) {
		int has_arg = !docs[o].metavar ? no_argument
		              : docs[o].metavar[0] == '[' ? optional_argument : required_argument;
		longopts[o] = (struct option){ docs[o].name, has_arg, NULL, code_of(o) };
		if (code_of(o) < 256) {
			shortopts[ns++] = (char)docs[o].code;
			if (docs[o].metavar)
				shortopts[ns++] = ':';
		}
	}
	shortopts[ns] = '\0';
	longopts[NDOCS] = (struct option){ 0, 0, 0, 0 };

	set_defaults(opts);
	opterr = 0; /* we print one line ourselves, from one rank */
	optind = 1;
	int code;
	int64_t v;
	while ((code = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		int rc = 0;
		const struct option_doc *row = row_of(code);
		if (row && row->kind != ARG_DRIVER) {
			if (parse_gemm(row, code, optarg, &opts->gemm, err, errlen))
				return SG_OPTIONS_ERROR;
			continue;
		}
		switch (code) {
		case 'M': rc = parse_sizes(code, optarg, 0, opts, err, errlen); break;
		case 'N': rc = parse_sizes(code, optarg, 1, opts, err, errlen); break;
		case 'K': rc = parse_sizes(code, optarg, 2, opts, err, errlen); break;
		case OPT_SIZES: rc = parse_sizes(code, optarg, 3, opts, err, errlen); break;
		case 'P':
			rc = parse_int(code, optarg, 1, INT_MAX, &v, err, errlen);
			opts->P = (int)v;
			break;
		case 'Q':
			rc = parse_int(code, optarg, 1, INT_MAX, &v, err, errlen);
			opts->Q = (int)v;
			break;
		case OPT_PREC:
			/* 't' is a codelet's letter, not a matrix's: --math tf32 asks for it. */
			if (strlen(optarg) != 1 || !starpu_gemm_prec_letter(optarg[0]) ||
			    tolower((unsigned char)optarg[0]) == 't') {
				sg_driver_error(err, errlen, "--prec: unknown precision '%s' (expected s, d, c, "
				          "z, b or h)", optarg);
				rc = -1;
			} else {
				opts->prec = starpu_gemm_prec_letter(optarg[0]);
			}
			break;
		case OPT_TRANSA: rc = parse_trans(code, optarg, &opts->transA, err, errlen); break;
		case OPT_TRANSB: rc = parse_trans(code, optarg, &opts->transB, err, errlen); break;
		case OPT_ALPHA: rc = parse_scalar(code, optarg, opts->alpha, err, errlen); break;
		case OPT_BETA: rc = parse_scalar(code, optarg, opts->beta, err, errlen); break;
		case OPT_DIST:
			if (!strcmp(optarg, "2d")) {
				opts->dist = STARPU_GEMM_DIST_2D_BLOCK_CYCLIC;
			} else if (!strcmp(optarg, "row")) {
				opts->dist = STARPU_GEMM_DIST_1D_ROW_CYCLIC;
			} else if (!strcmp(optarg, "col")) {
				opts->dist = STARPU_GEMM_DIST_1D_COL_CYCLIC;
			} else {
				sg_driver_error(err, errlen, "--dist: unknown distribution '%s' (expected 2d, "
				          "row or col)", optarg);
				rc = -1;
			}
			break;
		case OPT_NITER:
			rc = parse_int(code, optarg, 1, INT_MAX, &v, err, errlen);
			opts->niter = (int)v;
			break;
		case OPT_WARMUP:
			rc = parse_int(code, optarg, 0, SG_DRIVER_MAX_WARMUP, &v, err, errlen);
			opts->warmup = (int)v;
			break;
		case OPT_CHECK: opts->check = 1; break;
		case OPT_CHECK_SAMPLES:
			rc = parse_int(code, optarg, 0, INT64_MAX, &opts->check_samples, err, errlen);
			break;
		case OPT_CSV:
			opts->csv = 1;
			/* getopt takes an optional value only as --csv=FILE; --csv FILE too, where the
			 * next word is not an option (before, it was refused as an unexpected argument,
			 * so no command line changes meaning). */
			if (optarg)
				opts->csv_path = optarg;
			else if (optind < argc && argv[optind][0] != '-')
				opts->csv_path = argv[optind++];
			if (opts->csv_path && !*opts->csv_path) {
				sg_driver_error(err, errlen, "--csv: empty file name");
				rc = -1;
			}
			break;
		case OPT_PLAN: opts->plan_only = 1; break;
		case OPT_LAYOUT:
			if (!strcmp(optarg, "tile"))
				opts->layout = SG_LAYOUT_TILE;
			else if (!strcmp(optarg, "lapack"))
				opts->layout = SG_LAYOUT_LAPACK;
			else if (!strcmp(optarg, "lapack-pinned"))
				opts->layout = SG_LAYOUT_LAPACK_PINNED;
			else {
				sg_driver_error(err, errlen, "--layout: unknown layout '%s' (expected tile, "
				                "lapack or lapack-pinned)", optarg);
				rc = -1;
			}
			break;
		case 'q': opts->quiet = 1; break;
		case 'h': return SG_OPTIONS_HELP;
		case OPT_HELP_ENV: return SG_OPTIONS_HELP_ENV;
		case ':':
			sg_driver_error(err, errlen, "%s: missing value", optopt ? option_label(optopt)
			                                                    : argv[optind - 1]);
			return SG_OPTIONS_ERROR;
		default: /* '?' */
			unknown_option(argv[optind - 1], optopt, err, errlen);
			return SG_OPTIONS_ERROR;
		}
		if (rc)
			return SG_OPTIONS_ERROR;
	}
	if (optind < argc) {
		sg_driver_error(err, errlen, "unexpected argument '%s' (see --help)", argv[optind]);
		return SG_OPTIONS_ERROR;
	}
	return settle(opts, nranks, err, errlen) ? SG_OPTIONS_ERROR : SG_OPTIONS_OK;
}

void sg_options_scalar(char prec, const double parts[2], void *value)
{
	starpu_gemm_scalar(prec, parts[0], parts[1], value);
}

const char *sg_options_layout_name(enum sg_layout layout)
{
	static const char *names[] = { "tile", "lapack", "lapack-pinned" };
	return names[layout];
}

const char *sg_options_dist_name(enum starpu_gemm_dist_kind dist)
{
	switch (dist) {
	case STARPU_GEMM_DIST_1D_ROW_CYCLIC: return "row";
	case STARPU_GEMM_DIST_1D_COL_CYCLIC: return "col";
	case STARPU_GEMM_DIST_2D_BLOCK_CYCLIC: return "2d";
	default: return "user";
	}
}

int64_t sg_options_stored_rows(const struct sg_driver_options *o, int x)
{
	return x == 0 ? (o->transA == 'N' ? o->M : o->K) : x == 1 ? (o->transB == 'N' ? o->K : o->N)
	       : o->M;
}

int64_t sg_options_stored_cols(const struct sg_driver_options *o, int x)
{
	return x == 0 ? (o->transA == 'N' ? o->K : o->M) : x == 1 ? (o->transB == 'N' ? o->N : o->K)
	       : o->N;
}
