/* The PBLAS drop-in's pieces (internal to libstarpu_gemm_scalapack): PBLAS descriptors and
 * their checks, the BLACS calls it needs, and the runtime it starts on first use. */
#ifndef SG_DOORS_SCALAPACK_H
#define SG_DOORS_SCALAPACK_H

#include <stdint.h>
#include <mpi.h>
#include "doors/redistribute.h"

/* Netlib BLACS's C interface (libscalapack ships no header for it). */
void Cblacs_gridinfo(int context, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_get(int context, int what, int *value);
MPI_Comm Cblacs2sys_handle(int system_context);
/* Cblacs_get's "what" giving the system handle of a grid's own communicator. */
#define SG_BLACS_GET_GRID_COMM 10

/* A PBLAS array descriptor of either type (1: 9 entries; 2: 11 entries with a first block
 * of its own size), as PBLAS's PB_CargFtoC reads it. */
struct sg_pblas_desc {
	int dtype, ctxt;
	struct sg_bc_axis rows, cols;  /* nprocs is filled from the grid, not the descriptor */
	int64_t lld;
};

/* The arguments of one p?gemm_ call, read once. Indices ia.. are PBLAS's (1-based). */
struct sg_pgemm_args {
	char prec, transA, transB;     /* upper case, as given */
	int64_t m, n, k;
	const void *alpha, *beta;
	void *A, *B, *C;
	int64_t ia, ja, ib, jb, ic, jc;
	struct sg_pblas_desc a, b, c;
	int nprow, npcol, myrow, mycol; /* the grid of A's context, as PBLAS takes it */
};

/* Reads desc; 0, or -EINVAL for a descriptor type PBLAS does not know. */
int sg_pblas_desc_read(const int *desc, struct sg_pblas_desc *out);

/* 1 when PBLAS would accept the call on this rank (the checks of pdgemm_ and PB_Cchkmat,
 * which depend on the rank through LLD), else 0. */
int sg_pgemm_args_valid(const struct sg_pgemm_args *g);

/* --- scalapack_runtime.c --------------------------------------------------------------- */

/* Starts StarPU and StarPU-MPI on first call (MPI must be initialised with at least
 * MPI_THREAD_SERIALIZED) and arranges their shutdown at the start of MPI_Finalize. Returns 0
 * when they run; an error stays: later calls return it at once. speak: this process says
 * why when the thread level is too low (every process has the same). */
int sg_scalapack_runtime(int speak);
/* Collective over the grid of ctxt on a first call for its set of processes: a private
 * duplicate of the grid's communicator (rank r = grid position (r / npcol, r % npcol)), kept
 * until MPI_Finalize. MPI_COMM_NULL when it cannot be had (same answer on every rank). */
MPI_Comm sg_scalapack_grid_comm(int ctxt);
/* Collective over the grid of ctxt the first time it comes: 1 when its processes read the
 * same STARPU_GEMM_SCALAPACK_THRESHOLD and _TILE, else 0 and one line from the process that
 * speaks naming the variable and each process's value (its calls then go to ScaLAPACK). The
 * same answer on every process of the grid, kept for its later calls. */
int sg_scalapack_grid_agrees(int ctxt, int speak);
/* Local, the same answer on every process of the grid: 0 when the grid leaves processes of
 * MPI_COMM_WORLD out and StarPU-MPI is not running yet (its start is collective over all of
 * them), with one warning per grid from the process that speaks. */
int sg_scalapack_grid_can_start(int ctxt, int speak);

/* --- scalapack_tiles.c ------------------------------------------------------------------ */

/* Collective over comm: the descriptors of A, B and C of a call (shape[x]: rows and columns as
 * stored), dealt 2D block-cyclically on P x Q: the previous call's when every rank still holds
 * them for the same shapes, precision, tile and communicator, else new ones. 0, or an error
 * agreed by every rank. */
int sg_scalapack_descs(struct starpu_gemm_desc *desc[3], char prec, const int64_t shape[3][2],
                       int tile, int P, int Q, MPI_Comm comm);
/* Collective: packing buffers for the plans of a call. 0, or -ENOMEM on every rank. */
int sg_scalapack_scratch(struct sg_redist_scratch **scratch, const struct sg_redist *plans,
                         int nplans);
/* After the call: descriptors and buffers kept for the next one (unless failed or
 * STARPU_GEMM_SCALAPACK_KEEP=0). */
void sg_scalapack_descs_done(int failed);
/* Destroys what is kept (before StarPU stops). */
void sg_scalapack_descs_drop(void);

/* Settings from the environment, read once. */
int64_t sg_scalapack_threshold(void);  /* STARPU_GEMM_SCALAPACK_THRESHOLD */
int sg_scalapack_verbose(void);        /* STARPU_GEMM_VERBOSE */
int sg_scalapack_keep(void);           /* STARPU_GEMM_SCALAPACK_KEEP (default 1) */
int sg_scalapack_tile_setting(void);  /* STARPU_GEMM_SCALAPACK_TILE, 0 when unset */
int sg_scalapack_threads(void);       /* STARPU_GEMM_SCALAPACK_THREADS (see the .c) */

#endif
