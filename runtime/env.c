/* The environment, in one table. StarPU parses its numeric variables with strtol and asserts
 * on anything else (STARPU_NCPU=abc, STARPU_LIMIT_CPU_MEM=12abc or -1 end in SIGABRT and a
 * backtrace), casts them to int (STARPU_LIMIT_CPU_MEM=5000000000 wraps), reads an empty value
 * as 0 (STARPU_NCPU= means no CPU worker), and replaces an unknown STARPU_SCHED by its default
 * with a warning nobody reads. The table says what each variable must hold, what it means
 * and what we take when it is unset; the preflight, the getters and --help all read it. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include "runtime/env.h"

enum env_kind {
	ENV_INT,    /* decimal integer in [lo, hi] */
	ENV_REAL,   /* decimal number in [lo, hi], fractions allowed */
	ENV_SCHED,  /* a scheduler StarPU knows */
	ENV_CHOICE, /* one of the '|'-separated words in choices */
	ENV_TEXT    /* a path or a list StarPU reads: not checked */
};

/* Who documents a variable: the driver's --help, or only --help-env. */
enum env_group { GROUP_DRIVER, GROUP_STARPU, GROUP_LIBRARY };

struct env_rule {
	const char *name;
	enum env_kind kind;
	enum env_group group;
	long long lo, hi;
	const char *what;      /* "a number of CPU workers": what the value counts */
	int empty_is_unset;    /* ours read "" as unset; StarPU reads it as 0 */
	const char *choices;
	const char *fallback;  /* what the getters give when unset (parsed as the kind) */
	const char *by_default; /* what happens when unset, in words */
	const char *help;      /* what it sets, one line */
	/* An interposer reads it before any preflight: not checked up front; a bad value is
	 * named, with this prefix, and its default used. */
	const char *read_by;
};

#define STARPU_INT(v, n, g, lo, hi, what, fb, dflt, help) \
	[v] = { n, ENV_INT, g, lo, hi, what, 0, NULL, fb, dflt, help, NULL }
#define STARPU_TEXT(v, n, g, what, dflt, help) \
	[v] = { n, ENV_TEXT, g, 0, 0, what, 1, NULL, NULL, dflt, help, NULL }
#define OUR_INT(v, n, lo, hi, what, fb, dflt, help) \
	[v] = { n, ENV_INT, GROUP_LIBRARY, lo, hi, what, 1, NULL, fb, dflt, help, NULL }
#define DOOR_INT(v, n, lo, hi, what, fb, dflt, help, by) \
	[v] = { n, ENV_INT, GROUP_LIBRARY, lo, hi, what, 1, NULL, fb, dflt, help, by }
#define SWITCH "a switch (0 or 1)"

static const struct env_rule rules[SG_ENV_COUNT] = {
	[SG_ENV_SCHED] = { "STARPU_SCHED", ENV_SCHED, GROUP_DRIVER, 0, 0, "a scheduler name", 0,
	                   NULL, NULL, "dmdas where the rank sees a GPU, else lws", "scheduler",
	                   NULL },
	STARPU_INT(SG_ENV_NCUDA, "STARPU_NCUDA", GROUP_DRIVER, 0, INT_MAX,
	           "a number of CUDA workers", "-1", "every GPU", "CUDA workers per rank"),
	STARPU_INT(SG_ENV_NCPU, "STARPU_NCPU", GROUP_DRIVER, 0, INT_MAX, "a number of CPU workers",
	           "-1", "1 beside GPUs (it adds C kept at home, --c-home; GEMM tasks run on the "
	           "GPUs); without GPUs every core of the rank's share, less one for StarPU-MPI's "
	           "thread on several ranks and cores", "CPU workers per rank"),
	STARPU_INT(SG_ENV_LIMIT_CUDA_MEM, "STARPU_LIMIT_CUDA_MEM", GROUP_DRIVER, 0, INT_MAX,
	           "a size in MiB", "0", "the GPU's memory", "MiB the plan may use per GPU"),
	STARPU_INT(SG_ENV_LIMIT_CPU_MEM, "STARPU_LIMIT_CPU_MEM", GROUP_DRIVER, 0, INT_MAX,
	           "a size in MiB", "0", "MemAvailable shared by the node's ranks",
	           "MiB the plan may use per rank"),
	STARPU_TEXT(SG_ENV_HOME, "STARPU_HOME", GROUP_DRIVER, "a directory", "$HOME",
	            "where StarPU keeps its calibrations; an unusable one (read-only, full) is "
	            "replaced by a private one for the run"),

	STARPU_INT(SG_ENV_RESERVE_NCPU, "STARPU_RESERVE_NCPU", GROUP_STARPU, 0, INT_MAX,
	           "a number of cores", "0", "0 (the library leaves a core to StarPU-MPI's thread "
	           "itself, on several ranks and cores)", "cores StarPU keeps free of CPU workers"),
	STARPU_INT(SG_ENV_MPI_THREAD_CPUID, "STARPU_MPI_THREAD_CPUID", GROUP_STARPU, 0, INT_MAX,
	           "a CPU number", "-1", "StarPU's choice", "the CPU of StarPU-MPI's thread"),
	STARPU_INT(SG_ENV_MPI_THREAD_COREID, "STARPU_MPI_THREAD_COREID", GROUP_STARPU, 0, INT_MAX,
	           "a core number", "-1", "StarPU's choice", "the core of StarPU-MPI's thread"),
	STARPU_TEXT(SG_ENV_WORKERS_CPUID, "STARPU_WORKERS_CPUID", GROUP_STARPU, "a list of CPUs",
	            "the rank's share of the node's cores",
	            "the CPUs of StarPU's workers (the library then binds nothing itself)"),
	STARPU_TEXT(SG_ENV_WORKERS_COREID, "STARPU_WORKERS_COREID", GROUP_STARPU,
	            "a list of cores", "the rank's share of the node's cores",
	            "the cores of StarPU's workers (the library then binds nothing itself)"),
	STARPU_INT(SG_ENV_WORKERS_GETBIND, "STARPU_WORKERS_GETBIND", GROUP_STARPU, 0, INT_MAX,
	           SWITCH, "1", "1", "0: StarPU ignores the process's binding, and the library "
	           "binds nothing itself"),
	STARPU_INT(SG_ENV_WORKERS_NOBIND, "STARPU_WORKERS_NOBIND", GROUP_STARPU, 0, INT_MAX, SWITCH,
	           "0", "0", "1: StarPU binds no worker"),
	STARPU_INT(SG_ENV_MPI_NOBIND, "STARPU_MPI_NOBIND", GROUP_STARPU, 0, INT_MAX, SWITCH, "0",
	           "0", "1: StarPU-MPI's thread is not bound"),
	STARPU_INT(SG_ENV_SILENT, "STARPU_SILENT", GROUP_STARPU, 0, INT_MAX, SWITCH, "0", "0",
	           "1: StarPU prints no notice"),
	STARPU_INT(SG_ENV_NOPENCL, "STARPU_NOPENCL", GROUP_STARPU, 0, INT_MAX,
	           "a number of OpenCL workers", "0", "0 (the tests set it)", "OpenCL workers"),
	STARPU_INT(SG_ENV_NWORKER_PER_CUDA, "STARPU_NWORKER_PER_CUDA", GROUP_STARPU, 1, INT_MAX,
	           "a number of workers per GPU", "1", "1", "CUDA workers per GPU"),
	STARPU_INT(SG_ENV_CALIBRATE, "STARPU_CALIBRATE", GROUP_STARPU, 0, 2, "0, 1 or 2", "0",
	           "0", "1: calibrate the performance models, 2: from scratch"),
	/* The driver turns StarPU-MPI's statistics on itself; a user may too. */
	STARPU_INT(SG_ENV_MPI_STATS, "STARPU_MPI_STATS", GROUP_STARPU, 0, INT_MAX, SWITCH, "0",
	           "0 (the driver counts its traffic, and drops StarPU-MPI's dump at exit)",
	           "1: StarPU-MPI's statistics, dumped at exit"),
	/* Set by the library before StarPU-MPI starts, unless the user did (runtime/node_conf.c). */
	STARPU_INT(SG_ENV_MPI_NDETACHED_SEND, "STARPU_MPI_NDETACHED_SEND", GROUP_STARPU, 0, INT_MAX,
	           "a number of sends", "10",
	           "the other nodes of a rank's grid row and column, P + Q - 2 (at least 2) for "
	           "the most square P x Q grid over the job's nodes (each rank a node with "
	           "STARPU_GEMM_SHARE_NODE=0); StarPU's 10 on one node",
	           "StarPU-MPI's sends in flight per rank, taken in priority order (0: no limit)"),
	STARPU_INT(SG_ENV_COMM_STATS, "STARPU_COMM_STATS", GROUP_STARPU, 0, INT_MAX, SWITCH, "0",
	           "0", "1: StarPU-MPI's communication statistics, dumped at exit"),
	STARPU_TEXT(SG_ENV_SCHED_LIB, "STARPU_SCHED_LIB", GROUP_STARPU, "a library",
	            "none", "a library of scheduling policies: STARPU_SCHED may then name any"),
	STARPU_TEXT(SG_ENV_PERF_MODEL_DIR, "STARPU_PERF_MODEL_DIR", GROUP_STARPU, "a directory",
	            "$STARPU_HOME/.starpu/sampling", "where StarPU keeps its performance models"),

	/* The library's own that the doors read once StarPU is up (README, doors/). */
	[SG_ENV_GEMM_PIN] = { "STARPU_GEMM_PIN", ENV_CHOICE, GROUP_LIBRARY, 0, 0, "a pinning mode",
	                      1, "stage|all|none|auto", "auto", "stage (auto)",
	                      "starpu_gemm_gemm on pageable arrays: copy them through pinned "
	                      "tiles, pin them whole, or neither", NULL },
	OUR_INT(SG_ENV_GEMM_TILE, "STARPU_GEMM_TILE", 1, 1 << 20, "a tile size", "0",
	        "the library's default tile", "starpu_gemm_gemm's tile when opts.tile is 0"),
	[SG_ENV_GEMM_STAGE_MB] = { "STARPU_GEMM_STAGE_MB", ENV_REAL, GROUP_LIBRARY, 0,
	                           LLONG_MAX >> 20, "a size in MiB", 1, NULL, "-1",
	                           "a quarter of the node's memory",
	                           "MiB of pinned tiles starpu_gemm_gemm stages through (fractions "
	                           "allowed)", NULL },
	OUR_INT(SG_ENV_GEMM_STAGE_THREADS, "STARPU_GEMM_STAGE_THREADS", 1, 1024,
	        "a number of threads", "0", "the cores the calling thread may run on "
	        "(its affinity) less those StarPU binds its threads to (unless that leaves less "
	        "than half), at most 16 per GPU of the process (16 without GPUs)",
	        "threads copying staged tiles and filling the staging pool"),
	OUR_INT(SG_ENV_GEMM_STAGE_C, "STARPU_GEMM_STAGE_C", 0, 1, SWITCH, "0", "0",
	        "1: the doors move C in for the product to update (beta != 0): starpu_gemm_gemm "
	        "copies a staged C in, the ScaLAPACK drop-in redistributes C into its tiles; by "
	        "default the product computes alpha*op(A)*op(B) alone and beta*C is added as C "
	        "goes back (a grid's ranks use the smallest value among them)"),
	OUR_INT(SG_ENV_GEMM_VERBOSE, "STARPU_GEMM_VERBOSE", 0, INT_MAX, SWITCH, "0", "0",
	        "1: the doors say what each call did"),
	OUR_INT(SG_ENV_GEMM_SHARE_NODE, "STARPU_GEMM_SHARE_NODE", 0, 1, SWITCH, "1", "1",
	        "0: every rank its own node: ranks of one node exchange tiles through MPI instead "
	        "of reading them in place (the multi-node path, on one machine)"),
	[SG_ENV_GEMM_MPI_GBPS] = { "STARPU_GEMM_MPI_GBPS", ENV_REAL, GROUP_DRIVER, 0, 1 << 20,
	                           "a rate in GB/s", 1, NULL, "0", "unknown",
	                           "GB/s one rank receives tiles from other nodes at (bench/mpi_rate "
	                           "measures it): the plan's network term in seconds, and the "
	                           "driver's runs against it (the grid's smallest; unset on any "
	                           "rank: unknown)", NULL },
	[SG_ENV_GEMM_SHM_DIR] = { "STARPU_GEMM_SHM_DIR", ENV_TEXT, GROUP_LIBRARY, 0, 0,
	                          "a directory", 1, NULL, "/dev/shm", "/dev/shm",
	                          "where a node's ranks keep the tiles they share (a memory file "
	                          "system; each rank reserves its tiles there; files a killed job "
	                          "left there are removed by the next job after 10 minutes)", NULL },
	/* Read where an interposer is loaded or first called (doors/blas.c,
	 * doors/scalapack_runtime.c): it must not fail the program's own BLAS call over them. */
	DOOR_INT(SG_ENV_GEMM_BLAS_THRESHOLD, "STARPU_GEMM_BLAS_THRESHOLD", 0, LLONG_MAX,
	         "a count of multiply-adds", "-1", "2^30 with a GPU; without, every call to the "
	         "next BLAS", "m*n*k from which a BLAS call runs through StarPU",
	         "starpu_gemm_blas"),
	DOOR_INT(SG_ENV_GEMM_SCALAPACK_THRESHOLD, "STARPU_GEMM_SCALAPACK_THRESHOLD", 0, LLONG_MAX,
	         "a count of multiply-adds", "134217728", "2^27",
	         "M*N*K from which a p?gemm_ call runs through StarPU", "starpu_gemm_scalapack"),
	DOOR_INT(SG_ENV_GEMM_SCALAPACK_KEEP, "STARPU_GEMM_SCALAPACK_KEEP", 0, LLONG_MAX, SWITCH,
	         "1", "1", "0: p?gemm_ frees its tiles after every call", "starpu_gemm_scalapack"),
	DOOR_INT(SG_ENV_GEMM_SCALAPACK_TILE, "STARPU_GEMM_SCALAPACK_TILE", 0, LLONG_MAX,
	         "a tile size", "0", "the library's default tile (0; above 2^20 too)",
	         "p?gemm_'s tile", "starpu_gemm_scalapack"),
	DOOR_INT(SG_ENV_GEMM_SCALAPACK_THREADS, "STARPU_GEMM_SCALAPACK_THREADS", 0, LLONG_MAX,
	         "a number of threads", "0", "the cores the rank is bound to, at most 16; "
	         "beside the product, at most the cores StarPU's threads leave",
	         "threads per rank redistributing p?gemm_'s operands (at most 1024)",
	         "starpu_gemm_scalapack"),
	DOOR_INT(SG_ENV_GEMM_SCALAPACK_OVERLAP, "STARPU_GEMM_SCALAPACK_OVERLAP", 0, 1, SWITCH,
	         "-1", "1 where every process of the grid has a GPU, else 0",
	         "1: a grid on one node moves p?gemm_'s operands into the tiles beside the product, "
	         "which waits only for each task's own tiles, and C's tiles back as they are done; "
	         "0: before the product and after it (over a grid, one rank's 0 wins, then one "
	         "rank's unset)", "starpu_gemm_scalapack"),
};

const char *sg_printable(const char *text, char *out, size_t len)
{
	size_t o = 0;
	for (const unsigned char *c = (const unsigned char *)text; *c && o + 5 <= len; c++) {
		if (*c >= 0x20 && *c < 0x7f)
			out[o++] = (char)*c;
		else
			o += (size_t)snprintf(out + o, len - o, "\\x%02x", *c);
	}
	if (len)
		out[o < len ? o : len - 1] = '\0';
	return out;
}

const char *sg_env_outside(const char *name)
{
	return getenv(name);
}

const char *sg_env_text(enum sg_env_var var)
{
	return getenv(rules[var].name);
}

const char *sg_env_name(enum sg_env_var var)
{
	return rules[var].name;
}

int sg_env_is_set(enum sg_env_var var)
{
	const char *value = sg_env_text(var);
	return value && *value;
}

/* Digits only (an optional '+' first): StarPU's strtol would take " 4" or "4 " differently
 * from what the user meant, so neither is accepted. */
static int parse_decimal(const char *text, long long *value)
{
	const char *digits = text[0] == '+' ? text + 1 : text;
	if (!*digits || strspn(digits, "0123456789") != strlen(digits))
		return -1;
	errno = 0;
	*value = strtoll(digits, NULL, 10);
	return errno == ERANGE ? -2 : 0;
}

/* The classic schedulers by name, and how many modular-* ones there are: the full list is
 * longer than a line. */
static void sched_names(char *out, size_t len)
{
	size_t o = 0;
	int modular = 0;
	out[0] = '\0';
	for (struct starpu_sched_policy **p = starpu_sched_get_predefined_policies(); *p; p++) {
		const char *name = (*p)->policy_name;
		if (name && !strncmp(name, "modular-", 8))
			modular++;
		else if (name && o < len)
			o += (size_t)snprintf(out + o, len - o, "%s%s", o ? ", " : "", name);
	}
	if (modular && o < len)
		snprintf(out + o, len - o, ", and %d modular-* ones", modular);
}

static int check_one(const struct env_rule *r, const char *value, char *err, size_t errlen)
{
	char shown[96];
	if (r->kind == ENV_TEXT)
		return 0;
	sg_printable(value, shown, sizeof(shown));
	if (!*value) {
		if (r->empty_is_unset)
			return 0;
		snprintf(err, errlen, "%s is set but empty (StarPU would read it as 0): unset it or "
		         "give %s", r->name, r->what);
		return -1;
	}
	/* A policy of the user's own library (STARPU_SCHED_LIB) has any name. */
	if (r->kind == ENV_SCHED && sg_env_text(SG_ENV_SCHED_LIB))
		return 0;
	if (r->kind == ENV_SCHED) {
		for (struct starpu_sched_policy **p = starpu_sched_get_predefined_policies(); *p; p++)
			if ((*p)->policy_name && !strcmp((*p)->policy_name, value))
				return 0;
		char names[320];
		sched_names(names, sizeof(names));
		snprintf(err, errlen, "%s='%s' is not a StarPU scheduler; known: %s", r->name, shown,
		         names);
		return -1;
	}
	if (r->kind == ENV_CHOICE) {
		size_t n = strlen(value);
		for (const char *w = r->choices; *w; w += strcspn(w, "|") + (w[strcspn(w, "|")] != 0))
			if (strcspn(w, "|") == n && !strncmp(w, value, n))
				return 0;
		snprintf(err, errlen, "%s='%s' is not %s (expected one of %s)", r->name, shown,
		         r->what, r->choices);
		return -1;
	}
	if (r->kind == ENV_REAL) {
		char *end;
		double x = strtod(value, &end);
		if (end == value || *end || !(x >= (double)r->lo) || isdigit((unsigned char)*value) == 0) {
			snprintf(err, errlen, "%s='%s' is not %s (expected a number >= %lld)", r->name,
			         shown, r->what, r->lo);
			return -1;
		}
		if (x > (double)r->hi) {
			snprintf(err, errlen, "%s='%s' is too large (at most %lld)", r->name, shown,
			         r->hi);
			return -1;
		}
		return 0;
	}
	long long v = 0;
	int parsed = parse_decimal(value, &v);
	if (parsed == -1 || (parsed == 0 && v < r->lo)) {
		snprintf(err, errlen, "%s='%s' is not %s (expected an integer >= %lld)", r->name,
		         shown, r->what, r->lo);
		return -1;
	}
	if (parsed == -2 || v > r->hi) {
		snprintf(err, errlen, "%s='%s' is too large (at most %lld)", r->name, shown, r->hi);
		return -1;
	}
	return 0;
}

int sg_env_check(char *err, size_t errlen)
{
	for (size_t r = 0; r < SG_ENV_COUNT; r++) {
		const char *value = sg_env_text((enum sg_env_var)r);
		if (value && !rules[r].read_by && check_one(&rules[r], value, err, errlen))
			return -1;
	}
	return 0;
}

/* The value to parse: the variable's when set and valid; else its fallback. Empty is unset
 * for ours, and 0 for StarPU's numbers, as StarPU reads it. A bad value of a variable the
 * preflight does not check is named here. */
static const char *valid_value(enum sg_env_var var)
{
	const struct env_rule *r = &rules[var];
	const char *value = sg_env_text(var);
	char err[512];
	if (!value)
		return r->fallback;
	if (!*value)
		return r->empty_is_unset || r->kind > ENV_REAL ? r->fallback : "0";
	if (!check_one(r, value, err, sizeof(err)))
		return value;
	if (r->read_by)
		fprintf(stderr, "%s: warning: %s; using the default (%s)\n", r->read_by, err,
		        r->by_default);
	return r->fallback;
}

int64_t sg_env_int(enum sg_env_var var)
{
	const char *value = valid_value(var);
	return value ? (int64_t)strtoll(value, NULL, 10) : 0;
}

double sg_env_real(enum sg_env_var var)
{
	const char *value = valid_value(var);
	return value ? strtod(value, NULL) : 0;
}

const char *sg_env_choice(enum sg_env_var var)
{
	return valid_value(var);
}

/* text after indent, wrapped at 100 columns; the first line continues at column at. */
static void wrapped(FILE *out, const char *text, int at, int indent)
{
	int col = at;
	while (*text) {
		int word = (int)strcspn(text, " ");
		if (col > indent && col + 1 + word > 100) {
			fprintf(out, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', out);
			col++;
		}
		fprintf(out, "%.*s", word, text);
		col += word;
		text += word;
		text += strspn(text, " ");
	}
	fputc('\n', out);
}

void sg_env_usage(FILE *out)
{
	char line[1024];
	for (size_t r = 0; r < SG_ENV_COUNT; r++) {
		if (rules[r].group != GROUP_DRIVER)
			continue;
		snprintf(line, sizeof(line), "%s (default: %s)", rules[r].help, rules[r].by_default);
		fprintf(out, "  %-22s", rules[r].name);
		wrapped(out, line, 24, 24);
	}
}

static void markdown_range(FILE *out, const struct env_rule *r)
{
	switch (r->kind) {
	case ENV_INT:
		if (r->hi == LLONG_MAX || r->hi == INT_MAX)
			fprintf(out, "integer >= %lld", r->lo);
		else
			fprintf(out, "integer %lld to %lld", r->lo, r->hi);
		break;
	case ENV_REAL: fprintf(out, "number >= %lld", r->lo); break;
	case ENV_SCHED: fprintf(out, "a StarPU scheduler"); break;
	case ENV_CHOICE: fprintf(out, "`%s`", r->choices); break;
	case ENV_TEXT: fprintf(out, "%s", r->what); break;
	}
}

void sg_env_markdown(FILE *out)
{
	static const char *titles[] = {
		[GROUP_DRIVER] = "StarPU's, that the driver documents",
		[GROUP_STARPU] = "StarPU's, that the library reads or relies on",
		[GROUP_LIBRARY] = "The library's own",
	};
	fprintf(out, "# Environment variables\n\n"
	        "Generated by `starpu_gemm --help-env` from the table in runtime/env.c. Each one is "
	        "checked\nbefore StarPU starts (a bad value is an error), except those read by an "
	        "interposer,\nwhich names a bad value and takes its default.\n");
	for (int g = GROUP_DRIVER; g <= GROUP_LIBRARY; g++) {
		fprintf(out, "\n## %s\n\n", titles[g]);
		for (size_t r = 0; r < SG_ENV_COUNT; r++) {
			if (rules[r].group != (enum env_group)g)
				continue;
			fprintf(out, "- `%s` (", rules[r].name);
			markdown_range(out, &rules[r]);
			fprintf(out, "): %s. Default: %s.\n", rules[r].help, rules[r].by_default);
		}
	}
}
