/* The environment, checked before StarPU reads it. StarPU parses its numeric variables with
 * strtol and asserts on anything else (STARPU_NCPU=abc, STARPU_LIMIT_CPU_MEM=12abc or -1 end
 * in SIGABRT and a backtrace), casts them to int (STARPU_LIMIT_CPU_MEM=5000000000 wraps), reads
 * an empty value as 0 (STARPU_NCPU= means no CPU worker), and replaces an unknown
 * STARPU_SCHED by its default with a warning nobody reads. One table says what each variable
 * must hold. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include "common/preflight.h"

enum env_kind {
	ENV_INT,    /* decimal integer in [lo, hi] */
	ENV_REAL,   /* decimal number in [lo, hi], fractions allowed */
	ENV_SCHED,  /* a scheduler StarPU knows */
	ENV_CHOICE  /* one of the '|'-separated words in choices */
};

struct env_rule {
	const char *name;
	enum env_kind kind;
	long long lo, hi;
	const char *what;     /* "a number of CPU workers": what the value counts */
	int empty_is_unset;   /* ours read "" as unset; StarPU reads it as 0 */
	const char *choices;
};

#define STARPU_INT(n, lo, hi, what) { n, ENV_INT, lo, hi, what, 0, NULL }
#define OUR_INT(n, lo, hi, what) { n, ENV_INT, lo, hi, what, 1, NULL }
#define OUR_REAL(n, lo, hi, what) { n, ENV_REAL, lo, hi, what, 1, NULL }

static const struct env_rule rules[] = {
	/* Documented by the driver's --help and the README. */
	STARPU_INT("STARPU_NCPU", 0, INT_MAX, "a number of CPU workers"),
	STARPU_INT("STARPU_NCUDA", 0, INT_MAX, "a number of CUDA workers"),
	{ "STARPU_SCHED", ENV_SCHED, 0, 0, "a scheduler name", 0, NULL },
	STARPU_INT("STARPU_LIMIT_CPU_MEM", 0, INT_MAX, "a size in MiB"),
	STARPU_INT("STARPU_LIMIT_CUDA_MEM", 0, INT_MAX, "a size in MiB"),
	/* Read by the driver and the doors to choose their defaults, or set by the tests. */
	STARPU_INT("STARPU_RESERVE_NCPU", 0, INT_MAX, "a number of cores"),
	STARPU_INT("STARPU_MPI_THREAD_CPUID", 0, INT_MAX, "a CPU number"),
	STARPU_INT("STARPU_MPI_THREAD_COREID", 0, INT_MAX, "a core number"),
	STARPU_INT("STARPU_WORKERS_GETBIND", 0, INT_MAX, "a switch (0 or 1)"),
	STARPU_INT("STARPU_WORKERS_NOBIND", 0, INT_MAX, "a switch (0 or 1)"),
	STARPU_INT("STARPU_MPI_NOBIND", 0, INT_MAX, "a switch (0 or 1)"),
	STARPU_INT("STARPU_SILENT", 0, INT_MAX, "a switch (0 or 1)"),
	STARPU_INT("STARPU_NOPENCL", 0, INT_MAX, "a number of OpenCL workers"),
	STARPU_INT("STARPU_NWORKER_PER_CUDA", 1, INT_MAX, "a number of workers per GPU"),
	STARPU_INT("STARPU_CALIBRATE", 0, 2, "0, 1 or 2"),
	/* The driver turns StarPU-MPI's statistics on itself; a user may too. */
	STARPU_INT("STARPU_MPI_STATS", 0, INT_MAX, "a switch (0 or 1)"),
	STARPU_INT("STARPU_COMM_STATS", 0, INT_MAX, "a switch (0 or 1)"),
	/* The library's own that the doors read once StarPU is up (README, doors/). */
	{ "STARPU_GEMM_PIN", ENV_CHOICE, 0, 0, "a pinning mode", 1, "stage|all|none|auto" },
	OUR_INT("STARPU_GEMM_TILE", 1, 1 << 20, "a tile size"),
	OUR_REAL("STARPU_GEMM_STAGE_MB", 0, LLONG_MAX >> 20, "a size in MiB"),
	OUR_INT("STARPU_GEMM_STAGE_THREADS", 1, 1024, "a number of threads"),
	OUR_INT("STARPU_GEMM_VERBOSE", 0, INT_MAX, "a switch (0 or 1)"),
	/* STARPU_GEMM_BLAS_THRESHOLD and STARPU_GEMM_SCALAPACK_* are checked where they are read
	 * (doors/blas.c, doors/scalapack_runtime.c): an interposer must not fail the program's own
	 * BLAS call over them, so a bad one is named and its default used. */
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
	sg_printable(value, shown, sizeof(shown));
	if (!*value) {
		if (r->empty_is_unset)
			return 0;
		snprintf(err, errlen, "%s is set but empty (StarPU would read it as 0): unset it or "
		         "give %s", r->name, r->what);
		return -1;
	}
	/* A policy of the user's own library (STARPU_SCHED_LIB) has any name. */
	if (r->kind == ENV_SCHED && getenv("STARPU_SCHED_LIB"))
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
	for (size_t r = 0; r < sizeof(rules) / sizeof(rules[0]); r++) {
		const char *value = getenv(rules[r].name);
		if (value && check_one(&rules[r], value, err, errlen))
			return -1;
	}
	return 0;
}

int sg_preflight(char *notice, size_t noticelen, char *err, size_t errlen)
{
	if (noticelen)
		notice[0] = '\0';
	if (sg_env_check(err, errlen))
		return -1;
	return sg_starpu_home_prepare(notice, noticelen, err, errlen);
}
