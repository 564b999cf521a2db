/* libstarpu_gemm_blas.so: the BLAS interposer, in the manner of NVBLAS.
 *
 * Preloaded (LD_PRELOAD) or linked before the BLAS, it defines sgemm_ dgemm_ cgemm_ zgemm_
 * (Fortran convention) and cblas_?gemm, and nothing else. A call whose m*n*k reaches
 * STARPU_GEMM_BLAS_THRESHOLD runs through starpu_gemm_gemm (every GPU and core of the node);
 * any other call goes unchanged to the next BLAS in link order, dlsym(RTLD_NEXT, ...).
 *
 *   STARPU_GEMM_BLAS_THRESHOLD  minimum m*n*k for StarPU (int64; 0 sends every call there).
 *                               Unset: 2^30 (1024^3) when the node has a GPU, and every call
 *                               to the next BLAS when it has none: without a GPU StarPU only
 *                               adds overhead to the CPU BLAS it would call anyway. A GPU is
 *                               any /dev/nvidia<N>, looked at without starting StarPU.
 *   STARPU_GEMM_VERBOSE=1       print, at exit, how many calls went each way.
 *
 * Calls that must never reach StarPU go to the next BLAS whatever their size: calls made on a
 * StarPU worker thread (our own CPU codelet calls cblas_?gemm, which lands here again under
 * the preload; so do codelets of an application that runs StarPU itself), and calls re-entered
 * on one thread (a reference CBLAS implements cblas_dgemm with dgemm_; starpu_gemm_gemm may
 * call BLAS while it runs), and every call of a fork()ed child of a process where StarPU ran
 * (StarPU's threads are not in the child). The calls it routes have their arguments checked
 * here; a bad one is reported as the reference BLAS and CBLAS report it, through the
 * application's own xerbla_ or cblas_xerbla when it defines one (the reference testers do),
 * else passed on to the next BLAS, which reports it its own way (OpenBLAS prints and goes on,
 * where its reference cblas_xerbla would exit). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <glob.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <cblas.h>
#include "starpu_gemm.h"
#include "runtime/env.h"

/* The documented default threshold on a node with a GPU: 1024^3, where a DGEMM takes tens of
 * milliseconds on a CPU, well above StarPU's per-call cost of starting tasks and pinning. */
#define DEFAULT_THRESHOLD ((int64_t)1 << 30)

/* Every precision's Fortran entry point has this ABI: all by address, then the hidden lengths
 * of the two character arguments. */
typedef void (*fortran_gemm_fn)(const char *, const char *, const int *, const int *,
                                const int *, const void *, const void *, const int *,
                                const void *, const int *, const void *, void *, const int *,
                                size_t, size_t);
typedef void (*fortran_xerbla_fn)(const char *, const int *, size_t);
typedef void (*cblas_xerbla_fn)(int, const char *, const char *, ...);

/* A product in BLAS terms, as starpu_gemm_gemm and its check take it: a Fortran call, or a
 * CBLAS call as given (its layout kept apart) or as the column-major product it stands for. */
struct gemm_call {
	char transA, transB;
	int64_t m, n, k;
	const void *alpha, *A;
	int64_t lda;
	const void *B;
	int64_t ldb;
	const void *beta;
	void *C;
	int64_t ldc;
};

struct interposed {
	char letter;                   /* 's', 'd', 'c', 'z' */
	const char *fortran_name;      /* "DGEMM ": the name the reference passes to xerbla_ */
	const char *fortran_symbol;    /* "dgemm_" */
	const char *cblas_symbol;      /* "cblas_dgemm", also the name given to cblas_xerbla */
	bool is_complex;
	bool is_single;
	void (*next_cblas)(const struct interposed *, enum CBLAS_ORDER, enum CBLAS_TRANSPOSE,
	                   enum CBLAS_TRANSPOSE, const struct gemm_call *);
	fortran_gemm_fn next_fortran;  /* resolved once, in resolve() */
	void *next_cblas_fn;
	/* The application's calls only, not those of StarPU's workers or re-entered ones. */
	atomic_llong through_starpu, to_next;
};

#define NEXT_CBLAS(l)                                                                        \
	static void next_cblas_##l(const struct interposed *, enum CBLAS_ORDER,                \
	                           enum CBLAS_TRANSPOSE, enum CBLAS_TRANSPOSE,                 \
	                           const struct gemm_call *);
NEXT_CBLAS(s)
NEXT_CBLAS(d)
NEXT_CBLAS(c)
NEXT_CBLAS(z)

enum { PREC_S, PREC_D, PREC_C, PREC_Z };
#define PRECISION(l, L, complex, single) \
	[PREC_##L] = { .letter = #l[0], .fortran_name = #L "GEMM ", .fortran_symbol = #l "gemm_", \
	               .cblas_symbol = "cblas_" #l "gemm", .is_complex = complex, \
	               .is_single = single, .next_cblas = next_cblas_##l }
static struct interposed precisions[] = {
	PRECISION(s, S, false, true),
	PRECISION(d, D, false, false),
	PRECISION(c, C, true, true),
	PRECISION(z, Z, true, false),
};

/* Settings read once, under pthread_once: the application may call BLAS from many threads. */
static pthread_once_t resolved = PTHREAD_ONCE_INIT;
static int64_t threshold;      /* -1: every call to the next BLAS */
static bool verbose;

/* Nesting of interposed calls on this thread: 1 inside a call, more when re-entered. */
static __thread int depth;

/* A fork()ed child of a process where StarPU ran: StarPU's threads are not in the child, a
 * call through it would wait for ever; the child's calls go to the next BLAS (README). */
static atomic_bool forked;

static void in_child(void)
{
	if (starpu_is_initialized())
		atomic_store(&forked, true);
}

__attribute__((constructor)) static void watch_fork(void)
{
	pthread_atfork(NULL, NULL, in_child);
}

static void *next_symbol(const char *name)
{
	void *fn = dlsym(RTLD_NEXT, name);
	if (!fn) {
		fprintf(stderr, "starpu_gemm_blas: no %s after libstarpu_gemm_blas in the link "
		        "order: link or preload a BLAS that has it\n", name);
		abort();
	}
	return fn;
}

static bool node_has_gpu(void)
{
	glob_t found;
	bool any = glob("/dev/nvidia[0-9]*", 0, NULL, &found) == 0;
	globfree(&found);
	return any;
}

static void report_counts(void)
{
	long long through = 0, next = 0;
	for (size_t p = 0; p < sizeof(precisions) / sizeof(precisions[0]); p++) {
		through += atomic_load(&precisions[p].through_starpu);
		next += atomic_load(&precisions[p].to_next);
	}
	fprintf(stderr, "starpu_gemm_blas: %lld calls through starpu_gemm_gemm, %lld to the next "
	        "BLAS (threshold ", through, next);
	if (threshold < 0)
		fprintf(stderr, "unset and no GPU: every call to the next BLAS)\n");
	else
		fprintf(stderr, "%lld)\n", (long long)threshold);
}

static void resolve(void)
{
	for (size_t p = 0; p < sizeof(precisions) / sizeof(precisions[0]); p++) {
		precisions[p].next_fortran = (fortran_gemm_fn)next_symbol(precisions[p].fortran_symbol);
		precisions[p].next_cblas_fn = next_symbol(precisions[p].cblas_symbol);
	}
	/* -1 when unset or not a count (the getter says so) */
	threshold = sg_env_int(SG_ENV_GEMM_BLAS_THRESHOLD);
	if (threshold < 0)
		threshold = node_has_gpu() ? DEFAULT_THRESHOLD : -1;
	/* The same switch as starpu_gemm_gemm's per-call lines. */
	verbose = sg_env_int(SG_ENV_GEMM_VERBOSE) > 0;
	if (verbose)
		atexit(report_counts);
}

/* StarPU's worker key exists only while StarPU is initialised, so ask starpu_worker_get_id
 * only then. */
static bool on_starpu_worker(void)
{
	return starpu_is_initialized() && starpu_worker_get_id() >= 0;
}

/* Scalars compared as the reference compares them: by value, complex by both parts. */
static bool scalar_is(const struct interposed *p, const void *x, double re)
{
	int parts = p->is_complex ? 2 : 1;
	for (int i = 0; i < parts; i++) {
		double v = p->is_single ? ((const float *)x)[i] : ((const double *)x)[i];
		if (v != (i == 0 ? re : 0.0))
			return false;
	}
	return true;
}

/* Returns false when StarPU could not run the call: the caller then passes it on, so an
 * application never loses a result because StarPU failed to start. */
static bool run_starpu(struct interposed *p, const struct gemm_call *g)
{
	int ret = starpu_gemm_gemm(p->letter, g->transA, g->transB, g->m, g->n, g->k, g->alpha,
	                           g->A, g->lda, g->B, g->ldb, g->beta, g->C, g->ldc);
	if (ret == 0) {
		atomic_fetch_add(&p->through_starpu, 1);
		return true;
	}
	static atomic_flag warned = ATOMIC_FLAG_INIT;
	if (!atomic_flag_test_and_set(&warned))
		fprintf(stderr, "starpu_gemm_blas: starpu_gemm_gemm failed (%s); this and later "
		        "failing calls go to the next BLAS\n", strerror(-ret));
	return false;
}

/* What is left for an entry point to do once interpose() has seen the call: nothing, report
 * argument *info with its own numbering, or pass the call on unchanged. */
enum outcome { DONE, BAD_ARG, TO_NEXT };

/* The routing, the same for both conventions: g is the call in column-major BLAS terms. */
static enum outcome interpose(struct interposed *p, const struct gemm_call *g, int *info)
{
	if (depth > 1 || atomic_load(&forked) || on_starpu_worker())
		return TO_NEXT;
	if (threshold >= 0) {
		*info = starpu_gemm_gemm_check(p->letter, g->transA, g->transB, g->m, g->n, g->k,
		                               g->lda, g->ldb, g->ldc);
		if (*info)
			return BAD_ARG;
		/* BLAS's quick returns: C is not touched. */
		if (g->m == 0 || g->n == 0 ||
		    ((scalar_is(p, g->alpha, 0.0) || g->k == 0) && scalar_is(p, g->beta, 1.0)))
			return DONE;
		/* In 128 bits: m*n*k of int arguments overflows int64. */
		if ((__int128)g->m * g->n * g->k >= threshold && run_starpu(p, g))
			return DONE;
	}
	atomic_fetch_add(&p->to_next, 1);
	return TO_NEXT;
}

/* The program's own error handler called name (the reference testers define one), or NULL
 * when there is none or the one found is a library's (OpenBLAS's cblas_xerbla exits, where its
 * cblas_dgemm reports through xerbla_ and goes on): the call then goes to the next BLAS, which
 * reports it its own way. */
static void *own_handler(const char *name)
{
	void *handler = dlsym(RTLD_DEFAULT, name);
	Dl_info found, program;
	if (handler && dladdr(handler, &found) &&
	    dladdr((void *)getauxval(AT_ENTRY), &program) && found.dli_fbase == program.dli_fbase)
		return handler;
	return NULL;
}

/* False when the call is to go to the next BLAS instead. */
static bool fortran_xerbla(const struct interposed *p, int info)
{
	fortran_xerbla_fn xerbla = (fortran_xerbla_fn)own_handler("xerbla_");
	if (!xerbla)
		return false;
	xerbla(p->fortran_name, &info, strlen(p->fortran_name));
	return true;
}

static void fortran_gemm(struct interposed *p, const char *transA, const char *transB,
                         const int *m, const int *n, const int *k, const void *alpha,
                         const void *A, const int *lda, const void *B, const int *ldb,
                         const void *beta, void *C, const int *ldc, size_t lenA, size_t lenB)
{
	pthread_once(&resolved, resolve);
	depth++;
	struct gemm_call g = { *transA, *transB, *m, *n, *k, alpha, A, *lda, B, *ldb, beta, C, *ldc };
	int info = 0;
	switch (interpose(p, &g, &info)) {
	case BAD_ARG:
		if (fortran_xerbla(p, info))
			break;
		/* fall through - the next BLAS reports it */
	case TO_NEXT:
		p->next_fortran(transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, lenA,
		                lenB);
		break;
	case DONE:
		break;
	}
	depth--;
}

/* CBLAS transposes as BLAS letters; 0 for anything else (a call passed on keeps its own
 * values). */
static const struct { enum CBLAS_TRANSPOSE cblas; char letter; } transposes[] = {
	{ CblasNoTrans, 'N' }, { CblasTrans, 'T' }, { CblasConjTrans, 'C' },
};

static char trans_letter(enum CBLAS_TRANSPOSE trans)
{
	for (size_t t = 0; t < sizeof(transposes) / sizeof(transposes[0]); t++)
		if (transposes[t].cblas == trans)
			return transposes[t].letter;
	return 0;
}

/* The reference CBLAS checks layout and transposes itself (positions 1, 2, 3), then calls the
 * Fortran routine, whose xerbla position, plus one for the layout argument, is what
 * cblas_xerbla receives. In row-major it computes C^T = op(B)^T op(A)^T, so the Fortran
 * routine sees (B, A) and (n, m) swapped; the reference tester expects exactly that numbering
 * (its cblas_xerbla swaps 4/5 and 9/11 back), so we report the same. Layout and transposes are
 * checked here whatever the route. */
static void cblas_gemm(struct interposed *p, enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE transA,
                       enum CBLAS_TRANSPOSE transB, const struct gemm_call *c)
{
	pthread_once(&resolved, resolve);
	depth++;
	int info = order != CblasColMajor && order != CblasRowMajor ? 1 :
	           !c->transA ? 2 : !c->transB ? 3 : 0;
	struct gemm_call g = *c;
	if (order == CblasRowMajor)
		g = (struct gemm_call){ c->transB, c->transA, c->n, c->m, c->k, c->alpha, c->B,
		                        c->ldb, c->A, c->lda, c->beta, c->C, c->ldc };
	enum outcome to = BAD_ARG;
	if (!info) {
		to = interpose(p, &g, &info);
		if (to == BAD_ARG)
			info += 1;
	}
	switch (to) {
	case BAD_ARG: {
		cblas_xerbla_fn xerbla = (cblas_xerbla_fn)own_handler("cblas_xerbla");
		if (xerbla) {
			xerbla(info, p->cblas_symbol, "");
			break;
		}
	}
		/* fall through - the next BLAS reports it, given the caller's arguments */
	case TO_NEXT:
		p->next_cblas(p, order, transA, transB, c);
		break;
	case DONE:
		break;
	}
	depth--;
}

/* One definition of the eight entry points and the four typed calls to the next CBLAS:
 * CBLAS takes real scalars by value and complex ones by address. */
#define SCALAR_BY_VALUE(T, x) (*(const T *)(x))
#define SCALAR_BY_ADDRESS(T, x) (x)

#define INTERPOSE(l, L, T, SCALAR_ARG, SCALAR_PTR, SCALAR)                                  \
	void l##gemm_(const char *transA, const char *transB, const int *m, const int *n,    \
	              const int *k, const T *alpha, const T *A, const int *lda, const T *B,  \
	              const int *ldb, const T *beta, T *C, const int *ldc, size_t lenA,      \
	              size_t lenB)                                                           \
	{                                                                                    \
		fortran_gemm(&precisions[L], transA, transB, m, n, k, alpha, A, lda, B, ldb, \
		             beta, C, ldc, lenA, lenB);                                      \
	}                                                                                    \
	void cblas_##l##gemm(const enum CBLAS_ORDER order, const enum CBLAS_TRANSPOSE transA,\
	                     const enum CBLAS_TRANSPOSE transB, const int m, const int n,    \
	                     const int k, const SCALAR_ARG alpha, const T *A, const int lda, \
	                     const T *B, const int ldb, const SCALAR_ARG beta, T *C,         \
	                     const int ldc)                                                  \
	{                                                                                    \
		struct gemm_call c = { trans_letter(transA), trans_letter(transB), m, n, k,  \
		                       SCALAR_PTR(alpha), A, lda, B, ldb, SCALAR_PTR(beta), C,\
		                       ldc };                                                \
		cblas_gemm(&precisions[L], order, transA, transB, &c);                           \
	}                                                                                    \
	static void next_cblas_##l(const struct interposed *p, enum CBLAS_ORDER order,        \
	                           enum CBLAS_TRANSPOSE transA, enum CBLAS_TRANSPOSE transB, \
	                           const struct gemm_call *c)                                \
	{                                                                                    \
		void (*next)(enum CBLAS_ORDER, enum CBLAS_TRANSPOSE, enum CBLAS_TRANSPOSE,   \
		             int, int, int, const SCALAR_ARG, const T *, int, const T *, int,\
		             const SCALAR_ARG, T *, int) = p->next_cblas_fn;                 \
		next(order, transA, transB,                                                  \
		     (int)c->m, (int)c->n, (int)c->k, SCALAR(T, c->alpha), c->A, (int)c->lda,\
		     c->B, (int)c->ldb, SCALAR(T, c->beta), c->C, (int)c->ldc);              \
	}

#define ADDRESS_OF(x) (&(x))
#define SAME(x) (x)
INTERPOSE(s, PREC_S, float, float, ADDRESS_OF, SCALAR_BY_VALUE)
INTERPOSE(d, PREC_D, double, double, ADDRESS_OF, SCALAR_BY_VALUE)
INTERPOSE(c, PREC_C, void, void *, SAME, SCALAR_BY_ADDRESS)
INTERPOSE(z, PREC_Z, void, void *, SAME, SCALAR_BY_ADDRESS)
